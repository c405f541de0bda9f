"""jnp reductions against NumPy over axes, keepdims, where, dtype and initial, eagerly and
under jit; JAX's result dtypes and its few departures from NumPy (values from JAX 0.10.2);
errors; golden jaxprs."""

import functools

import ml_dtypes
import numpy as np
import pytest
from compiled import jit_together
from numerics import REDUCTION, assert_allclose_ulp

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.core.errors import ConcretizationTypeError
from rule_checks import same_text

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")   # NumPy on all-NaN slices

rng = np.random.default_rng(0)
f32 = rng.standard_normal((3, 4, 5)).astype(np.float32)
i8 = rng.integers(-5, 5, (3, 4, 5)).astype(np.int8)
u8 = rng.integers(0, 9, (3, 4, 5)).astype(np.uint8)
b = f32 > 0
f16 = f32.astype(np.float16)
bf16 = f32.astype(ml_dtypes.bfloat16)
c64 = (f32 + 1j * f32[::-1]).astype(np.complex64)
nan = f32.copy()
nan[0, 1, 2] = np.nan
nan[1, :, 3] = np.nan
mask = rng.random((3, 4, 5)) < 0.7
f64, nan64 = f32.astype(np.float64), nan.astype(np.float64)     # for NumPy's references

INT_DEFAULT = {np.dtype(np.bool_): np.int32, np.dtype(np.int8): np.int32,
               np.dtype(np.uint8): np.uint32}


def assert_close(got, want, dtype, ulps=REDUCTION, at_largest=True):
    """dtype and shape exactly; integers and booleans exactly; floats within `ulps` of the
    reference (computed in float64) rounded once to `dtype`, measured at the result's largest
    finite |value| (a sum's rounding follows the CPU's vector width, and an entry that cancels
    is only as exact as the terms' size), or at each value's own for products; worst seen
    3 (AVX-512, AVX2, AVX)."""
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if got.dtype.kind in "fc" or got.dtype == ml_dtypes.bfloat16:
        want = want.astype(got.dtype)
        size = np.abs(want.astype(np.complex128))
        scale = size[np.isfinite(size)].max(initial=0) if at_largest else None
        assert_allclose_ulp(got, want, ulps, scale=scale)
    else:
        np.testing.assert_array_equal(got, want)


# (name, jnp function, NumPy reference, inputs, result dtype of each input)
SIMPLE = [
    ("sum", jnp.sum, np.sum, [f32, i8, u8, b, f16, c64],
     lambda d: INT_DEFAULT.get(np.dtype(d), d)),
    ("prod", jnp.prod, np.prod, [f32, i8, b], lambda d: INT_DEFAULT.get(np.dtype(d), d)),
    ("max", jnp.max, np.max, [f32, i8, b, bf16], lambda d: d),
    ("amin", jnp.amin, np.amin, [f32, u8], lambda d: d),
    ("all", jnp.all, np.all, [f32, b], lambda d: np.bool_),
    ("any", jnp.any, np.any, [i8, b], lambda d: np.bool_),
    ("mean", jnp.mean, np.mean, [f32, i8, f16], lambda d: np.float16 if d == np.float16 else np.float32),
    ("var", jnp.var, np.var, [f32, i8, c64], lambda d: np.float32),
    ("std", jnp.std, np.std, [f32, u8], lambda d: np.float32),
    ("ptp", jnp.ptp, np.ptp, [f32, i8], lambda d: d),
    ("count_nonzero", jnp.count_nonzero, np.count_nonzero, [i8, b], lambda d: np.int32),
    ("median", jnp.median, np.median, [f32, i8], lambda d: np.float32),
    ("nansum", jnp.nansum, np.nansum, [nan, i8], lambda d: INT_DEFAULT.get(np.dtype(d), d)),
    ("nanprod", jnp.nanprod, np.nanprod, [nan], lambda d: d),
    ("nanmax", jnp.nanmax, np.nanmax, [nan], lambda d: d),
    ("nanmin", jnp.nanmin, np.nanmin, [nan], lambda d: d),
    ("nanmean", jnp.nanmean, np.nanmean, [nan, i8], lambda d: np.float32),
    ("nanvar", jnp.nanvar, np.nanvar, [nan], lambda d: np.float32),
    ("nanstd", jnp.nanstd, np.nanstd, [nan], lambda d: np.float32),
    ("nanmedian", jnp.nanmedian, np.nanmedian, [nan], lambda d: np.float32),
]
# the first input over several axes, the others over one (each case is one compilation)
FIRST = [(None, False), (1, False), ((0, 2), False), (-1, True)]
SIMPLE_CASES = [(name, fn, ref, x, out, axis, keep)
                for name, fn, ref, xs, out in SIMPLE for x in xs
                for axis, keep in (FIRST if x is xs[0] else [((0, 2), False)])]


def jitted(fn, *args):
    """fn(*args) under jit: one compilation instead of one per primitive."""
    return jxkernel.jit(fn)(*args)


def _wide(x):
    """x in float64 (complex128) for NumPy's references, rounded once to the result's dtype."""
    if x.dtype.kind == "c":
        return x.astype(np.complex128)
    return x.astype(np.float64) if x.dtype.kind == "f" or x.dtype == ml_dtypes.bfloat16 else x


@functools.cache
def _against_numpy_jitted():
    """jit(fn)(x) of every case of test_against_numpy, compiled together (one program per 64
    cases: `jit_together`), keyed by (name, id(x), axis, keepdims)."""
    return jit_together(jxkernel, {
        (name, id(x), axis, keep): ((lambda a, fn=fn, axis=axis, keep=keep:
                                     fn(a, axis=axis, keepdims=keep)), [x])
        for name, fn, _, x, _, axis, keep in SIMPLE_CASES})


@pytest.mark.parametrize("name,fn,ref,x,out,axis,keepdims", SIMPLE_CASES,
                         ids=[f"{c[0]}-{c[3].dtype}-{c[5]}-{c[6]}" for c in SIMPLE_CASES])
def test_against_numpy(name, fn, ref, x, out, axis, keepdims):
    if name == "count_nonzero" and axis is not None:
        want = ref(x, axis=axis, keepdims=keepdims)
    else:
        want = ref(_wide(x), axis=axis, keepdims=keepdims)
    # under jit: one compilation for all cases (jit_together) instead of one per primitive
    got = _against_numpy_jitted()[name, id(x), axis, keepdims]
    assert_close(got, want, out(x.dtype), at_largest=name not in ("prod", "nanprod"))


JIT_EAGER = ["sum", "max", "mean", "var", "median", "nanmean", "argmax", "cumsum", "quantile"]


def _jit_eager_case(name):
    """(function, its argument) of test_jit_matches_eager's case `name`."""
    fn = {"argmax": lambda a: jnp.argmax(a, 1), "cumsum": lambda a: jnp.cumsum(a, -1),
          "quantile": lambda a: jnp.quantile(a, np.float32(0.3), axis=(0, 2))}.get(
        name, lambda a: getattr(jnp, name)(a, axis=(0, 2), keepdims=True))
    return fn, nan if name == "nanmean" else f32


@functools.cache
def _jit_eager_jitted():
    """jit(fn)(x) of every case of test_jit_matches_eager, compiled together (one program
    instead of nine)."""
    return jit_together(jxkernel, {name: (fn, [x]) for name in JIT_EAGER
                                   for fn, x in [_jit_eager_case(name)]})


@pytest.mark.parametrize("name", JIT_EAGER)
def test_jit_matches_eager(name):
    fn, x = _jit_eager_case(name)
    want = fn(x)
    assert_close(_jit_eager_jitted()[name], want, want.dtype)


def test_list_axis_is_a_tuple():
    # JAX's sum, prod, max, min, all, any, mean, var and std take a list of axes (and
    # amax/amin, ptp over them): the same program as the tuple, eagerly and traced
    names = ["sum", "prod", "max", "min", "all", "any", "mean", "var", "std", "amax", "ptp"]
    lists = [getattr(jnp, n)(f32, axis=[-1, 0]) for n in names]
    tuples = [getattr(jnp, n)(f32, axis=(-1, 0)) for n in names]
    traced = jxkernel.jit(lambda a: [getattr(jnp, n)(a, [-1, 0]) for n in names])(f32)
    # the tuple traced too: var's `N - ddof` is a constant XLA folds when traced (its divide
    # then rounds differently, by 1 ulp here), as in JAX 0.10.2, where jnp.var eagerly and
    # under jit differ by the same ulp on these numbers
    traced_tuples = jxkernel.jit(lambda a: [getattr(jnp, n)(a, (-1, 0)) for n in names])(f32)
    for n, got, want, jitted, jitted_want in zip(names, lists, tuples, traced, traced_tuples):
        assert got.shape == want.shape == (4,), n
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=n)
        # one jit of all of them: on a GPU XLA fuses the sums otherwise (gpu_tier's "sum order")
        assert_allclose_ulp(np.asarray(jitted), np.asarray(jitted_want), 0, err_msg=n,
                            gpu="sum order")
        assert_allclose_ulp(np.asarray(jitted), np.asarray(want), 1, err_msg=n,
                            gpu="sum order")
    assert jnp.sum(f32, [0], keepdims=True).shape == (1, 4, 5)


@pytest.mark.parametrize("axis", [None, 1])
def test_arg_and_cumulative(axis):
    assert_close(jnp.argmax(f32, axis), np.argmax(f64, axis), np.int32)
    assert_close(jnp.argmin(i8, axis, keepdims=True), np.argmin(i8, axis, keepdims=True),
                 np.int32)
    assert_close(jnp.cumsum(f32, axis), np.cumsum(f64, axis), np.float32)
    assert_close(jnp.cumsum(i8, axis), np.cumsum(i8, axis).astype(np.int8), np.int8)
    assert_close(jnp.cumsum(b, axis), np.cumsum(b, axis), np.int32)
    assert_close(jnp.cumprod(f32, axis), np.cumprod(f64, axis), np.float32,
                 at_largest=False)
    assert_close(jnp.nancumsum(nan, axis), np.nancumsum(nan64, axis), np.float32)
    assert_close(jnp.nancumprod(nan, axis), np.nancumprod(nan64, axis), np.float32,
                 at_largest=False)


def test_argmax_nan_and_ties():
    x = np.array([[1.0, 3.0, 3.0], [np.nan, 5.0, np.nan], [np.nan, np.nan, np.nan]], np.float32)
    assert_close(jnp.argmax(x, 1), [1, 0, 0], np.int32)          # first max, first NaN
    assert_close(jnp.nanargmax(x, 1), [1, 1, -1], np.int32)      # -1 where all are NaN
    assert_close(jnp.nanargmin(x, 1), [0, 1, -1], np.int32)


def test_cumulative_api():
    v = i8[0, 0]
    assert_close(jnp.cumulative_sum(v), np.cumsum(v), np.int32)
    assert_close(jnp.cumulative_sum(v, include_initial=True), np.cumsum(np.r_[0, v]), np.int32)
    assert_close(jnp.cumulative_prod(f32, axis=1, include_initial=True),
                 np.concatenate([np.ones((3, 1, 5)), np.cumprod(f64, 1)], 1), np.float32,
                 at_largest=False)
    # dtype=bool: a running "any nonzero so far" (lax cannot add bools)
    assert_close(jnp.cumsum(i8, dtype=bool), np.cumsum(i8.ravel() != 0) > 0, np.bool_)
    with pytest.raises(ValueError, match="axis was not set"):
        jnp.cumulative_sum(f32)


def test_where_initial_dtype():
    assert_close(jnp.sum(f32, 1, where=mask), np.sum(f64, 1, where=mask), np.float32)
    assert_close(jnp.prod(i8, (0, 1), where=mask), np.prod(i8, (0, 1), where=mask), np.int32)
    assert_close(jnp.max(f32, 0, where=mask, initial=-1.0), np.max(f64, 0, where=mask,
                                                                   initial=-1.0), np.float32)
    assert_close(jnp.min(i8, initial=-7), np.min(i8, initial=-7), np.int8)
    assert_close(jnp.sum(f32, initial=3.0), np.sum(f64, initial=3.0), np.float32)
    assert_close(jnp.any(f32 > 1, 2, where=mask), np.any(f32 > 1, 2, where=mask), np.bool_)
    assert_close(jnp.all(b, 2, where=mask), np.all(b, 2, where=mask), np.bool_)
    assert_close(jitted(lambda a, m: jnp.mean(a, (0, 2), where=m), f32, mask),
                 np.mean(f64, (0, 2), where=mask), np.float32)
    assert_close(jitted(lambda a, m: jnp.var(a, 1, where=m, ddof=1), f32, mask),
                 np.var(f64, 1, where=mask, ddof=1), np.float32)
    assert_close(jnp.nansum(nan, 2, where=mask), np.nansum(nan64, 2, where=mask), np.float32)
    assert_close(jnp.sum(i8, dtype=np.int8), np.sum(i8, dtype=np.int8), np.int8)
    assert_close(jnp.sum(f32, 1, dtype=np.float16), np.sum(f64, 1), np.float16)
    assert_close(jnp.sum(i8, promote_integers=False), np.sum(i8).astype(np.int8), np.int8)
    assert_close(jnp.mean(i8, dtype=np.float16), np.mean(i8), np.float16)
    assert_close(jitted(lambda a: jnp.var(a, correction=1.5), f32), np.var(f64, ddof=1.5),
                 np.float32)
    assert_close(jitted(lambda a: jnp.var(a, 0, mean=jnp.mean(a, 0, keepdims=True)), f32),
                 np.var(f64, 0), np.float32)
    assert_close(jnp.var(np.ones(3, np.float32), ddof=3), np.nan, np.float32)
    assert_close(jnp.nanvar(np.array([1.0, np.nan], np.float32), ddof=1), np.nan, np.float32)
    assert not jnp.sum(jxkernel.device_put(2.0)).weak_type     # reductions are strongly typed


def test_average():
    w = np.arange(1, 5, dtype=np.float32)
    assert_close(jnp.average(f32, 1, weights=w), np.average(f64, 1, weights=w), np.float32)
    assert_close(jnp.average(f32, weights=np.abs(f32)), np.average(f64, weights=np.abs(f64)),
                 np.float32)
    avg, total = jnp.average(i8, (0, 2), returned=True)
    want_avg, want_total = np.average(i8, (0, 2), returned=True)
    assert_close(avg, want_avg, np.float32)
    assert_close(total, want_total, np.float32)
    avg, total = jnp.average(f32, 2, weights=f32[0, 0] ** 2, returned=True, keepdims=True)
    assert_close(total, np.broadcast_to(np.sum(f64[0, 0] ** 2), (3, 4, 1)), np.float32)
    with pytest.raises(ValueError, match="Axis must be specified when shapes of a and weights"):
        jnp.average(f32, weights=w)


METHODS = ["linear", "lower", "higher", "midpoint"]


@pytest.mark.parametrize("method,axis", [("linear", None), ("linear", (0, 2)), ("lower", 1),
                                         ("higher", -1), ("midpoint", (1, 2))])
def test_quantiles(method, axis):
    q = np.array([0.0, 0.3, 0.5, 1.0], np.float32)
    assert_close(jitted(lambda a: jnp.quantile(a, q, axis=axis, method=method), f32),
                 np.quantile(f64, q, axis=axis, method=method), np.float32)
    assert_close(jitted(lambda a: jnp.nanquantile(a, 0.7, axis=axis, method=method,
                                                  keepdims=True), nan),
                 np.nanquantile(nan64, 0.7, axis=axis, method=method, keepdims=True), np.float32)
    assert_close(jitted(lambda a: jnp.percentile(a, 25, axis=axis, method=method), i8),
                 np.percentile(i8, 25, axis=axis, method=method), np.float32)


def test_quantile_nearest_and_nan():
    # JAX's 'nearest' takes the lower neighbour at exactly .5 (NumPy rounds half to even)
    x = np.array([[1.0, 2.0, 3.0, 4.0], [4.0, 1.0, 3.0, 2.0]], np.float32)
    assert_close(jnp.quantile(x, np.array([0.5, 1 / 3], np.float32), axis=1, method="nearest"),
                 [[2.0, 2.0], [2.0, 2.0]], np.float32)
    assert_close(jnp.nanquantile(np.array([1.0, np.nan, 3.0, 4.0], np.float32), 0.5,
                                 method="nearest"), 3.0, np.float32)
    assert_close(jnp.median(nan, 2), np.median(nan64, 2), np.float32)        # NaN propagates
    with pytest.raises(ValueError, match="method can only be"):
        jnp.quantile(f32, 0.5, method="bogus")


@pytest.mark.parametrize("axis", [None, 1, -1, (0, 2)])
def test_weighted_quantiles_inverted_cdf(axis):
    # JAX 0.10.2's quantile family takes weights with method='inverted_cdf': the first sorted
    # value whose cumulative weight reaches q times the total. The answers are elements of the
    # data (a selection, no rounding), so NumPy's weighted inverted_cdf matches exactly
    rng = np.random.RandomState(3)
    a = rng.rand(3, 4, 5).astype(np.float32)
    w = rng.randint(1, 4, size=a.shape).astype(np.float32)
    q = np.array([0.1, 0.5, 0.9], np.float32)
    got = jitted(lambda a, w: jnp.quantile(a, q, axis=axis, weights=w, method="inverted_cdf"), a, w)
    np.testing.assert_array_equal(np.asarray(got), np.quantile(a, q, axis=axis, weights=w,
                                                               method="inverted_cdf"))
    got = jnp.percentile(a, 50, axis=axis, weights=w, method="inverted_cdf", keepdims=True)
    np.testing.assert_array_equal(np.asarray(got), np.percentile(a, 50, axis=axis, weights=w,
                                                                 method="inverted_cdf", keepdims=True))


def test_weighted_quantile_docstring_examples_and_errors():
    # the docstring examples of JAX 0.10.2: quantile 3.0, nanquantile (NaN left out) 4.0
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    assert float(jnp.quantile(x, 0.5, weights=np.array([1, 1, 2, 1, 1]), method="inverted_cdf")) == 3.0
    xn = np.array([1.0, np.nan, 3.0, 4.0, 5.0], np.float32)
    w = np.array([1, 1, 1, 2, 1])
    assert float(jnp.nanquantile(xn, 0.5, weights=w, method="inverted_cdf")) == 4.0
    assert float(jnp.nanpercentile(xn, 50, weights=w, method="inverted_cdf")) == 4.0
    assert np.isnan(float(jnp.quantile(xn, 0.5, weights=w, method="inverted_cdf")))
    assert np.isnan(float(jnp.quantile(x, 0.5, weights=np.array([1, -1, 1, 1, 1]),
                                       method="inverted_cdf")))          # a negative weight
    with pytest.raises(NotImplementedError, match="Only method 'inverted_cdf' supports weights"):
        jnp.quantile(x, 0.5, weights=np.ones(5))
    with pytest.raises(ValueError, match="must match reduction axes"):
        jnp.quantile(f32, 0.5, axis=1, weights=np.ones(3), method="inverted_cdf")


@pytest.mark.parametrize("fn,exc,msg", [
    (lambda: jnp.sum(f32, axis=3), ValueError, "axis 3 is out of bounds for array of dimension 3"),
    (lambda: jnp.sum(f32, axis=(0, 0)), ValueError, r"duplicate value in 'axis': \(0, 0\)"),
    (lambda: jnp.sum(f32, where=i8), ValueError,
     r"jnp.sum: where must be None or a boolean array; got where.dtype=dtype\('int8'\)."),
    (lambda: jnp.max(f32, where=mask), ValueError,
     "reduction operation max does not have an identity, so to use a where mask one has to "
     "specify 'initial'"),
    (lambda: jnp.max(np.ones((0,), np.float32)), ValueError,
     "zero-size array to reduction operation max which has no identity"),
    (lambda: jnp.argmax(np.ones((0,), np.float32)), ValueError,
     "attempt to get argmax of an empty sequence"),
    (lambda: jnp.var(f32, ddof=1, correction=1), ValueError,
     "ddof and correction can't be provided simultaneously."),
    (lambda: jnp.sum(f32, out=f32), NotImplementedError,
     "The 'out' argument to jnp.sum is not supported."),
    (lambda: jnp.sum([1, 2]), TypeError, "sum requires ndarray or scalar arguments"),
    (lambda: jnp.sum(f32, initial=np.ones(2)), ValueError, "initial value must be a scalar"),
    # JAX flattens only for axis=None (the differential fuzzer's one divergence, issue 45)
    (lambda: jnp.cumsum(np.float32(1), axis=-1), ValueError,
     "axis -1 is out of bounds for array of dimension 0"),
    (lambda: jnp.nancumprod(np.float32(1), axis=0), ValueError,
     "axis 0 is out of bounds for array of dimension 0"),
    # where JAX indexes the shape before checking the axis, its error is an IndexError
    # ('tuple index out of range'); ours says more, in the class JAX's callers catch
    (lambda: jnp.mean(f32, axis=3), IndexError, "axis 3 is out of bounds for array of dimension 3"),
    (lambda: jnp.var(f32, axis=-4), IndexError, "axis -4 is out of bounds"),
    (lambda: jnp.std(f32, axis=(0, 5)), IndexError, "axis 5 is out of bounds"),
    (lambda: jnp.nanmean(i8, axis=3), IndexError, "axis 3 is out of bounds"),
    (lambda: jnp.argmax(f32, axis=3), IndexError, "axis 3 is out of bounds"),
    (lambda: jnp.argmin(f32, axis=-4), IndexError, "axis -4 is out of bounds"),
    (lambda: jnp.nanmean(f32, axis=3), ValueError, "axis 3 is out of bounds"),   # JAX: sum's
    # (JAX swaps NumPy permutation entries: NumPy's words, its read of axis2 first)
    (lambda: jnp.swapaxes(np.float32(1), 0, -1), IndexError,
     "index -1 is out of bounds for axis 0 with size 0"),
])
def test_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn()


GOLDEN = {  # printed by JAX 0.10.2
    "sum": (lambda a: jnp.sum(a, 0), np.float32, """{ lambda ; a:f32[4,6]. let
    b:f32[6] = reduce_sum[axes=(0,) out_sharding=None] a
  in (b,) }"""),
    "sum_i8": (jnp.sum, np.int8, """{ lambda ; a:i8[4,6]. let
    b:i32[4,6] = convert_element_type[new_dtype=int32 weak_type=False] a
    c:i32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
  in (c,) }"""),
    "sum_bool": (jnp.sum, np.bool_, """{ lambda ; a:bool[4,6]. let
    b:i32[4,6] = convert_element_type[new_dtype=int32 weak_type=False] a
    c:i32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
  in (c,) }"""),
    "sum_f16": (lambda a: jnp.sum(a, 0), np.float16, """{ lambda ; a:f16[4,6]. let
    b:f32[4,6] = convert_element_type[new_dtype=float32 weak_type=False] a
    c:f32[6] = reduce_sum[axes=(0,) out_sharding=None] b
    d:f16[6] = convert_element_type[new_dtype=float16 weak_type=False] c
  in (d,) }"""),
    "mean": (lambda a: jnp.mean(a, 1), np.float32, """{ lambda ; a:f32[4,6]. let
    b:f32[4] = reduce_sum[axes=(1,) out_sharding=None] a
    c:f32[4] = div b 6.0:f32[]
  in (c,) }"""),
    "mean_i8": (lambda a: jnp.mean(a, 1), np.int8, """{ lambda ; a:i8[4,6]. let
    b:f32[4,6] = convert_element_type[new_dtype=float32 weak_type=False] a
    c:f32[4] = reduce_sum[axes=(1,) out_sharding=None] b
    d:f32[4] = div c 6.0:f32[]
  in (d,) }"""),
    "max_keepdims": (lambda a: jnp.max(a, 1, keepdims=True), np.float32, """{ lambda ; a:f32[4,6]. let
    b:f32[4] = reduce_max[axes=(1,)] a
    c:f32[4,1] = broadcast_in_dim[broadcast_dimensions=(0,)] b
  in (c,) }"""),
    "argmax": (lambda a: jnp.argmax(a, 1), np.float32, """{ lambda ; a:f32[4,6]. let
    b:i32[4] = argmax[axes=(1,) index_dtype=int32] a
  in (b,) }"""),
    "any": (jnp.any, np.float32, """{ lambda ; a:f32[4,6]. let
    b:bool[4,6] = convert_element_type[new_dtype=bool weak_type=False] a
    c:bool[] = reduce_or[axes=(0, 1)] b
  in (c,) }"""),
    "prod": (lambda a: jnp.prod(a, 1), np.float32, """{ lambda ; a:f32[4,6]. let b:f32[4] = reduce_prod[axes=(1,)] a in (b,) }"""),
}


@pytest.mark.parametrize("name", list(GOLDEN))
def test_golden_jaxprs(name):
    fn, dtype, want = GOLDEN[name]
    got = str(jxkernel.make_jaxpr(fn)(np.ones((4, 6), dtype)))
    same_text(got, want)


def test_the_jvp_of_a_nan_reduction_of_nothing_is_zero_as_in_jax():
    # the differential fuzzer's seed 92516: JAX 0.10.2 gives (nan, 0.0): its _where returns
    # x for an empty result without a select, so nansum's tangent is a symbolic zero and
    # nanmean's tangent 0 / count stays 0; jxkernel's select gave 0/0 = nan
    empty = jnp.zeros((0,), jnp.float32)
    primal, tangent = jxkernel.jvp(lambda a: jnp.nanmean(a, axis=-1), (empty,), (empty,))
    assert np.isnan(float(primal)) and float(tangent) == 0.0
    # where itself: an empty result is its x, whose tangent alone flows
    _, t = jxkernel.jvp(lambda y: jnp.where(y > 0, 1.0, y), (empty,), (empty,))
    assert t.shape == (0,) and t.dtype == jnp.float32


def test_a_traced_axis_is_a_concretization_error():
    # JAX's ConcretizationTypeError docstring: `x.min(axis)` with axis traced under jit raises
    # ConcretizationTypeError (not a TypeError from iterating a 0-d array); JAX 0.10.2's
    # second line is "The axis argument must be known statically." for every reduction
    # (tests/data/traced_shape_args_reference.json; the docstring's "axis argument to
    # jnp.min()" is older JAX's)
    for f in (lambda x, axis: x.min(axis), lambda x, axis: jnp.sum(x, axis=axis)):
        with pytest.raises(ConcretizationTypeError) as caught:
            jxkernel.jit(f)(jnp.arange(4), 0)
        assert str(caught.value).splitlines()[1] == "The axis argument must be known statically."


def test_nanvar_and_nanstd_take_a_traced_ddof():
    # JAX's scipy.stats.sem(nan_policy='omit') jits nanstd with ddof traced: N - ddof is a
    # subtraction of the traced value. Var of [1, 2] with ddof=1 is 0.5, of [3, 4] 0.5 (exact)
    b = np.array([[1.0, 3.0], [2.0, 4.0], [np.nan, np.nan]], np.float32)
    got = jxkernel.jit(lambda b, d: jnp.nanvar(b, 0, ddof=d))(b, 1)
    np.testing.assert_array_equal(np.asarray(got), np.float32([0.5, 0.5]))
    got = jxkernel.jit(lambda b, d: jnp.nanstd(b, 0, ddof=d))(b, 0)
    np.testing.assert_array_equal(np.asarray(got), np.float32([0.5, 0.5]))


# --- found by JAX 0.10.2's own tests/lax_numpy_reducers_test.py (conformance/jax_tests)
@pytest.mark.parametrize("name", ["nanmean", "nanvar", "nanstd", "std", "mean", "var"])
def test_non_boolean_where_error_names_the_function_called(name):
    # JAX's words, naming the function called (jxkernel named the sum or var inside it)
    with pytest.raises(ValueError, match=rf"^jnp\.{name}: where must be None or a boolean "
                                         r"array; got where\.dtype=dtype\('int32'\)\.$"):
        getattr(jnp, name)(jnp.zeros(10), where=jnp.ones(10, int))


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_mean_of_f16_given_its_dtype_is_not_upcast(dtype):
    # JAX: without dtype the f16 sum runs in float32 between two casts; with dtype, in dtype
    x = np.ones(10, dtype)
    prims = lambda f: [e.primitive.name for e in jxkernel.make_jaxpr(f)(x).jaxpr.eqns]
    assert prims(jnp.mean) == ["convert_element_type", "reduce_sum", "div",
                               "convert_element_type"]
    assert prims(functools.partial(jnp.mean, dtype=dtype)) == ["reduce_sum", "div"]


@pytest.mark.parametrize("name", ["var", "std"])
def test_correction_with_the_default_ddof(name):
    # JAX checks ddof against correction before its jit (_var, _std), where ddof is still the
    # caller's 0: correction alone, or with ddof=0, divides by N - correction, eagerly and
    # traced (JAX's lax_numpy_reducers_test testStdOrVar; ours raised "provided
    # simultaneously" for ddof=0 given with it); ddof=1 with it is refused as in JAX
    fn, np_fn = getattr(jnp, name), getattr(np, name)
    want = np_fn(f32.astype(np.float64), axis=1, ddof=2).astype(np.float32)
    for got in (fn(f32, axis=1, ddof=0, correction=2), fn(f32, axis=1, correction=2),
                jxkernel.jit(lambda a: fn(a, axis=[1], ddof=0, correction=2))(f32)):
        assert_close(got, want, np.float32)
    with pytest.raises(ValueError, match="^ddof and correction can't be provided simultaneously.$"):
        fn(f32, ddof=1, correction=1)


@pytest.mark.parametrize("name", ["int2", "uint2", "int4", "uint4"])
def test_sum_and_prod_of_narrow_ints_widen_where_jax_raises(name):
    # A decision, not JAX's behaviour: JAX 0.10.2's sum/prod of these raise ValueError
    # ("Invalid integer data type 'V'.", from NumPy's iinfo, which does not know ml_dtypes'
    # narrow ints: an accident of its widening code). jxkernel widens them to int32/uint32,
    # as it does int8, eagerly and under jit; with dtype= given, the sum stays narrow
    dtype = np.dtype(name)
    info = ml_dtypes.iinfo(dtype)
    values = np.arange(info.min, info.max + 1)
    x = values.astype(dtype)
    wide = np.dtype(np.uint32 if info.min == 0 else np.int32)
    for fn, want in ((jnp.sum, values.sum()), (jnp.prod, values.prod())):
        for got in (fn(x), jxkernel.jit(fn)(x)):
            assert got.dtype == wide and int(got) == want
    assert jnp.sum(x, dtype=dtype).dtype == dtype
