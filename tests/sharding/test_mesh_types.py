"""Sharding-in-types gaps against JAX 0.10.2's recorded answers on 8 simulated CPU devices: a
jit's results under set_mesh typed over its mesh or laid out by XLA, vmap keeping the vmapped
mesh axes in sharding params and loops, and meshes of Explicit and Auto axes.

A subprocess (JXKERNEL_CPU_DEVICES=8) runs tests/data/mesh_types_cases.py, the programs
reference/make_mesh_types_reference.py ran with JAX 0.10.2; per program it prints its results'
`jax.typeof`, spec and value, or the error's class and message.
"""

import pytest
from fresh_process import as_the_suite_compiles, cases_code, run_json

import locations  # tests/support: the repository's folders

pytestmark = pytest.mark.cpu_only("simulated CPU devices")

# answers only XLA gives: a layout its propagation chooses where the NumPy backend guesses
# another (a reshape of a split argument), and a message naming the CPU platform
_LAYOUT = {"ctx_given_unary"}
_CPU_TEXT = {"mixed_constraint_explicit_axis"}


@pytest.fixture(scope="module")
def runs():
    ref = locations.jax_answers("mesh_types_reference.json")["run"]
    code = as_the_suite_compiles(cases_code("mesh_types_cases"))
    return run_json(code, {"JXKERNEL_CPU_DEVICES": "8"}), ref


def _check(runs, names):
    # values are small integers in float32: exact on both sides
    mine, ref = runs
    assert names
    wrong = {name: (mine.get(name), ref[name]) for name in names if mine.get(name) != ref[name]}
    assert not wrong, wrong


def _named(runs, prefix):
    return [n for n in runs[1] if n.startswith(prefix) and n not in _LAYOUT | _CPU_TEXT]


def test_every_case_ran_on_both_sides(runs):
    mine, ref = runs
    assert mine["device_count"] == ref["device_count"] == 8
    assert set(mine) == set(ref)


def test_a_jits_results_under_set_mesh_are_typed_or_laid_out_as_jaxs(runs):
    # JAX types a result over set_mesh's mesh only where its rule takes that mesh (x * 2,
    # jnp.zeros, a broadcast of an untyped value): replicated; a reduction or transpose of an
    # argument given in_shardings keeps XLA's layout, and its type says so (f32[2@y]), where
    # jxkernel replicated every untyped result
    _check(runs, _named(runs, "ctx_"))


def test_vmap_keeps_the_vmapped_mesh_axes(runs):
    # vmap of jit(reshard / out_sharding=) dropped the batch dimension's x (f32[8,2@y]);
    # jnp.dot/einsum's out_sharding= typed the batch dimension as the given spec's first;
    # scan/while of a typed carry raised a carry type mismatch
    _check(runs, _named(runs, "vmap_"))


def test_meshes_of_explicit_and_auto_axes_are_typed_and_laid_out_as_jaxs(runs):
    # typed results kept their Explicit axes only (P('x', None)): JAX's constraints leave the
    # Auto axes to XLA (P('x', 'y')); a constraint over Auto axes dropped the value's type;
    # dot's out_sharding= naming an Auto axis failed in the layout, not with JAX's ValueError
    _check(runs, _named(runs, "mixed_"))


def test_cumulative_reductions_without_an_axis_refuse_split_values_as_jaxs(runs):
    # jnp.cumsum(x) of a split x flattened it (or under vmap raised another error)
    _check(runs, _named(runs, "cumulative_"))


def test_a_one_device_array_under_set_mesh_is_typed_replicated_as_jaxs(runs):
    # mixed with split values it is typed over the context mesh: the same results, and JAX's
    # refusals (a scan carry coming back split; dynamic_update_slice into a split operand,
    # whose message printed no mesh axis types)
    _check(runs, _named(runs, "onedevice_") + ["mixed_update_slice"])


def test_reshard_takes_a_prefix_of_its_arguments_and_refuses_others_as_jax(runs):
    # a tree of shardings that is no prefix of the arguments' raised tree_util's error, naming
    # jxkernel's internals ("broadcast_prefix prefix_tree"), and a None raised the TypeError of
    # a sharding of another type: 5 of 15 were JAX's
    _check(runs, _named(runs, "reshardargs_"))


@pytest.mark.xla_only("sharded arrays")
def test_layouts_xlas_propagation_chooses_are_jaxs(runs):
    _check(runs, sorted(_LAYOUT))


@pytest.mark.xla_only("CPU platform")
def test_errors_naming_the_cpu_platform_are_jaxs(runs):
    _check(runs, sorted(_CPU_TEXT))
