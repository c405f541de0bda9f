"""What `.sharding` results report, against JAX 0.10.2's recorded answers, on one CPU device
and on 8 simulated ones.

A subprocess per device count (JXKERNEL_CPU_DEVICES=1, =8) runs
tests/data/result_sharding_cases.py, the programs reference/make_result_sharding_reference.py
ran with JAX 0.10.2: device_put to a NamedSharding, jit with in/out shardings, jit of sharded
arguments (the propagated sharding), eager jnp operations, with_sharding_constraint, reshard,
shard_map, pmap and jit(pmap), grad and vmap of sharded values. Per result it prints the type,
its sharding's type, repr and spec, `jax.typeof`, `is_fully_replicated`, the shards (device,
index, shape) and the value.

On one device JAX names a result by the first argument's NamedSharding (pxla's
maybe_recover_user_shardings: every layout is alike there), so `x * 2` of an `x` laid out as
P('x') over a one-device mesh reports P('x') too, never SingleDeviceSharding.
"""
import pytest
from fresh_process import as_the_suite_compiles, cases_code, run_json

import locations  # tests/support: the repository's folders
from numerics import ELEMENTWISE, trees_agree  # tests/support

pytestmark = pytest.mark.cpu_only("simulated CPU devices")
# (on the NumPy backend the subprocess's JXKERNEL_CPU_DEVICES makes NumPy devices)

# (device count, case) pairs where jxkernel is known to answer otherwise than JAX, with why.
# (none now: under `with set_mesh(mesh)` eager operations run replicated over the mesh, as
# JAX's do; config._eager_fast keeps the one-device fast paths off there, at no cost to them)
_KNOWN: dict = {}


def _reference() -> dict:
    import json
    import os
    return locations.jax_answers("result_sharding_reference.json")


@pytest.fixture(scope="module", params=["1", "8"])
def runs(request):
    n = request.param
    return n, run_json(as_the_suite_compiles(cases_code("result_sharding_cases")),
                       {"JXKERNEL_CPU_DEVICES": n}), _reference()[n]


def test_every_case_ran_on_both_sides(runs):
    n, mine, ref = runs
    assert mine["device_count"] == ref["device_count"] == int(n)
    assert set(mine) == set(ref)


# a result's sharding texts name CpuDevice, and some layouts XLA's partitioner chooses are
# not the NumPy backend's guess (xla/numpy_sharded.output_shardings)
@pytest.mark.xla_only("sharded arrays")
def test_results_report_jaxs_shardings_types_and_shards(runs):
    # floats within ELEMENTWISE ulps of float32 (eager_sin's: XLA's sin moves a last bit per
    # CPU), everything else exactly
    n, mine, ref = runs
    wrong = [name for name, want in ref.items()
             if (n, name) not in _KNOWN and not trees_agree(mine[name], want, ELEMENTWISE)]
    assert not wrong, {name: [(k, mine[name].get(k), v) for k, v in ref[name].items()
                            if mine[name].get(k) != v] if "type" in ref[name] else
                       (mine[name], ref[name]) for name in wrong}


def test_results_over_a_mesh_are_named_shardings(runs):
    # the reason for this file: on one device too, jit(out_shardings=), device_put, eager
    # operations and pmap report NamedSharding, as JAX's do (on one device they reported the
    # device's SingleDeviceSharding); a plain array keeps its device's
    n, mine, _ = runs
    for name in ("jit_out_shardings", "eager_mul", "jit_of_sharded", "pmap", "shard_map_rows"):
        assert mine[name]["sharding_type"] == "NamedSharding", name
    assert mine["jit_of_sharded"]["spec"] == "P('x',)"
    assert mine["plain"]["sharding_type"] == "SingleDeviceSharding"


def test_jit_of_pmap_names_pmaps_mesh(runs):
    # arguments on another mesh of the same devices: the result is named over pmap's mesh,
    # the one its type carries (out of the shard_map), not the argument's
    n, mine, ref = runs
    assert "_internal_pmap_axis_name" in mine["jit_pmap_other_mesh"]["sharding"]
    assert mine["jit_pmap_other_mesh"] == ref["jit_pmap_other_mesh"]


def test_the_known_differences_are_still_differences(runs):
    n, mine, ref = runs
    for (count, name) in _KNOWN:
        if count == n:
            assert mine[name] != ref[name], (n, name)
