"""`python -m jxkernel`: show the backends and devices, and run one computation.

    $ python -m jxkernel
    jxkernel 0.1.0 on jaxlib 0.10.2
    cpu: 1 device: CpuDevice(id=0)  (default)
    ...
    fast path: on (compiled: .../jxkernel/core/_fastpath.cpython-311-x86_64-linux-gnu.so)
    ...

A self-check of the runtime: the computation is a hand-written StableHLO module,
compiled and run through jxkernel.xla (no transformation involved). On the NumPy backend
(JAX_PLATFORMS=numpy, or where jaxlib cannot be imported) nothing compiles StableHLO: the
report says what that backend is, what it cannot do and how to get XLA, and the same sum runs
as a jitted function whose jaxpr NumPy evaluates:

    $ JAX_PLATFORMS=numpy python -m jxkernel
    jxkernel 0.1.0 on jaxlib 0.10.2
    numpy: 1 device: NumpyDevice(id=0)  (default)
    cpu: not started: jax_platforms is 'numpy' (JAX_PLATFORMS), which leaves XLA's backends out
    ...
    the numpy backend: jit, grad, vmap and the views work as on XLA; each jaxpr is run ...
"""
from __future__ import annotations

import sys
import time
from importlib import metadata

import numpy as np

from jxkernel import jit
from jxkernel import numpy as jnp
from jxkernel.core.avals import ShapedArray
from jxkernel.core.config import config
from jxkernel.core.native import STATE as FASTPATH_STATE
from jxkernel.xla import Executable, client, compile_module, default_device, device_put

# sum(sin(x)^2 + cos(x)^2) is len(x), whatever x holds: easy to check by eye.
_MODULE = """module @demo {
  func.func public @main(%x: tensor<8xf32>) -> tensor<f32> {
    %s = stablehlo.sine %x : tensor<8xf32>
    %c = stablehlo.cosine %x : tensor<8xf32>
    %s2 = stablehlo.multiply %s, %s : tensor<8xf32>
    %c2 = stablehlo.multiply %c, %c : tensor<8xf32>
    %one = stablehlo.add %s2, %c2 : tensor<8xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%one init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    return %sum : tensor<f32>
  }
}
"""


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


def _header() -> str:
    """jxkernel's version, and jaxlib's or why it cannot be imported (its files may be
    installed while an import of it fails: the package's version alone would hide that)."""
    if client.xc is None:
        return f"jxkernel {_version('jxkernel')} without jaxlib ({client.JAXLIB_ERROR})"
    return f"jxkernel {_version('jxkernel')} on jaxlib {_version('jaxlib')}"


def _devices_line(platform: str, default: str) -> str:
    devs = client.devices(platform)
    mark = "  (default)" if platform == default else ""
    noun = "device" if len(devs) == 1 else "devices"
    return f"{platform}: {len(devs)} {noun}: {', '.join(map(repr, devs))}{mark}"


def _numpy_line(default: str) -> str:
    if default == "numpy":
        return _devices_line("numpy", default)
    return "numpy: jaxprs run by NumPy, without XLA; to use it: JAX_PLATFORMS=numpy"


def _cpu_line(default: str) -> str:
    why = client.xla_unavailable()
    if why is not None:
        return f"cpu: unavailable: {why}"
    if "cpu" not in client._allowed_platforms():
        return (f"cpu: not started: jax_platforms is {config.jax_platforms!r} "
                f"(JAX_PLATFORMS), which leaves XLA's backends out")
    try:
        return _devices_line("cpu", default)
    except RuntimeError as e:
        return f"cpu: unavailable ({e})"


def describe_backends() -> list[str]:
    """One line per platform: its devices, or why there are none."""
    default = client.default_backend()
    here, seen = client.machine_accelerator()
    lines = [_numpy_line(default)] if default == "numpy" else []
    lines.append(_cpu_line(default))
    for platform in ("gpu", "tpu"):
        if not client._available(platform):
            if here is not None and (here == "tpu") == (platform == "tpu"):
                lines.append(f"{platform}: not installed, and this machine has {seen}; to add "
                             f"it: {client.install_line(platform)}  (jxkernel[{here}])")
            else:
                lines.append(f"{platform}: none here ({seen}); where there is one: "
                             f"{client.install_line(platform)}")
            continue
        try:
            lines.append(_devices_line(platform, default))
        except RuntimeError as e:
            lines.append(f"{platform}: unavailable ({e})")
    return lines if default == "numpy" else lines + [_numpy_line(default)]


def describe_numpy_backend() -> list[str]:
    """What the NumPy backend is and what it cannot do, in a few lines."""
    return [
        f"the numpy backend: jit, grad, vmap and the views work as on XLA; each jaxpr is run "
        f"equation by equation by NumPy {np.__version__}.",
        "  without XLA: nothing is compiled or fused (a jit keeps its jaxpr), one device, no "
        "optimized HLO (the StableHLO jxkernel emits is still there to read), no compilation "
        "cache, and costs are jxkernel's estimates from the jaxpr, not XLA's.",
        "  for XLA: " + client.how_to_get_xla()]


def run_demo():
    """(input, result, Phases) of the demo module on the default device."""
    device = default_device()
    loaded, phases = compile_module(_MODULE, [device])
    exe = Executable(loaded, [ShapedArray((), np.float32)], device, name="demo")
    x = device_put(np.linspace(-3, 3, 8, dtype=np.float32), device)
    (result,) = exe(x)
    return x, result.block_until_ready(), phases


def _sum_of_squares(x):
    return jnp.sum(jnp.sin(x) ** 2 + jnp.cos(x) ** 2)


def run_numpy_demo():
    """(input, result, seconds) of the demo's sum as a jitted function on the NumPy backend:
    the one program there is a jaxpr (no StableHLO module runs without XLA)."""
    x = device_put(np.linspace(-3, 3, 8, dtype=np.float32), default_device())
    start = time.perf_counter()
    result = jit(_sum_of_squares)(x).block_until_ready()
    return x, result, time.perf_counter() - start


def _xla_result() -> float:
    x, result, phases = run_demo()
    print(f"x = {x!r}")
    how = {"compiled": "compiled", "disk": "loaded from the compilation cache",
           "memory": "already compiled"}[phases.cache]
    print(f"sum(sin(x)**2 + cos(x)**2) = {result!r}  on {result.device} "
          f"({how} in {phases.compile_s * 1e3:.1f} ms)")
    return float(result)


def _numpy_result() -> float:
    x, result, seconds = run_numpy_demo()
    print(f"x = {x!r}")
    print(f"sum(sin(x)**2 + cos(x)**2) = {result!r}  on {result.device} "
          f"(jit: traced, and its jaxpr run by NumPy, in {seconds * 1e3:.1f} ms)")
    return float(result)


def main() -> int:
    print(_header())
    for line in describe_backends():
        print(line)
    on_numpy = client.default_backend() == "numpy"
    if on_numpy:
        for line in describe_numpy_backend():
            print(line)
    print(f"fast path: {FASTPATH_STATE}")    # jit hits and eager ops checked and run in C
    total = _numpy_result() if on_numpy else _xla_result()
    return 0 if abs(total - 8.0) < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
