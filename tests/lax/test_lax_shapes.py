"""Shape primitives (lax/shapes.py, and pad from lax/slicing.py) against NumPy: eager, under
jit, staged (checked jaxprs), printed as JAX 0.10.2 prints them, and every shape error with
its message. Their batching, jvp and transpose rules: the last part, on
tests/support/rule_checks.py's harness."""
import functools
import re

import numpy as np
import pytest

import jxkernel
import jxkernel as jax
from jxkernel import lax
from jxkernel.core import check_jaxpr
from compiled import jit_together
from rule_checks import (BF16, Case, case_tests, check_exact, errors_test, floats,
                         normalized, prints_as_jax_test, sum_all)

DTYPES = [np.dtype(d) for d in (np.bool_, np.int8, np.int32, np.uint32, np.float16, BF16,
                                np.float32, np.complex64)]


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 100, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


# ------------------------------------------------------------------ values
# (name, fun(x, v), numpy equivalent(x, v), shape of x); v is a scalar of x's dtype
CASES = [
    ("broadcast_in_dim", lambda x, v: lax.broadcast_in_dim(x, (2, 3, 4), (1,)),
     lambda x, v: np.broadcast_to(x[None, :, None], (2, 3, 4)), (3,)),
    ("broadcast_in_dim size-1", lambda x, v: lax.broadcast_in_dim(x, (4, 3, 2), (0, 2)),
     lambda x, v: np.broadcast_to(x[:, None, :], (4, 3, 2)), (1, 2)),
    ("broadcast_in_dim scalar", lambda x, v: lax.broadcast_in_dim(v, (2, 3), ()),
     lambda x, v: np.broadcast_to(v, (2, 3)), (1,)),
    ("broadcast_in_dim transposing", lambda x, v: lax.broadcast_in_dim(x, (3, 5, 2), (2, 0)),
     lambda x, v: np.broadcast_to(x.T[:, None, :], (3, 5, 2)), (2, 3)),
    ("broadcast", lambda x, v: lax.broadcast(x, (2, 1)),
     lambda x, v: np.broadcast_to(x, (2, 1, 3)), (3,)),
    ("broadcast_to_rank", lambda x, v: lax.broadcast_to_rank(x, 4),
     lambda x, v: x[None, None], (2, 3)),
    ("reshape", lambda x, v: lax.reshape(x, (3, 2, 2)), lambda x, v: x.reshape(3, 2, 2), (2, 6)),
    ("reshape dimensions", lambda x, v: lax.reshape(x, (6,), (1, 0)),
     lambda x, v: x.T.reshape(6), (2, 3)),
    ("reshape 3d dimensions", lambda x, v: lax.reshape(x, (4, 6), (2, 0, 1)),
     lambda x, v: x.transpose(2, 0, 1).reshape(4, 6), (2, 3, 4)),
    ("reshape to scalar", lambda x, v: lax.reshape(x, ()), lambda x, v: x.reshape(()), (1, 1)),
    ("reshape empty", lambda x, v: lax.reshape(x, (3, 0)), lambda x, v: x.reshape(3, 0), (0, 3)),
    ("squeeze", lambda x, v: lax.squeeze(x, (0, 2)), lambda x, v: x[0, :, 0], (1, 3, 1)),
    ("squeeze negative", lambda x, v: lax.squeeze(x, (-1,)), lambda x, v: x[..., 0], (2, 1)),
    ("squeeze to scalar", lambda x, v: lax.squeeze(x, (0, 1)), lambda x, v: x[0, 0], (1, 1)),
    ("expand_dims", lambda x, v: lax.expand_dims(x, (0, 2)),
     lambda x, v: x[None, :, None], (2, 3)),
    ("expand_dims negative", lambda x, v: lax.expand_dims(x, (-1,)),
     lambda x, v: x[..., None], (2, 3)),
    ("transpose", lambda x, v: lax.transpose(x, (2, 0, 1)),
     lambda x, v: x.transpose(2, 0, 1), (2, 3, 4)),
    ("transpose 2d", lambda x, v: lax.transpose(x, (1, 0)), lambda x, v: x.T, (3, 5)),
    ("rev", lambda x, v: lax.rev(x, (0,)), lambda x, v: x[::-1], (5,)),
    ("rev 2 dims", lambda x, v: lax.rev(x, (0, 2)), lambda x, v: x[::-1, :, ::-1], (2, 3, 4)),
    ("rev none", lambda x, v: lax.rev(x, ()), lambda x, v: x, (2, 3)),
    ("concatenate", lambda x, v: lax.concatenate([x, lax.rev(x, (0,)), x], 0),
     lambda x, v: np.concatenate([x, x[::-1], x], 0), (2, 3)),
    ("concatenate axis 1", lambda x, v: lax.concatenate([x, lax.broadcast_in_dim(v, (2, 1), ())], 1),
     lambda x, v: np.concatenate([x, np.full((2, 1), v)], 1), (2, 3)),
    ("split", lambda x, v: lax.concatenate(lax.split(x, (1, 0, 2), 1)[::-1], 1),
     lambda x, v: np.concatenate([x[:, 1:], x[:, :1]], 1), (2, 3)),
    ("concatenate empty", lambda x, v: lax.concatenate([x, x], 0),
     lambda x, v: np.concatenate([x, x], 0), (0, 3)),
    ("pad", lambda x, v: lax.pad(x, v, ((1, 2, 1), (0, -1, 0))),
     lambda x, v: _np_pad(x, v, ((1, 2, 1), (0, -1, 0))), (2, 3)),
    ("pad negative low", lambda x, v: lax.pad(x, v, ((-2, 1, 0),)),
     lambda x, v: _np_pad(x, v, ((-2, 1, 0),)), (5,)),
    ("pad interior only", lambda x, v: lax.pad(x, v, ((0, 0, 2),)),
     lambda x, v: _np_pad(x, v, ((0, 0, 2),)), (3,)),
    ("pad negative with interior", lambda x, v: lax.pad(x, v, ((-1, -2, 2),)),
     lambda x, v: _np_pad(x, v, ((-1, -2, 2),)), (4,)),
    ("pad empty operand", lambda x, v: lax.pad(x, v, ((1, 1, 3),)),
     lambda x, v: np.full(2, v), (0,)),
    ("pad scalar operand", lambda x, v: lax.pad(x, v, ()), lambda x, v: x, ()),
    ("collapse", lambda x, v: lax.collapse(x, 1, 3), lambda x, v: x.reshape(2, 12), (2, 3, 4)),
    ("collapse to end", lambda x, v: lax.collapse(x, 1), lambda x, v: x.reshape(2, 12), (2, 3, 4)),
]


def _np_pad(x, value, config):
    """NumPy reference for lax.pad: interior dilation, then low/high (negative crops)."""
    for axis, (lo, hi, interior) in enumerate(config):
        n = x.shape[axis]
        size = n + max(n - 1, 0) * interior
        shape = list(x.shape)
        shape[axis] = size
        dilated = np.full(shape, value, x.dtype)
        index = [slice(None)] * x.ndim
        index[axis] = slice(None, None, interior + 1)
        dilated[tuple(index)] = x
        shape[axis] = size + max(lo, 0) + max(hi, 0)
        padded = np.full(shape, value, x.dtype)
        index[axis] = slice(max(lo, 0), max(lo, 0) + size)
        padded[tuple(index)] = dilated
        index[axis] = slice(max(-lo, 0), shape[axis] - max(-hi, 0))
        x = padded[tuple(index)]
    return x


def _values_inputs(case):
    """[(x, v)] of test_values' case: three of the dtypes (which three varies with the name;
    test_every_dtype runs all)."""
    name, _, _, shape = case
    start = sum(map(ord, name)) % 3
    return [(rand(shape, dtype, seed=k), rand((), dtype, seed=k + 10))
            for k, dtype in enumerate(DTYPES[start::3])]


@functools.cache
def _values_jitted():
    """jit(fun)(x, v) of every case and dtype of test_values, compiled together."""
    return jit_together(jxkernel, {(case[0], k): (case[1], [x, v]) for case in CASES
                                   for k, (x, v) in enumerate(_values_inputs(case))})


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values(case):
    name, fun, np_fun, shape = case
    for k, (x, v) in enumerate(_values_inputs(case)):
        check_exact(fun, np_fun(x, v), jxkernel.device_put(x), jxkernel.device_put(v),
                    jitted=_values_jitted()[name, k])


def _every_shape_primitive(x, v):
    y = lax.transpose(lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)), (1, 0, 2))       # (2, 4, 3)
    y = lax.rev(lax.squeeze(lax.reshape(y, (1, 2, 12)), (0,)), (1,))                 # (2, 12)
    y = lax.pad(y, v, ((0, 1, 1), (1, 0, 0)))                                         # (4, 13)
    return lax.concatenate([y, lax.broadcast_in_dim(v, (4, 1), ())], 1)               # (4, 14)


def _every_dtype_inputs(dtype):
    return rand((2, 3), dtype), rand((), dtype, seed=1)


@functools.cache
def _every_dtype_jitted():
    """jit of test_every_dtype's program for each dtype, compiled together."""
    return jit_together(jxkernel, {str(d): (_every_shape_primitive, list(_every_dtype_inputs(d)))
                                   for d in DTYPES})


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_dtype(dtype):
    """One program using every shape primitive, per dtype (bool, ints, f16, bf16, complex)."""
    x, v = _every_dtype_inputs(dtype)
    y = np.broadcast_to(x[None], (4, 2, 3)).transpose(1, 0, 2).reshape(2, 12)[:, ::-1]
    want = np.full((4, 14), v, dtype)
    want[[0, 2], 1:13] = y
    check_exact(_every_shape_primitive, want, x, v, jitted=_every_dtype_jitted()[str(dtype)])


IOTA_DTYPES = [np.int32, np.uint8, np.float16, BF16, np.float32, np.complex64]


@pytest.mark.parametrize("dtype", IOTA_DTYPES, ids=lambda d: np.dtype(d).name)
def test_iota(dtype):
    dtype = np.dtype(dtype)
    jitted = _iotas_jitted()
    check_exact(lambda: lax.iota(dtype, 5), np.arange(5).astype(dtype),
                jitted=jitted[dtype.name, None])
    for dim in range(3):
        want = np.broadcast_to(np.arange((2, 3, 4)[dim]).reshape(
            [-1 if d == dim else 1 for d in range(3)]), (2, 3, 4))
        check_exact(lambda: lax.broadcasted_iota(dtype, (2, 3, 4), dim), want.astype(dtype),
                    jitted=jitted[dtype.name, dim])


@functools.cache
def _iotas_jitted():
    """jit of test_iota's iotas (dim None: lax.iota) for every dtype, compiled together."""
    dtypes = [np.dtype(d) for d in IOTA_DTYPES]
    calls = {(d.name, None): (lambda d=d: lax.iota(d, 5), []) for d in dtypes}
    calls |= {(d.name, dim): (lambda d=d, dim=dim: lax.broadcasted_iota(d, (2, 3, 4), dim), [])
              for d in dtypes for dim in range(3)}
    return jit_together(jxkernel, calls)


def test_iota_canonicalizes_dtype():
    # x64 is off: narrowed with JAX's warning (tests/lax/test_lax_x64_dtypes.py has its words)
    with pytest.warns(UserWarning, match="requested in broadcasted_iota"):
        assert lax.iota(np.int64, 3).dtype == np.int32
    with pytest.warns(UserWarning, match="requested in broadcasted_iota"):
        assert lax.iota(np.float64, 3).dtype == np.float32
    assert lax.iota(np.int32, 0).shape == (0,)


# ------------------------------------------------------------------ weak types, no-op shortcuts
def test_weak_type_is_kept():
    staged = jxkernel.make_jaxpr(lambda: [lax.broadcast_in_dim(1.0, (2,), ()),
                                          lax.reshape(2, (1,)), lax.broadcast(3, (2,)),
                                          lax.expand_dims(1.0, (0,))])()
    assert [a.weak_type for a in staged.out_avals] == [True] * 4
    out = lax.broadcast_in_dim(1.0, (2,), ())
    assert out.weak_type and out.dtype == np.float32
    x = jxkernel.device_put(np.ones(2, np.float32))
    assert not lax.pad(x, np.float32(0), ((1, 1, 0),)).weak_type
    assert not lax.iota(np.int32, 3).weak_type


def test_identity_calls_return_the_array():
    x = jxkernel.device_put(np.ones((2, 3), np.float32))
    assert lax.transpose(x, (0, 1)) is x
    assert lax.reshape(x, (2, 3)) is x
    assert lax.squeeze(x, ()) is x
    assert lax.broadcast(x, ()) is x
    assert lax.broadcast_to_rank(x, 2) is x
    assert lax.concatenate([x], 0) is x
    staged = jxkernel.make_jaxpr(lambda x: lax.transpose(lax.reshape(x, (2, 3)), (0, 1)))(x)
    assert not staged.eqns


# ------------------------------------------------------------------ printing (JAX 0.10.2's text)
F32 = np.float32
GOLDEN = [
    (lambda v: lax.broadcast_in_dim(v, (2, 3), (1,)), [np.ones(3, F32)], """\
{ lambda ; a:f32[3]. let
    b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a
  in (b,) }"""),
    (lambda v: lax.broadcast_in_dim(1.0, (2,), ()), [np.ones(3, F32)], """\
{ lambda ; a:f32[3]. let b:f32[2] = broadcast_in_dim 1.0:f32[] in (b,) }"""),
    (lambda x: lax.reshape(x, (3, 2), (1, 0)), [np.ones((2, 3), F32)], """\
{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = reshape[dimensions=(1, 0) new_sizes=(3, 2) sharding=None] a
  in (b,) }"""),
    (lambda x: lax.squeeze(lax.expand_dims(x, (0,)), (0,)), [np.ones((2, 3), F32)], """\
{ lambda ; a:f32[2,3]. let
    b:f32[1,2,3] = broadcast_in_dim[broadcast_dimensions=(1, 2)] a
    c:f32[2,3] = squeeze[dimensions=(0,)] b
  in (c,) }"""),
    (lambda x: lax.expand_dims(x, (0, 2)), [np.ones((2, 3), F32)], """\
{ lambda ; a:f32[2,3]. let
    b:f32[1,2,1,3] = broadcast_in_dim[broadcast_dimensions=(1, 3)] a
  in (b,) }"""),
    (lambda x: lax.expand_dims(x, ()), [np.ones((2, 3), F32)], """\
{ lambda ; a:f32[2,3]. let  in (a,) }"""),
    (lambda x: lax.rev(lax.transpose(x, (1, 0)), (0,)), [np.ones((2, 3), F32)], """\
{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = transpose[permutation=(1, 0)] a
    c:f32[3,2] = rev[dimensions=(0,)] b
  in (c,) }"""),
    (lambda x: lax.concatenate([x, x], 0), [np.ones((2, 3), F32)], """\
{ lambda ; a:f32[2,3]. let b:f32[4,3] = concatenate[dimension=0] a a in (b,) }"""),
    (lambda x: lax.split(x, (2, 4), 0), [np.ones((6, 4), F32)], """\
{ lambda ; a:f32[6,4]. let
    b:f32[2,4] c:f32[4,4] = split[axis=0 sizes=(2, 4)] a
  in (b, c) }"""),
    (lambda x: lax.pad(x, 0., ((1, 2, 1), (0, -1, 0))), [np.ones((2, 3), F32)], """\
{ lambda ; a:f32[2,3]. let
    b:f32[6,2] = pad[padding_config=((1, 2, 1), (0, -1, 0))] a 0.0:f32[]
  in (b,) }"""),
    (lambda: (lax.iota(np.int32, 4), lax.broadcasted_iota(np.float32, (2, 3), 1)), [], """\
{ lambda ; . let
    a:i32[4] = iota[dimension=0 dtype=int32 shape=(4,) sharding=None] 
    b:f32[2,3] = iota[dimension=1 dtype=float32 shape=(2, 3) sharding=None] 
  in (a, b) }"""),
    (lambda x: lax.collapse(x, 0, 2), [np.ones((2, 3), F32)], """\
{ lambda ; a:f32[2,3]. let
    b:f32[6] = reshape[dimensions=None new_sizes=(6,) sharding=None] a
  in (b,) }"""),
]


test_printed_jaxpr_matches_jax = prints_as_jax_test(GOLDEN, exact=True)


def test_lowered_text():
    text = jxkernel.jit(lambda x: lax.pad(lax.transpose(x, (1, 0)), 0.0, ((1, 0, 1), (0, 0, 0)))
                        ).lower(np.ones((2, 3), F32)).as_text()
    assert "stablehlo.transpose" in text and "stablehlo.pad" in text
    assert "low = [1, 0], high = [0, 0], interior = [1, 0]" in text       # as MLIR prints it


# ------------------------------------------------------------------ errors
X = np.ones((2, 3), np.float32)
ERRORS = [
    (lambda: lax.broadcast_in_dim(X, (2, 3), (0,)), TypeError,
     "broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got "
     "broadcast_dimensions (0,) for operand ndim 2."),
    (lambda: lax.broadcast_in_dim(X, (3,), (0, 1)), TypeError,
     "broadcast_in_dim target broadcast shape must have equal or higher rank to the operand "
     "shape; got operand ndim 2 and target broadcast ndim 1."),
    (lambda: lax.broadcast_in_dim(X, (4, 3), (0, 1)), TypeError,
     "broadcast_in_dim operand dimension sizes must either be 1, or be equal to their "
     "corresponding dimensions in the target broadcast shape; got operand of shape (2, 3), "
     "target broadcast shape (4, 3), broadcast_dimensions (0, 1) "),
    (lambda: lax.broadcast_in_dim(X, (2, 3, 4), (0, 3)), TypeError,
     "broadcast_in_dim broadcast_dimensions must be a subset of output dimensions, got (0, 3) "
     "for operand ndim 2 and shape (2, 3, 4)."),
    (lambda: lax.broadcast_in_dim(np.ones((2, 2), F32), (2, 2), (1, 1)), TypeError,
     "broadcast_in_dim broadcast_dimensions must not contain duplicates, got "
     "broadcast_dimensions (1, 1)"),
    (lambda: lax.broadcast_in_dim(X, (2, -3), (0, 1)), TypeError,
     "broadcast_in_dim shape must have every element be nonnegative, got (2, -3)."),
    (lambda: lax.reshape(X, (3, 2), (0, 0)), TypeError,
     "reshape dimensions must be a permutation of operand dimensions, got dimensions (0, 0) for "
     "shape (2, 3)."),
    (lambda: lax.reshape(X, (-1, 6)), TypeError, "reshape new_sizes must all be positive, got (-1, 6)."),
    (lambda: lax.reshape(X, (4,)), TypeError,
     "reshape total size must be unchanged, got new_sizes (4,) (of total size 4) for shape "
     "(2, 3) (of total size 6)."),
    (lambda: lax.squeeze(X, (0,)), ValueError,
     "cannot select an axis to squeeze out which has size not equal to one, got shape=(2, 3) "
     "and dimensions=(0,)"),
    (lambda: lax.squeeze(X, (5,)), ValueError, "axis 5 is out of bounds for array of dimension 2"),
    (lambda: lax.squeeze(np.ones((1, 3), F32), (0, 0)), ValueError, "dimensions are not unique: (0, 0)"),
    (lambda: lax.expand_dims(X, (0, 0)), ValueError, "repeated axis in lax.expand_dims: (0, 0)"),
    (lambda: lax.expand_dims(X, (0, -4)), ValueError, "repeated axis in lax.expand_dims: [0, 0]"),
    (lambda: lax.expand_dims(X, (5,)), ValueError, "axis 5 is out of bounds for array of dimension 3"),
    (lambda: lax.transpose(X, (0, 0)), TypeError,
     "transpose permutation isn't a permutation of operand dimensions, got permutation (0, 0) "
     "for operand shape (2, 3)."),
    (lambda: lax.transpose(X, (0,)), TypeError,
     "transpose permutation isn't a permutation of operand dimensions, got permutation (0,) for "
     "operand shape (2, 3)."),
    (lambda: lax.rev(X, (0, 0)), TypeError, "rev dimensions must be unique, got (0, 0)."),
    (lambda: lax.rev(X, (2,)), TypeError,
     "rev dimensions must all be less than operand ndim, got dimensions (2,) for operand ndim 2."),
    (lambda: lax.concatenate([X, np.ones(3, F32)], 0), TypeError,
     "Cannot concatenate arrays with different numbers of dimensions: got (2, 3), (3,)."),
    (lambda: lax.concatenate([X, np.ones((2, 4), F32)], 0), TypeError,
     "Cannot concatenate arrays with shapes that differ in dimensions other than the one being "
     "concatenated: concatenating along dimension 0 for shapes (2, 3), (2, 4)."),
    (lambda: lax.concatenate([X, X], 2), TypeError,
     "concatenate dimension out of bounds: dimension 2 for shapes (2, 3), (2, 3)."),
    (lambda: lax.concatenate([X, X.astype(np.int32)], 0), TypeError,
     "lax.concatenate requires arguments to have the same dtypes, got float32, int32. (Tip: "
     "jnp.concatenate is a similar function that does automatic type promotion on inputs)."),
    (lambda: lax.concatenate([], 0), ValueError, "concatenate requires a non-empty sequences of arrays"),
    (lambda: lax.pad(X, F32(0), ((1, 1, 0),)), ValueError,
     "length of padding_config must equal the number of axes of operand, got padding_config "
     "((1, 1, 0),) for operand shape (2, 3)"),
    (lambda: lax.pad(X, F32(0), ((1, 1, -1), (0, 0, 0))), ValueError,
     "interior padding in padding_config must be nonnegative, got padding_config ((1, 1, -1), "
     "(0, 0, 0))"),
    (lambda: lax.pad(X, F32(0), ((-3, 0, 0), (0, 0, 0))), ValueError,
     "Dimension size after padding is not at least 0, got result shape (-1, 3), for "
     "padding_config ((-3, 0, 0), (0, 0, 0)) and operand shape (2, 3)"),
    (lambda: lax.pad(X, np.int32(0), ((0, 0, 0), (0, 0, 0))), TypeError,
     "pad operand and padding_value must be same dtype: got float32 and int32."),
    (lambda: lax.pad(np.ones(2, np.float16), 0., ((1, 1, 0),)), TypeError,
     "pad operand and padding_value must be same dtype: got float16 and float32."),
    (lambda: lax.pad(X, np.zeros(2, F32), ((0, 0, 0), (0, 0, 0))), ValueError,
     "padding_value must be a scalar; got np.shape(padding_value)=(2,)"),
    (lambda: lax.iota(np.bool_, 3), TypeError,
     "iota does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, "
     "complexfloating."),
    (lambda: lax.broadcasted_iota(np.int32, (2, 3), 2), ValueError,
     "iota dimension must be between 0 and len(shape), got dimension=2 for shape=(2, 3)"),
    (lambda: lax.iota(np.int32, -1), TypeError,
     "iota shape must have every element be nonnegative, got (-1,)."),
    (lambda: lax.split(X, (3, -1)), ValueError,
     "Sizes passed to split must be nonnegative, got [3, -1]"),
    (lambda: lax.split(X, (1, 3), 1), ValueError,
     "Sum of sizes 4 must be equal to dimension 1 of the operand shape [2, 3]"),
    (lambda: lax.collapse(X, 1, 0), ValueError,
     "Invalid dimension range passed to collapse: (2, 3)[1:0]"),
]


test_errors = errors_test(ERRORS)


def test_split():
    x = rand((5, 2), np.int8)
    parts = lax.split(x, (2, 0, 3))
    assert isinstance(parts, list) and [p.shape for p in parts] == [(2, 2), (0, 2), (3, 2)]
    for got, want in zip(parts, np.split(x, [2, 2])):
        np.testing.assert_array_equal(np.asarray(got), want)
    jitted = jxkernel.jit(lambda x: lax.split(x, (1, 1), axis=-1))(x)
    np.testing.assert_array_equal(np.asarray(jitted[1]), x[:, 1:])
    assert not any(p.weak_type for p in parts)
    weak = lax.broadcast_in_dim(1.0, (4,), ())
    assert all(p.weak_type for p in lax.split(weak, (3, 1)))


def test_traced_shape_is_an_error():
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
        jxkernel.jit(lambda x, n: lax.reshape(x, (n,)))(np.ones(3, F32), 3)


def test_broadcast_shapes():
    # JAX 0.10.2's lax.broadcast_shapes: NumPy broadcasting of shapes, ValueError if none
    assert lax.broadcast_shapes((1,), (4,)) == (4,)
    assert lax.broadcast_shapes((3, 1), (1, 4), (5, 1, 1)) == (5, 3, 4)
    assert lax.broadcast_shapes((2, 3)) == (2, 3)
    assert lax.broadcast_shapes((), (3,)) == (3,)
    assert lax.broadcast_shapes([2, 1], np.array([3])) == (2, 3)
    with pytest.raises(ValueError, match=re.escape(
            "Incompatible shapes for broadcasting: shapes=[(3, 1), (4, 1)]")):
        lax.broadcast_shapes((3, 1), (4, 1))
    with pytest.raises(TypeError, match="Only non-negative indices"):
        lax.broadcast_shapes((2,), (-1,))
    with pytest.raises(TypeError, match="concrete values of integer type"):
        lax.broadcast_shapes((2.0,), (2,))


# ================================================================== batching, jvp and transpose
# rules, on tests/support/rule_checks.py's harness: vmap equals stacking over in_axes mixes
# (nested, with jit both ways), check_grads to order 2 in both modes, per-example vjps, every
# transformed jaxpr type-checks, and a few print exactly as JAX 0.10.2 prints them.
RULE_CASES = [
    Case("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 4, 3), (0, 2)),
         [floats(1, 3)], (0,)),
    Case("broadcast_in_dim_scalar", lambda x: lax.broadcast_in_dim(x, (2, 3), ()), [floats()],
         (0,)),
    Case("reshape", lambda x: lax.reshape(x, (3, 1, 2)), [floats(2, 3)], (0,)),
    Case("reshape_dimensions", lambda x: lax.reshape(x, (6,), (1, 0)), [floats(2, 3)], (0,)),
    Case("squeeze", lambda x: lax.squeeze(x, (0, 2)), [floats(1, 3, 1)], (0,)),
    Case("transpose", lambda x: lax.transpose(x, (2, 0, 1)), [floats(2, 3, 4)], (0,)),
    Case("rev", lambda x: lax.rev(x, (0, 2)), [floats(2, 3, 4)], (0,)),
    Case("concatenate", lambda x, y: lax.concatenate([x, y, x], 1),
         [floats(2, 3), floats(2, 1)], (0, 1)),
    # split's outputs recombined (reversed, an empty piece; multiplied) into one array
    Case("split", lambda x: lax.concatenate(lax.split(x, (1, 0, 3), 1)[::-1], 1),
         [floats(2, 4)], (0,)),
    Case("split_mul", lambda x: lax.mul(*lax.split(x, (2, 2), 0)), [floats(4, 3)], (0,)),
    Case("stack", lambda x, y: lax.stack([x, y, x], 1), [floats(2, 3), floats(2, 3)], (0, 1)),
    # unstack's third piece unused: its cotangent is a symbolic zero
    Case("unstack", lambda x: lax.mul(*lax.unstack(x, 0)[:2]), [floats(3, 2)], (0,)),
    Case("tile", lambda x: lax.tile(x, (2, 1, 3)), [floats(2, 3, 1)], (0,)),
    Case("pad", lambda x, p: lax.pad(x, p, [(1, 2, 1), (-1, 1, 2)]), [floats(3, 4), floats()],
         (0, 1)),
    Case("pad_1d", lambda x, p: lax.pad(x, p, [(0, -2, 3)]), [floats(4), floats()], (0, 1)),
    Case("iota", lambda x: lax.mul(x, lax.broadcasted_iota(F32, (2, 3), 1)), [floats(2, 3)],
         (0,)),
]

(test_vmap_equals_stacking, test_vmap_with_jit_and_nested, test_grads_order_2,
 test_transformed_jaxprs_typecheck, test_per_example_vjp) = case_tests(RULE_CASES)


X3, X13, X23 = np.ones(3, F32), np.ones((1, 3), F32), np.ones((2, 3), F32)
# (function, arguments, what JAX 0.10.2 prints for the same program)
RULES_GOLDEN = [
    (jax.grad(lambda x: sum_all(lax.broadcast_in_dim(x, (2, 4, 3), (0, 2)))), [X13], """\
{ lambda ; a:f32[1,3]. let
    b:f32[2,4,3] = broadcast_in_dim[broadcast_dimensions=(0, 2)] a
    _:f32[] = reduce_sum[axes=(0, 1, 2) out_sharding=None] b
    c:f32[2,4,3] = broadcast_in_dim 1.0:f32[]
    d:f32[3] = reduce_sum[axes=(0, 1) out_sharding=None] c
    e:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] d
  in (e,) }"""),
    (jax.grad(lambda x: sum_all(lax.reshape(x, (6,), (1, 0)))), [X23], """\
{ lambda ; a:f32[2,3]. let
    b:f32[6] = reshape[dimensions=(1, 0) new_sizes=(6,) sharding=None] a
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    c:f32[6] = broadcast_in_dim 1.0:f32[]
    d:f32[3,2] = reshape[dimensions=None new_sizes=(3, 2) sharding=None] c
    e:f32[2,3] = transpose[permutation=(1, 0)] d
  in (e,) }"""),
    (jax.grad(lambda x, p: sum_all(lax.pad(x, p, [(1, 2, 1), (0, -1, 0)])), (0, 1)),
     [X23, F32(0)], """\
{ lambda ; a:f32[2,3] b:f32[]. let
    c:f32[6,2] = pad[padding_config=((1, 2, 1), (0, -1, 0))] a b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[6,2] = broadcast_in_dim 1.0:f32[]
    e:f32[3,3] = pad[
      padding_config=((np.int64(-1), np.int64(-2), np.int64(0)), (np.int64(0), np.int64(1), np.int64(0)))
    ] d 0.0:f32[]
    f:f32[2,3] = slice[
      limit_indices=(3, 3)
      start_indices=(np.int64(0), np.int64(0))
      strides=(np.int64(2), np.int64(1))
    ] e
    g:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] d
    h:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] f
    i:f32[] = sub g h
  in (f, i) }"""),
    (jax.vmap(lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), in_axes=1), [X23.T], """\
{ lambda ; a:f32[3,2]. let
    b:f32[2,3] = transpose[permutation=(1, 0)] a
    c:f32[2,2,3] = broadcast_in_dim[broadcast_dimensions=(0, np.int64(2))] b
  in (c,) }"""),
    (jax.vmap(lambda x: lax.reshape(x, (6,), (1, 0)), in_axes=1), [np.ones((2, 4, 3), F32)], """\
{ lambda ; a:f32[2,4,3]. let
    b:f32[4,2,3] = transpose[permutation=(1, 0, 2)] a
    c:f32[4,6] = reshape[dimensions=(0, 2, 1) new_sizes=(4, 6) sharding=None] b
  in (c,) }"""),
    (jax.vmap(lambda x, p: lax.pad(x, p, [(1, 1, 0)])), [X23, np.ones(2, F32)], """\
{ lambda ; a:f32[2,3] b:f32[2]. let
    c:f32[2,5] = pad[padding_config=((0, 0, 0), (1, 1, 0))] a 0.0:f32[]
    d:bool[2,3] = broadcast_in_dim True:bool[]
    e:bool[2,5] = pad[padding_config=((0, 0, 0), (1, 1, 0))] d False:bool[]
    f:f32[2,5] = broadcast_in_dim[broadcast_dimensions=(0,)] b
    g:f32[2,5] = select_n e f c
  in (g,) }"""),
    (jax.vmap(lambda x, y: lax.concatenate([x, y], 0), in_axes=(0, None)), [X23, X3], """\
{ lambda ; a:f32[2,3] b:f32[3]. let
    c:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    d:f32[2,6] = concatenate[dimension=1] a c
  in (d,) }"""),
]


test_transformed_jaxpr_prints_as_jax = prints_as_jax_test(RULES_GOLDEN)


def test_concatenate_transpose_is_a_split_as_in_jax():
    # printed by JAX 0.10.2; a closed-over operand's piece is dropped (`_`)
    closed = jax.make_jaxpr(jax.grad(lambda x, y: sum_all(lax.concatenate([x, y], 0)), (0, 1)))(
        X23, X13)
    check_jaxpr(closed)
    assert normalized(str(closed)).endswith(normalized("""\
    d:f32[3,3] = broadcast_in_dim 1.0:f32[]
    e:f32[2,3] f:f32[1,3] = split[axis=0 sizes=(2, 1)] d
  in (e, f) }"""))
    closed = jax.make_jaxpr(jax.grad(lambda x: sum_all(lax.concatenate([x, X13, x], 0))))(X23)
    check_jaxpr(closed)
    assert normalized(str(closed)) == normalized("""{ lambda a:f32[1,3]; b:f32[2,3]. let
    c:f32[5,3] = concatenate[dimension=0] b a b
    _:f32[1,3] = broadcast_in_dim 0.0:f32[]
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[5,3] = broadcast_in_dim 1.0:f32[]
    e:f32[2,3] _:f32[1,3] f:f32[2,3] = split[axis=0 sizes=(2, 1, 2)] d
    g:f32[2,3] = add_any e f
  in (g,) }""")
