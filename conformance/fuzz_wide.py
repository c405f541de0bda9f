"""The differential fuzzer's wide generator (`python -m conformance.fuzz --generator wide`):
where conformance/fuzz_small.py draws from ~100 calls and many transformations, this one
draws from ~300 -- 46 unary and 37 binary jnp functions (71 of them not in the small one), 219
templates of calls that take an axis or a size, of jnp, lax, jax.nn, jax.scipy,
jnp.linalg and jnp.fft -- under fewer transformations, on float16 inputs too, with axes in
and out of bounds. Its programs have the small generator's form (one expression over
``A[0]``, ``A[1]``; inputs from the seed), so fuzz.py runs and compares them; DELIBERATE
lists where jxkernel differs from JAX on purpose.

A stop-104 probe of this kind (never committed) found the axis gaps
tests/data/axis_edges_cases.py records; this is that probe kept, so each stop can rerun it.
"""
import random
import re

from conformance import fuzz_small

# Names called as jnp.NAME(a[0]): beyond fuzz_small.UNARY, the inverse and complex-part
# functions, integer-only ones (invert, bitwise_count) that must refuse floats as JAX does,
# and ones with more than one output (frexp, modf) whose tuples compare leaf by leaf.
UNARY = ("arcsin arccos arccosh arcsinh arctanh log log2 log10 exp expm1 sinc i0 fix trunc ceil "
         "signbit spacing frexp modf isnan isinf real imag conj angle fabs sign invert "
         "logical_not bitwise_count nan_to_num around isreal iscomplex sort_complex "
         "positive square cbrt rad2deg degrees radians exp2 log1p tan sinh cosh").split()

# Called as jnp.NAME(a[0], a[1]): elementwise ones, and set and polynomial functions that take
# only 1-D arrays (their refusals of other ranks are compared by class).
BINARY = ("heaviside gcd lcm ldexp float_power logaddexp2 mod fmod divmod right_shift "
          "bitwise_or bitwise_xor logical_and logical_or logical_xor greater_equal not_equal "
          "fmin polyval convolve correlate kron vdot inner cross allclose array_equal isclose "
          "union1d intersect1d setdiff1d setxor1d isin digitize bitwise_left_shift hypot "
          "subtract").split()

# Templates over one array {0} and an axis or count {ax} (0, 1, 2, -1, ndim, -ndim - 1: in
# and out of bounds), written after "jnp.".
JNP_AXIS = (
    "split({0}, 1, axis={ax})", "array_split({0}, 2, axis={ax})",
    "take_along_axis({0}, jnp.zeros({0}.shape, int), axis={ax})", "roll({0}, 1, axis={ax})",
    "delete({0}, 0, axis={ax})", "insert({0}, 0, 1, axis={ax})", "repeat({0}, 2, axis={ax})",
    "compress(jnp.array([True, False]), {0}, axis={ax})", "partition({0}, 0, axis={ax})",
    "argpartition({0}, 0, axis={ax})", "moveaxis({0}, {ax}, 0)", "swapaxes({0}, {ax}, 0)",
    "unique({0}, axis={ax}, size=2, fill_value=0)", "percentile({0}, 50, axis={ax})",
    "quantile({0}, 0.5, axis={ax})", "average({0}, axis={ax})", "trapezoid({0}, axis={ax})",
    "gradient({0}, axis={ax})", "nanmax({0}, axis={ax})", "nanmin({0}, axis={ax})",
    "nanargmax({0}, axis={ax})", "nanstd({0}, axis={ax})", "nanvar({0}, axis={ax})",
    "nanprod({0}, axis={ax})", "nancumprod({0}, axis={ax})",
    "cumulative_sum({0}, axis={ax})", "cumulative_prod({0}, axis={ax})",
    "expand_dims({0}, {ax})", "squeeze({0}, {ax})", "flip({0}, {ax})",
    "diagonal({0}, 0, 0, {ax})", "trace({0}, 0, 0, {ax})",
    "concatenate([{0}, {0}], axis={ax})", "stack([{0}, {0}], axis={ax})",
    "take({0}, jnp.array([0]), axis={ax})", "apply_along_axis(jnp.sum, {ax}, {0})",
    "linalg.norm({0}, axis={ax})", "fft.fft({0}, axis={ax})", "fft.rfft({0}, axis={ax})",
    "nanmedian({0}, axis={ax})", "argsort({0}, axis={ax}, descending=True)",
    "sort({0}, axis={ax}, stable=False)", "ediff1d({0})", "count_nonzero({0}, axis={ax})",
    "cumsum({0}, axis={ax}, dtype=jnp.int32)", "sum({0}, axis={ax}, keepdims=True)",
    "max({0}, axis={ax}, initial=0)", "min({0}, axis={ax}, where={0} > 0, initial=5)",
    "mean({0}, axis={ax}, where={0} > 0)", "var({0}, axis={ax}, ddof=1)",
    "std({0}, axis={ax}, correction=1)", "rot90({0}, 1, (0, {ax}))",
    "tensordot({0}, {0}, axes={ax})", "split({0}, [1], axis={ax})", "pad({0}, ((1, 0),))",
    "atleast_3d({0})", "broadcast_to({0}, (2,) + {0}.shape)", "resize({0}, (5,))",
    "tile({0}, (2, 1))", "block([{0}, {0}])", "column_stack([{0}, {0}])",
    "vstack([{0}, {0}])", "hstack([{0}, {0}])", "dstack([{0}, {0}])",
    "tril({0}, {ax})", "triu({0}, {ax})", "diag({0}, {ax})", "diagflat({0}, {ax})",
    "fliplr({0})", "flipud({0})", "argwhere({0}, size=2)", "nonzero({0}, size=2)",
    "flatnonzero({0}, size=2)", "histogram({0}, bins=3)[0]",
    "bincount(jnp.abs({0}).astype(int).ravel(), length=5)",
    "searchsorted(jnp.sort({0}.ravel()), 0.5, side='right')",
    "interp({0}, jnp.arange(3.), jnp.arange(3.))", "lexsort([{0}.ravel(), {0}.ravel()])",
    "packbits({0} > 0, axis={ax})", "unpackbits(jnp.abs({0}).astype(jnp.uint8), axis={ax})",
    "cov({0})", "corrcoef({0})", "polyfit(jnp.arange(3.), jnp.arange(3.), {ax})",
    "polyder(jnp.arange(4.), {ax})", "select([{0} > 0], [{0}], 7)",
    "piecewise({0}, [{0} > 0], [1, 0])", "choose(jnp.zeros({0}.shape, int), [{0}, {0}])",
    "extract({0} > 0, {0}, size=2)", "place({0}, {0} > 0, 3., inplace=False)",
    "put({0}, jnp.array([0]), 3., inplace=False)", "matrix_transpose({0})",
    "vecdot({0}, {0}, axis={ax})", "linalg.vector_norm({0}, axis={ax})",
    "linalg.matrix_norm({0})", "einsum('i...->...', {0})", "outer({0}, {0}).sum()",
    "astype({0}, jnp.int8)", "round({0}, {ax})", "clip({0}, min={ax})", "copysign({0}, -1)",
    "ldexp({0}, 2)", "frexp({0})[1]", "nanpercentile({0}, 50, axis={ax})",
    "ravel_multi_index(({0}.astype(int) % 2,), (2,), mode='wrap')",
    "unravel_index(jnp.abs({0}).astype(int), (2, 3))[0]",
    "fill_diagonal({0}, 0, inplace=False)", "setdiff1d({0}, {0}, size=2)",
    "trim_zeros(jnp.array([0, 1, 0]))",
    "linalg.inv({0})", "linalg.det({0})", "linalg.solve({0}, {0})", "linalg.eigh({0})[0]",
    "linalg.svd({0}, compute_uv=False)", "linalg.qr({0})[1]", "linalg.cholesky({0})",
    "linalg.pinv({0})", "linalg.matrix_power({0}, {ax})", "linalg.slogdet({0})[1]",
    "linalg.norm({0}, ord={ax})", "linalg.matrix_rank({0})", "linalg.lstsq({0}, {0})[0]",
    "linalg.eigvalsh({0})", "linalg.tensorinv({0}, ind={ax})",
    "linalg.multi_dot([{0}, {0}])", "linalg.cross({0}, {0}, axis={ax})",
    "linalg.diagonal({0}, offset={ax})", "linalg.trace({0}, offset={ax})",
    "linalg.outer({0}, {0})", "linalg.matmul({0}, {0})", "linalg.vecdot({0}, {0}, axis={ax})",
    "linalg.svdvals({0})", "linalg.cond({0})",
    "fft.fftn({0}, axes=({ax},))", "fft.irfft({0}, n={ax})", "fft.fftshift({0}, axes={ax})",
    "fft.hfft({0}, axis={ax})", "fft.rfftn({0})", "fft.fftfreq({ax})",
    "einsum('ij,jk->ik', {0}, {0})", "einsum('ii->i', {0})",
    "einsum('...,...->...', {0}, {0})", "matmul({0}, {0})",
    "tensordot({0}, {0}, axes=({ax}, 0))", "kron({0}, {0})", "inner({0}, {0})",
    "vdot({0}, {0})", "dot({0}, {0})")

# Written after "jax.": lax's primitives straight (their shape and dtype rules are stricter
# than jnp's, so the refusals differ more), jax.nn and jax.scipy.
JAX_AXIS = (
    "lax.dynamic_slice({0}, ({ax},) * {0}.ndim, (1,) * {0}.ndim)",
    "lax.dynamic_update_slice({0}, jnp.zeros((1,) * {0}.ndim, {0}.dtype), ({ax},) * {0}.ndim)",
    "lax.pad({0}, jnp.array(0, {0}.dtype), (({ax}, -1, 0),) * {0}.ndim)",
    "lax.reduce_window({0}, jnp.array(0, {0}.dtype), lax.add, (2,) * {0}.ndim, "
    "(1,) * {0}.ndim, 'SAME')",
    "lax.top_k({0}, 1)[0]", "lax.cumsum({0}, axis={ax}, reverse=True)",
    "lax.cummax({0}, axis={ax})", "lax.argmax({0}, {ax}, jnp.int32)",
    "lax.sort(({0}, {0}), dimension={ax}, num_keys=1)[1]", "lax.rev({0}, ({ax},))",
    "lax.squeeze({0}, ({ax},))", "lax.expand_dims({0}, ({ax},))",
    "lax.broadcast_in_dim({0}, (2,) + {0}.shape, tuple(range(1, {0}.ndim + 1)))",
    "lax.clamp(jnp.array(0, {0}.dtype), {0}, jnp.array(2, {0}.dtype))",
    "lax.select({0} > 0, {0}, -{0})", "lax.integer_pow({0}, {ax})",
    "lax.reduce_max({0}, ({ax},))", "lax.reduce_sum({0}, ({ax},))",
    "lax.index_in_dim({0}, {ax}, 0)", "lax.slice_in_dim({0}, 0, {ax}, axis=0)",
    "lax.dynamic_index_in_dim({0}, {ax}, 0)", "lax.collapse({0}, 0, {ax})",
    "lax.transpose({0}, tuple(reversed(range({0}.ndim))))", "lax.reshape({0}, (-1,))",
    "lax.concatenate([{0}, {0}], {ax})", "lax.rem({0}, jnp.array(3, {0}.dtype))",
    "lax.shift_right_logical({0}, jnp.array(1, {0}.dtype))", "lax.population_count({0})",
    "lax.clz({0})", "lax.nextafter({0}, jnp.zeros_like({0}))", "lax.cbrt({0})",
    "lax.is_finite({0})", "lax.exp2({0})", "lax.logistic({0})", "lax.erf_inv({0})",
    "lax.lgamma({0})", "lax.digamma({0})", "lax.bessel_i0e({0})", "lax.round({0}, 1)",
    "nn.one_hot({0}, 3)", "nn.gelu({0}, approximate=False)", "nn.glu({0}, axis={ax})",
    "nn.standardize({0}, axis={ax})", "nn.softmax({0}, axis={ax}, where={0} > 0)",
    "nn.logsumexp({0}, axis={ax}, b=2.0)", "nn.relu6({0})", "nn.hard_tanh({0})",
    "nn.celu({0})", "nn.selu({0})", "nn.silu({0})", "nn.log_sigmoid({0})",
    "nn.sparse_plus({0})", "nn.squareplus({0})", "nn.mish({0})",
    "nn.softmax({0}, axis={ax})", "nn.log_softmax({0}, axis={ax})",
    "scipy.special.logsumexp({0}, axis={ax})", "scipy.special.logit({0})",
    "scipy.special.expit({0})", "scipy.special.erfinv({0})", "scipy.special.gammaln({0})",
    "scipy.special.xlogy({0}, {0})", "scipy.special.xlog1py({0}, {0})",
    "scipy.special.entr({0})", "scipy.special.ndtri({0})", "scipy.special.log_ndtr({0})",
    "scipy.special.i1e({0})", "scipy.special.erfcx({0})", "scipy.special.spence({0})",
    "scipy.special.softmax({0}, axis={ax})", "scipy.stats.norm.logpdf({0})",
    "scipy.stats.norm.cdf({0})")

# Fewer than fuzz_small.TRANSFORMS: the functions above are the point; grad's output is cast to
# float32 so that an integer- or bool-valued call still gets its derivative asked for.
TRANSFORMS = ("{f}", "{f}", "jax.jit({f})", "jax.vmap({f})", "jax.jit(jax.vmap({f}))",
              "jax.grad(lambda *a: jnp.sum(jnp.asarray({f}(*a), jnp.float32)))")
DTYPES = ("float32", "float32", "int32", "bool", "uint8", "float16")

# a set routine whose result's length depends on the values (no size=)
_UNSIZED_SET_CALL = re.compile(r"jnp\.(unique\w*|union1d|intersect1d|setdiff1d|setxor1d)"
                               r"\((?![^()]*size=)")


def _derivative_through_unsized_set_routine(source: str, want: dict, got: dict) -> bool:
    # JAX's all 0, ours whole numbers (each kept value counted once; the programs sum them)
    return source.startswith("(jax.grad(") and bool(_UNSIZED_SET_CALL.search(source)) and \
        "leaves" in want and "leaves" in got and \
        all(v == 0 for leaf in want["leaves"] for v in leaf["values"]) and \
        all(float(v).is_integer() for leaf in got["leaves"] for v in leaf["values"])


# Differences jxkernel makes on purpose, as fuzz_small.DELIBERATE (whose entries hold here
# too): (why, predicate on the program's source and JAX's and jxkernel's results).
DELIBERATE = fuzz_small.DELIBERATE + [
    ("a derivative through an unsized set routine (jnp.unique, union1d, intersect1d, "
     "setdiff1d, setxor1d without size=) is the derivative of the values it keeps in "
     "jxkernel, as JAX's sized call gives; JAX's unsized call swaps its traced argument for "
     "the concrete value (core.concrete_or_error returns it), so the result is a constant "
     "and the derivative silently 0: an accident of how JAX checks concreteness, not a rule",
     _derivative_through_unsized_set_routine),
]


def _body(r: random.Random, ndim: int) -> tuple:
    """(one call over a[0] or a[0] and a[1], how many arrays it takes)."""
    kind = r.choice(("unary", "binary", "axis", "axis", "axis"))
    if kind == "unary":
        return f"jnp.{r.choice(UNARY)}(a[0])", 1
    if kind == "binary":
        return f"jnp.{r.choice(BINARY)}(a[0], a[1])", 2
    ax = r.choice((0, -1, 1, ndim, -ndim - 1, 2))
    # one draw over both lists, so each template is as likely as any other
    template = r.choice(JNP_AXIS + JAX_AXIS)
    prefix = "jnp." if template in JNP_AXIS else "jax."
    return prefix + template.format("a[0]", ax=ax), 1


def program(seed: int) -> dict:
    """One random program, in fuzz_small.program's form.

    >>> program(3)["source"].endswith("(*A)")
    True
    """
    r = random.Random(seed)
    ndim = r.choice((0, 1, 1, 2, 2, 3))
    shape = tuple(r.choice((1, 2, 3, 4)) for _ in range(ndim))
    dtype = r.choice(DTYPES)
    body, arity = _body(r, ndim)
    second = shape if r.random() < 0.8 or not shape else shape[1:]      # broadcasting too
    f = f"lambda *a: {body}"
    source = f"({r.choice(TRANSFORMS).format(f=f'({f})')})(*A)"
    return {"seed": seed, "source": source,
            "inputs": [(list(shape), dtype), (list(second), dtype)][:arity]}
