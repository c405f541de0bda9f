"""lax reductions, argmax/argmin, generic reduce and cumulative ops against NumPy, eagerly
and under jit; staged jaxprs (type-checked, golden text from JAX 0.10.2); error messages."""
import functools

import ml_dtypes
import numpy as np
import pytest
from compiled import jit_together
from grads_together import check_grads_together
from numerics import ELEMENTWISE, REDUCTION, assert_allclose_ulp

import jxkernel
import jxkernel as jax
from jxkernel import lax
from jxkernel.core import ShapedArray, check_jaxpr
from jxkernel.lax.conversion import _convert_element_type
from rule_checks import (F32, check_family_rules, check_grad_under_jit_and_vmap,
                         grads_order_2_test, prints_as_jax_test, raises_test, sample,
                         sum_all, vmap_unary_test)

bf16 = np.dtype(ml_dtypes.bfloat16)
LOW = (np.dtype(np.float16), bf16)


def data(shape, dtype, seed=0, positive=False):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(1 if positive else (0 if dtype.kind == "u" else -5), 4,
                            shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if positive or dtype in LOW:
        return rng.uniform(0.5, 1.5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def assert_close(got, want, dtype, ulps=0, at_largest=True):
    """Shape and dtype exactly; values within `ulps` of the float64 reference rounded once
    (0: exactly, as selections and integers are on every CPU), measured at the result's largest
    finite |value| (a sum's rounding follows the CPU's vector width, and an entry that cancels
    is only as exact as the terms' size), or at each value's own if `at_largest` is False."""
    got, want = np.asarray(got), np.asarray(want)
    assert want.dtype == np.dtype(dtype), (want.dtype, dtype)
    finite = np.abs(want.astype(np.complex128))[np.isfinite(want.astype(np.complex128))]
    scale = finite.max(initial=0) if at_largest and want.size else None
    assert_allclose_ulp(got, want, ulps, scale=scale)


def check(fn, args, want, dtype, ulps=0, at_largest=True, jitted=None):
    """fn eagerly, under jit, and its staged jaxpr type-checks. `jitted`: jit(fn)(*args)
    computed already, with the test's other cases in one program (`jit_together`)."""
    assert_close(fn(*map(jxkernel.device_put, args)), want, dtype, ulps, at_largest)
    assert_close(jxkernel.jit(fn)(*args) if jitted is None else jitted, want, dtype, ulps,
                 at_largest)
    check_jaxpr(jxkernel.make_jaxpr(fn)(*args))


def wide(x):
    """x in a wide type for NumPy references (floats computed in float64, complex in
    complex128), so that the reference rounded to x's dtype is correctly rounded."""
    if x.dtype.kind == "c":
        return x.astype(np.complex128)
    return x.astype(np.float64) if x.dtype in LOW or x.dtype.kind == "f" else x


# How far each op's floats may be from the reference: maxima and minima select an input
# (exact on every CPU); sums and products round per the CPU's vector width and order (worst
# seen 7, a float32 sum of 5 that cancels, on every CPU; 2 for a complex64 product on AVX)
ULPS = {"reduce_sum": REDUCTION, "reduce_prod": REDUCTION, "cumsum": REDUCTION,
        "cumprod": REDUCTION, "cumlogsumexp": REDUCTION}
SUMS = {"reduce_sum", "cumsum", "cumlogsumexp"}       # cancel: error at the largest |value|


# ------------------------------------------------------------------ reduce_*
REDUCTIONS = {
    "reduce_sum": (lax.reduce_sum, np.sum, ["float32", "float16", "bfloat16", "int32", "uint8", "complex64"]),
    "reduce_prod": (lax.reduce_prod, np.prod, ["float32", "int32", "complex64"]),
    "reduce_max": (lax.reduce_max, np.max, ["float32", "bfloat16", "int8", "uint32", "bool", "complex64"]),
    "reduce_min": (lax.reduce_min, np.min, ["float32", "float16", "int16", "bool", "complex64"]),
    "reduce_and": (lax.reduce_and, np.bitwise_and.reduce, ["bool", "int32", "uint8"]),
    "reduce_or": (lax.reduce_or, np.bitwise_or.reduce, ["bool", "int32", "uint8"]),
    "reduce_xor": (lax.reduce_xor, np.bitwise_xor.reduce, ["bool", "int32", "uint8"]),
}
SHAPES_AXES = [((5,), (0,)), ((3, 4), (1,)), ((3, 4), (0, 1)), ((2, 3, 4), (0, 2)),
               ((3, 4), ()), ((2, 0, 3), (1,))]


def _reduction_cases():
    for name, (_, _, dts) in REDUCTIONS.items():
        for i, dtype in enumerate(dts):
            shapes = SHAPES_AXES if i == 0 else SHAPES_AXES[1:4]     # all shapes for one dtype
            for shape, axes in shapes:
                if name in ("reduce_max", "reduce_min") and 0 in shape:
                    continue                                 # identity checked separately
                yield name, dtype, shape, axes


def _reduction_call(name, dtype, shape, axes):
    fn = REDUCTIONS[name][0]
    return (lambda a: fn(a, axes)), [data(shape, dtype, positive=name == "reduce_prod")]


@functools.cache
def _reductions_jitted():
    """jit of every case of test_reduction, compiled together (one program per 64 cases)."""
    return jit_together(jxkernel, {c: _reduction_call(*c) for c in _reduction_cases()})


@pytest.mark.parametrize("name,dtype,shape,axes", list(_reduction_cases()))
def test_reduction(name, dtype, shape, axes):
    _, ref, _ = REDUCTIONS[name]
    fn, [x] = _reduction_call(name, dtype, shape, axes)
    want = ref(wide(x), axis=axes) if axes else x
    check(fn, [x], np.asarray(want).astype(dtype), dtype, ULPS.get(name, 0), name in SUMS,
          jitted=_reductions_jitted()[name, dtype, shape, axes])


@pytest.mark.parametrize("dtype,max_id,min_id", [
    ("float32", -np.inf, np.inf), ("int32", -2**31, 2**31 - 1), ("uint8", 0, 255),
    ("bool", False, True)])
def test_max_min_of_nothing_is_the_identity(dtype, max_id, min_id):
    x = np.zeros((0, 2), dtype)
    check(lambda a: lax.reduce_max(a, (0,)), [x], np.full(2, max_id, dtype), dtype)
    check(lambda a: lax.reduce_min(a, (0,)), [x], np.full(2, min_id, dtype), dtype)


def test_max_min_propagate_nan():
    x = np.array([1., np.nan, 3.], np.float32)
    assert np.isnan(lax.reduce_max(x, (0,))) and np.isnan(lax.reduce_min(x, (0,)))


def test_weak_types_follow_jax():
    weak = _convert_element_type(np.ones(3, np.float32), np.float32, True)
    iweak = _convert_element_type(np.ones(3, np.int32), np.int32, True)
    assert lax.reduce_sum(weak, (0,)).weak_type and lax.reduce_max(weak, (0,)).weak_type
    assert lax.cumsum(weak).weak_type
    assert not lax.reduce_and(iweak, (0,)).weak_type
    assert not lax.argmax(weak, 0, np.int32).weak_type


# ------------------------------------------------------------------ argmax / argmin
ARG_CASES = [(shape, axis, dtype) for shape, axis in [((7,), 0), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), 2)]
             for dtype in ["float32", "int32"]] + \
            [((3, 4), 1, dtype) for dtype in ["bfloat16", "uint8", "bool", "float16"]]


def _arg_call(which, shape, axis, dtype):
    fn = getattr(lax, which)
    return (lambda a: fn(a, axis, np.int32)), [data(shape, dtype, seed=1)]  # small ints: ties


@functools.cache
def _args_jitted():
    """jit of every case of test_argmax_argmin, compiled together."""
    return jit_together(jxkernel, {(w, *c): _arg_call(w, *c) for c in ARG_CASES
                                   for w in ("argmax", "argmin")})


@pytest.mark.parametrize("shape,axis,dtype", ARG_CASES)
@pytest.mark.parametrize("which", ["argmax", "argmin"])
def test_argmax_argmin(which, shape, axis, dtype):
    fn, [x] = _arg_call(which, shape, axis, dtype)
    check(fn, [x], getattr(np, which)(wide(x), axis).astype(np.int32), np.int32,
          jitted=_args_jitted()[which, shape, axis, dtype])


@pytest.mark.parametrize("which", ["argmax", "argmin"])
def test_argmax_argmin_nan_and_ties(which):
    # NaN counts as the extreme one and the first NaN wins; ties go to the first index
    fn = getattr(lax, which)
    x = np.array([[1., np.nan, 3., np.nan], [2., 5., 5., -1.], [0., 0., -np.inf, np.inf]], np.float32)
    want = {"argmax": [1, 1, 3], "argmin": [1, 3, 2]}[which]
    check(lambda a: fn(a, 1, np.int32), [x], np.array(want, np.int32), np.int32)
    check(lambda a: fn(a, 1, np.int8), [x], np.array(want, np.int8), np.int8)


# ------------------------------------------------------------------ cumulative ops
def _np_cum(ufunc):
    def ref(x, axis, reverse):
        x = np.flip(x, axis) if reverse else x
        out = ufunc.accumulate(x, axis=axis)
        return np.flip(out, axis) if reverse else out
    return ref


CUMULATIVE = {
    "cumsum": (lax.cumsum, _np_cum(np.add), ["float32", "bfloat16", "int32", "uint8", "complex64"]),
    "cumprod": (lax.cumprod, _np_cum(np.multiply), ["float32", "int32"]),
    "cummax": (lax.cummax, _np_cum(np.maximum), ["float32", "float16", "int8", "complex64"]),
    "cummin": (lax.cummin, _np_cum(np.minimum), ["float32", "uint16"]),
    "cumlogsumexp": (lax.cumlogsumexp, _np_cum(np.logaddexp), ["float32", "float16"]),
}


def _cumulative_cases():
    for name, (_, _, dts) in CUMULATIVE.items():
        for i, dtype in enumerate(dts):
            shapes = [((6,), 0, False), ((6,), 0, True), ((3, 4), 1, False), ((3, 4), 0, True),
                      ((2, 3, 4), 1, True), ((0, 3), 0, False)]
            for shape, axis, reverse in (shapes if i == 0 else shapes[2:4]):
                yield name, dtype, shape, axis, reverse


def _cumulative_call(name, dtype, shape, axis, reverse):
    fn = CUMULATIVE[name][0]
    return (lambda a: fn(a, axis, reverse)), [data(shape, dtype, positive=name == "cumprod")]


@functools.cache
def _cumulative_jitted():
    """jit of every case of test_cumulative, compiled together."""
    return jit_together(jxkernel, {c: _cumulative_call(*c) for c in _cumulative_cases()})


@pytest.mark.parametrize("name,dtype,shape,axis,reverse", list(_cumulative_cases()))
def test_cumulative(name, dtype, shape, axis, reverse):
    _, ref, _ = CUMULATIVE[name]
    fn, [x] = _cumulative_call(name, dtype, shape, axis, reverse)
    want = ref(wide(x), axis, reverse).astype(dtype)
    check(fn, [x], want, dtype, ULPS.get(name, 0), name in SUMS,
          jitted=_cumulative_jitted()[name, dtype, shape, axis, reverse])


def test_cumulative_special_values():
    x = np.array([1., np.nan, 3.], np.float32)
    assert np.isnan(np.asarray(lax.cummax(x))[1:]).all()
    y = np.array([-np.inf, -np.inf, 0., 1.], np.float32)
    assert_allclose_ulp(lax.cumlogsumexp(y), np.float32([-np.inf, -np.inf, 0., np.logaddexp(0., 1.)]),
                        ELEMENTWISE)
    c = np.array([1 + 2j, 1 + 1j, 0 + 5j], np.complex64)         # lexicographic, as JAX
    np.testing.assert_array_equal(lax.cummax(c), [1 + 2j] * 3)
    np.testing.assert_array_equal(lax.cummin(c), [1 + 2j, 1 + 1j, 0 + 5j])


# ------------------------------------------------------------------ generic reduce
def test_reduce_recognizes_monoids():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    cases = [(lax.add, 0., "reduce_sum"), (lax.mul, 1., "reduce_prod"),
             (lax.max, -np.inf, "reduce_max"), (lax.min, np.inf, "reduce_min")]
    for op, init, prim in cases:
        jaxpr = jxkernel.make_jaxpr(lambda a: lax.reduce(a, init, op, (0,)))(x)
        assert [str(e.primitive) for e in jaxpr.eqns] == [prim]
    b = x > 5
    for op, init, prim in [(lax.bitwise_or, False, "reduce_or"), (lax.bitwise_and, True, "reduce_and"),
                           (lax.bitwise_xor, False, "reduce_xor")]:
        jaxpr = jxkernel.make_jaxpr(lambda a: lax.reduce(a, init, op, (1,)))(b)
        assert [str(e.primitive) for e in jaxpr.eqns] == [prim]
    i = x.astype(np.int32)
    jaxpr = jxkernel.make_jaxpr(lambda a: lax.reduce(a, -1, lax.bitwise_and, (0,)))(i)
    assert [str(e.primitive) for e in jaxpr.eqns] == ["reduce_and"]
    np.testing.assert_array_equal(lax.reduce(x, 0., lax.add, (0,)), x.sum(0))


def test_reduce_general_computation():
    x = data((3, 4), "float32")
    # not an identity: a traced region; max(0, ...) is still well defined
    check(lambda a: lax.reduce(a, 0., lax.max, (1,)), [x], np.maximum(x.max(1), 0), "float32")
    clipped_sum = lambda p, q: lax.add(lax.max(p, 0.), lax.max(q, 0.))
    check(lambda a: lax.reduce(a, 0., clipped_sum, (0, 1)), [x],
          np.float32(np.maximum(x, 0).astype(np.float64).sum()), "float32", REDUCTION)


def test_reduce_pytree_operands():
    x, y = data((3, 4), "float32"), data((3, 4), "int32", positive=True)

    def fn(a, b):
        return lax.reduce({"s": a, "p": b}, {"s": 0., "p": 1},
                          lambda u, v: {"s": lax.add(u["s"], v["s"]), "p": lax.mul(u["p"], v["p"])},
                          (0,))
    sums = x.astype(np.float64).sum(0).astype(np.float32)
    for out in (fn(x, y), jxkernel.jit(fn)(x, y)):
        assert_allclose_ulp(out["s"], sums, REDUCTION, scale=np.abs(sums).max())
        np.testing.assert_array_equal(out["p"], y.prod(0))


def test_reduce_with_traced_init_uses_a_region():
    x = data((3, 4), "float32")
    f = jxkernel.jit(lambda a, i: lax.reduce(a, i, lax.add, (0,)))
    sums = x.astype(np.float64).sum(0).astype(np.float32)
    assert_allclose_ulp(f(x, np.float32(0)), sums, REDUCTION, scale=np.abs(sums).max())
    jaxpr = jxkernel.make_jaxpr(lambda a, i: lax.reduce(a, i, lax.add, (0,)))(x, np.float32(0))
    assert str(jaxpr.eqns[0].primitive) == "reduce"
    check_jaxpr(jaxpr)


# ------------------------------------------------------------------ jaxprs (JAX 0.10.2's text)
F34 = ShapedArray((3, 4), np.float32)
GOLDEN = [
    (lambda x: lax.reduce_sum(x, (0,)), F34,
     "{ lambda ; a:f32[3,4]. let\n    b:f32[4] = reduce_sum[axes=(0,) out_sharding=None] a\n  in (b,) }"),
    (lambda x: lax.reduce_max(x, (0, 1)), F34,
     "{ lambda ; a:f32[3,4]. let b:f32[] = reduce_max[axes=(0, 1)] a in (b,) }"),
    (lambda x: lax.reduce_xor(x, (1,)), ShapedArray((3, 4), np.int32),
     "{ lambda ; a:i32[3,4]. let b:i32[3] = reduce_xor[axes=(1,)] a in (b,) }"),
    (lambda x: lax.argmax(x, 1, np.int32), F34,
     "{ lambda ; a:f32[3,4]. let\n    b:i32[3] = argmax[axes=(1,) index_dtype=int32] a\n  in (b,) }"),
    (lambda x: lax.cumprod(x, 0, reverse=True), F34,
     "{ lambda ; a:f32[3,4]. let b:f32[3,4] = cumprod[axis=0 reverse=True] a in (b,) }"),
    (lambda x: lax.cumlogsumexp(x), F34,
     "{ lambda ; a:f32[3,4]. let\n    b:f32[3,4] = cumlogsumexp[axis=0 reverse=False] a\n  in (b,) }"),
]


@pytest.mark.parametrize("fn,aval,text", GOLDEN)
def test_golden_jaxpr(fn, aval, text):
    assert str(jxkernel.make_jaxpr(fn)(np.zeros(aval.shape, aval.dtype))) == text


def test_generic_reduce_jaxpr():
    comp = lambda a, b: lax.add(lax.mul(a, b), 1.)
    text = str(jxkernel.make_jaxpr(lambda x: lax.reduce(x, 1., comp, (0,)))(np.zeros((3, 4), np.float32)))
    assert text == (
        "{ lambda ; a:f32[3,4]. let\n    b:f32[4] = reduce[\n      computation=<function "
        "test_generic_reduce_jaxpr.<locals>.<lambda> at 0xXXXXXXXXXXXX>\n"
        "      dimensions=(0,)\n      jaxpr={ lambda ; c:f32[] d:f32[]. let\n"
        "          e:f32[] = mul c d\n          f:f32[] = add e 1.0:f32[]\n        in (f,) }\n"
        "    ] a 1.0:f32[]\n  in (b,) }")


# ------------------------------------------------------------------ errors (JAX's messages)
f = np.ones(4, np.float32)
i13 = np.ones((1, 3), np.int32)
b13 = np.ones((1, 3), bool)
ERRORS = [
    (lambda: lax.reduce_sum(b13, (1,)), TypeError,
     "reduce_sum does not accept dtype bool. Accepted dtypes are subtypes of number."),
    (lambda: lax.reduce_prod(b13, (1,)), TypeError,
     "reduce_prod does not accept dtype bool. Accepted dtypes are subtypes of number."),
    (lambda: lax.reduce_and(f, (0,)), TypeError,
     "logical reduction requires operand dtype bool or int, got float32."),
    (lambda: lax.reduce_sum(i13, (1, 1)), ValueError, "duplicate value in 'axes' of reduction: (1, 1)"),
    (lambda: lax.reduce_sum(i13, (2,)), ValueError,
     "reduction axes (2,) contains out-of-bounds indices for int32[1,3]."),
    (lambda: lax.reduce_max(i13, (-1,)), ValueError,
     "reduction axes (-1,) contains out-of-bounds indices for int32[1,3]."),
    (lambda: lax.argmax(f, 0, np.float32), TypeError, "index_dtype must be an integer type, but got float32"),
    (lambda: lax.argmax(f, 1, np.int32), ValueError, "Invalid axis 1 for operand shape (4,)"),
    (lambda: lax.argmin(f, -1, np.int32), ValueError, "Invalid axis -1 for operand shape (4,)"),
    (lambda: lax.argmax(np.zeros((0, 3), np.float32), 0, np.int32), ValueError,
     "argmin and argmax require non-empty reduced dimension. operand.shape=(0, 3) axis=0"),
    (lambda: lax.argmax(np.ones(2, np.complex64), 0, np.int32), TypeError,
     "gt does not accept dtype complex64 at position 0"),
    (lambda: lax.cumsum(b13, 1), TypeError,
     "cumsum does not accept dtype bool. Accepted dtypes are subtypes of number."),
    (lambda: lax.cumlogsumexp(i13, 1), TypeError, "cumlogsumexp does not accept dtype int32"),
    (lambda: lax.cumsum(i13, -1), ValueError, "XLA operations do not allow negative axes"),
    (lambda: lax.cummax(i13, 2), ValueError, "axis 2 is out of bounds for array of shape (1, 3)"),
    (lambda: lax.reduce((f, f), 0., lax.add, (0,)), ValueError,
     "Operands must have the same tree structure as init_values: PyTreeDef((*, *)) vs. PyTreeDef(*)"),
    (lambda: lax.reduce(f, np.zeros(3, np.float32), lax.mul, (0,)), ValueError,
     "reduce found non-scalar initial value: [(3,)]"),
    (lambda: lax.reduce(f, np.int32(0), lambda a, b: a, (0,)), TypeError,
     "reduce operand dtypes should match corresponding initial value dtypes, got "
     "operands=[ShapedArray(float32[4])] and initial_values=[ShapedArray(int32[])]"),
    (lambda: lax.reduce(f, 0., lambda a, b: lax.convert_element_type(a, np.int32), (0,)), TypeError,
     "reduce computation must return scalars of the init values' structure and dtypes"),
]


test_errors = raises_test(ERRORS)

# JAX's shape rule before its dtype rule (standard_abstract_eval): a bool sum along an axis out
# of bounds is told of the axis, and the logical reductions' shape rule (np.delete of the axes)
# raises IndexError for one outside [-ndim, ndim), after its dtype check; jxkernel told the
# dtype, and raised ValueError (the wide differential fuzzer, seed 9728). JAX 0.10.2's
# classes; the messages ours where JAX's are NumPy's ("index 2 is out of bounds for axis 0").
AXES_BEFORE_DTYPES = [
    (lambda: lax.reduce_sum(b13, (2,)), ValueError,
     "reduction axes (2,) contains out-of-bounds indices for bool[1,3]."),
    (lambda: lax.reduce_sum(b13, (0, 0)), ValueError,
     "duplicate value in 'axes' of reduction: (0, 0)"),
    (lambda: lax.reduce_prod(b13, (-1,)), ValueError,
     "reduction axes (-1,) contains out-of-bounds indices for bool[1,3]."),
    (lambda: lax.reduce_or(b13, (2,)), IndexError,
     "reduction axes (2,) contains out-of-bounds indices for bool[1,3]."),
    (lambda: lax.reduce_xor(i13, (-3,)), IndexError,
     "reduction axes (-3,) contains out-of-bounds indices for int32[1,3]."),
    (lambda: lax.reduce_and(b13, (-1,)), ValueError,
     "reduction axes (-1,) contains out-of-bounds indices for bool[1,3]."),
    (lambda: lax.reduce_and(f, (5,)), TypeError,
     "logical reduction requires operand dtype bool or int, got float32."),
]
test_axes_are_checked_before_dtypes = raises_test(AXES_BEFORE_DTYPES)


def test_errors_while_tracing_too():
    with pytest.raises(ValueError, match="duplicate value in 'axes'"):
        jxkernel.jit(lambda a: lax.reduce_sum(a, (0, 0)))(f)


def test_reduce_cannot_close_over_tracers():
    def fn(a, s):
        return lax.reduce(a, 0., lambda p, q: lax.add(lax.add(p, q), s), (0,))
    with pytest.raises(NotImplementedError, match="can't close over Tracers"):
        jxkernel.jit(fn)(f, np.float32(1))


# ================================================================== batching, jvp and transpose
# rules: vmap against stacking per-example results (in_axes 0, 1, -1 and None mixes, nested, with
# jit in both orders; tests/support/rule_checks.py's check_vmap), check_grads to order 2 in both
# modes, vjp/jvp dot-product tests, JAX's conventions, and jaxprs as JAX 0.10.2 prints them.
X = sample((3, 4))
BOOLS, INTS = sample((3, 4), 1, np.bool_), sample((3, 4), 2, np.int32)


def _monoid(a, b):
    """(1 + a)(1 + b) - 1: associative and commutative with identity 0, and no lax op, so
    lax.reduce traces it as a generic `reduce` region."""
    return lax.add(lax.add(lax.mul(a, b), a), b)


def _argmax_pair(a, b):
    (va, ia), (vb, ib) = a, b
    pick_a = lax.bitwise_or(lax.gt(va, vb), lax.bitwise_and(lax.eq(va, vb), lax.lt(ia, ib)))
    return lax.select(pick_a, va, vb), lax.select(pick_a, ia, ib)


UNARY = {
    "reduce_sum0": (lambda x: lax.reduce_sum(x, (0,)), X),
    "reduce_sum01": (lambda x: lax.reduce_sum(x, (0, 1)), X),
    "reduce_max1": (lambda x: lax.reduce_max(x, (1,)), X),
    "reduce_min0": (lambda x: lax.reduce_min(x, (0,)), X),
    "reduce_prod1": (lambda x: lax.reduce_prod(x, (1,)), X),
    "reduce_and": (lambda x: lax.reduce_and(x, (1,)), BOOLS),
    "reduce_or": (lambda x: lax.reduce_or(x, (0,)), BOOLS),
    "reduce_xor": (lambda x: lax.reduce_xor(x, (0, 1)), INTS),
    "argmax0": (lambda x: lax.argmax(x, 0, np.int32), X),
    "argmin1": (lambda x: lax.argmin(x, 1, np.int32), X),
    "reduce_generic": (lambda x: lax.reduce(x, F32(0), _monoid, (1,)), X * 0.3),
    "reduce_pair": (lambda x: lax.reduce((x, lax.broadcasted_iota(np.int32, (3, 4), 0)),
                                         (F32(-np.inf), np.int32(0)), _argmax_pair, (0,)), X),
    "cumsum1": (lambda x: lax.cumsum(x, 1), X),
    "cumsum0r": (lambda x: lax.cumsum(x, 0, reverse=True), X),
    "cumprod1": (lambda x: lax.cumprod(x, 1), X),
    "cummax0": (lambda x: lax.cummax(x, 0), X),
    "cummin1r": (lambda x: lax.cummin(x, 1, reverse=True), X),
    "cumlogsumexp1": (lambda x: lax.cumlogsumexp(x, 1), X),
}


test_vmap_unary = vmap_unary_test(UNARY)


def test_vmap_of_reduce_with_batched_init_is_an_error():
    with pytest.raises(NotImplementedError, match="batched initial values"):
        jax.vmap(lambda x, i: lax.reduce(x, i, _monoid, (0,)))(sample((2, 3)), sample((2,)))


GRADS = {
    "reduce_sum": lambda x: lax.reduce_sum(lax.sin(x), (1,)),
    "reduce_max": lambda x: lax.reduce_max(x, (0,)),
    "reduce_min": lambda x: lax.reduce_min(x, (0, 1)),
    "reduce_prod": lambda x: lax.reduce_prod(x, (1,)),
    "reduce_prod_all": lambda x: lax.reduce_prod(x, (0, 1)),
    "reduce_generic": lambda x: lax.reduce(x, F32(0), _monoid, (1,)),
    "reduce_pair": lambda x: lax.reduce((x, lax.broadcasted_iota(np.int32, np.shape(x), 0)),
                                        (F32(-np.inf), np.int32(0)), _argmax_pair, (0,))[0],
    "cumsum": lambda x: lax.cumsum(x, 1),
    "cumsum_rev": lambda x: lax.cumsum(x, 0, reverse=True),
    "cumprod": lambda x: lax.cumprod(x, 1),
    "cumprod_rev": lambda x: lax.cumprod(x, 0, reverse=True),
    "cummax": lambda x: lax.cummax(x, 1),
    "cummin_rev": lambda x: lax.cummin(x, 0, reverse=True),
    "cumlogsumexp": lambda x: lax.cumlogsumexp(x, 1),
}


# each check_grads as one program (grads_together): 419 -> 28 compiles, 10.2 -> 7.0 s CPU for
# these 14 tests alone (cumlogsumexp, reduce_generic and cummin_rev cost more this way, whose
# derivatives trace long jaxprs, the others less: reduce_pair 1.71 -> 0.36 s)
test_check_grads_order_2 = grads_order_2_test(
    GRADS, halved=[n for n in GRADS if "prod" in n or "generic" in n], check=check_grads_together)


def test_reduce_with_a_tangent_on_its_initial_value_is_not_differentiable():
    with pytest.raises(NotImplementedError, match="initial values"):
        jax.grad(lambda i: sum_all(lax.reduce(X, i, _monoid, (1,))))(F32(0))


def test_max_ties_split_the_gradient_and_argmax_has_none():
    x = np.array([[1., 3., 3.], [2., 0., 2.]], F32)
    np.testing.assert_allclose(np.asarray(jax.grad(lambda x: sum_all(lax.reduce_max(x, (1,))))(x)),
                               [[0, .5, .5], [.5, 0, .5]])
    np.testing.assert_allclose(np.asarray(jax.grad(lambda x: lax.reduce_min(x, (0, 1)))(x)),
                               [[0, 0, 0], [0, 1, 0]])
    # argmax's integer result carries no tangent: only the reduce_max path contributes
    f = lambda x: sum_all(lax.mul(lax.reduce_max(x, (1,)),
                            lax.convert_element_type(lax.argmax(x, 1, np.int32), F32)))
    np.testing.assert_allclose(np.asarray(jax.grad(f)(x)), [[0, .5, .5], [0, 0, 0]])
    _, t = jax.jvp(lambda x: lax.argmax(x, 1, np.int32), (x,), (np.ones_like(x),))
    assert not np.any(np.asarray(t))


def test_cumsum_transpose_is_reverse_cumsum_and_prod_with_zeros():
    x = sample((4,), 1)
    ct = sample((4,), 2)
    _, f_vjp = jax.vjp(lambda x: lax.cumsum(x, 0), x)
    # float64 reverse cumsum rounded once; partial sums that cancel measured at sums of |ct|
    # [worst seen 0]
    ct64 = ct[::-1].astype(np.float64)
    assert_allclose_ulp(np.asarray(f_vjp(ct)[0]), np.cumsum(ct64)[::-1].astype(F32), REDUCTION,
                        scale=np.cumsum(np.abs(ct64))[::-1])
    x = np.array([2., 0., 3., 4.], F32)          # a zero: the tree jvp stays finite and exact
    np.testing.assert_allclose(np.asarray(jax.grad(lambda x: lax.reduce_prod(x, (0,)))(x)),
                               [0., 24., 0., 0.])
    np.testing.assert_allclose(np.asarray(jax.grad(lambda x: sum_all(lax.cumprod(x, 0)))(x)),
                               [1., 2 + 6 + 24, 0., 0.])


def test_grads_under_jit_and_vmap_of_grad():
    for name in ("reduce_max", "cumprod", "reduce_generic"):
        check_grad_under_jit_and_vmap(lambda x: sum_all(GRADS[name](x)), sample((3, 5), 5) * 0.5,
                                      jit_inside=name == "cumprod")


X34 = np.zeros((3, 4), F32)
RULES_GOLDEN = {
    "grad_reduce_sum_tanh": (jax.grad(lambda x: sum_all(lax.tanh(x))), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[3,4] = tanh a
    c:f32[3,4] = sub 1.0:f32[] b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    d:f32[3,4] = broadcast_in_dim 1.0:f32[]
    e:f32[3,4] = mul d c
    f:f32[3,4] = mul e b
    g:f32[3,4] = add_any e f
  in (g,) }"""),
    "grad_reduce_max": (jax.grad(lambda x: sum_all(lax.reduce_max(x, (1,)))), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[3] = reduce_max[axes=(1,)] a
    c:f32[3,1] = reshape[dimensions=None new_sizes=(3, 1) sharding=None] b
    d:bool[3,4] = eq a c
    e:f32[3,4] = convert_element_type[new_dtype=float32 weak_type=False] d
    f:f32[3] = reduce_sum[axes=(1,) out_sharding=None] e
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    g:f32[3] = broadcast_in_dim 1.0:f32[]
    h:f32[3] = div g f
    i:f32[3,4] = broadcast_in_dim[broadcast_dimensions=(np.int64(0),)] h
    j:f32[3,4] = mul i e
  in (j,) }"""),
    "grad_reduce_prod": (jax.grad(lambda x: sum_all(lax.reduce_prod(x, (1,)))), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[4,3] = reshape[dimensions=(1, 0) new_sizes=(4, 3) sharding=None] a
    c:f32[2,3] = slice[limit_indices=(2, 3) start_indices=(0, 0) strides=(1, 1)] b
    d:f32[2,3] = slice[limit_indices=(4, 3) start_indices=(2, 0) strides=(1, 1)] b
    e:f32[2,3] = mul c d
    f:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=(1, 1)] e
    g:f32[1,3] = slice[limit_indices=(2, 3) start_indices=(1, 0) strides=(1, 1)] e
    h:f32[1,3] = mul f g
    i:f32[3] = squeeze[dimensions=(0,)] h
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] i
    j:f32[3] = broadcast_in_dim 1.0:f32[]
    k:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] j
    l:f32[1,3] = mul f k
    m:f32[1,3] = mul k g
    n:f32[2,3] = pad[padding_config=((1, np.int64(0), 0), (0, np.int64(0), 0))] l
      0.0:f32[]
    o:f32[2,3] = pad[padding_config=((0, np.int64(1), 0), (0, np.int64(0), 0))] m
      0.0:f32[]
    p:f32[2,3] = add_any n o
    q:f32[2,3] = mul c p
    r:f32[2,3] = mul p d
    s:f32[4,3] = pad[padding_config=((2, np.int64(0), 0), (0, np.int64(0), 0))] q
      0.0:f32[]
    t:f32[4,3] = pad[padding_config=((0, np.int64(2), 0), (0, np.int64(0), 0))] r
      0.0:f32[]
    u:f32[4,3] = add_any s t
    v:f32[3,4] = transpose[permutation=(1, 0)] u
  in (v,) }"""),
    "grad_cumsum_rev": (jax.grad(lambda x: sum_all(lax.sin(lax.cumsum(x, 0, reverse=True)))), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[3,4] = cumsum[axis=0 reverse=True] a
    c:f32[3,4] = sin b
    d:f32[3,4] = cos b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    e:f32[3,4] = broadcast_in_dim 1.0:f32[]
    f:f32[3,4] = mul e d
    g:f32[3,4] = cumsum[axis=0 reverse=False] f
  in (g,) }"""),
    "vmap_reduce_sum": (jax.vmap(lambda x: lax.reduce_sum(x, (0,)), in_axes=1), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[4] = reduce_sum[axes=(np.int64(0),) out_sharding=None] a
  in (b,) }"""),
    "vmap_argmax": (jax.vmap(lambda x: lax.argmax(x, 0, np.int32), in_axes=1), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:i32[4] = argmax[axes=(np.int64(0),) index_dtype=int32] a
  in (b,) }"""),
    "vmap_cumsum": (jax.vmap(lambda x: lax.cumsum(x, 0), in_axes=1), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[3,4] = cumsum[axis=0 reverse=False] a
    c:f32[4,3] = transpose[permutation=(1, 0)] b
  in (c,) }"""),
}


test_jaxprs_as_jax_prints_them = prints_as_jax_test(RULES_GOLDEN)


def test_every_primitive_of_this_family_has_its_rules():
    check_family_rules(
        linear=[lax.reduce_sum_p, lax.cumsum_p],
        nonlinear=[lax.reduce_max_p, lax.reduce_min_p, lax.reduce_prod_p, lax.reduce_and_p,
                   lax.reduce_or_p, lax.reduce_xor_p, lax.argmax_p, lax.argmin_p, lax.reduce_p,
                   lax.cumprod_p, lax.cummax_p, lax.cummin_p, lax.cumlogsumexp_p])


def test_a_vmapped_reductions_out_of_bounds_axes_print_as_python_ints():
    # vmap shifts the axes into NumPy integers: the message read "reduction axes
    # (np.int64(-1),)" (JAX's still does)
    with pytest.raises(ValueError, match=r"^reduction axes \(-1,\) contains out-of-bounds "):
        jxkernel.vmap(lambda a: lax.reduce_max(a, (-1,)), in_axes=1)(
            np.ones((4, 3, 2), np.float32))


x432 = np.ones((4, 3, 2), np.float32)
# (function, JAX 0.10.2's error class): JAX's reducer_batcher deletes the shifted axes from the
# batched operand's dims with np.delete, an IndexError for one past them (before any shape
# rule); a negative axis that lands on the batch dim is a ValueError ("0 is not in list").
# jxkernel raised ValueError for all (found by the wide differential fuzzer, seed 1432).
VMAPPED_AXES = [
    (lambda: jxkernel.vmap(lambda a: lax.reduce_sum(a, (2,)))(x432), IndexError),
    (lambda: jxkernel.vmap(lambda a: lax.reduce_max(a, (2,)), in_axes=2)(x432), IndexError),
    (lambda: jxkernel.vmap(lambda a: lax.reduce_or(a > 0, (5,)))(x432), IndexError),
    (lambda: jxkernel.jit(jxkernel.vmap(lambda a: lax.argmin(a, 2, np.int32)))(x432),
     IndexError),
    (lambda: jxkernel.vmap(lambda a: lax.argmax(a, 0, np.int32))(np.ones(4)), IndexError),
    (lambda: jxkernel.vmap(lambda a: lax.reduce_sum(a, (-3,)))(x432), ValueError),
    (lambda: jxkernel.vmap(lambda a: lax.reduce_sum(a, (-2,)), in_axes=1)(x432), ValueError),
]


@pytest.mark.parametrize("f, error", VMAPPED_AXES)
def test_a_vmapped_reductions_out_of_bounds_axes_raise_jaxs_class(f, error):
    with pytest.raises(Exception) as raised:
        f()
    assert type(raised.value) is error
    if error is IndexError:         # ours names the user's axes and one example's shape
        assert "(the shape of one example under vmap)" in str(raised.value)
