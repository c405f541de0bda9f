"""A custom_vjp with an integer input and an integer output: what bwd receives as that
output's cotangent (JAX 0.10.2: float0 zeros of its shape, under jit a float0 value too) and
what becomes of what bwd returns for the integer input (dropped unchecked: the cotangent is
float0 whatever bwd gave). `run(jax)` -> {case: a JSON-able description}."""
import numpy as np


def _describe(x):
    """dtype name ("float0" for JAX's tangent type of integers) and shape of a value."""
    dtype = np.dtype(x.dtype)
    return ["float0" if dtype.names == ("float0",) else dtype.name, list(np.shape(x))]


def run(jax):
    jnp = jax.numpy
    out = {}

    # what bwd receives for the integer output n's cotangent
    @jax.custom_vjp
    def pair(x, n):
        return x * 2.0, n

    def pair_fwd(x, n):
        return pair(x, n), None

    seen = []

    def pair_bwd(_, g):
        gx, gn = g
        seen.append(_describe(gn))
        return gx * 2.0, None

    pair.defvjp(pair_fwd, pair_bwd)
    for name, call in {
            "received_eager": lambda: jax.grad(lambda x: pair(x, 3)[0])(1.0),
            "received_jit": lambda: jax.jit(jax.grad(lambda x: pair(x, jnp.arange(3))[0]))(1.0),
            "received_vector": lambda: jax.grad(lambda x: pair(x, jnp.arange(3))[0])(1.0)}.items():
        seen.clear()
        result = call()
        out[name] = {"bwd_got": seen[0], "grad": float(result)}

    # what bwd may return for the integer input n
    returns = {"none": lambda n: None,
               "float0": lambda n: np.zeros(np.shape(n), jax.dtypes.float0),
               "int_zeros": lambda n: jnp.zeros_like(n),
               "float_ones": lambda n: jnp.ones(np.shape(n), jnp.float32),
               "wrong_shape_int": lambda n: jnp.ones((4,), jnp.int32),
               "wrong_shape_float0": lambda n: np.zeros((2,), jax.dtypes.float0),
               "a_string": lambda n: "abc"}
    for name, make in returns.items():
        @jax.custom_vjp
        def scale(x, n):
            return x * n

        def scale_fwd(x, n):
            return x * n, n

        def scale_bwd(n, g, make=make):
            return g * n, make(n)

        scale.defvjp(scale_fwd, scale_bwd)
        for how, call in {"vjp": lambda: jax.vjp(scale, 3.0, 2)[1](jnp.float32(1.0)),
                          "jit_vjp": lambda: jax.jit(
                              lambda a, b: jax.vjp(scale, a, b)[1](jnp.float32(1.0)))(3.0, 2)
                          }.items():
            try:
                cx, cn = call()
                out[f"returns_{name}_{how}"] = {"x": float(cx), "n": _describe(cn)}
            except Exception as e:
                out[f"returns_{name}_{how}"] = {"error": type(e).__name__, "message": str(e)}
    return out
