"""`python -m jxkernel`: show the backends and devices, and run one computation with XLA.

    $ python -m jxkernel
    jxkernel 0.1.0 on jaxlib 0.10.2
    cpu: 1 device: CpuDevice(id=0)  (default)
    ...
    fast path: on (compiled: .../jxkernel/core/_fastpath.cpython-311-x86_64-linux-gnu.so)
    ...

A self-check of the runtime: the computation is a hand-written StableHLO module,
compiled and run through jxkernel.xla (no transformation involved).
"""
from __future__ import annotations

import sys
from importlib import metadata

import numpy as np

from jxkernel.core.avals import ShapedArray
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


def describe_backends() -> list[str]:
    """One line per platform: its devices, or why there are none."""
    default = client.default_backend()
    here, seen = client.machine_accelerator()
    lines = []
    for platform in ("cpu", "gpu", "tpu"):
        if platform != "cpu" and not client._available(platform):
            if here is not None and (here == "tpu") == (platform == "tpu"):
                lines.append(f"{platform}: not installed, and this machine has {seen}; to add "
                             f"it: {client.install_line(platform)}  (jxkernel[{here}])")
            else:
                lines.append(f"{platform}: none here ({seen}); where there is one: "
                             f"{client.install_line(platform)}")
            continue
        try:
            devs = client.devices(platform)
        except RuntimeError as e:
            lines.append(f"{platform}: unavailable ({e})")
            continue
        mark = "  (default)" if platform == default else ""
        noun = "device" if len(devs) == 1 else "devices"
        lines.append(f"{platform}: {len(devs)} {noun}: {', '.join(map(repr, devs))}{mark}")
    return lines


def run_demo():
    """(input, result, Phases) of the demo module on the default device."""
    device = default_device()
    loaded, phases = compile_module(_MODULE, [device])
    exe = Executable(loaded, [ShapedArray((), np.float32)], device, name="demo")
    x = device_put(np.linspace(-3, 3, 8, dtype=np.float32), device)
    (result,) = exe(x)
    return x, result.block_until_ready(), phases


def main() -> int:
    print(f"jxkernel {_version('jxkernel')} on jaxlib {_version('jaxlib')}")
    for line in describe_backends():
        print(line)
    print(f"fast path: {FASTPATH_STATE}")    # jit hits and eager ops checked and run in C
    x, result, phases = run_demo()
    print(f"x = {x!r}")
    how = {"compiled": "compiled", "disk": "loaded from the compilation cache",
           "memory": "already compiled"}[phases.cache]
    print(f"sum(sin(x)**2 + cos(x)**2) = {result!r}  on {result.device} "
          f"({how} in {phases.compile_s * 1e3:.1f} ms)")
    return 0 if abs(float(result) - 8.0) < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
