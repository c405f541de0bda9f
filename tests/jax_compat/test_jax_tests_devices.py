"""What JAX's device, runtime and interop test files (array_interoperability_test.py and the
others added with it, conformance/jax_tests) found, against JAX 0.10.2's answers
(tests/data/jax_tests_devices_reference.json, recorded by
reference/make_jax_tests_devices_reference.py from tests/data/jax_tests_devices_cases.py):
`__cuda_array_interface__` off a GPU is JAX's AttributeError (so `hasattr` is False), the
dtypes `jax._src.dlpack` lists, and `jax._src.util.cache`'s memo (per arguments, per x64
mode, emptied by clear_caches), duck-typed arrays in jnp's *_like, concatenate and
iscomplexobj, `shard_alike` over a mesh of 4 devices, `jax_num_cpu_devices`'s default (-1)
and `local_devices` of an unknown process or backend."""
import json

import pytest
from fresh_process import run_json

import jxkernel
import locations  # tests/support: the repository's folders

from jax_tests_devices_cases import run       # tests/data, on pytest's pythonpath

JAX = locations.jax_answers("jax_tests_devices_reference.json")


@pytest.fixture(scope="module")
def ours():
    return json.loads(json.dumps(run(jxkernel)))


@pytest.mark.parametrize("fact", sorted(set(JAX) - {"devices", "defaults"}))
def test_as_jax(ours, fact):
    assert ours[fact] == JAX[fact]


_ON_DEVICES = r"""
import json
import jxkernel as jax
import jax_tests_devices_cases
print(json.dumps(jax_tests_devices_cases.run_devices(jax)))
"""


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("sharded arrays")
def test_shard_alike_over_a_mesh():
    # jax.experimental.shard_alike on 4 CPU devices: the layout a jit's partitioner gives both
    # values (a Shardy sharding group), eagerly too; the values unchanged; JAX's shape error
    assert run_json(_ON_DEVICES, {"JXKERNEL_CPU_DEVICES": "4"}, timeout=300) == JAX["devices"]


_DEFAULTS = r"""
import json
import jxkernel as jax
import jax_tests_devices_cases
print(json.dumps(jax_tests_devices_cases.defaults(jax)))
"""


@pytest.mark.cpu_only("CPU text")
@pytest.mark.xla_only("CPU platform")
def test_device_count_default_and_local_devices():
    # jax_num_cpu_devices is JAX's -1 until set (XLA_FLAGS's count then, else one device);
    # local_devices of a process that is not there is JAX's ValueError, of a backend no
    # platform has JAX's RuntimeError naming the backends there are
    assert run_json(_DEFAULTS, {"JXKERNEL_CPU_DEVICES": ""}) == JAX["defaults"]
