"""vmap's spmd_axis_name on 8 simulated CPU devices, against JAX's recorded answers: the batch
dimension split over the named mesh axes by a sharding constraint, a jit with shardings and a
shard_map inside (tests/data/vmap_spmd_cases.py, reference/make_vmap_spmd_reference.py).
"""
import pytest
from fresh_process import cases_code, run_against_reference

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]


@pytest.fixture(scope="module")
def runs():
    return run_against_reference(cases_code("vmap_spmd_cases"), "vmap_spmd_reference.json")


@pytest.mark.parametrize("key", ["wsc/spec", "wsc/value", "wsc/lowered", "wsc/jaxpr_spec",
                                 "wsc_tuple/spec", "wsc_tuple/lowered", "wsc/named_in_spec"])
def test_sharding_constraint_splits_the_batch_over_spmd_axis_name_as_jax(runs, key):
    mine, jax_ = runs
    assert mine[key] == jax_[key]


def test_jit_with_shardings_under_vmap_splits_the_batch_as_jax(runs):
    mine, jax_ = runs
    assert mine["jit/spec"] == jax_["jit/spec"] == "P('x', 'y')"


@pytest.mark.parametrize("key", ["shard_map/in_specs", "shard_map/out_specs",
                                 "shard_map/body_in", "shard_map/spec", "shard_map/value",
                                 "shard_map/named_in_spec"])
def test_shard_map_under_vmap_takes_spmd_axis_name_into_its_specs_as_jax(runs, key):
    mine, jax_ = runs
    assert mine[key] == jax_[key]


@pytest.mark.parametrize("key", ["explicit/x", "explicit/y"])
def test_spmd_axis_name_and_explicit_mesh_axes_as_jax(runs, key):
    mine, jax_ = runs
    assert mine[key] == jax_[key]
