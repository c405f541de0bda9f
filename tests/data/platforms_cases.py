"""Platform names and JAX_PLATFORMS (issue 46), run under JAX_PLATFORMS=cpu by
reference/make_platforms_reference.py (JAX 0.10.2) and tests/xla/test_platforms.py
(jxkernel): which backends start, their names, the errors for one JAX_PLATFORMS leaves out, and
the platforms `jax.export` lowers for (CUDA's lowering, made on the CPU)."""
import importlib
import re


def _said(f):
    try:
        f()
        return "ok"
    except Exception as e:       # the class and JAX's words
        return f"{type(e).__name__}: {e}"


def run(jax):
    jnp = importlib.import_module(f"{jax.__name__}.numpy")      # jax's or jxkernel's
    export = importlib.import_module(f"{jax.__name__}.export")

    out = {"jax_platforms": jax.config.jax_platforms}
    for name in ("gpu", "cuda", "rocm", "tpu"):
        out[f"devices({name!r})"] = _said(lambda: jax.devices(name))
        out[f"device_count({name!r})"] = _said(lambda: jax.device_count(name))
    out["jit(backend='gpu')"] = _said(lambda: jax.jit(lambda x: x + 1, backend="gpu")(1.0))
    out["jit(backend='tpu')"] = _said(lambda: jax.jit(lambda x: x + 1, backend="tpu")(1.0))
    out["default_backend()"] = jax.default_backend()
    out["devices()[0].platform"] = jax.devices()[0].platform
    out["devices('cpu')"] = [d.platform for d in jax.devices("cpu")]
    out["export.default_export_platform()"] = export.default_export_platform()

    spec = jax.ShapeDtypeStruct((4, 4), jnp.float32)
    for platform in ("cpu", "cuda", "rocm", "tpu"):
        exp = export.export(jax.jit(jnp.sin), platforms=(platform,))(spec)
        out[f"export(platforms=({platform!r},)).platforms"] = list(exp.platforms)
    out["export(platforms=('gpu',))"] = _said(
        lambda: export.export(jax.jit(jnp.sin), platforms=("gpu",))(spec))
    cuda = export.export(jax.jit(jnp.sin), platforms=("cuda",))(spec)
    out["a 'cuda' export called on the CPU"] = _said(lambda: cuda.call(jnp.ones((4, 4))))
    # CUDA's lowerings, made here: cuSOLVER's Cholesky, cuFFT's 2-d inverse real FFT
    for name, f in [("cholesky", jnp.linalg.cholesky),
                    ("irfft2", lambda x: jnp.fft.irfft2(x.astype(jnp.complex64)))]:
        text = export.export(jax.jit(f), platforms=("cuda",))(spec).mlir_module()
        out[f"{name} for cuda: custom calls"] = sorted(set(re.findall(r"custom_call @(\w+)",
                                                                     text)))
        out[f"{name} for cuda: ops"] = sorted(set(re.findall(r"stablehlo\.(\w+)", text)))
    # jit(f).trace(x).lower(lowering_platforms=...): the same lowerings, compiled for the CPU
    irfft2 = jax.jit(lambda x: jnp.fft.irfft2(x.astype(jnp.complex64)))
    x = jnp.arange(16.0, dtype=jnp.float32).reshape(4, 4)
    lowered = irfft2.trace(x).lower(lowering_platforms=("cuda",))
    out["irfft2 lowered for cuda: ops"] = sorted(set(re.findall(r"stablehlo\.(\w+)",
                                                                lowered.as_text())))
    out["irfft2 lowered for cuda, run on the CPU"] = lowered.compile()(x).round(4).tolist()
    out["lower(lowering_platforms=('gpu',))"] = _said(
        lambda: irfft2.trace(x).lower(lowering_platforms=("gpu",)))
    return out
