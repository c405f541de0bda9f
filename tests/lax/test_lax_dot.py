"""dot_general / dot / batch_matmul against NumPy (eager and under jit), mixed precision,
precision params and their StableHLO, golden jaxprs from JAX 0.10.2, error messages."""
import functools

import ml_dtypes
import numpy as np
import pytest

import jxkernel
import jxkernel as jax
from jxkernel import lax
from jxkernel.config import config
from jxkernel.core import check_jaxpr
from jxkernel.test_util import check_grads, check_vjp

from compiled import jit_together
from numerics import REDUCTION, assert_allclose_ulp
from rule_checks import (F32, check_family_rules, largest, prints_as_jax_test, raises_test,
                         sample, sum_all, vmap_binary_test)

bf16 = np.dtype(ml_dtypes.bfloat16)
LOW = (np.dtype(np.float16), bf16)


def data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -4, 5, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def reference(lhs, rhs, dimension_numbers, out_dtype):
    """dot_general in NumPy: einsum in a wide type, then cast."""
    (lc, rc), (lb, rb) = dimension_numbers
    letters = iter("abcdefghijklmnop")
    lhs_sub = [next(letters) for _ in range(lhs.ndim)]
    rhs_sub = [next(letters) for _ in range(rhs.ndim)]
    for l, r in zip(lc + lb, rc + rb):
        rhs_sub[r] = lhs_sub[l]
    out = [lhs_sub[d] for d in lb] + [lhs_sub[i] for i in range(lhs.ndim) if i not in lc + lb] + \
          [rhs_sub[i] for i in range(rhs.ndim) if i not in rc + rb]
    wide = lambda x: x.astype(np.complex128 if x.dtype.kind == "c" else
                              np.int64 if x.dtype.kind in "iub" else np.float64)
    spec = f"{''.join(lhs_sub)},{''.join(rhs_sub)}->{''.join(out)}"
    result = np.einsum(spec, wide(lhs), wide(rhs))
    return (result != 0) if out_dtype == np.bool_ else result.astype(out_dtype)


def assert_close(got, want):
    """Floats within REDUCTION ulps of the float64 reference rounded once, measured at the
    result's largest |value| (a sum's rounding follows the vector width and FMA per CPU, and an
    entry that cancels is only as exact as the terms' size; worst seen 1 ulp on AVX-512, 7 on
    AVX without FMA); integers and booleans exactly. In the GPU tier: TF32's bound."""
    scale = np.abs(want.astype(np.complex128)).max(initial=0) if want.size else None
    assert_allclose_ulp(np.asarray(got), want, REDUCTION, scale=scale, gpu="tf32")


def check(fn, args, want, jitted=None):
    """fn eagerly and under jit (`jitted`: jit(fn)(*args) computed already, with the test's
    other cases in one program by `jit_together`), and its jaxpr type-checks."""
    assert_close(fn(*map(jxkernel.device_put, args)), want)
    assert_close(jxkernel.jit(fn)(*args) if jitted is None else jitted, want)
    check_jaxpr(jxkernel.make_jaxpr(fn)(*args))


# (lhs shape, rhs shape, dimension numbers)
DIMS = [
    ((3, 4), (4, 5), (((1,), (0,)), ((), ()))),                  # matmul
    ((3, 4), (4,), (((1,), (0,)), ((), ()))),                    # matvec
    ((4,), (4,), (((0,), (0,)), ((), ()))),                      # inner
    ((3,), (5,), (((), ()), ((), ()))),                          # outer
    ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),        # batched
    ((4, 3), (5, 4), (((0,), (1,)), ((), ()))),                  # contracting non-last dims
    ((2, 3, 4, 5), (4, 3, 6), (((1, 2), (1, 0)), ((), ()))),     # two contracting dims
    ((3, 2, 4), (4, 5, 2), (((2,), (0,)), ((1,), (2,)))),        # batch dims not leading
    ((0, 4), (4, 2), (((1,), (0,)), ((), ()))),                  # empty
]


def _shapes_call(lhs_shape, rhs_shape, dims):
    return (lambda a, b: lax.dot_general(a, b, dims)), [data(lhs_shape, "float32"),
                                                       data(rhs_shape, "float32", 1)]


@functools.cache
def _shapes_jitted():
    """jit of every case of test_dot_general_shapes, compiled together."""
    return jit_together(jxkernel, {c: _shapes_call(*c) for c in DIMS})


@pytest.mark.parametrize("lhs_shape,rhs_shape,dims", DIMS)
def test_dot_general_shapes(lhs_shape, rhs_shape, dims):
    fn, [lhs, rhs] = _shapes_call(lhs_shape, rhs_shape, dims)
    check(fn, [lhs, rhs], reference(lhs, rhs, dims, np.float32),
          jitted=_shapes_jitted()[lhs_shape, rhs_shape, dims])


# (lhs dtype, rhs dtype, preferred_element_type, result dtype)
DTYPES = [
    ("float32", "float32", None, "float32"),
    ("float16", "float16", None, "float16"),
    ("bfloat16", "bfloat16", None, "bfloat16"),
    ("bfloat16", "bfloat16", "float32", "float32"),
    ("float16", "float16", "float32", "float32"),
    ("int32", "int32", None, "int32"),
    ("int8", "int8", "int32", "int32"),
    ("uint8", "uint8", "uint32", "uint32"),
    ("bool", "bool", None, "bool"),
    ("bool", "bool", "int32", "int32"),
    ("complex64", "complex64", None, "complex64"),
    ("int8", "float32", None, "float32"),         # mixed: operands converted first, as JAX does
    ("float16", "bfloat16", None, "bfloat16"),    # bf16 has more exponent bits: it wins
    ("float32", "float32", "int32", "int32"),
    ("bool", "int8", None, "int8"),
    ("uint8", "int8", None, "int8"),              # same width: signed wins
]


def _dtypes_call(lhs_dtype, rhs_dtype, preferred):
    dims = (((2,), (1,)), ((0,), (0,)))
    return ((lambda a, b: lax.dot_general(a, b, dims, preferred_element_type=preferred)),
            [data((2, 3, 4), lhs_dtype), data((2, 4, 5), rhs_dtype, 1)])


@functools.cache
def _dtypes_jitted():
    """jit of every case of test_dot_general_dtypes, compiled together."""
    return jit_together(jxkernel, {c[:3]: _dtypes_call(*c[:3]) for c in DTYPES})


@pytest.mark.parametrize("lhs_dtype,rhs_dtype,preferred,out_dtype", DTYPES)
def test_dot_general_dtypes(lhs_dtype, rhs_dtype, preferred, out_dtype):
    dims = (((2,), (1,)), ((0,), (0,)))
    fn, [lhs, rhs] = _dtypes_call(lhs_dtype, rhs_dtype, preferred)
    want = reference(lhs, rhs, dims, np.dtype(out_dtype))
    check(fn, [lhs, rhs], want, jitted=_dtypes_jitted()[lhs_dtype, rhs_dtype, preferred])


def test_int8_accumulates_in_preferred_type():
    big = np.full((2, 3), 100, np.int8)
    out = lax.dot_general(big, big, (((1,), (1,)), ((), ())), preferred_element_type=np.int32)
    np.testing.assert_array_equal(out, np.full((2, 2), 30000, np.int32))


def test_dot_and_batch_matmul():
    m, v = data((3, 4), "float32"), data((4,), "float32", 1)
    check(lambda a, b: lax.dot(a, b), [m, v], (m.astype(np.float64) @ v).astype(np.float32))
    check(lambda a: lax.dot(a, lax.transpose(a, (1, 0))), [m],
          (m.astype(np.float64) @ m.T).astype(np.float32))
    x, y = data((2, 3, 4), "float32"), data((2, 4, 5), "float32", 1)
    check(lambda a, b: lax.batch_matmul(a, b), [x, y], (x.astype(np.float64) @ y).astype(np.float32))
    dims = (((1,), (1,)), ((), ()))
    check(lambda a: lax.dot(a, a, dimension_numbers=dims), [m],
          (m.astype(np.float64) @ m.T).astype(np.float32))


def test_weak_type_needs_both_operands_weak():
    from jxkernel.lax.conversion import _convert_element_type
    w = _convert_element_type(np.ones(2, np.float32), np.float32, True)
    dims = (((0,), (0,)), ((), ()))
    assert lax.dot_general(w, w, dims).weak_type
    assert not lax.dot_general(w, np.ones(2, np.float32), dims).weak_type


# ------------------------------------------------------------------ precision
@pytest.mark.parametrize("precision,pair", [
    (None, None), ("highest", ("HIGHEST", "HIGHEST")), ("bfloat16", ("DEFAULT", "DEFAULT")),
    (lax.Precision.HIGH, ("HIGH", "HIGH")),
    ((lax.Precision.HIGHEST, lax.Precision.DEFAULT), ("HIGHEST", "DEFAULT")),
    (("tensorfloat32", "float32"), ("HIGH", "HIGHEST"))])
def test_precision_params_and_stablehlo(precision, pair):
    m = data((3, 4), "float32")
    fn = lambda a: lax.dot(a, a, dimension_numbers=(((1,), (1,)), ((), ())), precision=precision)
    eqn = jxkernel.make_jaxpr(fn)(m).eqns[0]
    got = eqn.params["precision"]
    assert (got if got is None else tuple(p.name for p in got)) == pair
    text = jxkernel.jit(fn).lower(m).as_text()
    shown = pair or ("DEFAULT", "DEFAULT")
    assert f"precision = [{shown[0]}, {shown[1]}]" in text       # as MLIR prints it
    assert_close(fn(m), (m.astype(np.float64) @ m.T).astype(np.float32))


def test_default_matmul_precision_config():
    m = data((2, 2), "float32")
    with config.override("jax_default_matmul_precision", "highest"):
        eqn = jxkernel.make_jaxpr(lambda a: lax.dot(a, a))(m).eqns[0]
    assert eqn.params["precision"] == (lax.Precision.HIGHEST, lax.Precision.HIGHEST)
    with config.override("jax_default_matmul_precision", "nonsense"):
        with pytest.raises(ValueError, match="jax_default_matmul_precision flag must be set to None"):
            lax.dot(m, m)


def test_precision_enum():
    assert repr(lax.Precision.HIGHEST) == "Precision.HIGHEST" and str(lax.Precision.HIGH) == "HIGH"
    assert lax.Precision("fastest") is lax.Precision.DEFAULT


# ------------------------------------------------------------------ jaxprs (JAX 0.10.2's text)
GOLDEN = [
    (lambda x: lax.dot_general(x, x, (([1], [1]), ([], []))),
     "{ lambda ; a:f32[3,4]. let\n    b:f32[3,3] = dot_general[dimension_numbers=(([1], [1]), ([], []))] a a\n"
     "  in (b,) }"),
    (lambda x: lax.dot_general(x, x, (([1], [1]), ([], [])), precision=lax.Precision.HIGHEST),
     "{ lambda ; a:f32[3,4]. let\n    b:f32[3,3] = dot_general[\n      dimension_numbers=(([1], [1]), ([], []))\n"
     "      precision=(Precision.HIGHEST, Precision.HIGHEST)\n    ] a a\n  in (b,) }"),
    (lambda x: lax.dot_general(x, x, (([1], [1]), ([], [])), preferred_element_type=np.float32),
     "{ lambda ; a:f32[3,4]. let\n    b:f32[3,3] = dot_general[\n      dimension_numbers=(([1], [1]), ([], []))\n"
     "      preferred_element_type=float32\n    ] a a\n  in (b,) }"),
]


@pytest.mark.parametrize("fn,text", GOLDEN)
def test_golden_jaxpr(fn, text):
    assert str(jxkernel.make_jaxpr(fn)(np.zeros((3, 4), np.float32))) == text


def test_batch_matmul_jaxpr():
    text = str(jxkernel.make_jaxpr(lax.batch_matmul)(np.zeros((1, 3, 4), np.float32),
                                                     np.zeros((1, 4, 3), np.float32)))
    assert "dot_general[dimension_numbers=(([2], [1]), ([0], [0]))]" in text


# ------------------------------------------------------------------ errors (JAX's messages)
A, B = np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)
ERRORS = [
    (lambda: lax.dot_general(A, B, (([1], [0]), ([], []))), TypeError,
     "dot_general requires contracting dimensions to have the same shape, got (3,) and (4,)."),
    (lambda: lax.dot_general(A, B, (([2], [0]), ([], []))), TypeError,
     "dot_general requires lhs dimension numbers to be nonnegative and less than the number of "
     "axes of the lhs value, got lhs_batch of () and lhs_contracting of (2,) for lhs of rank 2"),
    (lambda: lax.dot_general(A, B, (([1], [3]), ([], []))), TypeError,
     "dot_general requires rhs dimension numbers to be nonnegative and less than the number of "
     "axes of the rhs value, got rhs_batch of () and rhs_contracting of (3,) for rhs of rank 2"),
    (lambda: lax.dot_general(A, B, (([-1], [1]), ([], []))), TypeError,
     "got lhs_batch of () and lhs_contracting of (-1,) for lhs of rank 2"),
    (lambda: lax.dot_general(A, B, (([1], [1]), ([0], [0]))), TypeError,
     "dot_general requires lhs batch dimensions and rhs batch dimensions to have the same shape, "
     "got (2,) and (4,)."),
    (lambda: lax.dot_general(A, B, (([1], [1]), ([0], []))), TypeError,
     "dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, got lhs_batch (0,) "
     "and rhs_batch ()."),
    (lambda: lax.dot_general(np.ones((3, 3)), np.ones((3, 3)), (([0, 0], [0, 1]), ([], []))), TypeError,
     "dot_general requires lhs contracting dimensions to be distinct, got lhs_contracting (0, 0)."),
    (lambda: lax.dot_general(np.ones((3, 3)), np.ones((3, 3)), (([0], [1]), ([0], [0]))), TypeError,
     "dot_general requires lhs batch dimensions to be disjoint from contracting dimensions, got "
     "lhs_batch (0,) and lhs_contracting (0,)."),
    (lambda: lax.dot_general(A.astype(np.int32), B.astype(np.int32), (([1], [1]), ([], [])),
                             preferred_element_type=np.int8), TypeError,
     "`preferred_element_type` must not be narrower than the original type, got "
     "preferred_element_type of int8 for result type of int32."),
    (lambda: lax.dot(A, B.T, precision="foo"), ValueError, "Precision argument must be one of:\n- None,"),
    (lambda: lax.dot(np.ones((2, 2, 2)), np.ones((2, 2))), ValueError,
     "jax.lax.dot: dimension_numbers must be specified when not performing simple un-batched "
     "matrix-matrix, matrix-vector, or vector-vector products; got lhs_shape=(2, 2, 2) rhs_shape=(2, 2)"),
    (lambda: lax.batch_matmul(np.ones(2), np.ones((2, 2))), ValueError,
     "Arguments to batch_matmul must be at least 2D, got 1, 2"),
    (lambda: lax.batch_matmul(np.ones((2, 2, 2)), np.ones((2, 2))), ValueError,
     "Arguments to batch_matmul must have same ndim, got 3, 2"),
]


test_errors = raises_test(ERRORS)


# ================================================================== batching, jvp and transpose
# rules: vmap against stacking per-example results (in_axes 0, 1, -1 and None mixes, nested, with
# jit in both orders; tests/support/rule_checks.py's check_vmap), check_grads to order 2 in both
# modes, vjp/jvp dot-product tests, JAX's conventions, and jaxprs as JAX 0.10.2 prints them.
LHS, RHS = sample((2, 3, 4), 3), sample((2, 4, 5), 4)
BATCHED_DOT = (((2,), (1,)), ((0,), (0,)))
CONTRACT2 = (((0, 2), (0, 1)), ((), ()))
BINARY = {
    "matmul": (lambda a, b: lax.dot(a, b), sample((3, 4)), sample((4, 5), 5)),
    "matvec": (lambda a, b: lax.dot(a, b), sample((3, 4)), sample((4,), 5)),
    "vecvec": (lambda a, b: lax.dot(a, b), sample((4,)), sample((4,), 5)),
    "batched": (lambda a, b: lax.dot_general(a, b, BATCHED_DOT), LHS, RHS),
    "contract2": (lambda a, b: lax.dot_general(a, b, CONTRACT2), LHS, RHS),
    "outer": (lambda a, b: lax.dot_general(a, b, (((), ()), ((), ()))), sample((3,)), sample((2, 2))),
    "preferred": (lambda a, b: lax.dot(a, b, preferred_element_type=F32),
                  sample((3, 4), 0, np.float16), sample((4, 2), 1, np.float16)),
}
test_vmap_binary = vmap_binary_test(BINARY)


def test_nested_vmap():
    def f(a, b):        # a: (2, 3, 4), b: (2, 4, 5) per example
        return lax.cumsum(lax.sort(lax.dot_general(a, b, BATCHED_DOT), 2), 1)
    a, b = sample((3, 2, 2, 3, 4)), sample((2, 4, 5, 3), 1)
    # outer: a's axis 0, b's axis 3; inner: axis 1 of a's slice, b unbatched
    nested = jax.vmap(jax.vmap(f, in_axes=(1, None)), in_axes=(0, 3))
    want = np.stack([np.stack([f(a[o][:, i], b[..., o]) for i in range(2)]) for o in range(3)])
    for g in (nested, jax.jit(nested), jax.vmap(jax.jit(jax.vmap(f, in_axes=(1, None))),
                                                in_axes=(0, 3))):
        # (batched dots and cumsums: REDUCTION at the largest |value| [worst seen 0])
        assert_allclose_ulp(np.asarray(g(a, b)), want, REDUCTION, scale=largest(want),
                            gpu="tf32")
    check_jaxpr(jax.make_jaxpr(nested)(a, b))


def test_vmap_keeps_unbatched_operands_unbatched():
    """JAX folds the batch dim into the free dims of the batched operand: no broadcast of
    the weights, no transposes, one dot_general per layer."""
    def predict(params, x):
        for w, b in params:
            x = lax.tanh(lax.add(lax.dot(x, w), b))
        return x
    params = [(sample((8, 16)), sample((16,), 1)), (sample((16, 4), 2), sample((4,), 3))]
    jaxpr = jax.make_jaxpr(jax.vmap(predict, in_axes=(None, 0)))(params, sample((5, 8), 4))
    check_jaxpr(jaxpr)
    prims = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert prims.count("dot_general") == 2 and "transpose" not in prims
    dot_in_shapes = [tuple(v.aval.shape for v in e.invars) for e in jaxpr.jaxpr.eqns
                     if e.primitive.name == "dot_general"]
    assert dot_in_shapes == [((5, 8), (8, 16)), ((5, 16), (16, 4))]
    # reductions shift their axes instead of moving the batch dim
    jaxpr = jax.make_jaxpr(jax.vmap(lambda x: lax.reduce_max(x, (0, 2)), in_axes=1))(
        sample((3, 4, 5, 6)))
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["reduce_max"]
    assert jaxpr.jaxpr.eqns[0].params["axes"] == (0, 3)


@pytest.mark.parametrize("dims,shapes", [
    ((((1,), (0,)), ((), ())), ((3, 4), (4, 2))),
    (BATCHED_DOT, ((2, 3, 4), (2, 4, 5))),
    ((((0, 2), (0, 1)), ((), ())), ((2, 3, 4), (2, 4, 5))),
    ((((2,), (0,)), ((1,), (2,))), ((3, 2, 4), (4, 5, 2))),      # batch dims not in front
    ((((), ()), ((), ())), ((3,), (2,))),
], ids=["matmul", "batched", "contract2", "batch_mid", "outer"])
def test_dot_general_grads(dims, shapes):
    f = lambda a, b: lax.dot_general(a, b, dims)
    args = (sample(shapes[0], 1), sample(shapes[1], 2))
    check_grads(f, args, order=2, modes=("fwd", "rev"))
    check_vjp(f, functools.partial(jax.vjp, f), args)   # the dot-product test <vjp(ct), t> == <ct, jvp(t)>
    for argnums in (0, 1, (0, 1)):
        check_jaxpr(jax.make_jaxpr(jax.grad(lambda a, b: sum_all(f(a, b)), argnums=argnums))(*args))


def test_dot_general_preferred_element_type_and_mixed_dtypes():
    a, b = sample((3, 4), 1, np.float16), sample((4, 2), 2, np.float16)
    f = lambda a, b: sum_all(lax.dot(a, b, preferred_element_type=F32))
    ga, gb = jax.grad(f, argnums=(0, 1))(a, b)
    assert ga.dtype == gb.dtype == np.float16          # cast back to the operands' type
    # sums of two float16 values, exact in float32 and rounded once to float16: correctly
    # rounded on every CPU, 1 ulp for a double rounding should one appear [worst seen 0]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    assert_allclose_ulp(np.asarray(ga), (np.ones((3, 2)) @ b64.T).astype(np.float16), 1)
    assert_allclose_ulp(np.asarray(gb), (a64.T @ np.ones((3, 2))).astype(np.float16), 1)
    check_jaxpr(jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(a, b))
    i8, w = sample((3, 4), 3, np.int8), sample((4, 2), 4)
    gw = jax.grad(lambda w: sum_all(lax.dot(i8, w)))(w)
    # sums of 2 small integers times 1.0: exact on every CPU
    np.testing.assert_array_equal(np.asarray(gw), i8.T.astype(F32) @ np.ones((3, 2), F32))


def test_grad_of_vmapped_dot():
    w, xs = sample((4, 3), 1), sample((5, 4), 2)
    loss = lambda w: sum_all(lax.tanh(jax.vmap(lambda x: lax.dot(x, w))(xs)))
    x64 = xs.astype(np.float64)              # float64, rounded once to float32
    dtanh = 1 - np.tanh(x64 @ w.astype(np.float64)) ** 2
    want = (x64.T @ dtanh).astype(F32)
    # 5-term sums of tanh' that cancel: REDUCTION at the sum of |terms| [worst seen 3]
    terms = np.abs(x64).T @ dtanh
    assert_allclose_ulp(np.asarray(jax.grad(loss)(w)), want, REDUCTION, scale=terms, gpu="tf32")
    assert_allclose_ulp(np.asarray(jax.jit(jax.grad(loss))(w)), want, REDUCTION, scale=terms,
                        gpu="tf32")


X34 = np.zeros((3, 4), F32)
A234, B245 = np.zeros((2, 3, 4), F32), np.zeros((2, 4, 5), F32)
RULES_GOLDEN = {
    "grad_dot_batched": (jax.grad(lambda a, b: sum_all(lax.dot_general(a, b, BATCHED_DOT)),
                                  argnums=(0, 1)), (A234, B245), """
{ lambda ; a:f32[2,3,4] b:f32[2,4,5]. let
    c:f32[2,3,5] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b
    _:f32[] = reduce_sum[axes=(0, 1, 2) out_sharding=None] c
    d:f32[2,3,5] = broadcast_in_dim 1.0:f32[]
    e:f32[2,5,4] = dot_general[dimension_numbers=(([1], [1]), ([0], [0]))] d a
    f:f32[2,4,5] = transpose[permutation=(0, 2, 1)] e
    g:f32[2,3,4] = dot_general[dimension_numbers=(([2], [2]), ([0], [0]))] d b
  in (g, f) }"""),
    "grad_dot_contract2": (jax.grad(lambda a, b: sum_all(lax.dot_general(a, b, CONTRACT2)),
                                    argnums=(0, 1)), (A234, B245), """
{ lambda ; a:f32[2,3,4] b:f32[2,4,5]. let
    c:f32[3,5] = dot_general[dimension_numbers=(([0, 2], [0, 1]), ([], []))] a b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[3,5] = broadcast_in_dim 1.0:f32[]
    e:f32[5,2,4] = dot_general[dimension_numbers=(([0], [1]), ([], []))] d a
    f:f32[2,4,5] = transpose[permutation=(1, 2, 0)] e
    g:f32[3,2,4] = dot_general[dimension_numbers=(([1], [2]), ([], []))] d b
    h:f32[2,3,4] = transpose[permutation=(1, 0, 2)] g
  in (h, f) }"""),
    "vmap_dot_rhs": (jax.vmap(lambda a, b: lax.dot_general(a, b, BATCHED_DOT), in_axes=(None, 2)),
                     (A234, B245), """
{ lambda ; a:f32[2,3,4] b:f32[2,4,5]. let
    c:f32[2,3,5] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b
    d:f32[5,2,3] = transpose[permutation=(2, 0, 1)] c
  in (d,) }"""),
    "vmap_dot_both": (jax.vmap(lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())))),
                      (A234, B245), """
{ lambda ; a:f32[2,3,4] b:f32[2,4,5]. let
    c:f32[2,3,5] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b
  in (c,) }"""),
}


test_jaxprs_as_jax_prints_them = prints_as_jax_test(RULES_GOLDEN)


def test_every_primitive_of_this_family_has_its_rules():
    check_family_rules(linear=[lax.dot_general_p], nonlinear=[])


@pytest.mark.parametrize("device", ["default", "numpy"])
def test_bfloat16_operands_summed_as_floats_for_an_integer_result(device):
    """preferred_element_type=int32 of bfloat16 operands: products summed as floats, then cast
    (JAX 0.10.2: 1.5*1.5 + 2.25*2.25 = 7.3125 gives 7). The NumPy backend took bfloat16
    (kind 'V') for no float and cast the operands first: 1*1 + 2*2 = 5."""
    put = (lambda x: x) if device == "default" else \
        functools.partial(jax.device_put, device=jax.devices("numpy")[0])
    a = put(np.array([[1.5, 2.25]], ml_dtypes.bfloat16))
    b = put(np.array([[1.5], [2.25]], ml_dtypes.bfloat16))
    dot = lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())),
                                       preferred_element_type=np.int32)
    for out in (dot(a, b), jax.jit(dot)(a, b)):
        assert out.dtype == np.int32 and np.asarray(out).tolist() == [[7]]
