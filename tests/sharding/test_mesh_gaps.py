"""Sharding-in-types gaps against JAX 0.10.2's recorded answers on 8 simulated CPU devices:
eager operations under `set_mesh`, jits with Refs or compiler_options under it, the jaxpr text
of sharding_constraint, reshard, jit and shard_map under it, key-reuse checking of sharded
keys, and out_sharding= of lax's shape functions with the types transposes give.

A subprocess (JXKERNEL_CPU_DEVICES=8) runs tests/data/mesh_gaps_cases.py, the programs
reference/make_mesh_gaps_reference.py ran with JAX 0.10.2; per program it prints the result's
`jax.typeof`, `.sharding` repr, shard shape and value, a jaxpr's text, or the error's class and
message.
"""
import json
import re

import pytest
from doc_examples import check_docstring_examples
from fresh_process import as_the_suite_compiles, cases_code, run_json

import locations  # tests/support: the repository's folders
from numerics import ELEMENTWISE, trees_agree  # tests/support

pytestmark = pytest.mark.cpu_only("simulated CPU devices")
# (on the NumPy backend the subprocess's JXKERNEL_CPU_DEVICES=8 makes eight NumPy devices;
# the tests marked CPU platform compare texts naming XLA's CPU devices)


@pytest.fixture(scope="module")
def runs():
    ref = locations.jax_answers("mesh_gaps_reference.json")["run"]
    code = as_the_suite_compiles(cases_code("mesh_gaps_cases"))
    return run_json(code, {"JXKERNEL_CPU_DEVICES": "8"}), ref


def _sorted_sets(value):
    """A jaxpr's text with each printed frozenset's members in sorted order: JAX prints a
    shard_map's newly_manual_axes in the set's own order, which follows the process's string
    hashes (PYTHONHASHSEED), so the recorded order is one run's."""
    if not isinstance(value, str):
        return value
    return re.sub(r"frozenset\(\{([^}]*)\}\)",
                  lambda m: "frozenset({" + ", ".join(sorted(m.group(1).split(", "))) + "})",
                  value)


def _names_cpu(record) -> bool:
    """Whether a recorded answer names JAX's CPU platform: an AbstractMesh's `platform=cpu`
    or a CpuDevice (the NumPy backend's say numpy)."""
    text = json.dumps(record)
    return "platform=cpu" in text or "CpuDevice" in text


def _check(runs, prefix, naming_platform=None):
    """Every recorded answer of the programs named `prefix`...; `naming_platform` True or
    False: only those whose text names JAX's CPU platform (_names_cpu), or only the others."""
    # floats within ELEMENTWISE ulps of float32 (sin and its gradient among them: XLA's
    # approximations move a last bit per CPU), everything else exactly
    mine, ref = runs
    names = [name for name in ref if name.startswith(prefix) and (
        naming_platform is None or naming_platform == _names_cpu(ref[name]))]
    assert names, prefix
    wrong = {name: (mine.get(name), ref[name]) for name in names
             if not trees_agree(_sorted_sets(mine.get(name)), _sorted_sets(ref[name]),
                                ELEMENTWISE)}
    assert not wrong, wrong


def test_every_case_ran_on_both_sides(runs):
    mine, ref = runs
    assert mine["device_count"] == ref["device_count"] == 8
    assert set(mine) == set(ref)


def test_eager_operations_under_set_mesh_run_over_its_mesh(runs):
    # replicated over the mesh (P() over Auto axes, P(None, None) over Explicit ones), not on
    # one device: jnp operations, arrays made on the host (zeros, asarray, arange), and
    # sharded operands keep their types; out_sharding= names Explicit axes only
    _check(runs, "eager_")


def test_random_under_set_mesh_runs_over_its_mesh(runs):
    _check(runs, "random_")


def test_a_jit_with_refs_or_compiler_options_under_set_mesh_runs_over_its_mesh(runs):
    # (both stayed on one device)
    _check(runs, "jit_")


@pytest.mark.xla_only("CPU platform")       # the jaxprs print the mesh's platform, cpu
def test_jaxprs_under_set_mesh_print_as_jaxs(runs):
    # sharding_constraint's context_mesh, layout and unconstrained_dims, a bare spec's
    # AbstractMesh, jit's ctx_mesh, and shard_map's results typed over Explicit axes
    _check(runs, "jaxpr_")


def test_key_reuse_is_checked_on_the_sharded_jit_path(runs):
    # a jit given sharded keys (by their placement or by in_shardings) raised nothing; an
    # eager sampler under Explicit axes takes a resharded key, as JAX's auto_axes does, so
    # its reuse is not seen there (JAX's answer too)
    _check(runs, "key_reuse_")


def test_out_sharding_types_results_and_transposes_keep_types_as_jaxs(runs):
    # lax.reshape/broadcast_in_dim/broadcast/broadcasted_iota took out_sharding= and dropped
    # it (a reshape of a split value then raised, asking for the out_sharding= it had been
    # given); grad of a split value came back replicated (the seed, reduce_sum's and reshape's
    # transposes lost the type); zeros_like/full_like of a traced split value were untyped; a
    # jit with a constraint to a bare spec under Explicit axes raised an AttributeError (JAX:
    # the constraint only checks the type, and raises JAX's AssertionError when it differs)
    _check(runs, "typed_", naming_platform=False)


@pytest.mark.xla_only("CPU platform")       # AbstractMesh(..., platform=cpu) in the texts
def test_out_sharding_params_print_as_jaxs(runs):
    # reshape's, iota's and reduce_sum's sharding params name the AbstractMesh, as JAX's
    _check(runs, "typed_", naming_platform=True)


def test_outside_set_mesh_a_program_runs_where_jax_assigns_it(runs):
    # JAX's device assignment (core/device_assignment.py): the used inputs', given
    # shardings', constraints' inside, set_mesh's, else one device; a result typed over a
    # mesh of several Explicit axes cannot come from one. These ran (jnp.ones_like(x) in a
    # jit that drops x, vmap of grad, eager out_sharding= of a NamedSharding) or raised
    # NeedsMesh's own words; vmap's function saw its values untyped; a constraint naming
    # Explicit axes passed; a jit of a split value and a Python scalar failed in jaxlib
    _check(runs, "assign_", naming_platform=False)


def test_the_device_assignment_modules_examples_are_true():
    check_docstring_examples("jxkernel.core.device_assignment")


def test_split_values_index_as_jaxs(runs):
    # x[0] of an Array split over devices takes a gather (JAX's has_partial_slices), which
    # asks for .at[...].get(out_sharding=); traced, a slice keeps a split dimension its
    # axes still divide (JAX's _get_sharding_for_varying_out_shape), where it raised
    _check(runs, "index_", naming_platform=False)


def test_reshapes_of_split_values_are_typed_as_jaxs(runs):
    # JAX's _reshape_sharding_rule: x.reshape(16) of f32[8@x,2@y] is f32[16@(x,y)], where
    # jxkernel refused any merge or split of more than one split dimension
    _check(runs, "reshape_", naming_platform=False)


def test_scatters_of_split_values_are_typed_or_refused_as_jaxs(runs):
    # scatters had no sharding rule: jnp.bincount of split values, x.at[split index].set and
    # segment_sum ran (replicated) where JAX asks for out_sharding=; bincount did not compare
    # the types of x and weights; jnp.broadcast_to(out_sharding=) kept a value of the same
    # shape as it was (and failed on NumPy data); .at[...].add(out_sharding=) left a split
    # index typed over Explicit axes inside its auto_axes
    _check(runs, "scatter_")


_GSPMD = "GSPMDSharding({replicated}, memory_kind=device)"
_NAMED = ("NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Explicit, Explicit)), "
          "spec=P({}), memory_kind=device)")


def test_compiled_shardings_of_typed_split_and_made_values_are_jaxs(runs):
    mine, ref = runs
    for name in ("hostdata_typed_array", "hostdata_token_made", "hostdata_split_and_scalar"):
        assert mine[name] == ref[name], name


@pytest.mark.parametrize("name", ["numpy", "python_scalar", "token_through",
                                  "mixed_with_token"])
def test_host_data_and_tokens_of_a_jit_under_set_mesh_are_a_recorded_gap(runs, name):
    # a gap, recorded: JAX's Compiled.input_shardings says GSPMDSharding({replicated}) for an
    # argument with no sharding of its own where no argument is split (and a token passed
    # through keeps it as an output); jxkernel says NamedSharding(P()) over set_mesh's mesh,
    # the layout its program takes, which jit(in_shardings=) and device_put accept back (they
    # take no GSPMDSharding), and a token output's sharding names its bool[0] carrier's rank
    mine, ref = runs
    name = "hostdata_" + name
    token_out = _NAMED.format("None,") if name.endswith("with_token") else _NAMED.format("")
    assert _GSPMD in ref[name]["in"]
    assert mine[name] == {"in": ref[name]["in"].replace(_GSPMD, _NAMED.format("")),
                          "out": ref[name]["out"].replace(_GSPMD, token_out)}


def test_every_out_sharding_of_jnp_and_lax_is_jaxs(runs):
    # jnp.repeat, .at[...].get/set/add/..., array/asarray/empty/*_like/arange, bincount,
    # linalg.tensordot, percentile, lax.reduce/empty/rng_bit_generator/ragged_dot took
    # out_sharding= and dropped it, refused it, or did not take it
    _check(runs, "outsh_", naming_platform=False)


@pytest.mark.xla_only("CPU platform")       # AbstractMesh(..., platform=cpu), CpuDevice
def test_the_type_of_a_value_on_no_mesh_has_the_empty_mesh_under_set_mesh(runs):
    # it had the mesh in context (set_mesh's) where JAX's has none
    _check(runs, "typeof_")


@pytest.mark.xla_only("CPU platform")       # their subject: the mesh's platform=cpu
def test_gap_texts_naming_the_platform_are_jaxs(runs):
    for prefix in ("assign_", "outsh_", "unused_", "vmapty_", "unsplit_"):
        _check(runs, prefix, naming_platform=True)


@pytest.mark.xla_only("CPU platform")       # SingleDeviceSharding(device=CpuDevice(id=0))
def test_under_set_mesh_and_after_it_eager_operations_go_where_they_should():
    # the one-device fast paths remember a primitive's last run and a jit's last hits (a
    # static jit's by its statics): under set_mesh they must not serve them (config._eager_fast,
    # config._generation), and after it they serve them on one device again
    out = run_json(r"""
import json
import numpy as np
import jxkernel as jax
import jxkernel.numpy as jnp
x = jnp.arange(8.0)
plain, static = jax.jit(lambda x: x * 3), jax.jit(lambda x, n: x * n, static_argnums=1)
hot = lambda: [(x * 2).sharding, plain(x).sharding, static(x, 3).sharding]
before = [hot(), hot(), hot()][-1]
mesh = jax.make_mesh((4, 2), ("x", "y"))
with jax.set_mesh(mesh):
    under = [repr(s) for s in hot() + hot() + [jnp.sin(x).sharding]]
after = hot()
print(json.dumps({"before": [repr(s) for s in before], "under": under,
                  "after": [repr(s) for s in after], "value": np.asarray(x * 2).tolist()}))
""", {"JXKERNEL_CPU_DEVICES": "8"})
    assert out["before"] == out["after"] == \
        ["SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"] * 3
    named = "NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Explicit, Explicit)), spec={}, " \
        "memory_kind=device)"
    # (as JAX 0.10.2's: `jnp.sin` of a value on no mesh is typed over the empty mesh, so its
    # eager result is laid out P(), where `x * 2` takes set_mesh's mesh)
    assert out["under"] == [named.format("P(None,)")] * 6 + [named.format("P()")]
    assert out["value"] == [2.0 * i for i in range(8)]


def test_a_jit_reading_none_of_its_split_arguments_runs_on_one_device(runs):
    # JAX's jit drops unused arguments before it assigns devices (keep_unused=True keeps
    # them): jit(lambda x, y: y * 2)(x_split, y) ran over x's mesh
    _check(runs, "unused_", naming_platform=False)


def test_vmap_types_the_batch_dimension_it_adds_by_its_inputs_mesh_axes(runs):
    # JAX's explicit_mesh_axis: an unbatched result broadcast by vmap over a value split
    # over x is f32[8@x,2@y], where the batch dimension was untyped (f32[8,2@y])
    _check(runs, "vmapty_", naming_platform=False)


def test_reshape_out_sharding_of_an_untyped_operand_outside_set_mesh_is_untyped(runs):
    # JAX's call_sharding_rule skips reshape's rule with no Explicit axis in sight: the
    # result is untyped on one device, where the device-assignment error was raised (each
    # answer names its CPU device: here their types, shard shapes and values, on any backend;
    # the whole answers in test_gap_texts_naming_the_platform_are_jaxs)
    mine, ref = runs
    names = [name for name in ref if name.startswith("unsplit_")]
    assert names
    fields = ("typeof", "shard_shape", "value")
    wrong = {name: (mine.get(name), ref[name]) for name in names
             if [mine.get(name, {}).get(f) for f in fields] != [ref[name][f] for f in fields]}
    assert not wrong, wrong


def test_a_jits_ref_over_a_mesh_keeps_its_array_split_as_jax(runs):
    # a Ref whose Array is split over a mesh, passed to a jit or closed over (a mesh of one
    # device too), came back gathered on one device (SingleDeviceSharding): the program now
    # runs over the Ref's mesh, as JAX's; so does `.lower(ref).compile()` called with the Ref
    # (it was compiled for one device and refused the split Ref)
    _check(runs, "splitref_")
