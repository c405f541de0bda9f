"""conv_general_dilated and its wrappers: values and vjps against JAX 0.10.2 (committed data,
tests/data/conv_cases.py), golden jaxprs from JAX, second-order gradients by finite
differences, vmap against stacking, jit against eager, the shape helpers and the error
messages; jnp.convolve / jnp.correlate against NumPy."""
import functools
import os

import ml_dtypes
import numpy as np
import pytest
from compiled import jit_together
from numerics import REDUCTION, assert_allclose_ulp

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.core import check_jaxpr
from grads_together import check_grads_together
import locations  # tests/support: the repository's folders

DATA = locations.DATA
from conv_cases import CASES, JAXPRS, integers, operands, run

REFERENCE = np.load(os.path.join(DATA, "conv_reference.npz"))
JAXPR_TEXTS = locations.recorded("conv_jaxprs.json")


def make_array(values, dtype):
    return jnp.asarray(np.asarray(values, np.float32) if dtype == "bfloat16"
                       else np.asarray(values).astype(dtype), dtype=dtype)


def as_stored(x):
    x = np.asarray(x)
    return x.astype(np.float32) if x.dtype == ml_dtypes.bfloat16 else x


def _inputs(name):
    """The arrays conv_cases.run(name) makes (operands, then the cotangent), in order: traced
    once (make_jaxpr, nothing compiled) to find the cotangent's shape."""
    made = []

    def record(values, dtype):
        made.append(make_array(values, dtype))
        return made[-1]
    jax.make_jaxpr(lambda: run(jax, lax, name, record))()
    return made


@functools.cache
def _values_and_vjps():
    """conv_cases.run of every case of test_value_and_vjp_match_jax under jit, compiled
    together (compiled.jit_together: one program instead of 113 compiles op by op, 5.4 -> 3.3 s
    of CPU). Each case's arrays are the program's arguments, not constants (which XLA could
    fold), and run's own code makes the values and vjps; eager convolutions are compared
    with jit in test_jit_matches_eager and used by the vmap and gradient tests below."""
    def traced(name):
        def fun(*arrays):
            given = iter(arrays)
            return run(jax, lax, name, lambda values, dtype: next(given))
        return fun, _inputs(name)
    return jit_together(jax, {name: traced(name) for name in CASES})


# ------------------------------------------------------------------ against JAX
@pytest.mark.parametrize("name", sorted(CASES))
def test_value_and_vjp_match_jax(name):
    results = _values_and_vjps()[name]
    assert sorted(results) == sorted(k.split("#")[1] for k in REFERENCE.files
                                     if k.split("#")[0] == name)
    for key, got in results.items():
        want = REFERENCE[f"{name}#{key}"]
        got = as_stored(got)
        assert got.shape == want.shape and got.dtype == want.dtype, (key, got.shape, got.dtype)
        np.testing.assert_array_equal(got, want, err_msg=f"{name} {key}")   # exact: integers


@pytest.mark.parametrize("name", sorted(JAXPRS))
def test_jaxpr_prints_as_jax(name):
    fun, shapes, dtype = JAXPRS[name]
    args = [make_array(integers(name, s, dtype, str(i)), dtype) for i, s in enumerate(shapes)]
    closed = jax.make_jaxpr(lambda *a: fun(jax, lax, jnp, *a))(*args)
    check_jaxpr(closed)
    assert str(closed) == JAXPR_TEXTS[name]


JIT_EAGER = ["nhwc_same_lower", "batch_groups", "complex64", "transpose_valid_kernel",
             "zero_spatial"]


@functools.cache
def _jit_eager_jitted():
    """jit of every case of test_jit_matches_eager, compiled together (compiled.jit_together:
    one program instead of five)."""
    return jit_together(jax, {name: (lambda *a, fun=CASES[name][0]: fun(lax, *a),
                                     operands(name, make_array)) for name in JIT_EAGER})


@pytest.mark.parametrize("name", JIT_EAGER)
def test_jit_matches_eager(name):
    fun = CASES[name][0]
    args = operands(name, make_array)
    eager = fun(lax, *args)
    jitted = _jit_eager_jitted()[name]
    assert jitted.dtype == eager.dtype
    np.testing.assert_array_equal(np.asarray(jitted), np.asarray(eager))


# ------------------------------------------------------------------ derivatives
def normal(shape, seed, dtype=np.float32):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return jnp.asarray(x.astype(dtype))


GRAD_CASES = {
    "strided_dilated": (lambda x, w: lax.conv_general_dilated(
        x, w, (2, 1), [(1, 0), (0, 1)], lhs_dilation=(1, 2), rhs_dilation=(2, 1)),
        (1, 2, 5, 4), (2, 2, 2, 2)),
    "feature_groups_nhwc": (lambda x, w: lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=2), (1, 4, 3, 4), (2, 2, 2, 4)),
    "batch_groups_1d": (lambda x, w: lax.conv_general_dilated(
        x, w, (2,), "VALID", batch_group_count=2), (4, 2, 6), (4, 2, 3)),
    "transpose": (lambda x, w: lax.conv_transpose(x, w, (2,), "SAME"), (1, 3, 2), (2, 2, 3)),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_check_grads_order_2(name):
    fun, lhs_shape, rhs_shape = GRAD_CASES[name]
    # check_grads's checks with each's evaluations in one program (grads_together): 53 -> 4
    # compiles, 2.2 -> 1.4 s CPU for the four
    check_grads_together(fun, (normal(lhs_shape, 0), normal(rhs_shape, 1)), order=2,
                         modes=("fwd", "rev"))


def test_check_grads_complex():
    fun = lambda x, w: lax.conv(x, w, (1,), "SAME")
    check_grads_together(fun, (normal((1, 2, 4), 0, np.complex64),
                               normal((2, 2, 2), 1, np.complex64)), order=1, modes=("fwd", "rev"))


# ------------------------------------------------------------------ vmap
def assert_sums_close(got, want):
    """Within REDUCTION ulps at the largest |value|: XLA picks a convolution's summation order
    per shape and per CPU, and an output that cancels is only as exact as the terms' size;
    worst seen 2 (complex64 correlate, every CPU)."""
    want = np.asarray(want)
    assert_allclose_ulp(np.asarray(got), want, REDUCTION,
                        scale=np.abs(want.astype(np.complex128)).max(initial=0))


def stacked(f, args, in_axes, size):
    outs = []
    for i in range(size):
        outs.append(np.asarray(f(*[a if ax is None else np.take(np.asarray(a), i, axis=ax)
                                   for a, ax in zip(args, in_axes)])))
    return np.stack(outs)


VMAP_CASES = {
    "plain": (lambda x, w: lax.conv(x, w, (1, 2), "SAME"), (2, 3, 5, 4), (4, 3, 2, 2)),
    "feature_groups": (lambda x, w: lax.conv_general_dilated(
        x, w, (1, 1), "VALID", feature_group_count=2), (2, 4, 4, 4), (6, 2, 2, 2)),
    "batch_groups": (lambda x, w: lax.conv_general_dilated(
        x, w, (1, 1), "VALID", batch_group_count=2), (4, 3, 4, 4), (6, 3, 2, 2)),
    "nhwc_1d_groups": (lambda x, w: lax.conv_general_dilated(
        x, w, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC"), feature_group_count=3),
        (2, 5, 3), (2, 1, 6)),
}


@pytest.mark.parametrize("name", sorted(VMAP_CASES))
@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (2, -1)])
def test_vmap_matches_stacking(name, in_axes):
    fun, lhs_shape, rhs_shape = VMAP_CASES[name]
    size = 3

    def batched(shape, ax, seed):
        if ax is None:
            return normal(shape, seed)
        ax = ax % (len(shape) + 1)
        return normal(shape[:ax] + (size,) + shape[ax:], seed)
    args = (batched(lhs_shape, in_axes[0], 0), batched(rhs_shape, in_axes[1], 1))
    got = jax.vmap(fun, in_axes=in_axes)(*args)
    assert_sums_close(got, stacked(fun, args, in_axes, size))


def test_vmap_of_size_zero():
    fun = lambda x, w: lax.conv(x, w, (1, 1), "VALID")
    out = jax.vmap(fun)(jnp.ones((0, 1, 2, 4, 4)), jnp.ones((0, 3, 2, 2, 2)))
    assert out.shape == (0, 1, 3, 3, 3) and out.dtype == np.float32


def test_vmap_of_grad():
    fun = lambda x, w: (lax.conv(x, w, (1,), "SAME") ** 2).sum()
    xs, w = normal((3, 1, 2, 5), 0), normal((2, 2, 3), 1)
    got = jax.vmap(jax.grad(fun, argnums=1), in_axes=(0, None))(xs, w)
    want = stacked(jax.grad(fun, argnums=1), (xs, w), (0, None), 3)
    assert_sums_close(got, want)


# ------------------------------------------------------------------ helpers (values from JAX)
def test_padtype_to_pads():
    assert lax.padtype_to_pads((5, 6), (3, 2), (2, 1), "SAME") == [(1, 1), (0, 1)]
    assert lax.padtype_to_pads((5, 6), (3, 2), (2, 1), "SAME_LOWER") == [(1, 1), (1, 0)]
    assert lax.padtype_to_pads((5, 6), (3, 2), (2, 1), "valid") == [(0, 0), (0, 0)]
    assert lax.padtype_to_pads((5,), (3,), (1,), lax.PaddingType.SAME) == [(1, 1)]
    with pytest.raises(RuntimeError, match="Unrecognized padding type: expected 'VALID', "
                                           "'SAME', or 'SAME_LOWER', got bar."):
        lax.padtype_to_pads((5, 6), (3, 2), (2, 1), "bar")
    with pytest.raises(TypeError, match="Unknown padding type: 3."):
        lax.padtype_to_pads((5, 6), (3, 2), (2, 1), 3)


def test_shape_tuples_and_permutations():
    nhwc = ("NHWC", "HWIO", "NHWC")
    assert lax.conv_general_permutations(nhwc) == ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    dn = lax.conv_dimension_numbers((1, 5, 5, 2), (3, 3, 2, 4), nhwc)
    assert repr(dn) == ("ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), "
                        "out_spec=(0, 3, 1, 2))")
    assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), None) == ((0, 1, 2),) * 3
    assert lax.conv_dimension_numbers((1, 2), (1, 2), dn) is dn
    assert lax.conv_shape_tuple((1, 2, 5, 5), (3, 2, 3, 3), (1, 1), "SAME") == (1, 3, 5, 5)
    assert lax.conv_shape_tuple((4, 2, 5, 5), (3, 2, 3, 3), (2, 1), [(0, 0), (1, 1)],
                                batch_group_count=2) == (2, 3, 2, 5)
    assert lax.conv_general_shape_tuple((1, 5, 5, 2), (3, 3, 2, 4), (2, 2), "SAME",
                                        nhwc) == (1, 3, 3, 4)
    assert lax.conv_transpose_shape_tuple((1, 5, 5, 2), (3, 3, 2, 4), (2, 2), "SAME",
                                          nhwc) == (1, 10, 10, 4)
    with pytest.raises(TypeError, match="Wrong number of explicit pads for convolution: "
                                        "expected 2, got 1."):
        lax.conv_shape_tuple((1, 2, 5, 5), (3, 2, 3, 3), (1, 1), [(1, 1)])


# ------------------------------------------------------------------ errors (JAX's messages)
X, W = np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 3, 3), np.float32)
ERRORS = [
    (lambda: lax.conv(X, np.ones((3, 4, 3, 3), np.float32), (1, 1), "SAME"), ValueError,
     ("lhs feature dimension size divided by feature_group_count must equal the rhs input "
      "feature dimension size, but 2 // 1 != 4.")),
    (lambda: lax.conv(X, W, (1, 1), "FOO"), RuntimeError,
     "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got FOO."),
    (lambda: lax.conv(X, W.astype(np.int32), (1, 1), "SAME"), TypeError,
     "lax.conv_general_dilated requires arguments to have the same dtypes, got float32, int32."),
    (lambda: lax.conv(X.astype(np.int32), W.astype(np.int32), (1, 1), "SAME",
                      preferred_element_type=np.int8), TypeError,
     "`preferred_element_type` must not be narrower than the original type."),
    (lambda: lax.conv(X, W, (1,), "SAME"), ValueError,
     "window and window_strides must have the same number of dimensions, but got 2 and 1"),
    (lambda: lax.conv(X, W[0], (1, 1), "SAME"), TypeError,
     "convolution requires lhs and rhs ndim to be equal, got 4 and 3."),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW")),
     TypeError, "convolution dimension_numbers list/tuple must be length 3, got 2."),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME",
                                      dimension_numbers=("NCHW", "OIHW", "NCHX")), TypeError,
     "must each have the same set of spatial characters, got ('NCHW', 'OIHW', 'NCHX')."),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME",
                                      dimension_numbers=("NCHH", "OIHW", "NCHW")), TypeError,
     "convolution dimension_numbers[0] cannot have duplicate characters, got NCHH."),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME",
                                      dimension_numbers=("NXHW", "OIHW", "NCHW")), TypeError,
     ("convolution dimension_numbers[0] must contain the characters 'N' and 'C' exactly "
      "once, got NXHW.")),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME",
                                      dimension_numbers=("NCH", "OIHW", "NCHW")), TypeError,
     "convolution dimension_numbers[0] must have len equal to the ndim of lhs and rhs, got 3"),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", dimension_numbers="NCHW"),
     TypeError, "convolution dimension_numbers must be tuple/list or None, got <class 'str'>."),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", lhs_dilation=(2, 1)), ValueError,
     "String padding is not implemented for transposed convolution using this op."),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), [1, 1]), ValueError,
     ("padding argument to conv_general_dilated should be a string or a sequence of (low, "
      "high) pairs, got [1, 1]")),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), [(-4, -4), (0, 0)]), ValueError,
     "Negative padding is larger than the size of the corresponding dimension"),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", feature_group_count=0), ValueError,
     "feature_group_count must be a positive integer, got 0."),
    (lambda: lax.conv_general_dilated(np.ones((1, 4, 5, 5), np.float32), W, (1, 1), "SAME",
                                      feature_group_count=2), ValueError,
     ("rhs output feature dimension size must be a multiple of feature_group_count, but 3 "
      "is not a multiple of 2.")),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", batch_group_count=2), ValueError,
     "batch_group_count must divide lhs batch dimension size, but 2 does not divide 1."),
    (lambda: lax.conv_general_dilated(np.ones((4, 2, 5, 5), np.float32),
                                      np.ones((4, 1, 3, 3), np.float32), (1, 1), "SAME",
                                      batch_group_count=2, feature_group_count=2), ValueError,
     "At most one of batch_group_count and feature_group_count may be > 1"),
    (lambda: lax.conv_general_dilated(X, W, (1, 1), "SAME", rhs_dilation=(0, 1)), TypeError,
     "All dilations must be positive, got (0, 1)."),
    (lambda: lax.conv_general_dilated(X, W, (0, 1), [(0, 0), (0, 0)]), ValueError,
     "window_strides must be positive, got (0, 1)."),
    (lambda: lax.conv_transpose(np.ones((1, 5, 5, 2)), np.ones((3, 3, 2, 4)), (2, 2), "FOO"),
     ValueError, "String padding is not implemented for transposed convolution"),
    (lambda: jnp.convolve(jnp.ones((2, 2)), jnp.ones(3)), ValueError,
     "convolve() only support 1-dimensional inputs."),
    (lambda: jnp.correlate(jnp.ones(0), jnp.ones(3)), ValueError,
     "correlate: inputs cannot be empty, got shapes (0,) and (3,)."),
    (lambda: jnp.convolve(jnp.ones(3), jnp.ones(3), mode="foo"), ValueError,
     "mode must be one of ['full', 'same', 'valid']"),
]


@pytest.mark.parametrize("fun, error, message", ERRORS, ids=range(len(ERRORS)))
def test_errors(fun, error, message):
    with pytest.raises(error) as info:
        fun()
    assert message in str(info.value)


# ------------------------------------------------------------------ jnp.convolve / correlate
OPS, MODES, DTYPES, LENGTHS = (["convolve", "correlate"], ["full", "same", "valid"],
                               [np.float32, np.complex64], [(7, 3), (3, 6), (4, 4)])


def _convolve_operands(dtype, lengths):
    rng = np.random.default_rng(sum(lengths))
    a, v = (rng.standard_normal(n) for n in lengths)
    if dtype == np.complex64:
        a, v = a + 1j * rng.standard_normal(lengths[0]), v - 2j * rng.standard_normal(lengths[1])
    return a.astype(dtype), v.astype(dtype)


@functools.cache
def _convolve_jitted():
    """Every case of test_jnp_convolve_correlate_match_numpy, compiled together
    (compiled.jit_together): jnp.convolve and jnp.correlate are jitted functions, so each
    case alone was one program of its own; together they are one instead of 36."""
    return jit_together(jax, {
        (op, mode, np.dtype(dtype).name, lengths):
            (lambda a, v, op=op, mode=mode: getattr(jnp, op)(a, v, mode=mode),
             _convolve_operands(dtype, lengths))
        for op in OPS for mode in MODES for dtype in DTYPES for lengths in LENGTHS})


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lengths", LENGTHS)
def test_jnp_convolve_correlate_match_numpy(op, mode, dtype, lengths):
    a, v = _convolve_operands(dtype, lengths)
    got = _convolve_jitted()[op, mode, np.dtype(dtype).name, lengths]
    wide = np.complex128 if dtype == np.complex64 else np.float64    # rounded once below
    want = getattr(np, op)(a.astype(wide), v.astype(wide), mode=mode).astype(dtype)
    assert_sums_close(got, want)


# integer convolutions: XLA's GPU compiler refuses them ("Can't lower one or more integer
# convolutions to idioms supported by CuDNN"; H200, docs/gpu.md run 6)
@pytest.mark.cpu_only("CPU backend")
def test_jnp_convolve_dtypes():
    a, v = np.arange(5), np.array([1, -2, 3])
    got = jnp.convolve(a, v)                       # ints convolve in the default float
    assert got.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(got), np.convolve(a, v))
    exact = jnp.correlate(a, v, "full", preferred_element_type=jnp.int32)
    assert exact.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(exact), np.correlate(a, v, "full"))
    mixed = jnp.convolve(np.arange(3.0, dtype=np.float32), np.array([1j, 2], np.complex64), "same")
    np.testing.assert_array_equal(np.asarray(mixed),           # small integers: exact
                                  np.convolve(np.arange(3.0), [1j, 2], "same").astype(np.complex64))


def test_jnp_convolve_grad():
    check_grads_together(lambda a, v: jnp.convolve(a, v, mode="same"),
                         (normal((5,), 0), normal((3,), 1)), order=1, modes=("fwd", "rev"))
