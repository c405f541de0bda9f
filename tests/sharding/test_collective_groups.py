"""axis_index_groups in shard_map bodies and under vmap on 8 simulated CPU devices, against
JAX's recorded answers (tests/data/collective_groups_cases.py,
reference/make_collective_groups_reference.py): psum and pmean in a check_vma=True body refuse
groups as JAX's do, every other case runs group by group.
"""
import pytest
from fresh_process import cases_code, run_against_reference

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]


@pytest.fixture(scope="module")
def runs():
    return run_against_reference(cases_code("collective_groups_cases"),
                                 "collective_groups_reference.json")


def test_psum_with_groups_in_a_checked_body_raises_jaxs_error(runs):
    mine, jax_ = runs
    for key in ("psum/check_vma", "pmean/check_vma"):
        assert mine[key] == jax_[key] == ["NotImplementedError", ""]


@pytest.mark.parametrize("key", ["psum/unchecked", "pmean/unchecked", "pmax/check_vma",
                                 "pmax/unchecked", "psum_scatter/check_vma",
                                 "psum_scatter/unchecked", "vmap/psum"])
def test_other_grouped_collectives_as_jax(runs, key):
    mine, jax_ = runs
    assert mine[key] == jax_[key]
