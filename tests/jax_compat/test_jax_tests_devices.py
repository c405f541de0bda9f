"""What JAX's device, runtime and interop test files (array_interoperability_test.py and the
others added with it, conformance/jax_tests) found, against JAX 0.10.2's answers
(tests/data/jax_tests_devices_reference.json, recorded by
reference/make_jax_tests_devices_reference.py from tests/data/jax_tests_devices_cases.py):
`__cuda_array_interface__` off a GPU is JAX's AttributeError (so `hasattr` is False), the
dtypes `jax._src.dlpack` lists, and `jax._src.util.cache`'s memo (per arguments, per x64
mode, emptied by clear_caches)."""
import json
import os

import pytest

import jxkernel
import locations  # tests/support: the repository's folders

from jax_tests_devices_cases import run       # tests/data, on pytest's pythonpath

with open(os.path.join(locations.DATA, "jax_tests_devices_reference.json")) as f:
    JAX = json.load(f)


@pytest.fixture(scope="module")
def ours():
    return json.loads(json.dumps(run(jxkernel)))


@pytest.mark.parametrize("fact", sorted(set(JAX) - {"jax_version"}))
def test_as_jax(ours, fact):
    assert ours[fact] == JAX[fact]
