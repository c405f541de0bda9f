"""sort / sort_key_val / top_k against NumPy (eager and under jit), JAX's order for NaN,
-0.0 and complex numbers, golden jaxprs from JAX 0.10.2, error messages."""
import functools

import ml_dtypes
import numpy as np
import pytest

import jxkernel
import jxkernel as jax
from jxkernel import lax
from jxkernel.core import check_jaxpr
from compiled import jit_together
from grads_together import check_grads_together
from rule_checks import (F32, check_family_rules, check_grad_under_jit_and_vmap,
                         grads_order_2_test, prints_as_jax_test, raises_test, sample,
                         sum_all, vmap_binary_test, vmap_unary_test)

bf16 = np.dtype(ml_dtypes.bfloat16)


def data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":                              # few distinct values: many ties
        return rng.integers(0 if dtype.kind == "u" else -3, 4, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.integers(-2, 2, shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def outputs(result):
    return result if isinstance(result, (list, tuple)) else [result]


def check(fn, args, wants, jitted=None):
    """fn eagerly and under jit gives exactly `wants`; its staged jaxpr type-checks.
    `jitted`: jit(fn)(*args) computed already, with the test's other cases in one program
    (`jit_together`)."""
    for got in (fn(*map(jxkernel.device_put, args)),
                jxkernel.jit(fn)(*args) if jitted is None else jitted):
        got = outputs(got)
        assert len(got) == len(wants)
        for g, w in zip(got, wants):
            g = np.asarray(g)
            assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
            np.testing.assert_array_equal(g, w)
    check_jaxpr(jxkernel.make_jaxpr(fn)(*args))


# ------------------------------------------------------------------ sort
SORT_CASES = [(shape, dim, dtype) for shape, dim in [((7,), -1), ((3, 5), 0), ((3, 5), 1), ((2, 3, 4), 1)]
              for dtype in ["float32", "int32"]] + \
             [((4, 6), -1, dtype) for dtype in ["float16", "bfloat16", "uint8", "int8", "bool", "complex64"]] + \
             [((0, 3), 0, "float32")]


def _sort_call(shape, dimension, dtype):
    return (lambda a: lax.sort(a, dimension)), [data(shape, dtype)]


@functools.cache
def _sort_jitted():
    """jit of every case of test_sort, compiled together."""
    return jit_together(jxkernel, {c: _sort_call(*c) for c in SORT_CASES})


@pytest.mark.parametrize("shape,dimension,dtype", SORT_CASES)
def test_sort(shape, dimension, dtype):
    fn, [x] = _sort_call(shape, dimension, dtype)
    check(fn, [x], [np.sort(x, axis=dimension, kind="stable")],
          jitted=_sort_jitted()[shape, dimension, dtype])


@pytest.mark.parametrize("dtype", ["float32", "int32", "bfloat16"])
def test_sort_key_val_is_stable(dtype):
    keys = data((3, 8), dtype, seed=2)
    if keys.dtype.kind == "f" or keys.dtype == bf16:
        keys = np.round(keys.astype(np.float32)).astype(dtype)      # make ties
    vals = np.arange(24, dtype=np.int32).reshape(3, 8)
    order = np.argsort(keys.astype(np.float32), axis=1, kind="stable")
    check(lambda k, v: lax.sort_key_val(k, v, dimension=1), [keys, vals],
          [np.take_along_axis(keys, order, 1), np.take_along_axis(vals, order, 1)])


@pytest.mark.parametrize("num_keys", [1, 2, 3])
def test_sort_multiple_operands_lexicographic(num_keys):
    a, b = data((2, 9), "int32", 3), data((2, 9), "float32", 4).round()
    c, payload = data((2, 9), "int8", 5), data((2, 9), "float32", 6)
    keys = [a, b, c][:num_keys]
    order = np.lexsort(keys[::-1], axis=1)                  # np.lexsort: last key is primary
    wants = [np.take_along_axis(x, order, 1) for x in (a, b, c, payload)]
    check(lambda *xs: lax.sort(xs, dimension=1, num_keys=num_keys), [a, b, c, payload], wants)


def test_sort_unstable_still_sorts():
    x = data((4, 16), "float32")
    check(lambda a: lax.sort(a, is_stable=False), [x], [np.sort(x, axis=-1)])


def test_sort_float_total_order():
    # -0.0 and 0.0 are equal (a stable sort keeps their order) and every NaN sorts last
    x = np.array([0., -0., np.nan, -np.nan, -1., np.inf, -np.inf, 0.], np.float32)
    got = np.asarray(lax.sort(x))
    np.testing.assert_array_equal(got, [-np.inf, -1., 0., -0., 0., np.inf, np.nan, np.nan])
    np.testing.assert_array_equal(np.signbit(got[2:5]), [False, True, False])
    keys = np.array([np.nan, 1., -0., np.nan, 0.], np.float32)
    k, v = lax.sort_key_val(keys, np.arange(5, dtype=np.int32))
    np.testing.assert_array_equal(v, [2, 4, 1, 0, 3])


def test_sort_complex_lexicographic():
    x = np.array([1 + 2j, 1 + 1j, 0 + 5j, complex(np.nan, 0), -1 - 1j], np.complex64)
    got = np.asarray(jxkernel.jit(lax.sort)(x))
    np.testing.assert_array_equal(got[:4], [-1 - 1j, 0 + 5j, 1 + 1j, 1 + 2j])
    assert np.isnan(got[4].real)


def test_sort_keeps_weak_type():
    from jxkernel.lax.conversion import _convert_element_type
    w = _convert_element_type(np.ones(3, np.float32), np.float32, True)
    assert lax.sort(w).weak_type
    k, v = lax.sort_key_val(w, np.ones(3, np.float32))
    assert k.weak_type and not v.weak_type


# ------------------------------------------------------------------ top_k
def np_top_k(x, k, axis):
    """Largest first, lower index first among equals (a stable sort of the negation)."""
    order = np.argsort(-x.astype(np.float64), axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return [np.take_along_axis(x, idx, axis), idx.astype(np.int32)]


TOP_K_CASES = [((7,), 3, -1, "float32"), ((3, 6), 2, -1, "float32"), ((3, 6), 6, 1, "int32"),
               ((4, 5), 2, 0, "float32"), ((2, 5, 3), 1, 1, "int32"), ((3, 6), 0, -1, "float32"),
               ((3, 6), 3, -1, "bfloat16"), ((3, 6), 3, -1, "uint8"), ((3, 6), 3, -1, "float16")]


def _top_k_call(shape, k, axis, dtype):
    return (lambda a: lax.top_k(a, k, axis=axis)), [data(shape, dtype, seed=7)]


@functools.cache
def _top_k_jitted():
    """jit of every case of test_top_k, compiled together."""
    return jit_together(jxkernel, {c: _top_k_call(*c) for c in TOP_K_CASES})


@pytest.mark.parametrize("shape,k,axis,dtype", TOP_K_CASES)
def test_top_k(shape, k, axis, dtype):
    fn, [x] = _top_k_call(shape, k, axis, dtype)
    check(fn, [x], np_top_k(x, k, axis), jitted=_top_k_jitted()[shape, k, axis, dtype])


def test_top_k_special_values():
    # as JAX: NaN counts as the largest, +0.0 ranks above -0.0, ties keep index order
    vals, idx = lax.top_k(np.array([1., np.nan, 3., -np.inf, 3.], np.float32), 3)
    np.testing.assert_array_equal(vals, [np.nan, 3., 3.])
    np.testing.assert_array_equal(idx, [1, 2, 4])
    vals, idx = lax.top_k(np.array([0., -0., 0., -0.], np.float32), 4)
    np.testing.assert_array_equal(idx, [0, 2, 1, 3])
    vals, idx = jxkernel.jit(lambda a: lax.top_k(a, 2))(np.array([True, False, True]))
    np.testing.assert_array_equal(vals, [True, True])
    np.testing.assert_array_equal(idx, [0, 2])


# ------------------------------------------------------------------ jaxprs (JAX 0.10.2's text)
GOLDEN = [
    (lambda x: lax.sort(x),
     "{ lambda ; a:f32[3,4]. let\n    b:f32[3,4] = sort[dimension=1 is_stable=True num_keys=1] a\n  in (b,) }"),
    (lambda x: lax.sort((x, x), dimension=0, num_keys=2, is_stable=False),
     "{ lambda ; a:f32[3,4]. let\n    b:f32[3,4] c:f32[3,4] = sort[dimension=0 is_stable=False num_keys=2] a a\n"
     "  in (b, c) }"),
    (lambda x: lax.top_k(x, 2),
     "{ lambda ; a:f32[3,4]. let\n    b:f32[3,2] c:i32[3,2] = top_k[axis=1 k=2] a\n  in (b, c) }"),
    (lambda x: lax.top_k(x, 2, axis=0),
     "{ lambda ; a:f32[3,4]. let\n    b:f32[2,4] c:i32[2,4] = top_k[axis=0 k=2] a\n  in (b, c) }"),
]


@pytest.mark.parametrize("fn,text", GOLDEN)
def test_golden_jaxpr(fn, text):
    assert str(jxkernel.make_jaxpr(fn)(np.zeros((3, 4), np.float32))) == text


# ------------------------------------------------------------------ errors (JAX's messages)
v3 = np.ones(3, np.float32)
ERRORS = [
    (lambda: lax.sort((v3, np.ones(4, np.float32))), TypeError,
     "Arguments to sort must have equal shapes, got: (3,) (4,)"),
    (lambda: lax.sort(()), TypeError, "Sort requires at least one operand"),
    (lambda: lax.sort((v3, v3), num_keys=3), ValueError, "num_keys=3 must be between 1 and len(operand)=2"),
    (lambda: lax.sort((v3, v3), num_keys=0), ValueError, "num_keys=0 must be between 1 and len(operand)=2"),
    (lambda: lax.sort(v3, num_keys=2), ValueError, "num_keys=2 must equal 1 for a single operand."),
    (lambda: lax.sort(v3, dimension=1), ValueError, "axis 1 is out of bounds for array of dimension 1"),
    (lambda: lax.sort(np.float32(1)), ValueError, "axis -1 is out of bounds for array of dimension 0"),
    (lambda: lax.top_k(np.ones(3, np.complex64), 2), ValueError, "top_k is not compatible with complex inputs."),
    (lambda: lax.top_k(v3, 4), ValueError,
     "k argument to top_k must be no larger than size along axis; got k=4 with shape=[3] and axis=0"),
    (lambda: lax.top_k(v3, -1), ValueError, "k argument to top_k must be nonnegative, got -1"),
    (lambda: lax.top_k(np.float32(1), 1), ValueError, "axis -1 is out of bounds for array of dimension 0"),
    (lambda: lax.top_k(v3, 1, axis=2), ValueError, "axis 2 is out of bounds for array of dimension 1"),
    # (JAX 0.10.2's shape rule's words for a float k: error_parity_cases records them)
    (lambda: lax.top_k(v3, 1.5), TypeError,
     "Shapes must be 1D sequences of concrete values of integer type, got [1.5]."),
    (lambda: lax.sort_p.bind(v3, dimension=3, is_stable=True, num_keys=1), ValueError,
     "axis 3 is out of bounds for array of dimension 1"),
    (lambda: lax.top_k_p.bind(v3, k=1, axis=4), ValueError,
     "axis argument out of range: axis=4 for operand.shape=(3,)"),
]


test_errors = raises_test(ERRORS)


# ================================================================== batching, jvp and transpose
# rules: vmap against stacking per-example results (in_axes 0, 1, -1 and None mixes, nested, with
# jit in both orders; tests/support/rule_checks.py's check_vmap), check_grads to order 2 in both
# modes, vjp/jvp dot-product tests, JAX's conventions, and jaxprs as JAX 0.10.2 prints them.
X = sample((3, 4))


UNARY = {
    "sort1": (lambda x: lax.sort(x, 1), X),
    "sort0": (lambda x: lax.sort(x, 0), X),
    "top_k": (lambda x: lax.top_k(x, 2), X),
    "top_k0": (lambda x: lax.top_k(x, 2, axis=0), X),
}


test_vmap_unary = vmap_unary_test(UNARY)


BINARY = {
    "sort_kv": (lambda k, v: lax.sort_key_val(k, v, 0), X, sample((3, 4), 6)),
    "sort_2keys": (lambda k, v: lax.sort((lax.round(k), v), 1, num_keys=2), X * 2, sample((3, 4), 6)),
}
test_vmap_binary = vmap_binary_test(BINARY)


GRADS = {
    "sort": lambda x: lax.sort(x, 1),
    "sort0": lambda x: lax.sort(x, 0),
    "top_k": lambda x: lax.top_k(x, 2)[0],
    "top_k0": lambda x: lax.top_k(x, 3, axis=0)[0],
}


# each check as one program (grads_together): 41 -> 8 compiles, 1.43 -> 0.57 s CPU
test_check_grads_order_2 = grads_order_2_test(GRADS, check=check_grads_together)


def test_sort_multi_operand_and_top_k_tangents():
    k, v = np.array([[3., 1., 2.]], F32), np.array([[10., 20., 30.]], F32)
    (sk, sv), (tk, tv) = jax.jvp(lambda k, v: lax.sort((k, v), 1), (k, v),
                                 (np.array([[1., 2., 3.]], F32), np.array([[4., 5., 6.]], F32)))
    np.testing.assert_allclose(np.asarray(sv), [[20., 30., 10.]])
    np.testing.assert_allclose(np.asarray(tk), [[2., 3., 1.]])
    np.testing.assert_allclose(np.asarray(tv), [[5., 6., 4.]])
    # the values operand alone differentiable (keys are integers)
    g = jax.grad(lambda v: sum_all(lax.mul(lax.sort((np.array([2, 0, 1], np.int32), v), 0)[1],
                                     np.array([1., 10., 100.], F32))))(np.ones(3, F32))
    np.testing.assert_allclose(np.asarray(g), [100., 1., 10.])
    check_grads_together(lambda k, v: lax.sort((k, v), 1, num_keys=1),
                         (sample((2, 5), 1), sample((2, 5), 2)), order=2, modes=("fwd", "rev"))
    values, idx = jax.jvp(lambda x: lax.top_k(x, 2), (X,), (np.ones_like(X),))[1]
    assert idx.dtype == jax.transforms.ad_util.float0            # integer outputs: float0, as JAX


def test_grads_under_jit_and_vmap_of_grad():
    for name in ("sort", "top_k"):
        check_grad_under_jit_and_vmap(lambda x: sum_all(GRADS[name](x)), sample((3, 5), 5) * 0.5,
                                      jit_inside=name == "sort")


X34 = np.zeros((3, 4), F32)
RULES_GOLDEN = {
    "grad_top_k": (jax.grad(lambda x: sum_all(lax.top_k(x, 2)[0])), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[3,2] c:i32[3,2] = top_k[axis=1 k=2] a
    d:i32[3,2,1] = reshape[dimensions=None new_sizes=(3, 2, 1) sharding=None] c
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    e:f32[3,2] = broadcast_in_dim 1.0:f32[]
    f:f32[3,4] = broadcast_in_dim 0.0:f32[]
    g:f32[3,4] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; h:f32[] i:f32[]. let j:f32[] = add h i in (j,) }
    ] f d e
  in (g,) }"""),
    "jvp_sort": (lambda x, t: jax.jvp(lambda x: lax.sort(x, 0), (x,), (t,)), (X34, X34), """
{ lambda ; a:f32[3,4] b:f32[3,4]. let
    c:u32[3,4] = iota[dimension=0 dtype=uint32 shape=(3, 4) sharding=None] 
    d:f32[3,4] e:u32[3,4] = sort[dimension=0 is_stable=True num_keys=1] a c
    f:u32[3,4,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] e
    g:f32[3,4] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(np.int64(1),), start_indices_batching_dims=(np.int64(1),))
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 1)
      unique_indices=False
    ] b f
  in (d, g) }"""),
    "vmap_sort2": (jax.vmap(lambda x, y: lax.sort((x, y), 0), in_axes=(1, None)),
                   (X34, np.zeros(3, F32)), """
{ lambda ; a:f32[3,4] b:f32[3]. let
    c:f32[3,4] = broadcast_in_dim[broadcast_dimensions=(0,)] b
    d:f32[3,4] e:f32[3,4] = sort[dimension=0 is_stable=True num_keys=1] a c
    f:f32[4,3] = transpose[permutation=(1, 0)] d
    g:f32[4,3] = transpose[permutation=(1, 0)] e
  in (f, g) }"""),
    "vmap_top_k": (jax.vmap(lambda x: lax.top_k(x, 2), in_axes=1), (X34,), """
{ lambda ; a:f32[3,4]. let
    b:f32[2,4] c:i32[2,4] = top_k[axis=0 k=2] a
    d:f32[4,2] = transpose[permutation=(1, 0)] b
    e:i32[4,2] = transpose[permutation=(1, 0)] c
  in (d, e) }"""),
}


test_jaxprs_as_jax_prints_them = prints_as_jax_test(RULES_GOLDEN)


def test_every_primitive_of_this_family_has_its_rules():
    check_family_rules(linear=[], nonlinear=[lax.sort_p, lax.top_k_p])
