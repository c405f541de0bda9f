"""The private names JAX's newer-operation test files import (custom_partitioning's sharding
rules as MLIR attributes, cuDNN's version check), against JAX 0.10.2's recorded answers
(reference/make_jax_tests_ops_reference.py on tests/data/jax_tests_ops_cases.py)."""
import json
import os

import pytest

import jxkernel
import jax_tests_ops_cases as cases  # tests/data
import locations  # tests/support

with open(os.path.join(locations.DATA, "jax_tests_ops_reference.json")) as f:
    RECORD = json.load(f)


@pytest.fixture(scope="module")
def got():
    return cases.run(jxkernel)


@pytest.mark.parametrize("case", sorted(RECORD["sharding rules"]))
def test_sharding_rule_as_mlir_attribute(got, case):
    assert got["sharding rules"][case] == RECORD["sharding rules"][case]


def test_check_cudnn_version_without_cuda(got):
    from jxkernel._jax._src.lib import cuda_versions
    if cuda_versions is not None:
        pytest.skip("a CUDA plugin is installed: check_cudnn_version returns its version")
    assert got["cudnn on the CPU"] == RECORD["cudnn on the CPU"]
