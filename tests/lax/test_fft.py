"""lax.fft (fft_p) and jnp.fft: values against numpy.fft (1-D/2-D/3-D and more axes, n/s,
axes, norms, real and complex, float32 and float64), dtypes and weak types against JAX 0.10.2
(committed data, tests/data/fft_cases.py), golden jaxprs from JAX, second-order gradients by
finite differences in both modes, vmap against stacking, jit against eager, the StableHLO
text (and the GPU's decomposed IRFFT), and the error messages."""
import functools
import os

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.core import check_jaxpr
from jxkernel.test_util import check_grads
from jxkernel.xla.lowering import lower_module

from compiled import jit_together
from grads_together import check_grads_together
from doc_examples import check_docstring_examples
from fft_cases import JAXPRS, cases, jaxpr_operands, ulps
from numerics import REDUCTION, assert_allclose_ulp
import locations  # tests/support: the repository's folders

DATA = locations.DATA

REFERENCE = np.load(os.path.join(DATA, "fft_reference.npz"))
JAXPR_TEXTS = locations.recorded("fft_jaxprs.json")


def x64():
    return jax.config.override("jax_enable_x64", True)


def rand(shape, kind="f", dtype=np.float32, seed=0):
    rng = np.random.RandomState(seed)
    a = rng.randn(*shape)
    if kind == "c":
        a = a + 1j * rng.randn(*shape)
        dtype = np.complex64 if np.dtype(dtype) in (np.float32, np.complex64) else np.complex128
    return a.astype(dtype)


def close(got, want, bound=REDUCTION, err_msg=""):
    """`got` against `want` (rounded to got's dtype) in ulps of got's dtype, measured at the
    largest |value|: each output of an FFT is a sum over the transform's length, whose rounding
    is relative to the whole transform's size, not to each (possibly tiny) bin."""
    got = np.asarray(got)
    want = np.asarray(want).astype(got.dtype)
    assert_allclose_ulp(got, want, bound, scale=np.abs(want).max(initial=0), err_msg=err_msg)


# ------------------------------------------------------------------ against JAX
@pytest.mark.parametrize("mode", ["x32", "x64"])
def test_values_dtypes_and_weak_types_match_jax(mode):
    with jax.config.override("jax_enable_x64", mode == "x64"):
        results = cases(jax, jnp, lax, mode == "x64")
        assert sorted(f"{mode}/{k}" for k in results) == sorted(
            k for k in REFERENCE.files if k.startswith(mode + "/") and not k.endswith("#weak"))
        for name, got in results.items():
            want = REFERENCE[f"{mode}/{name}"]
            assert got.dtype == want.dtype and got.shape == want.shape, name
            assert got.weak_type == bool(REFERENCE[f"{mode}/{name}#weak"]), name
            assert_allclose_ulp(np.asarray(got), want, ulps(name),
                                scale=np.abs(want).max(initial=0), err_msg=name)


@pytest.mark.parametrize("name", sorted(JAXPRS))
def test_jaxpr_prints_as_jax(name):
    fun, keys = JAXPRS[name]
    ops = jaxpr_operands()
    closed = jax.make_jaxpr(lambda *a: fun(jax, jnp, lax, *a))(*[ops[k] for k in keys])
    check_jaxpr(closed.jaxpr)
    assert str(closed) == JAXPR_TEXTS[name]


# ------------------------------------------------------------------ against NumPy
# (function, kwargs, input shape, real "f" or complex "c" input)
NUMPY_CASES = [
    ("fft", {}, (8,), "f"), ("fft", {"n": 5}, (8,), "c"), ("fft", {"n": 11, "axis": 0}, (6, 3), "c"),
    ("fft", {"norm": "ortho"}, (3, 7), "f"), ("fft", {"norm": "forward", "axis": 1}, (2, 5, 3), "c"),
    ("ifft", {}, (9,), "c"), ("ifft", {"n": 4, "norm": "ortho"}, (3, 6), "c"),
    ("ifft", {"axis": 0, "norm": "forward"}, (5, 2), "f"), ("ifft", {"norm": "backward"}, (4,), "c"),
    ("fft2", {}, (4, 6), "c"), ("fft2", {"s": (3, 8), "norm": "ortho"}, (2, 4, 5), "f"),
    ("fft2", {"axes": (0, 2)}, (3, 2, 4), "c"), ("ifft2", {"norm": "forward"}, (5, 3), "c"),
    ("ifft2", {"s": (6, 2), "axes": (1, 0)}, (4, 3), "c"),
    ("fftn", {}, (3, 4, 5), "c"), ("fftn", {"axes": (0,)}, (4, 3), "f"),
    ("fftn", {"s": (2, 6)}, (3, 4, 5), "f"), ("fftn", {"axes": (2, 0, 1), "norm": "ortho"}, (2, 3, 4), "c"),
    ("fftn", {}, (2, 3, 2, 2), "c"), ("fftn", {"norm": "forward"}, (2, 2, 3, 2, 2), "f"),
    ("ifftn", {"s": (3, 3, 3)}, (2, 4, 3), "c"), ("ifftn", {}, (2, 2, 2, 3), "c"),
    ("ifftn", {"axes": (-1, 0), "norm": "ortho"}, (3, 2, 5), "c"),
    ("rfft", {}, (8,), "f"), ("rfft", {"n": 7}, (8,), "f"), ("rfft", {"n": 10, "axis": 0}, (6, 2), "f"),
    ("rfft", {"norm": "ortho"}, (3, 5), "f"), ("rfft", {"norm": "forward"}, (9,), "f"),
    ("irfft", {}, (5,), "c"), ("irfft", {"n": 9}, (5,), "c"), ("irfft", {"n": 4, "axis": 0}, (6, 3), "c"),
    ("irfft", {"norm": "ortho"}, (3, 4), "c"), ("irfft", {"norm": "forward", "n": 7}, (2, 4), "c"),
    ("rfft2", {}, (4, 6), "f"), ("rfft2", {"s": (5, 3), "axes": (0, 2)}, (4, 2, 6), "f"),
    ("irfft2", {}, (4, 3), "c"), ("irfft2", {"s": (3, 5), "norm": "ortho"}, (2, 4, 3), "c"),
    ("rfftn", {}, (3, 4, 6), "f"), ("rfftn", {"axes": (1, 0)}, (4, 5), "f"),
    ("rfftn", {"s": (2, 2, 3, 4)}, (2, 2, 3, 5), "f"),
    ("irfftn", {}, (3, 4, 4), "c"), ("irfftn", {"s": (4, 6), "axes": (0, 2)}, (3, 2, 5), "c"),
    ("irfftn", {}, (2, 2, 3, 3), "c"), ("irfftn", {"norm": "forward"}, (2, 3), "c"),
    ("hfft", {}, (5,), "c"), ("hfft", {"n": 6, "norm": "ortho"}, (3, 4), "c"),
    ("hfft", {"axis": 0}, (4, 2), "f"), ("ihfft", {}, (8,), "f"),
    ("ihfft", {"n": 5, "norm": "forward"}, (2, 6), "f"), ("ihfft", {"axis": 0}, (7, 2), "f"),
]


def _numpy_reference(name, kwargs, x):
    if "s" in kwargs and "axes" not in kwargs and not name.endswith("2"):
        kwargs = dict(kwargs, axes=tuple(range(-len(kwargs["s"]), 0)))   # (NumPy 2 wants them)
    return getattr(np.fft, name)(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64),
                                 **kwargs)


@functools.cache
def _float32_jitted():
    """jit of every case of test_matches_numpy_float32 (by index in NUMPY_CASES), compiled
    together (compiled.jit_together): op by op they cost 153 compiles, one for each shape and
    transform. Eager transforms are compared with JAX's in
    test_values_dtypes_and_weak_types_match_jax and with jit in test_jit_matches_eager."""
    return jit_together(jax, {
        i: (lambda x, name=name, kwargs=kwargs: getattr(jnp.fft, name)(x, **kwargs),
            [rand(shape, kind)])
        for i, (name, kwargs, shape, kind) in enumerate(NUMPY_CASES)})


@pytest.mark.parametrize("group", range(5))
def test_matches_numpy_float32(group):
    for i, (name, kwargs, shape, kind) in list(enumerate(NUMPY_CASES))[group::5]:
        x = rand(shape, kind)
        got = _float32_jitted()[i]
        want = _numpy_reference(name, kwargs, x)
        expected = np.complex64 if np.iscomplexobj(want) else np.float32
        assert got.dtype == expected and got.shape == want.shape, (name, kwargs)
        close(got, want, err_msg=name)


def test_matches_numpy_float64():
    with x64():
        # under jit, compiled together as above
        jitted = jit_together(jax, {
            i: (lambda x, name=name, kwargs=kwargs: getattr(jnp.fft, name)(x, **kwargs),
                [rand(shape, kind, np.float64, seed=1)])
            for i, (name, kwargs, shape, kind) in list(enumerate(NUMPY_CASES))[::4]})
        for i, (name, kwargs, shape, kind) in list(enumerate(NUMPY_CASES))[::4]:
            x = rand(shape, kind, np.float64, seed=1)
            got = jitted[i]
            want = _numpy_reference(name, kwargs, x)
            assert got.dtype == want.dtype, (name, kwargs)
            close(got, want, err_msg=name)


def test_frequencies_and_shifts_match_numpy():
    for n, d in [(1, 1.0), (4, 1.0), (7, 0.5), (10, 3.0)]:
        close(jnp.fft.fftfreq(n, d), np.fft.fftfreq(n, d))
        close(jnp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d))
    x = np.arange(30).reshape(5, 6)
    for axes in [None, 0, 1, (0, 1), (1,), [-1, 0]]:
        np.testing.assert_array_equal(jnp.fft.fftshift(x, axes), np.fft.fftshift(x, axes))
        np.testing.assert_array_equal(jnp.fft.ifftshift(x, axes), np.fft.ifftshift(x, axes))
    with x64():
        f = jnp.fft.fftfreq(6, 0.1)
        assert f.dtype == np.float64
        close(f, np.fft.fftfreq(6, 0.1))


def test_round_trips():
    x = rand((3, 4, 6))
    close(jnp.fft.ifftn(jnp.fft.fftn(x)).real, x)
    close(jnp.fft.irfftn(jnp.fft.rfftn(x), s=x.shape), x)
    close(jnp.fft.irfft(jnp.fft.rfft(x[0, 0], n=5), n=5), x[0, 0, :5])
    close(jnp.fft.hfft(jnp.fft.ihfft(x[0, 0])), x[0, 0])
    for norm in ("backward", "ortho", "forward"):
        close(jnp.fft.ifft2(jnp.fft.fft2(x, norm=norm), norm=norm).real, x)


# ------------------------------------------------------------------ lax.fft
@pytest.mark.parametrize("fft_type, lengths, shape, kind, np_fun", [
    ("fft", (4,), (2, 4), "c", lambda x: np.fft.fft(x)),
    (lax.FftType.IFFT, (3, 4), (2, 3, 4), "c", lambda x: np.fft.ifftn(x, axes=(1, 2))),
    ("rfft", (2, 3, 4), (2, 3, 4), "f", lambda x: np.fft.rfftn(x)),
    ("IRFFT", (3, 6), (2, 3, 4), "c", lambda x: np.fft.irfftn(x, s=(3, 6), axes=(1, 2))),
    (lax.FftType.IRFFT, (5,), (3,), "c", lambda x: np.fft.irfft(x, 5)),
])
def test_lax_fft_matches_numpy(fft_type, lengths, shape, kind, np_fun):
    x = rand(shape, kind)
    close(lax.fft(x, fft_type, lengths), np_fun(x.astype(np.complex128 if kind == "c"
                                                           else np.float64)))


def test_lax_fft_casts_and_empty_lengths():
    assert lax.fft(np.arange(4, dtype=np.int32), "fft", (4,)).dtype == np.complex64
    assert lax.fft(np.arange(4, dtype=np.int32), "rfft", (4,)).dtype == np.complex64
    out = lax.fft(np.ones(3, np.float32), "ifft", ())
    assert out.dtype == np.complex64 and out.shape == (3,)
    with x64():
        assert lax.fft(np.ones(4), "rfft", (4,)).dtype == np.complex128
        assert lax.fft(np.ones(4, np.complex128), "irfft", (6,)).dtype == np.float64
    assert [t.name for t in lax.FftType] == ["FFT", "IFFT", "RFFT", "IRFFT"]
    assert [int(t) for t in lax.FftType] == [0, 1, 2, 3]


def test_abstract_eval_shapes():
    shapes = {
        ("fft", (4, 5)): ((3, 4, 5), np.complex64),
        ("rfft", (4, 5)): ((3, 4, 3), np.complex64),
        ("irfft", (4, 8)): ((3, 4, 8), np.float32),
    }
    for (typ, lengths), (shape, dtype) in shapes.items():
        x = jax.ShapeDtypeStruct((3, 4, 5), np.float32 if typ == "rfft" else np.complex64)
        out = jax.eval_shape(lambda x, typ=typ, lengths=lengths: lax.fft(x, typ, lengths), x)
        assert (out.shape, out.dtype) == (shape, dtype)


# ------------------------------------------------------------------ derivatives
def _loss(z):
    """A real, nonlinear function of a complex (or real) array, so that second derivatives
    pass through the transform's rules twice."""
    if np.issubdtype(z.dtype, np.complexfloating):
        return jnp.sum(jnp.sin(z.real) * jnp.cos(0.5 * z.imag) + 0.1 * z.real * z.imag)
    return jnp.sum(jnp.sin(z) + 0.1 * z * z)


@pytest.mark.parametrize("fun, shape, kind", [
    (lambda x: jnp.fft.fft(x), (5,), "c"),
    (lambda x: jnp.fft.fft(x, n=6, norm="ortho"), (2, 4), "f"),
    (lambda x: jnp.fft.ifft(x, axis=0), (4, 2), "c"),
    (lambda x: jnp.fft.rfft(x), (6,), "f"),
    (lambda x: jnp.fft.rfft(x, n=5, norm="forward"), (2, 5), "f"),
    (lambda x: jnp.fft.irfft(x), (2, 4), "c"),
    (lambda x: jnp.fft.irfft(x, n=5), (3,), "c"),
    (lambda x: jnp.fft.fftn(x), (2, 3, 2), "c"),
    (lambda x: jnp.fft.rfftn(x), (3, 4), "f"),
    (lambda x: jnp.fft.rfftn(x, axes=(0, 2)), (3, 2, 3), "f"),
], ids=["fft", "fft_n_ortho", "ifft", "rfft_even", "rfft_odd_forward", "irfft_even",
        "irfft_odd", "fftn", "rfftn", "rfftn_axes"])
def test_second_order_gradients(fun, shape, kind):
    x = rand(shape, kind, seed=2) * 0.5
    # check_grads's checks with its evaluations in one program (grads_together): 208 -> 10
    # compiles, 6.0 -> 3.3 s CPU for the ten (check_grads of a jitted function cost more)
    check_grads_together(lambda x: _loss(fun(x)), (x,), order=2, modes=("fwd", "rev"))


def test_gradients_of_complex_outputs():
    # the complex-valued transforms themselves, against the dot-product test
    for fun, x in [(lambda x: lax.fft(x, "rfft", (2, 4)), rand((2, 4))),
                   (lambda x: lax.fft(x, "irfft", (2, 6)), rand((2, 4), "c")),
                   (lambda x: lax.fft(x, "ifft", (3,)), rand((2, 3), "c"))]:
        check_grads(fun, (x,), order=1, modes=("fwd", "rev"))


def test_grad_of_rfft_matches_closed_form():
    # d/dx sum(real(rfft(x))) = sum over the kept bins k of cos(2 pi k n / N)
    n = 6
    got = jax.grad(lambda x: jnp.fft.rfft(x).real.sum())(np.ones(n, np.float32))
    k = np.arange(n // 2 + 1)[:, None]
    close(got, np.cos(2 * np.pi * k * np.arange(n) / n).sum(0))


# ------------------------------------------------------------------ vmap and jit
@pytest.mark.parametrize("fun, shape, kind, in_axes", [
    (lambda x: jnp.fft.fft(x), (3, 5), "c", 0),
    (lambda x: jnp.fft.rfft(x, n=6), (4, 3), "f", 1),
    (lambda x: jnp.fft.irfft2(x), (3, 4, 2), "c", 2),
    (lambda x: jnp.fft.fftn(x, axes=(0, 1, 2, 3)), (2, 2, 3, 2, 2), "c", 1),
    (lambda x: lax.fft(x, "irfft", (2, 4)), (2, 3, 3), "c", 2),
    (lambda x: jax.grad(lambda y: _loss(jnp.fft.rfft(y)))(x), (3, 4), "f", 0),
], ids=["fft", "rfft", "irfft2", "fftn4", "lax_irfft", "grad_rfft"])
def test_vmap_matches_stacking(fun, shape, kind, in_axes):
    x = rand(shape, kind, seed=3)
    got = jax.vmap(fun, in_axes)(x)
    want = np.stack([np.asarray(fun(np.take(x, i, axis=in_axes)))
                     for i in range(x.shape[in_axes])])
    close(got, want)


def test_jit_matches_eager():
    x, z = rand((3, 4)), rand((3, 4), "c")
    for fun, arg in [(lambda x: jnp.fft.rfft2(x, norm="ortho"), x),
                     (lambda z: jnp.fft.irfftn(z, s=(2, 5)), z),
                     (lambda z: jnp.fft.ifft(z, n=3, axis=0), z),
                     (lambda x: jnp.fft.fftshift(jnp.fft.fft(x)), x),
                     (lambda x: jnp.fft.hfft(x, n=4), x)]:
        # (eager runs op by op, jit fuses the normalization: the last bits may differ)
        close(jax.jit(fun)(arg), fun(arg))


# ------------------------------------------------------------------ lowering
def test_lowers_to_stablehlo_fft():
    text = jax.jit(lambda z: lax.fft(z, "rfft", (3, 4))).lower(
        jax.ShapeDtypeStruct((2, 3, 4), np.float32)).as_text()
    assert "stablehlo.fft %arg0, type = RFFT, length = [3, 4]" in text    # as MLIR prints it
    assert "(tensor<2x3x4xf32>) -> tensor<2x3x3xcomplex<f32>>" in text
    closed = jax.make_jaxpr(lambda z: lax.fft(z, "irfft", (3, 4)))(
        jax.ShapeDtypeStruct((2, 3, 3), np.complex64))
    text = lower_module(closed.jaxpr, name="f", platform="cpu")[0]
    assert '"stablehlo.fft"' in text
    assert "fft_type = #stablehlo<fft_type IRFFT>" in text
    assert "fft_length = array<i64: 3, 4>" in text
    assert "(tensor<2x3x3xcomplex<f32>>) -> tensor<2x3x4xf32>" in text


def test_gpu_lowering_splits_multidimensional_irfft():
    # cuFFT's C2R wants Hermitian symmetry in every dimension: an IFFT of the outer
    # dimensions, then a 1-D IRFFT, as JAX lowers it for CUDA
    closed = jax.make_jaxpr(lambda z: lax.fft_p.bind(
        z, fft_type=lax.FftType.IRFFT, fft_lengths=(3, 4)))(
        jax.ShapeDtypeStruct((2, 3, 3), np.complex64))
    gpu = lower_module(closed.jaxpr, name="f", platform="gpu")[0]
    assert gpu.count('"stablehlo.transpose"') == 2
    assert "fft_type = #stablehlo<fft_type IFFT>, fft_length = array<i64: 3>" in gpu
    assert "fft_type = #stablehlo<fft_type IRFFT>, fft_length = array<i64: 4>" in gpu
    cpu = lower_module(closed.jaxpr, name="f", platform="cpu")[0]
    assert "transpose" not in cpu and "fft_length = array<i64: 3, 4>" in cpu


def _gpus():
    try:
        return jax.devices("gpu")
    except (RuntimeError, ValueError):
        return []


@pytest.mark.skipif(not _gpus(), reason="no GPU backend (CUDA plugin and GPU) here")
def test_on_gpu_matches_numpy():
    gpu = _gpus()[0]
    z = rand((2, 3, 4), "c")
    z[..., 0] += 1.0            # not Hermitian along the outer axes: the case cuFFT gets wrong
    with jax.default_device(gpu):
        zg = jax.device_put(z, gpu)
        close(jnp.fft.irfftn(zg, axes=(1, 2)), np.fft.irfftn(z, axes=(1, 2)))
        close(jnp.fft.rfftn(jnp.fft.irfftn(zg)), np.fft.rfftn(np.fft.irfftn(z)))
        close(jnp.fft.fftn(zg), np.fft.fftn(z))
        close(jax.grad(lambda x: _loss(jnp.fft.rfft2(x)))(zg.real),
              jax.grad(lambda x: _loss(jnp.fft.rfft2(x)))(z.real))


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("call, error, message", [
    (lambda: jnp.fft.fft(np.ones(4), norm="bad"), ValueError, "Invalid norm value bad"),
    (lambda: jnp.fft.irfft(np.ones(3), n=0), ValueError, "Shape should be positive"),
    (lambda: jnp.fft.fft([1.0, 2.0]), TypeError, "requires ndarray or scalar arguments"),
    (lambda: jnp.fft.fft(np.ones(3), axis=(0,)), ValueError,
     "does not support multiple axes. Please use jax.numpy.fft.fftn"),
    (lambda: jnp.fft.fft2(np.ones((3, 3)), axes=(0,)), ValueError, "only supports 2 axes"),
    (lambda: jnp.fft.fftn(np.ones((3, 3)), axes=(0, 0)), ValueError,
     "does not support repeated axes"),
    (lambda: jnp.fft.fftn(np.ones((3, 3)), s=(2,), axes=(0, 1)), ValueError,
     "Shape and axes have different lengths"),
    (lambda: jnp.fft.rfft(np.ones(3, np.complex64)), ValueError,
     "only real valued inputs supported for rfft"),
    (lambda: jnp.fft.rfft(np.ones(4, np.float16)), ValueError,
     "RFFT input must be float32 or float64, got float16"),
    (lambda: jnp.fft.fftfreq([4]), ValueError, "only takes an int"),
    (lambda: jnp.fft.rfftfreq(4, d=[1.0]), ValueError, "only takes a single value"),
    (lambda: lax.fft(np.ones(3), "foo", (3,)), ValueError, "Unknown FFT type 'foo'"),
    (lambda: lax.fft(np.ones(3), "Fft", (3,)), ValueError, "Unknown FFT type 'Fft'"),
    (lambda: lax.fft(np.ones(3), 3, (3,)), TypeError, "Unknown FFT type value '3'"),
    (lambda: lax.fft(np.ones(3), "fft", (4,)), ValueError,
     "minor dimensions must be equal to fft_lengths (4,)"),
    (lambda: lax.fft(np.ones(3), "fft", (3, 3)), ValueError,
     "must have at least as many input dimensions as fft_lengths"),
    (lambda: lax.fft(np.ones(3, np.complex64), "irfft", (3,)), ValueError,
     "last dimension must be fft_lengths[-1] // 2 + 1 = 2"),
    (lambda: lax.fft(np.ones((2, 3), np.complex64), "irfft", (3, 4)), ValueError,
     "must be equal to all except the last fft_length"),
    (lambda: lax.fft_p.bind(np.ones(3, np.float32), fft_type=lax.FftType.FFT,
                            fft_lengths=(3,)), ValueError,
     "FFT input must be complex64 or complex128, got float32"),
    (lambda: lax.fft_p.bind(np.ones(3, np.float32), fft_type=lax.FftType.IRFFT,
                            fft_lengths=(4,)), ValueError, "IRFFT input must be complex64"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


@pytest.mark.parametrize("module", ["jxkernel.lax.fft", "jxkernel.numpy.fft"])
def test_docstring_examples(module):
    check_docstring_examples(module)
