"""What JAX's tests/export_test.py's sharding tests read first, against JAX 0.10.2's answers on
8 simulated CPU devices (tests/data/export_sharding_gaps_cases.py, recorded by
reference/make_export_sharding_gaps_reference.py): `NamedSharding._to_xla_hlo_sharding` (tile
dimensions, devices, replication), `AbstractMesh.abstract_device` and
`AbstractMesh(abstract_device=)`, and jax.export of a program whose only mesh is an
AbstractMesh (no platforms asked for), called on a mesh of devices, and an export for one
device called with an argument split over 8. Every value is exact (integers, texts; the
products' elements are integers below 2**24, summed in float64)."""
import pytest
from fresh_process import run_against_reference

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]

_RUN = """
import json
import jxkernel
import export_sharding_gaps_cases as cases
print(json.dumps(cases.run(jxkernel)))
"""


@pytest.fixture(scope="module")
def runs():
    mine, ref = run_against_reference(_RUN, "export_sharding_gaps_reference.json")
    return mine, ref["run"]


def test_recorded_on_eight_devices(runs):
    mine, ref = runs
    assert mine["device_count"] == ref["device_count"] == 8


@pytest.mark.parametrize("prefix", ["hlo ", "abstract_", "export_", "one_device_",
                                    "mesh_names ", "gspmd "])
def test_cases_match_jax(runs, prefix):
    mine, ref = runs
    cases = sorted(k for k in ref if k.startswith(prefix))
    assert cases
    assert {k: mine.get(k) for k in cases} == {k: ref[k] for k in cases}
