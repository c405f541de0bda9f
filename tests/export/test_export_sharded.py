"""jax.export over several devices against JAX 0.10.2's recorded answers on 8 simulated CPU
devices (tests/data/export_sharded_cases.py, recorded by
reference/make_export_sharded_reference.py): what the Exported tells of its shardings, its
module's Shardy text, calls on a mesh of the same size (eagerly, under jit and grad) and
JAX's errors for another device count.

One subprocess (JXKERNEL_CPU_DEVICES=8) runs the programs three times: as they are; with each
Exported serialized and deserialized first (the shardings and the device count kept); and
with each Exported's module replaced by the bytes JAX exported for the same program, so JAX's
own module runs under jxkernel with the shardings JAX gave it. Each run must give JAX's
answers.
"""
import pytest
from fresh_process import as_the_suite_compiles, run_json

import locations  # tests/support: the repository's folders

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("XLA text")]   # jax.export: refused on the NumPy backend

_RUN = r"""
import json
import jxkernel as jax
import export_sharded_cases as cases
import locations

modules = locations.jax_answers("export_sharded_reference.json")["run"]["modules"]
jax_modules = []

def round_trip(exp, name, i):
    return jax.export.deserialize(exp.serialize(vjp_order=1))

def jax_module(exp, name, i):
    loaded = cases.with_module(exp, modules[name][i])
    # JAX's bytes, not ours (a sharded one's mesh has JAX's attribute dict, as ours now do)
    jax_modules.append([loaded.mlir_module_serialized != exp.mlir_module_serialized,
                        "sdy.mesh" in loaded.mlir_module(),
                        "stablehlo.mesh" in loaded.mlir_module()])
    return loaded

print(json.dumps({"plain": cases.run(jax), "round_trip": cases.run(jax, round_trip),
                  "jax_modules": cases.run(jax, jax_module), "loaded_jax_modules": jax_modules}))
"""


@pytest.fixture(scope="module")
def runs():
    ref = locations.jax_answers("export_sharded_reference.json")["run"]
    return run_json(as_the_suite_compiles(_RUN), {"JXKERNEL_CPU_DEVICES": "8"}, timeout=600), ref


def _check(mine, ref, program) -> None:
    # small integers in float32 or int32, texts, reprs: all exact
    wrong = {k: (mine[program].get(k), v) for k, v in ref[program].items()
             if mine[program].get(k) != v}
    assert not wrong, wrong


PROGRAMS = ["sharded_docstring", "sharded_two_axes", "sharded_unspecified", "sharded_argument",
            "sharded_explicit", "sharded_shard_map", "sharded_device_count", "sharded_grad",
            "sharded_variants", "sharded_refused", "sharded_single_device_jit",
            "sharded_single_device", "sharded_lowered_types"]


def test_every_program_ran_on_eight_devices_on_both_sides(runs):
    mine, ref = runs
    assert ref["device_count"] == mine["plain"]["device_count"] == 8
    assert sorted(PROGRAMS) == sorted(k for k in ref if k.startswith("sharded_"))
    assert set(mine["plain"]) == set(ref)


@pytest.mark.parametrize("program", PROGRAMS)
def test_exported_matches_jax(runs, program):
    mine, ref = runs
    _check(mine["plain"], ref, program)


@pytest.mark.parametrize("program", PROGRAMS)
def test_deserialized_keeps_the_shardings_and_gives_jaxs_answers(runs, program):
    mine, ref = runs
    _check(mine["round_trip"], ref, program)


@pytest.mark.parametrize("program", PROGRAMS)
def test_jaxs_exported_module_runs_with_jaxs_shardings(runs, program):
    mine, ref = runs
    loaded = mine["loaded_jax_modules"]
    assert loaded and all(differs and (jaxs == sharded) for differs, sharded, jaxs in loaded)
    assert sum(sharded for _, sharded, _ in loaded) >= 11
    _check(mine["jax_modules"], ref, program)


def test_module_texts_say_what_jax_writes(runs):
    """Spelled out: a sharded module says its partitions and Shardy mesh, the arguments their
    sdy.sharding (Shardy's dialect, not `mhlo.sharding` strings); a call constrains its
    argument to the export's sharding."""
    mine = runs[0]["plain"]
    docstring = mine["sharded_docstring"]["module"]
    assert "mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32" in docstring["module"]
    assert docstring["meshes"] == ['sdy.mesh @mesh = <["a"=8]>']
    assert '{sdy.sharding = #sdy.sharding<@mesh, [{"a"}]>}' in docstring["main"]
    assert "mhlo.sharding" not in docstring["main"]
    assert mine["sharded_docstring"]["jit_call_text"]["constraints"] == [
        '%0 = sdy.sharding_constraint %arg0 <@mesh, [{"a"}]> : tensor<8xi32>']
    assert mine["sharded_device_count"]["on_four_devices"] == [
        "ValueError", "Function <lambda> was exported for 8 devices and is called in a context "
                      "with 4 devices, which is not allowed."]
