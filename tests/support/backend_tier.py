"""The NumPy-backend tier (`pytest --backend numpy`, or JAX_PLATFORMS=numpy; docs/contributing.md):
the suite with jaxprs run by NumPy instead of XLA. Every test of a primitive's value, a
transformation or an error runs there too; what it skips has one home here.

`@pytest.mark.xla_only("XLA text")` marks a test whose expectation only XLA can meet (its
StableHLO or HLO text, several devices, its compiler and runtime); on the NumPy backend
tests/conftest.py skips it, saying why. The reason must be one of `REASONS` (checked at
collection), so the tier's report counts the skips by kind. Mark the narrowest unit (one
parametrized case where only it needs XLA), never a test that fails for another reason: a
value the NumPy backend gets wrong is a bug in its rule.

    >>> sorted(REASONS)[0]
    'CPU platform'
"""
from __future__ import annotations

import json
import os

import pytest

# Why a test holds on XLA only: each kind, with what the NumPy backend does instead.
REASONS = {
    "XLA text": "expects XLA's own text or figures (StableHLO, optimized HLO, a GPU lowering, "
                "cost and memory analysis); the NumPy backend runs the jaxpr and compiles none",
    "several devices": "needs several of XLA's devices (jaxlib's multi-device runtime and "
                       "partitioner, several processes), or collectives over "
                       "axis_index_groups; the NumPy backend's simulated devices (JXKERNEL_CPU_DEVICES) "
                       "do not follow these",
    "XLA compiler": "tests XLA's compiler or runtime (compile options, donation, executables, "
                    "their serialization, DLPack buffers' alignment, its error texts)",
    "sharded arrays": "expects a layout on a mesh only XLA gives (a result's layout its "
                      "partitioner chooses where the NumPy backend guesses another, unreduced "
                      "summands, jaxlib's sharded buffers)",
    "CPU platform": "expects XLA's CPU platform by name (CpuDevice, 'cpu' devices or backend); "
                    "the NumPy backend's is 'numpy'",
    "XLA tie order": "credits the tied element XLA's CPU code generation picks in a max/min "
                     "pooling window (not always the first in row-major order); the NumPy "
                     "backend credits the first",
}


def on_numpy_backend() -> bool:
    """Whether this run's programs run on the NumPy backend (tests/conftest.py sets
    JAX_PLATFORMS=numpy for `--backend numpy`, before any test runs)."""
    return os.environ.get("JAX_PLATFORMS", "").split(",")[0].strip() == "numpy"


def devices_named_here(recorded):
    """A recording made on XLA's CPU (JSON-like: strings, lists, dicts) with its devices named
    as this run's backend names them: on the NumPy backend `CpuDevice(id=0)` is
    `NumpyDevice(id=0)` and a mesh's `device_kind=cpu, ..., platform=cpu` (and a memory
    kind's refusal's "device cpu", jit's "on platform CPU") are `numpy`, for a
    test whose subject is not the device (a sampler's result laid out on the default device,
    a sharding error that shows the mesh).

        >>> devices_named_here(["ok", "SingleDeviceSharding(device=CpuDevice(id=0))"])[0]
        'ok'
    """
    if not on_numpy_backend():
        return recorded
    text = json.dumps(recorded)
    for cpu, numpy in _DEVICE_NAMES:
        text = text.replace(cpu, numpy)
    return json.loads(text)


_DEVICE_NAMES = (("CpuDevice(", "NumpyDevice("), ("device_kind=cpu,", "device_kind=numpy,"),
                 ("platform=cpu)", "platform=numpy)"),
                 # a memory kind's refusal names the device's platform (core/mesh.py)
                 ("by device cpu. Device cpu can", "by device numpy. Device numpy can"),
                 # jit's incompatible devices name their platform in capitals
                 ("on platform CPU", "on platform NUMPY"),
                 # device_put(x, device) in a shard_map body names the device as platform:id
                 ("but got device cpu:", "but got device numpy:"))


def cases_marked(names, xla_only: dict) -> list:
    """`names` as pytest params, each one in `xla_only` ({name: reason}) marked xla_only with
    its reason: the narrowest unit of a parametrized test.

        >>> [type(c).__name__ for c in cases_marked(["a", "b"], {"b": "XLA text"})]
        ['str', 'ParameterSet']
    """
    return [pytest.param(n, marks=pytest.mark.xla_only(xla_only[n])) if n in xla_only else n
            for n in names]


def check_reason(reason: str, where: str) -> None:
    """An xla_only marker's reason must be one of REASONS (the tier counts skips by kind)."""
    if reason not in REASONS:
        raise ValueError(f"{where}: xla_only({reason!r}): the reason must be one of "
                         f"{sorted(REASONS)} (tests/support/backend_tier.py)")
