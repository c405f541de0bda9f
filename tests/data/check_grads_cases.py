"""check_grads cases run the same way on real JAX 0.10.2 (reference/make_check_grads_reference.py)
and on jxkernel (tests/jax_compat/test_check_grads.py): `cases(jax, check_grads, rand_like, numerical_jvp)`
gives {name: value}, a value being a list of arrays (tangents, numerical JVPs) or, for a
check_grads outcome, "pass" or the check's label from its AssertionError ("JVP tangent", ...)."""
import numpy as np


def _outcome(run):
    try:
        run()
    except AssertionError as e:
        # JAX's message: "\nNot equal to tolerance rtol=.., atol=..\n<label>\n..."
        return str(e).split("\n")[2]
    return "pass"


def cases(jax, check_grads, rand_like, numerical_jvp):
    jnp = jax.numpy
    out = {}
    x32 = np.linspace(0.1, 1.0, 5, dtype=np.float32)
    z64 = np.array([0.3 + 0.2j, -0.5 + 1.0j], np.complex64)
    # JAX's tangents: RandomState(0) standard normals, leaf by leaf, real then imaginary part
    rng = np.random.RandomState(0)
    tangents = [rand_like(rng, a) for a in (x32, 0.5, z64)]
    out["tangents"] = [np.asarray(t) for t in tangents]
    out["numerical sin"] = [np.asarray(numerical_jvp(jnp.sin, (x32,), (tangents[0],)))]
    two = numerical_jvp(lambda x, y: x * jnp.exp(y), (x32, 0.5), tuple(tangents[:2]), eps=1e-3)
    out["numerical x*exp(y), eps 1e-3"] = [np.asarray(two)]
    out["numerical z*z complex64"] = [np.asarray(numerical_jvp(lambda z: z * z, (z64,),
                                                               (tangents[2],)))]
    # the span: the central difference of x**3 at 0 along t is eps**2 t**3 (JAX's span x +- eps),
    # 0.055 for eps 0.1 and JAX's first tangent 1.764, where the JVP is 0
    cube = lambda x: x ** 3
    zero = (np.zeros((), np.float32),)
    out["cube eps 0.1 tol 0.03"] = _outcome(
        lambda: check_grads(cube, zero, 1, eps=0.1, atol=0.03, rtol=0.03))
    out["cube eps 0.1 tol 0.1"] = _outcome(
        lambda: check_grads(cube, zero, 1, eps=0.1, atol=0.1, rtol=0.1))
    out["sin order 2"] = _outcome(lambda: check_grads(jnp.sin, (x32,), 2))
    out["complex z*z order 2"] = _outcome(
        lambda: check_grads(lambda z: z * z, (z64,), 2))

    @jax.custom_jvp
    def bad_sin(x):
        return jnp.sin(x)
    bad_sin.defjvp(lambda p, t: (jnp.sin(p[0]), 1.05 * jnp.cos(p[0]) * t[0]))
    out["jvp 5% off, fwd"] = _outcome(lambda: check_grads(bad_sin, (x32,), 1,
                                                                     modes=("fwd",)))
    out["jvp 5% off, rev"] = _outcome(lambda: check_grads(bad_sin, (x32,), 1,
                                                                     modes=("rev",)))
    # second order only: the JVP's own derivative is 5% off
    @jax.custom_jvp
    def bad_cos(x):
        return jnp.cos(x)
    bad_cos.defjvp(lambda p, t: (jnp.cos(p[0]), -1.05 * jnp.sin(p[0]) * t[0]))
    good_sin = jax.custom_jvp(lambda x: jnp.sin(x))
    good_sin.defjvp(lambda p, t: (jnp.sin(p[0]), bad_cos(p[0]) * t[0]))
    out["second derivative 5% off, order 1"] = _outcome(
        lambda: check_grads(good_sin, (x32,), 1))
    out["second derivative 5% off, order 2"] = _outcome(
        lambda: check_grads(good_sin, (x32,), 2))
    return out
