"""jit and pjit given bare PartitionSpecs under `with mesh:` and set_mesh on 8 simulated CPU
devices, against JAX's recorded answers (tests/data/jit_context_mesh_cases.py,
reference/make_jit_context_mesh_reference.py): jit reads set_mesh's mesh only (a `with mesh:`
block alone raises JAX's RuntimeError), pjit the `with mesh:` block's.
"""
import json

import pytest
from fresh_process import cases_code, run_against_reference
import locations  # tests/support

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]

_KEYS = sorted(locations.jax_answers("jit_context_mesh_reference.json"))


@pytest.fixture(scope="module")
def runs():
    return run_against_reference(cases_code("jit_context_mesh_cases"),
                                 "jit_context_mesh_reference.json")


@pytest.mark.parametrize("key", _KEYS)
def test_bare_partition_specs_find_the_mesh_jax_finds(runs, key):
    mine, jax_ = runs
    assert mine[key] == jax_[key]


def test_jit_under_with_mesh_alone_raises(runs):
    mine, _ = runs
    assert mine["jit/in/with_mesh"][0] == "RuntimeError"
    assert mine["pjit/in/with_mesh"] == [{"x": 2, "y": 4}, "P('x',)"]
