"""The NumPy backend's allocator count (`NumpyDevice.memory_stats()`, numpy_device.Usage): what
%jxmemory and the status bar show in JupyterLite. Bytes in use are the live buffers' bytes on
the device: up by an array's nbytes when one is made, down when it is deleted, donated or
collected, a buffer re-wrapped (a commit) counted once; the peak stays until `reset_peak`; no
limit. The keys are those XLA's `Device.memory_stats()` uses. Exact byte counts: they are the
contract (each test counts from what the device held when it began, so other tests' arrays in
the same worker do not matter; the garbage collector is held off while it counts)."""
import gc
import json
import os

import numpy as np
import pytest

from fresh_process import run_json

import jxkernel as jax
from jxkernel.core.config import config
from jxkernel.memory import allocator_stats, memory_report
from jxkernel.views.memory import size_text
from jxkernel.xla import numpy_device


@pytest.fixture(autouse=True, scope="module")
def numpy_backend_stopped_after():
    """These tests start the NumPy backend in this process; later tests in the same worker
    see the backends as a process that never chose it does."""
    from jxkernel.xla import client
    started = "numpy" in client._backends
    yield
    if not started and config.jax_platforms != "numpy":
        client._backends.pop("numpy", None)


@pytest.fixture
def device():
    """The NumPy backend's first device, the collector held off (a collection in the middle
    would free other tests' buffers and move the count)."""
    gc.collect()
    gc.disable()
    try:
        yield jax.devices("numpy")[0]
    finally:
        gc.enable()


def put(device, n, dtype=np.float32):
    """A fresh array of `n` elements on `device`: one buffer of n * itemsize bytes."""
    return jax.device_put(np.arange(n, dtype=dtype), device)


def in_use(device) -> int:
    return device.memory_stats()["bytes_in_use"]


def test_its_keys_are_xlas_and_it_reports_no_limit(device):
    stats = device.memory_stats()
    # the keys XLA's GPU devices always report; bytes_limit left out, as XLA leaves out a limit
    # its allocator lacks
    assert sorted(stats) == ["bytes_in_use", "largest_alloc_size", "num_allocs",
                             "peak_bytes_in_use"]
    assert all(type(v) is int and v >= 0 for v in stats.values()), stats
    assert allocator_stats(device) == {"bytes_in_use": stats["bytes_in_use"],
                                       "peak_bytes_in_use": stats["peak_bytes_in_use"],
                                       "bytes_limit": None}


def test_bytes_go_up_when_an_array_is_made_and_down_when_it_is_deleted(device):
    before = device.memory_stats()
    x = put(device, 1000)                                   # 4,000 bytes
    after = device.memory_stats()
    assert after["bytes_in_use"] == before["bytes_in_use"] + 4000
    assert after["num_allocs"] == before["num_allocs"] + 1
    assert after["largest_alloc_size"] >= 4000
    y = put(device, 1000, np.int16)                         # 2,000 bytes
    assert in_use(device) == before["bytes_in_use"] + 6000
    x.delete()
    assert in_use(device) == before["bytes_in_use"] + 2000
    x.delete()                                              # twice: released once
    assert in_use(device) == before["bytes_in_use"] + 2000
    del y                                                   # collected (its last reference)
    assert in_use(device) == before["bytes_in_use"]


def test_the_peak_stays_after_arrays_go_until_reset(device):
    numpy_device.reset_peak()
    start = device.memory_stats()
    assert start["peak_bytes_in_use"] == start["bytes_in_use"]
    x = put(device, 25_000)                                 # 100,000 bytes
    x.delete()
    y = put(device, 5_000)                                  # 20,000 bytes
    stats = device.memory_stats()
    assert stats["bytes_in_use"] == start["bytes_in_use"] + 20_000
    assert stats["peak_bytes_in_use"] == start["bytes_in_use"] + 100_000
    numpy_device.reset_peak()
    assert device.memory_stats()["peak_bytes_in_use"] == start["bytes_in_use"] + 20_000
    del y


def test_a_programs_results_count_and_a_donated_argument_is_released(device):
    x = put(device, 1000)
    before = in_use(device)
    y = jax.jit(lambda v: v * 2)(x)                         # its result: 4,000 bytes more
    assert in_use(device) == before + 4000
    z = jax.jit(lambda v: v + 1, donate_argnums=0)(y)       # y donated: its bytes released
    assert y.is_deleted() and in_use(device) == before + 4000
    del x, z
    assert in_use(device) == before - 4000


def test_memory_report_shows_the_allocator_line(device):
    x = put(device, 64 * 1024)                              # 256 KiB
    report = memory_report([x], platform="numpy")
    stats = device.memory_stats()
    line = repr(report).splitlines()[-1]
    assert line == (f"numpy:0 allocator: {size_text(stats['bytes_in_use'])} in use, peak "
                    f"{size_text(stats['peak_bytes_in_use'])}, limit not reported by this backend")
    assert stats["bytes_in_use"] >= 2 ** 18
    assert f"<li>{line}</li>" in report._repr_html_()
    (entry,) = json.loads(json.dumps(report.to_json()))["allocator"]
    assert entry == {"device": "numpy:0", "bytes_in_use": stats["bytes_in_use"],
                     "peak_bytes_in_use": stats["peak_bytes_in_use"], "bytes_limit": None}
    del x


def test_on_jax_platforms_numpy_commits_count_once_and_each_device_its_blocks():
    """In a process on JAX_PLATFORMS=numpy with two devices: committing an array (device_put
    to where it is) re-wraps its ndarray, counted once until both are gone; over a mesh, a split
    array holds a block on each device, a replicated one all of it on each, as XLA's devices
    would; deleting them releases it all."""
    out = run_json("""
        import gc, json, numpy as np
        import jxkernel as jax, jxkernel.numpy as jnp
        from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
        gc.disable()
        d = jax.devices()
        used = lambda: [x.memory_stats()["bytes_in_use"] for x in d]
        x = jnp.ones(1000)                       # uncommitted, on numpy:0
        with_x = used()
        committed = jax.device_put(x, d[0])      # the same data, now committed
        shared = committed._buf.value is x._buf.value
        with_both = used()
        del x
        with_committed = used()
        del committed
        before = used()
        mesh = Mesh(np.array(d), ("i",))
        split = jax.device_put(np.ones((4, 100), np.float32), NamedSharding(mesh, P("i")))
        after_split = used()
        copies = jax.device_put(np.ones(50, np.int8), NamedSharding(mesh, P()))
        after_copies = used()
        split.delete(); copies.delete()
        print(json.dumps({"platform": jax.default_backend(), "n": len(d), "before": before,
                          "split": after_split, "copies": after_copies, "after": used(),
                          "shared": shared, "x": with_x, "both": with_both,
                          "committed": with_committed}))
        """, env={**os.environ, "JAX_PLATFORMS": "numpy", "JXKERNEL_CPU_DEVICES": "2"})
    assert (out["platform"], out["n"]) == ("numpy", 2)
    b = out["before"]
    assert out["shared"] and out["x"] == out["both"] == out["committed"] == [b[0] + 4000, b[1]]
    assert out["split"] == [b[0] + 800, b[1] + 800]         # a 2x100 float32 block each
    assert out["copies"] == [b[0] + 850, b[1] + 850]        # all 50 int8 on each
    assert out["after"] == b
