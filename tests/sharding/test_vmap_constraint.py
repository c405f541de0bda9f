"""vmap of a sharding constraint on 8 simulated CPU devices, against JAX's recorded answers
(tests/data/vmap_constraint_cases.py, reference/make_vmap_constraint_reference.py): without
spmd_axis_name the batch dimension is left open (`P(UNCONSTRAINED, 'y')`, `{?}`); a batch the
spmd axis does not divide traces and compiles, and raises IndivisibleError only eagerly.
"""
import pytest
from fresh_process import cases_code, run_against_reference

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]


@pytest.fixture(scope="module")
def runs():
    return run_against_reference(cases_code("vmap_constraint_cases"),
                                 "vmap_constraint_reference.json")


@pytest.mark.parametrize("key", ["free/jaxpr_spec", "free/unconstrained_dims", "free/lowered",
                                 "free/main", "free/spec", "free/value", "free/jit_inside"])
def test_vmap_leaves_the_batch_dimension_open_as_jax(runs, key):
    mine, jax_ = runs
    assert mine[key] == jax_[key]


@pytest.mark.parametrize("key", ["uneven/jaxpr_spec", "uneven/spec", "uneven/value",
                                 "uneven/eager", "uneven/jit_direct", "uneven/eager_direct"])
def test_a_batch_the_spmd_axis_does_not_divide_compiles_as_jax(runs, key):
    mine, jax_ = runs
    assert mine[key] == jax_[key]
