"""jax_explain_cache_misses under set_mesh (a mesh of Explicit axes), against JAX 0.10.2's
lines for the same programs (tests/data/recompile_mesh_cases.py, recorded by
reference/make_recompile_mesh_reference.py): a type whose sharding changed (another rank of
a split array, split then replicated, another axis split) is written with its mesh's axes by
type, "f32[4@x]({Explicit: ('x',)})", as JAX writes it; a size alone changed, without them.
One subprocess of 4 CPU devices runs the cases."""
import pytest
from fresh_process import run_against_reference

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]

_RUN = r"""
import json
import jxkernel as jax
import recompile_mesh_cases
print(json.dumps(recompile_mesh_cases.run(jax, "jxkernel.compile_log")))
"""


@pytest.fixture(scope="module")
def runs():
    return run_against_reference(_RUN, "recompile_mesh_reference.json", devices=4)


def test_a_changed_type_under_a_mesh_is_written_as_jax_writes_it(runs):
    mine, jax = runs
    assert set(mine) == set(jax) - {"jax_version"}
    for case, lines in mine.items():
        assert lines == jax[case], case
