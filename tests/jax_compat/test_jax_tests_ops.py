"""The private names JAX's newer-operation test files import (custom_partitioning's sharding
rules as MLIR attributes, cuDNN's version check), against JAX 0.10.2's recorded answers
(reference/make_jax_tests_ops_reference.py on tests/data/jax_tests_ops_cases.py)."""

import pytest

import jxkernel
import jax_tests_ops_cases as cases  # tests/data
import locations  # tests/support

RECORD = locations.jax_answers("jax_tests_ops_reference.json")


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


@pytest.mark.parametrize("name, args, kwargs", [
    ("psum", (), {}),
    ("all_gather", (), {"tiled": True}),
    ("psum_scatter", (), {"scatter_dimension": 0, "tiled": True}),
    ("all_to_all", (0, 0), {"tiled": True}),
    ("ppermute", ([(0, 1), (1, 2), (2, 0)],), {}),
    ("pbroadcast", (1,), {}),
])
def test_async_start_done_gives_the_synchronous_collective(name, args, kwargs):
    # async_collectives_test's check: X_start(...).done() == X(...), here under vmap's axis
    from jxkernel._jax._src.lax import parallel
    xs = jxkernel.numpy.arange(18.0).reshape(3, 6)
    sync = jxkernel.vmap(lambda x: getattr(parallel, name)(x, "i", *args, **kwargs),
                         axis_name="i")(xs)
    started = jxkernel.vmap(
        lambda x: getattr(parallel, name + "_start")(x, "i", *args, **kwargs).done(),
        axis_name="i")(xs)
    assert started.shape == sync.shape and (started == sync).all()


def test_all_gather_takes_jaxs_to(got):
    assert got["all_gather to"] == RECORD["all_gather to"]


def test_all_gather_to_reduced_under_vmap_is_jaxs_not_implemented_error():
    # JAX 0.10.2's all_gather_reduced has no batching: its rule raises this (checked in its
    # venv); in shard_map bodies it runs (tests/data/unreduced_cases.py's recorded cases)
    xs = jxkernel.numpy.arange(3.0)
    with pytest.raises(NotImplementedError, match="Please file an issue at https://github.com/jax-ml/jax/issues"):
        jxkernel.vmap(lambda x: jxkernel.lax.all_gather(x, "i", to="reduced"), axis_name="i")(xs)
