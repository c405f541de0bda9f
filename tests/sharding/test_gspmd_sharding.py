"""GSPMDSharding given to device_put and jit (its HloSharding's tiling taken as a mesh's), on
8 simulated CPU devices: the mesh a tiling becomes, and what jxkernel refuses. JAX's answers
for the shardings it takes are recorded in tests/export/test_export_sharding_gaps.py
(tests/data/export_sharding_gaps_cases.py)."""
import pytest
from fresh_process import as_the_suite_compiles, run_json

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]

_RUN = """
import json
import numpy as np
import jxkernel as jax
from jxkernel.xla.client import xc
from jxkernel.xla.sharding import GSPMDSharding, as_mesh_sharding
devices = jax.devices()[:4]
out = {}
hlo = xc.HloSharding.from_string("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}")
named = as_mesh_sharding(GSPMDSharding(devices, hlo))
out["mesh"] = [list(named.mesh.axis_names), [[d.id for d in row] for row in named.mesh.devices]]
out["spec"] = repr(named.spec)
maximal = GSPMDSharding(devices, xc.HloSharding.from_string("{maximal device=1}"))
for name, call in [("put", lambda: jax.device_put(np.arange(4.0), maximal)),
                   ("jit", lambda: jax.jit(lambda x: x, in_shardings=maximal)(np.arange(4.0)))]:
    try:
        call()
        out[name] = None
    except NotImplementedError as e:
        out[name] = str(e)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def run():
    return run_json(as_the_suite_compiles(_RUN), {"JXKERNEL_CPU_DEVICES": "8"})


def test_a_tiling_becomes_a_mesh_of_its_devices_in_tile_order(run):
    # (the replicated last tile dimension is a mesh axis the spec does not name)
    assert run["mesh"] == [["_axis_0", "_axis_1"], [[0, 2], [1, 3]]]
    assert run["spec"] == "P('_axis_0', None)"


@pytest.mark.parametrize("where", ["put", "jit"])
def test_a_maximal_sharding_is_refused_by_name_with_what_to_use(run, where):
    # (JAX 0.10.2 takes it: an array on one device; jxkernel asks for a mesh's sharding)
    assert run[where].startswith("GSPMDSharding({maximal device=1}, memory_kind=device): ")
    assert run[where].endswith("use a NamedSharding over a Mesh")


@pytest.mark.parametrize("memory_kind", [None, "device", "pinned_host"])
def test_a_replicated_gspmd_sharding_pickles(memory_kind):
    # JAX's pickle_test: GSPMDSharding.get_replicated(devices) pickles (its HloSharding as
    # the OpSharding proto) and comes back equal; the devices as jaxlib pickles them
    import pickle
    from jxkernel.xla.sharding import GSPMDSharding
    import jxkernel
    devices = tuple(jxkernel.devices())
    s = GSPMDSharding.get_replicated(devices, memory_kind=memory_kind)
    assert s.is_fully_replicated and s._device_assignment == devices
    hlo, proto, kind = s.__reduce__()[1]
    assert hlo == devices and kind == s.memory_kind
    again = s.__reduce__()[0](hlo, proto, kind)
    assert again == s and hash(again) == hash(s)
    try:
        pickled = pickle.dumps(s)
    except TypeError:
        pytest.skip("jaxlib's Device does not pickle in this process")
    assert pickle.loads(pickled) == s
