"""Cases for jax.experimental.jet, evaluated by real JAX (reference/make_jet_reference.py writes
jet_reference.npz and jet_reference.json) and by jxkernel (tests/api/test_jet.py compares
values, dtypes and weak types, and the printed jaxprs and errors).

Each case is the jet of a one-argument function at x (three points) along the path with
derivatives (1, 1/2, 1/4, 1/8): `jet` eagerly, as users call it, so each primitive's rule is
one compiled program on both sides (JAX's jnp functions are jits, whose rule compiles the jet
of their body; api/jet.py does the same for each rule). Every case shares the operands' shape,
so a rule compiles once. 64-bit mode runs a few cases: the dtypes, not every rule again."""
import numpy as np


def unary(jax, jnp, lax):
    """{name: f} for one array argument of shape (3,) with values in (0.3, 1.2)."""
    special = jax.scipy.special
    return {
        "sin": jnp.sin, "cos": jnp.cos, "sinh": jnp.sinh, "cosh": jnp.cosh, "tanh": jnp.tanh,
        "exp": jnp.exp, "log": jnp.log, "expm1": jnp.expm1, "log1p": jnp.log1p,
        "sqrt": jnp.sqrt, "rsqrt": lax.rsqrt, "square": jnp.square,
        "logistic": jax.nn.sigmoid, "erf": special.erf, "erfc": special.erfc,
        "erf_inv": lambda x: special.erfinv(x / 2),
        "asinh": jnp.arcsinh, "acosh": lambda x: jnp.arccosh(x + 1), "atanh": lambda x: jnp.arctanh(x / 2),
        "pow": lambda x: x ** 2.5, "pow_both": lambda x: x ** x,
        "integer_pow": lambda x: x ** 3, "integer_pow_neg": lambda x: lax.integer_pow(x, -2),
        "integer_pow_0": lambda x: lax.integer_pow(x, 0),
        "div": lambda x: 1 / x, "div_both": lambda x: jnp.sin(x) / (1 + x),
        "atan2": lambda x: jnp.arctan2(x, 1 + x), "rem": lambda x: jnp.remainder(3 * x, 0.5),
        "mul": lambda x: jnp.exp(x) * x, "dot": lambda x: jnp.dot(x, x) * x,
        "max": lambda x: jnp.maximum(x, 0.7), "min": lambda x: jnp.minimum(x, jnp.full(3, 0.7)),
        "clamp": lambda x: lax.clamp(jnp.full(3, 0.5), x, jnp.full(3, 1.0)), "abs": lambda x: jnp.abs(x - 0.5),
        "select": lambda x: jnp.where(x > 0.5, x ** 2, jnp.exp(x)),
        "cumsum": jnp.cumsum, "cumprod": jnp.cumprod, "cummax": lambda x: lax.cummax(x[::-1]),
        "cummin": lambda x: lax.cummin(x),
        "reduce_max": jnp.max, "reduce_min": lambda x: jnp.min(jnp.sin(x)),
        "sum": lambda x: jnp.sum(jnp.sin(x)),
        "gather": lambda x: x[jnp.array([2, 0, 1])] * x,
        "dynamic_slice": lambda x: lax.dynamic_slice(jnp.exp(x), (1,), (2,)),
        "dynamic_update_slice": lambda x: lax.dynamic_update_slice(x, jnp.sin(x[:1]), (2,)),
        "scatter_add": lambda x: jnp.zeros(4).at[jnp.array([0, 2, 2])].add(x ** 2),
        "shapes": lambda x: jnp.concatenate([x[::-1], jnp.pad(x, (1, 2))]).reshape(3, 3).T[1:],
        "split": lambda x: [a * b for a, b in zip(jnp.split(jnp.concatenate([x, x]), 2),
                                                  (jnp.sin(x), jnp.cos(x)))],
        "convert": lambda x: jnp.sin(x.astype(jnp.float16)).astype(jnp.float32),
        "jit": jax.jit(lambda x: jnp.sin(x) * jnp.exp(x)),
        "logsumexp": jax.nn.logsumexp,
        "gelu": jax.nn.gelu,
        "compare_and_round": lambda x: jnp.floor(4 * x) + (x > 0.6) * x,
        "stop_gradient": lambda x: lax.stop_gradient(x) * x,
        "pytree": lambda x: {"a": jnp.sin(x), "b": (x * 2, jnp.sum(x))},
    }


X64_CASES = ("sin", "exp", "div_both", "mul", "jit")


def operands(dtype=np.float32):
    return {"x": np.array([0.3, 0.7, 1.2], dtype),
            "terms": [np.full(3, c, dtype) for c in (1.0, 0.5, 0.25, 0.125)]}


def cases(jax, jet, x64=False):
    """{case name: pytree of results} for one mode (jet: the jax.experimental.jet-like
    module)."""
    jnp, lax = jax.numpy, jax.lax
    ops = operands(np.float64 if x64 else np.float32)
    x, terms = jnp.asarray(ops["x"]), [jnp.asarray(t) for t in ops["terms"]]
    out = {}
    for name, f in unary(jax, jnp, lax).items():
        if x64 and name not in X64_CASES:
            continue
        out[name] = jet.jet(f, (x,), (terms,))
    out["order_1"] = jet.jet(jnp.tanh, (x,), (terms[:1],))
    out["unscaled"] = jet.jet(lambda x: jnp.sin(x) * x, (x,), (terms,), factorial_scaled=False)
    out["two_args"] = jet.jet(lambda a, b: jnp.sin(a) * b + a / b, (x, x[::-1]),
                              (terms, terms[::-1]))
    out["python_scalars"] = jet.jet(jnp.sin, (0.125,), ((0.75, 3.0),))
    out["jitted"] = jax.jit(lambda x, t: jet.jet(lambda y: jnp.log1p(jnp.exp(y)) * y, (x,),
                                                 (t,)))(x, terms)
    out["vmapped"] = jax.vmap(lambda x: jet.jet(jnp.sin, (x,), ((x, 2 * x),)))(x)
    out["grad_of_jet"] = jax.grad(lambda x: jet.jet(jnp.exp, (x,), ((1.0, x),))[1][1])(x[1])
    return out


def run(jax):
    """What JAX prints and raises (reference/make_jet_reference.py records it as JSON)."""
    import importlib
    # (by name from the module passed in: tests/ never import jax)
    jet = importlib.import_module(f"{jax.__name__}.experimental.jet").jet
    jnp, lax = jax.numpy, jax.lax
    out = {"jaxprs": {
        "sin_times_x": str(jax.make_jaxpr(
            lambda x: jet(lambda y: jnp.sin(y) * y, (x,), ((1.0, 2.0),)))(0.5)),
        "jit_unscaled": str(jax.make_jaxpr(
            lambda x: jet(jax.jit(jnp.exp), (x,), ((x,),), factorial_scaled=False))(0.5)),
    }, "errors": {}}
    attempts = {
        "no_rule": lambda: jet(jnp.tan, (0.5,), ((1.0, 2.0),)),
        "no_rule_cond": lambda: jet(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x), (0.5,),
                                    ((1.0,),)),
        "lengths": lambda: jet(lambda a, b: a * b, (0.5, 1.0), ((1.0, 2.0), (1.0,))),
        "primal_tree": lambda: jet(lambda a: a, ((0.5, 1.0),), ((1.0,),)),
        "term_tree": lambda: jet(lambda a: a, (0.5,), (((1.0, 2.0),),)),
    }
    for name, attempt in attempts.items():
        try:
            attempt()
            out["errors"][name] = None
        except Exception as e:            # noqa: BLE001 (recorded as JAX raised it)
            out["errors"][name] = [type(e).__name__, str(e)]
    return out


# Bounds in ulps of each result's dtype, at the largest magnitude of the case's result. The
# coefficients are sums of products of the lower ones (each rule one compiled program on both
# sides), scaled in and out by n! = exp(lgamma(n + 1)) as JAX computes it, whose last bits move
# with XLA's compile options (in float64, lgamma(2.) is 0 at XLA's default code and 8.9e-16
# with the suite's, no FMA contraction): every coefficient moves by a few ulps, and the higher
# orders of the compositions (pow and asinh through log and exp, logsumexp, a quotient's
# third order) by more. Measured with the suite's options on this CPU: at most 48 ulps in
# float32 (logsumexp's fourth order) and 51 in float64 (div_both's third); at XLA's default
# level (JAX_DISABLE_MOST_OPTIMIZATIONS=0) logsumexp's fourth order moves to 144 in float32;
# 192 covers both levels and another CPU. A wrong rule is off by far more (a coefficient of
# the wrong order, a sign).
#
# "convert" takes the series through float16 (sin of x.astype(float16)): its coefficients have
# float16's precision, 2**13 float32 ulps each, and XLA's CPU rounds float16 arithmetic
# where the processor has it (AVX512-FP16, as on Sapphire Rapids) otherwise than by way of
# float32: there the fourth coefficient came out 0.75 of a float16 ulp from JAX's recorded
# one. 8 float16 ulps; a wrong rule is off by a whole coefficient.
def ulps(name: str) -> int:
    return 8 * 2 ** 13 if name == "convert" else 192
