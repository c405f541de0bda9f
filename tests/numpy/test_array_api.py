"""The Python array API standard as JAX 0.10.2 implements it: `__array_namespace__`,
`__array_api_version__`, `__array_namespace_info__()`, `isdtype`, the dtypes of
`cumulative_sum`/`cumulative_prod`, `permute_dims`, and DLPack exchange with NumPy.

Every outcome of tests/data/array_api_cases.py is compared exactly with JAX's, recorded by
reference/make_array_api_reference.py (all of them are ints, bools, dtypes, shapes, exception
classes and messages, or whether memory is shared). The array-api-tests suite itself runs
outside CI: conformance/array_api/run_array_api_tests.sh.
"""
import functools
import json

import numpy as np
import pytest
from array_api_cases import _Capsule as _Producer
from array_api_cases import cases, numpy_side
from doc_examples import check_docstring_examples

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.xla.dlpack import DLDeviceType, is_supported_dtype
import locations  # tests/support: the repository's folders

# JAX recorded these on its CPU, and DLPack with NumPy needs host memory: in the GPU tier the
# arrays live on the CPU still
pytestmark = pytest.mark.usefixtures("on_the_cpu")


@functools.cache
def outcomes() -> tuple:
    """(JAX's outcomes, ours), through JSON so both have the same types."""
    reference = locations.recorded("array_api_reference.json")
    return reference, json.loads(json.dumps(cases(jxkernel, jnp), sort_keys=True))


def _started_here_only(group, results):
    """`results` without the NumPy backend's device where another test of this process started
    that backend: `info.devices()` lists every started backend's devices, as JAX's does, and
    JAX has no NumPy backend (a fresh process lists XLA's CPU alone)."""
    if group != "namespace":
        return results
    from jxkernel.xla import client
    assert "numpy" in client.backends() or not any(
        d.startswith("NumpyDevice") for info in results.values() if isinstance(info, dict)
        for d in info.get("devices", ()))
    return {k: dict(v, devices=[d for d in v["devices"] if not d.startswith("NumpyDevice")])
            if isinstance(v, dict) and "devices" in v else v for k, v in results.items()}


@pytest.mark.parametrize("group", [
    pytest.param("namespace", marks=pytest.mark.xla_only("CPU platform")),   # its devices
    "isdtype", "cumulative", "permute_dims",
    # jaxlib's DLPack: 64-byte alignment decides aliasing; XLA's error texts
    pytest.param("dlpack", marks=pytest.mark.xla_only("XLA compiler"))])
def test_matches_jax(group):
    reference, ours = outcomes()
    ours = dict(ours, **{group: _started_here_only(group, ours[group])})
    # a case keyed by its NumPy is recorded under each: this process's side is compared
    reference = dict(reference, **{group: {k: v for k, v in reference[group].items() if
                                           "(numpy" not in k or k.endswith(f"({numpy_side()})")}})
    mismatched = {k: (reference[group].get(k), ours[group].get(k))
                  for k in set(reference[group]) | set(ours[group])
                  if reference[group].get(k) != ours[group].get(k)}
    assert not mismatched, f"(JAX, jxkernel) differ: {mismatched}"


@pytest.mark.xla_only("CPU platform")
def test_dlpack_shares_memory_both_ways_on_cpu():
    a = np.zeros(64 + 16, np.float32)
    a = a[(-a.ctypes.data % 64) // 4:][:16]           # 64-byte aligned: jaxlib aliases it
    x = jnp.from_dlpack(a)
    a[3] = 5.0                                        # the producer's write shows through
    assert float(x[3]) == 5.0
    y = np.from_dlpack(x)
    assert y.ctypes.data == a.ctypes.data and not y.flags.writeable
    assert x.__dlpack_device__() == (DLDeviceType.kDLCPU, 0)
    placed = jnp.from_dlpack(a, device=jxkernel.sharding.SingleDeviceSharding(x.device))
    assert placed.unsafe_buffer_pointer() == a.ctypes.data and placed.committed


@pytest.mark.xla_only("XLA compiler")
def test_dlpack_to_a_missing_device_is_xlas_error():
    with pytest.raises(jxkernel.errors.JaxRuntimeError, match="local_device_id 7"):
        jnp.arange(3.0).__dlpack__(dl_device=(DLDeviceType.kDLCPU, 7))   # as JAX: no such device


def test_dlpack_errors_name_what_to_do():
    x = jnp.arange(3.0)
    same = np.from_dlpack(_Producer(x.__dlpack__(dl_device=(DLDeviceType.kDLCPU, 0),
                                                 copy=False)))
    assert same.ctypes.data == x.unsafe_buffer_pointer()
    with pytest.raises(TypeError, match="__dlpack__ and __dlpack_device__"):
        jnp.from_dlpack(np.arange(3).tolist())
    with pytest.raises(TypeError, match="dtype"):
        is_supported_dtype(None)
    assert is_supported_dtype(jnp.bfloat16) and not is_supported_dtype(np.float128)
    x.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        x.__dlpack__()


@pytest.mark.xla_only("CPU platform")    # its example names jax.devices("cpu")
def test_docstring_examples_of_dlpack_export():
    check_docstring_examples("jxkernel.xla.dlpack_export")


def test_docstring_examples_and_jax_dlpack_module():
    check_docstring_examples("jxkernel.numpy.array_api")
    check_docstring_examples("jxkernel.xla.dlpack")
    check_docstring_examples("jxkernel.dlpack")
    assert jxkernel.dlpack.from_dlpack(np.float32([2])).tolist() == [2.0]   # as jax.dlpack
