"""Cases for lax.fft and jnp.fft, evaluated by both real JAX (reference/make_fft_reference.py
writes fft_reference.npz and fft_jaxprs.json) and jxkernel (tests/lax/test_fft.py compares
values, dtypes and weak types, and the printed jaxprs). `x64` says which mode the caller
runs `cases` in."""
import numpy as np


def operands():
    rng = np.random.RandomState(0)
    f32 = rng.randn(3, 4).astype(np.float32)
    c64 = (rng.randn(2, 5) + 1j * rng.randn(2, 5)).astype(np.complex64)
    i32 = rng.randint(-4, 5, size=(6,)).astype(np.int32)
    cube = rng.randn(2, 3, 4).astype(np.float32)
    return f32, c64, i32, cube


def cases(jax, jnp, lax, x64=False):
    f32, c64, i32, cube = operands()
    out = {}
    if x64:
        f64, c128 = f32.astype(np.float64), c64.astype(np.complex128)
        out["fft_f64"] = jnp.fft.fft(f64)
        out["rfft_f64"] = jnp.fft.rfft(f64, n=6, norm="ortho")
        out["irfftn_c128"] = jnp.fft.irfftn(c128)
        out["fft_i64"] = jnp.fft.fft(i32.astype(np.int64))
        out["fft_i32"] = jnp.fft.fft(i32)                     # int32 -> complex64 even in x64
        out["rfft_i64"] = jnp.fft.rfft(i32.astype(np.int64))
        out["ifft2_c128_forward"] = jnp.fft.ifft2(c128, norm="forward")
        out["fftfreq"] = jnp.fft.fftfreq(5, 0.1)
        out["rfftfreq_f32"] = jnp.fft.rfftfreq(6, dtype=jnp.float32)
        out["hfft_c128"] = jnp.fft.hfft(c128[0])
        out["lax_irfft_c128"] = lax.fft(c128, "irfft", (2, 8))
        return out
    out["fft"] = jnp.fft.fft(f32)
    out["fft_n3_axis0_ortho"] = jnp.fft.fft(f32, n=3, axis=0, norm="ortho")
    out["ifft_c64_n7_forward"] = jnp.fft.ifft(c64, n=7, norm="forward")
    out["fft_int"] = jnp.fft.fft(i32)
    out["fft_bool"] = jnp.fft.fft(i32 > 0)
    out["fft_f16"] = jnp.fft.fft(f32.astype(np.float16))
    out["fftn_scalar"] = jnp.fft.fftn(3.0)                # no axes: only the complex cast
    out["fft2_s"] = jnp.fft.fft2(cube, s=(2, 5))
    out["fftn_axes"] = jnp.fft.fftn(cube, axes=(0, 2), norm="backward")
    out["ifftn_c64"] = jnp.fft.ifftn(c64, s=(3, 4))
    out["rfft_int"] = jnp.fft.rfft(i32, n=9)
    out["rfft2"] = jnp.fft.rfft2(cube, axes=(0, 1))
    out["rfftn"] = jnp.fft.rfftn(cube, norm="forward")
    out["irfft"] = jnp.fft.irfft(c64)
    out["irfft_n"] = jnp.fft.irfft(c64, n=5, axis=0, norm="ortho")
    out["irfft2"] = jnp.fft.irfft2(c64)
    out["irfftn_s"] = jnp.fft.irfftn(c64, s=(3, 7))
    out["hfft"] = jnp.fft.hfft(c64, n=6)
    out["hfft_real"] = jnp.fft.hfft(i32)
    out["ihfft"] = jnp.fft.ihfft(f32)
    out["fftn_4d"] = jnp.fft.fftn(cube.reshape(2, 3, 2, 2))
    out["ifftn_4d"] = jnp.fft.ifftn(cube.reshape(2, 3, 2, 2))
    out["rfftn_5d"] = jnp.fft.rfftn(cube.reshape(1, 2, 3, 2, 2))
    out["irfftn_4d"] = jnp.fft.irfftn(c64.reshape(1, 2, 1, 5))
    out["fftfreq"] = jnp.fft.fftfreq(5)
    out["fftfreq_d_f16"] = jnp.fft.fftfreq(4, d=0.5, dtype=jnp.float16)
    out["fftfreq_int"] = jnp.fft.fftfreq(6, dtype=jnp.int32)
    out["rfftfreq"] = jnp.fft.rfftfreq(7, 0.25)
    out["fftshift"] = jnp.fft.fftshift(f32)
    out["fftshift_axis"] = jnp.fft.fftshift(cube, axes=1)
    out["ifftshift_axes"] = jnp.fft.ifftshift(cube, axes=(0, 2))
    out["fftshift_weak"] = jnp.fft.fftshift(jnp.asarray(2.5))
    out["lax_fft_str"] = lax.fft(c64, "FFT", (2, 5))
    out["lax_ifft_type"] = lax.fft(c64, lax.FftType.IFFT, (5,))
    out["lax_rfft_int"] = lax.fft(i32, lax.FftType.RFFT, (6,))
    out["lax_irfft"] = lax.fft(c64[:, :3], "irfft", (2, 4))
    out["lax_fft_empty"] = lax.fft(f32, "fft", ())
    return out


# name -> (function of (jax, jnp, lax, *args), example operands): their jaxprs must print
# as JAX prints them
JAXPRS = {
    "jnp_fft": (lambda jax, jnp, lax, x: jnp.fft.fft(x), ("f32",)),
    "jnp_rfft_ortho": (lambda jax, jnp, lax, x: jnp.fft.rfft(x, norm="ortho"), ("f32",)),
    "jnp_ifft2_forward": (lambda jax, jnp, lax, x: jnp.fft.ifft2(x, norm="forward"), ("c64",)),
    "jnp_fftn_axes": (lambda jax, jnp, lax, x: jnp.fft.fftn(x, axes=(0, 2)), ("cube",)),
    "jnp_fftn_4d": (lambda jax, jnp, lax, x: jnp.fft.fftn(x.reshape(2, 3, 2, 2),
                                                          norm="backward"), ("cube",)),
    "jnp_hfft": (lambda jax, jnp, lax, x: jnp.fft.hfft(x), ("f32",)),
    "lax_irfft": (lambda jax, jnp, lax, x: lax.fft(x, "irfft", (2, 8)), ("c64",)),
    # (real-valued losses through irfft: the transposes of real/imag are not checked here)
    "grad_rfft": (lambda jax, jnp, lax, x: jax.grad(
        lambda y: jnp.fft.irfft(jnp.fft.rfft(y) * 2j).sum())(x), ("f32",)),
    "grad_irfft": (lambda jax, jnp, lax, x: jax.grad(
        lambda y: jnp.fft.irfft(y.astype(np.complex64) * 2j).sum())(x), ("f32",)),
    "grad_fft": (lambda jax, jnp, lax, x: jax.grad(
        lambda y: jnp.fft.irfft(jnp.fft.ifft(y * 1j)).sum())(x), ("f32",)),
    "vmap_fft": (lambda jax, jnp, lax, x: jax.vmap(jnp.fft.fft, 1)(x), ("f32",)),
    "vmap_rfft_axis": (lambda jax, jnp, lax, x: jax.vmap(
        lambda y: jnp.fft.rfft(y, axis=0), 2)(x), ("cube",)),
}


def jaxpr_operands():
    f32, c64, _, cube = operands()
    return {"f32": f32, "c64": c64, "cube": cube}


# Bounds for comparing each case's values with the recorded ones, in ulps of the result's dtype
# measured at the case's largest |value| (an FFT's outputs are sums: their rounding is relative
# to the whole transform). Cases not listed: DEFAULT_ULPS (= numerics.REDUCTION; all were equal
# to the AMD-recorded data on Intel AVX-512, AVX2 and SSE4.2 code generation); copies and casts
# of exact values are exact. (Integer and boolean results are always compared exactly.)
DEFAULT_ULPS = 16
ULPS = {name: 0 for name in ("fftn_scalar", "fftshift", "fftshift_axis", "ifftshift_axes",
                             "fftshift_weak", "lax_fft_empty", "fftfreq_int")}


def ulps(name: str) -> int:
    return ULPS.get(name, DEFAULT_ULPS)
