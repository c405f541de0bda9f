"""Formulas and equation orders of a few rules, run alike by real JAX
(reference/make_rule_formulas_reference.py records rule_formulas_reference.json) and by
jxkernel (tests/lax/test_rule_formulas.py): `run(jax)` returns plain JSON data, make_jaxpr's
text and values at edge points.

    run(jax)["acosh"]["lax_jaxpr_float32"]  ->  "{ lambda ; a:f32[3] b:f32[3]. let ..."
"""
import numpy as np

# acosh's derivative at the ends of its domain and around it (1, just above 1, where x**2
# overflows, inf, below 1, NaN), and complex points (on the cut, large, just off the axis:
# (1+1e-8j)**2 - 1 is where chlo.square's (re - im) * (re + im) shows)
ACOSH_POINTS = [1.0, 1.0 + 2**-23, 1.0 + 2**-20, 1.001, 1.5, 2.0, 10.0, 1e10, 1e19, 2e19,
                1e30, 3e38, np.inf, 0.5, -2.0, np.nan]
ACOSH_COMPLEX_POINTS = [1 + 0j, 2 + 0j, 0.5 + 0.5j, -2 + 1j, 1j, -1 + 0j, 1e20 + 1e20j,
                        1 + 1e-8j]


def _parts(values) -> list:
    """[re, im] per value (JSON has no complex numbers; repr keeps nan and inf)."""
    return [[repr(float(v.real)), repr(float(v.imag))] for v in np.asarray(values)]


def acosh(jax):
    """jax.jvp of jnp.arccosh and lax.acosh: the jaxprs (float32, complex64), the gradient at
    ACOSH_POINTS in float32 and float64, the JVP at ACOSH_COMPLEX_POINTS in complex64 and
    complex128, and lax.square of a complex value (chlo.square's formula)."""
    jnp, lax = jax.numpy, jax.lax
    out = {}
    for dt in ("float32", "complex64"):
        x = np.full(3, 2, dt)
        out["jaxpr_" + dt] = str(jax.make_jaxpr(
            lambda x, t: jax.jvp(jnp.arccosh, (x,), (t,)))(x, x))
        out["lax_jaxpr_" + dt] = str(jax.make_jaxpr(
            lambda x, t: jax.jvp(lax.acosh, (x,), (t,)))(x, x))
    for real, complex_ in (("float32", "complex64"), ("float64", "complex128")):
        with jax.enable_x64(real == "float64"):
            x = jnp.asarray(np.array(ACOSH_POINTS, real))
            out["grad_" + real] = _parts(jax.vmap(jax.grad(jnp.arccosh))(x))
            z = jnp.asarray(np.array(ACOSH_COMPLEX_POINTS, complex_))
            out["jvp_" + complex_] = _parts(jax.jvp(jnp.arccosh, (z,), (jnp.ones_like(z),))[1])
            out["square_" + complex_] = _parts(lax.square(z))
    return out


def where(jax):
    """make_jaxpr of jnp.where for scalar/array mixes (jit[name=_where]: promote, broadcast,
    select_n; an empty result is x, y's broadcast left dead as in JAX's), under grad, jvp and
    vmap, and functions built on it."""
    jnp = jax.numpy
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3) - 2
    r, e = np.arange(3.0, dtype=np.float32), np.zeros((0, 3), np.float32)
    c, row_c = a > 0, np.array([True, False, True])
    programs = {
        "arrays": (lambda c, x, y: jnp.where(c, x, y), c, a, a),
        "array_scalar": (lambda c, x: jnp.where(c, x, 0.0), c, a),
        "scalar_array": (lambda c, y: jnp.where(c, 1.0, y), c, a),
        "scalars": (lambda c: jnp.where(c, 1.0, 0.0), c),
        "int_scalars": (lambda c: jnp.where(c, 1, 0), c),
        "row": (lambda c, x: jnp.where(c, x, 0.0), c, r),
        "row_condition": (lambda c, x: jnp.where(c, x, 0.0), row_c, a),
        "python_condition": (lambda x, y: jnp.where(True, x, y), a, a),
        "scalar_condition": (lambda p, x, y: jnp.where(p, x, y), np.bool_(True), a, a),
        "float_condition": (lambda x: jnp.where(x, 1.0, x), a),
        "mixed_dtypes": (lambda c, x, y: jnp.where(c, x, y), c, a, a.astype(np.int32)),
        "complex_scalar": (lambda x: jnp.where(x > 0, x, 1j), a),
        "broadcast_both": (lambda c, x, y: jnp.where(c, x, y), np.ones((2, 1), bool),
                           np.ones((1, 3), np.float32), np.float32(2)),
        "empty": (lambda c, x: jnp.where(c, x, 0.0), e > 0, e),
        "empty_row": (lambda c, x, y: jnp.where(c, x, y), e > 0, e, r),
        "grad": (jax.grad(lambda x: jnp.where(x > 0, x, 0.0).sum()), a),
        "grad_scalar_case": (jax.grad(lambda s: jnp.where(a > 0, a, s).sum()), np.float32(1)),
        "jvp": (lambda x: jax.jvp(lambda x: jnp.where(x > 0, x, 0.0), (x,), (x,)), a),
        "vmap": (jax.vmap(lambda c, x: jnp.where(c, x, 0.0)), c, a),
        "vmap_per_example_condition": (jax.vmap(lambda x: jnp.where(x.sum() > 0, x, 0.0)), a),
        "nan_to_num": (jnp.nan_to_num, a),
        "select": (lambda x: jnp.select([x > 0, x < -1], [x, -x], 7.0), a),
    }
    return {name: str(jax.make_jaxpr(f)(*args)) for name, (f, *args) in programs.items()}


def scan_zero_carry(jax):
    """A scan's zero carry tangent (an init with no tangent, made real since the carry's
    tangent is not zero after a step): make_jaxpr of jvp (before the scan, its operand) and of
    grad (staged with the tangent computation, after the forward scan); for linearize, its
    top-level primitives in order (JAX's tangent scan also drops an unused ys tangent)."""
    jnp, lax = jax.numpy, jax.lax
    xs = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    k0 = np.zeros(3, np.float32)

    def body(k, x):
        return k + x * 2.0, k.sum()

    def scan(xs):
        return lax.scan(body, k0, xs)
    programs = {
        "jvp_xs": (lambda xs, t: jax.jvp(scan, (xs,), (t,)), xs, xs),
        "jvp_carry_and_xs": (lambda k, xs: jax.jvp(lambda k, xs: lax.scan(body, k, xs),
                                                   (k, xs), (k, xs)), k0, xs),
        "jvp_carry": (lambda k, t: jax.jvp(lambda k: lax.scan(body, k, xs), (k,), (t,)), k0, k0),
        "jvp_two_carries": (lambda xs, t: jax.jvp(lambda xs: lax.scan(
            lambda c, x: ((c[0] + x, c[1] * 2.0), x), (k0, jnp.ones(3)), xs), (xs,), (t,)),
            xs, xs),
        "grad_xs": (jax.grad(lambda xs: scan(xs)[0].sum()), xs),
        "grad_zeros_init": (jax.grad(lambda xs: lax.scan(lambda k, x: (k + x, None),
                                                         jnp.zeros(3), xs)[0].sum()), xs),
    }
    out = {name: str(jax.make_jaxpr(f)(*args)) for name, (f, *args) in programs.items()}
    applied = jax.make_jaxpr(lambda xs: jax.linearize(lambda xs: scan(xs)[0], xs)[1](xs))(xs)
    out["linearize_order"] = [e.primitive.name for e in applied.jaxpr.eqns]
    return out


def run(jax):
    return {"acosh": acosh(jax), "where": where(jax), "scan_zero_carry": scan_zero_carry(jax)}
