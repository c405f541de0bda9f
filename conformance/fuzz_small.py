"""The differential fuzzer's small generator: programs of one call among ~100 jax.numpy
functions (elementwise, along an axis, reshaping), under one of ten transformations (jit, vmap,
grad, jvp, jacrev, hessian and their mixes). conformance/fuzz.py runs and compares them
(``python -m conformance.fuzz``, its default ``--generator small``); conformance/fuzz_wide.py
draws from many more functions under fewer transformations.
"""
import random

DTYPES = ("float32", "float32", "float32", "int32", "bool", "uint8")
UNARY = ("sin", "cos", "tanh", "exp", "log1p", "abs", "negative", "sqrt", "square", "floor",
         "sign", "exp2", "arctan", "sinh", "reciprocal", "cbrt", "round", "isfinite",
         "logical_not", "positive", "rint", "expm1", "deg2rad")
BINARY = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "arctan2", "hypot",
          "logaddexp", "power", "equal", "less", "floor_divide", "remainder", "copysign",
          "true_divide", "fmax", "nextafter", "bitwise_and", "left_shift")
AXIS = ("sum", "mean", "max", "min", "prod", "var", "std", "argmax", "argmin", "any", "all",
        "cumsum", "cumprod", "nancumsum", "sort", "argsort", "flip", "diff", "nanmean",
        "median", "ptp", "count_nonzero", "expand_dims", "squeeze")
SHAPE = ("ravel({0})", "transpose({0})", "reshape({0}, (-1,))", "concatenate([{0}, {0}])",
         "stack([{0}, {0}], axis=-1)", "tile({0}, 2)", "repeat({0}, 2)", "clip({0}, -0.5, 0.5)",
         "where({0} > 0, {0}, 0)", "roll({0}, 1)", "triu({0})", "trace({0})", "diagonal({0})",
         "matmul({0}, {1})", "dot({0}, {1})", "outer({0}, {1})", "atleast_2d({0})",
         "swapaxes({0}, 0, -1)", "take({0}, jnp.array([0, -1]))", "cumsum({0})",
         "linalg.norm({0})", "einsum('...i,...i->...', {0}, {1})", "pad({0}, 1)",
         "meshgrid({0}, {1})[0]", "unique_values({0}, size=3, fill_value=0)",
         "logsumexp({0})", "nan_to_num({0} / 0)", "isclose({0}, {1})", "searchsorted({0}, {1})")
TRANSFORMS = ("{f}", "{f}", "jax.jit({f})", "jax.jit({f})", "jax.vmap({f})",
              "jax.grad(lambda *a: jnp.sum({f}(*a)).astype(jnp.float32))",
              "lambda *a: jax.jvp({f}, a, a)", "jax.jacrev({f})",
              "jax.hessian(lambda *a: jnp.sum({f}(*a)))", "jax.jit(jax.vmap({f}))")


def program(seed: int) -> dict:
    """One random program: its expression and the avals of its inputs.

    >>> program(0)["source"]            # doctest: +SKIP
    'jax.jit(lambda *a: jnp.sum(a[0], axis=1))(*A)'
    """
    r = random.Random(seed)
    ndim = r.choice((0, 1, 1, 2, 2, 3))
    shape = tuple(r.choice((1, 2, 3, 4, 0) if r.random() < 0.1 else (1, 2, 3, 4))
                  for _ in range(ndim))
    dtype = r.choice(DTYPES)
    kind = r.choice(("unary", "binary", "axis", "axis", "shape"))
    if kind == "unary":
        body, arity = f"jnp.{r.choice(UNARY)}(a[0])", 1
    elif kind == "binary":
        body, arity = f"jnp.{r.choice(BINARY)}(a[0], a[1])", 2
    elif kind == "axis":
        axis = r.choice((None, 0, -1, 1, ndim, -ndim - 1)) if ndim else r.choice((None, 0, -1))
        name = r.choice(AXIS)
        body, arity = f"jnp.{name}(a[0]{'' if axis is None else f', axis={axis}'})", 1
    else:
        template = r.choice(SHAPE)
        body = ("jnp." + template.format("a[0]", "a[1]")).replace(
            "jnp.logsumexp", "jax.scipy.special.logsumexp")
        arity = 2 if "{1}" in template else 1
    second = shape if r.random() < 0.8 or not shape else shape[1:]      # broadcasting too
    f = f"lambda *a: {body}"
    source = f"({r.choice(TRANSFORMS).format(f=f'({f})')})(*A)"
    return {"seed": seed, "source": source,
            "inputs": [(list(shape), dtype), (list(second), dtype)][:arity]}


# Differences jxkernel makes on purpose: (why, predicate on the program's source and JAX's
# and jxkernel's results)
DELIBERATE = [
    ("nextafter has a derivative in jxkernel (d/dx = 1, d/dy = 0; so jnp.spacing's is 0); "
     "JAX has no rule and raises",
     lambda source, want, got: "nextafter" in want.get("message", "") and "error" not in got),
]
