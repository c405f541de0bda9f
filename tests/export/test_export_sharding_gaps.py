"""What JAX's tests/export_test.py's sharding tests read first, against JAX 0.10.2's answers on
8 simulated CPU devices (tests/data/export_sharding_gaps_cases.py, recorded by
reference/make_export_sharding_gaps_reference.py): `NamedSharding._to_xla_hlo_sharding` (tile
dimensions, devices, replication), `AbstractMesh.abstract_device` and
`AbstractMesh(abstract_device=)`, and jax.export of a program whose only mesh is an
AbstractMesh (no platforms asked for), called on a mesh of devices, and an export for one
device called with an argument split over 8, a shard_map exported with symbolic shapes and
called on its mesh. Every value is exact (integers, texts; the
products' elements are integers below 2**24, summed in float64)."""
import pytest
from fresh_process import run_against_reference

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]

_RUN = """
import json
import numpy as np
import jxkernel
import jxkernel.numpy as jnp
import export_sharding_gaps_cases as cases
out = cases.run(jxkernel)
# jxkernel's refusal of a shard_map body that needs a symbolic size (its scalar 2 broadcast
# to the block's shape), where JAX exports it: a clean error at export, not a crash at the call
P, NamedSharding = jxkernel.sharding.PartitionSpec, jxkernel.sharding.NamedSharding
mesh = jxkernel.sharding.Mesh(np.array(jxkernel.devices()[:2]), ("x",))
f = jxkernel.jit(jxkernel.shard_map(lambda b: b * 2, mesh=mesh, in_specs=(P("x", None),),
                                    out_specs=P("x", None)))
try:
    jxkernel.export.export(f)(*jxkernel.export.symbolic_args_specs(
        (np.ones((4, 4), np.float32),), "2*b1,_"))
except NotImplementedError as e:
    out["jxkernel refused"] = str(e)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def runs():
    mine, ref = run_against_reference(_RUN, "export_sharding_gaps_reference.json")
    return mine, ref["run"]


def test_recorded_on_eight_devices(runs):
    mine, ref = runs
    assert mine["device_count"] == ref["device_count"] == 8


@pytest.mark.parametrize("prefix", ["hlo ", "abstract_", "export_", "one_device_",
                                    "mesh_names ", "gspmd ", "shard_map symbolic "])
def test_cases_match_jax(runs, prefix):
    mine, ref = runs
    cases = sorted(k for k in ref if k.startswith(prefix))
    assert cases
    assert {k: mine.get(k) for k in cases} == {k: ref[k] for k in cases}


def test_a_shard_map_body_that_needs_a_symbolic_size_is_refused_at_export(runs):
    mine, _ = runs
    assert "an operation in a shard_map body needs the value of the symbolic dimension " \
           "'b1'" in mine["jxkernel refused"]

