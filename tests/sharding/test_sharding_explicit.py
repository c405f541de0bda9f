"""Sharding in types on meshes with Explicit axes (jxkernel/core/sharding_types.py), against
JAX 0.10.2's recorded answers.

One subprocess (JXKERNEL_CPU_DEVICES=8) runs tests/data/explicit_sharding_cases.py, the cases
reference/make_explicit_sharding_reference.py ran with JAX, plus a few jxkernel-only facts (the
lowered module's constraints, an Auto mesh's untyped arrays), and prints one JSON object that
the tests below take apart.
"""

import numpy as np
import pytest
from fresh_process import run_against_reference
from numerics import ELEMENTWISE, assert_allclose_ulp

from jxkernel.core.avals import ShapedArray

pytestmark = pytest.mark.cpu_only("simulated CPU devices")     # the GPU tier skips this file (docs/gpu.md)
# the tests reading the module fixture's process of several CPU devices; the NumPy backend has one
SEVERAL_DEVICES = pytest.mark.xla_only("several devices")

_RUN = r"""
import json
import numpy as np
import jxkernel as jax, jxkernel.numpy as jnp
from jxkernel.sharding import AxisType, NamedSharding, PartitionSpec as P
import explicit_sharding_cases
out = explicit_sharding_cases.run(jax)
mesh = jax.make_mesh((4, 2), ("x", "y"))
a = jax.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P("x", "y")))
out["lowered"] = jax.jit(lambda a: jnp.sin(a) * 2).lower(a).as_text()
auto = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
xa = jax.device_put(np.arange(8, dtype=np.float32), NamedSharding(auto, P("x")))
out["auto_types"] = [str(jax.typeof(xa)), str(jax.typeof(xa * 2)),
                     str(jax.typeof(jax.jit(lambda v: v + 1)(xa)))]
out["auto_sharding_none"] = xa.aval.split is None     # the internal type: untyped
# jax.typeof shows JAX's type: a sharding over the AbstractMesh, naming no Auto axis
out["auto_typeof_sharding"] = repr(jax.typeof(xa).sharding)
# shard_map's in_specs left to Infer take each argument's spec from its type, under jit too
mesh4 = jax.make_mesh((4,), ("b",))
w = jax.device_put(np.ones((8, 2), np.float32), NamedSharding(mesh4, P("b")))
seen = []
def body(w):
    seen.append(w.shape)
    return jax.lax.pmean(jax.lax.all_gather(w, "b", tiled=True).sum(), "b")
inferred = jax.shard_map(body, mesh=mesh4, out_specs=P())
out["infer"] = [float(inferred(w)), float(jax.jit(inferred)(w)), [list(s) for s in seen]]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def runs():
    return run_against_reference(_RUN, "explicit_sharding_reference.json")


@SEVERAL_DEVICES
def test_types_of_each_operation_are_jaxs(runs):
    mine, ref = runs
    assert mine["axis_types"] == ref["axis_types"] == ["AxisType.Explicit"] * 2
    # x[2:6] along a split axis: JAX gathers (and says so), jxkernel slices; both refuse
    assert mine["types"].pop("slice_split")[0] == ref["types"].pop("slice_split")[0] == \
        "ShardingTypeError"
    assert mine["types"] == ref["types"]
    types = mine["types"]
    assert (types["x"], types["a"], types["z"]) == (
        "float32[8@x]", "float32[8@x,4@y]", "float32[8@(x,y)]")
    assert types["mul_scalar"] == types["sin"] == types["add_replicated"] == "float32[8@x]"
    assert (types["sum"], types["sum_axis0"], types["argmax_axis1"]) == (
        "float32[]", "float32[4@y]", "int32[8@x]")
    assert types["transpose"] == "float32[4@y,8@x]"
    assert types["dot_out_sharding"] == "float32[8@x,2]"
    assert types["reshard"] == "float32[8@y,4@x]"
    assert types["zeros_out_sharding"] == "float32[8@x,4]"
    assert types["reshape_merge"] == "float32[32@x]" and types["concat_split"] == "float32[16@x,4]"
    assert types["reshape_mixed"][1].startswith("This reshape is not supported.")


@SEVERAL_DEVICES
def test_split_contracting_axes_and_mismatched_operands_raise_jaxs_errors(runs):
    mine, ref = runs
    cls, message = mine["types"]["matmul_split_contracting"]
    assert cls == "ShardingTypeError" and "specify the output sharding via the `out_sharding`" \
        in message and "lhs_contracting_spec=('y',)" in message
    assert mine["types"]["add_mismatch"][0] == "ShardingTypeError"
    assert mine["matmul_error_in_jit"] == ref["matmul_error_in_jit"]
    assert mine["matmul_error_in_jit"][0] == "ShardingTypeError"


@SEVERAL_DEVICES
def test_jit_prints_typed_jaxprs_and_returns_arrays_laid_out_as_typed(runs):
    mine, ref = runs
    assert mine["jaxpr"] == ref["jaxpr"]
    assert "k:f32[8,4@y] = reshard b" in mine["jaxpr"]
    assert mine["jit_types"] == ref["jit_types"] and mine["jit_specs"] == ref["jit_specs"]
    assert mine["jit_specs"][0] == "P('y', 'x')"
    assert mine["values"] == ref["values"]          # small integers: exact on any CPU
    assert mine["eager_specs"] == ref["eager_specs"]
    assert mine["eager_values"] == ref["eager_values"]


@SEVERAL_DEVICES
def test_grad_vmap_and_the_abstract_mesh_keep_types(runs):
    mine, ref = runs
    for key in ("grad_type", "grad_value", "vmap_type", "abstract_mesh_in_trace"):
        assert mine[key] == ref[key], key
    assert mine["grad_type"] == "float32[8@x]" and mine["vmap_type"] == "float32[8@x,4]"
    assert mine["grad_value"] == (2 * np.arange(8.0)).tolist()


@SEVERAL_DEVICES
def test_tangents_and_cotangents_of_a_split_batch_are_typed_as_jaxs(runs):
    # the shard_map page's jit(grad(loss)) of an MLP with relu: the bias's tangent broadcast
    # to the split batch (add's JVP), cotangents meeting (add_any) and select_n's zeros are
    # split as the batch, so relu's and jnp.where's select_n get cases of one sharding
    mine, ref = runs
    assert mine["gradient_types"] == ref["gradient_types"]
    types = mine["gradient_types"]
    assert types["mlp_select_n"] == [
        ["select_n", ["bool[8@x,3]", "float32[8@x,3]", "float32[8@x,3]"], ["float32[8@x,3]"]]]
    assert types["bias_tangent"] == ["float32[8@x,4]"] * 2
    assert types["add_any"][0][2] == ["float32[8@x,4]"]
    assert [t for t, _ in types["mlp_grad_jit"]] == ["float32[4,3]", "float32[3]",
                                                     "float32[3,2]", "float32[2]"]


@SEVERAL_DEVICES
def test_a_bias_of_the_results_shape_but_another_type_gets_a_gradient_of_its_type(runs):
    # JAX's _maybe_broadcast reshards a lone tangent of the result's shape to the result's
    # type; its _unbroadcast gives the cotangent the bias's type back (a reshape with
    # sharding=); both tangents meet in `add`/`sub` itself; reshard's transpose goes back
    mine, ref = runs
    for key, want in ref["resharded_tangents"].items():
        assert mine["resharded_tangents"][key] == want, key
    got = mine["resharded_tangents"]
    assert [t for t, _ in got["add/replicated/(0, 1)"]["grad"]] == [
        "float32[8@x,4]", "float32[8,4]"]
    assert [t for t, _ in got["sub/split_y/(0, 1)"]["grad_jit"]] == [
        "float32[8@x,4]", "float32[8,4@y]"]
    assert got["add/replicated/jvp"][0] == "float32[8@x,4]"
    assert "d:f32[8@x,4] = reshard c" in got["add/replicated/jvp"][1]
    assert "add c d" in got["add/replicated/jvp"][2]          # not add_any of resharded ones
    assert "i:f32[8,4] = reshard h" in got["add/replicated/1"]["jaxpr"]     # JVP's, transposed
    assert "i:f32[8,4] = reshape[" in got["add/replicated/(0, 1)"]["jaxpr"]      # add's transpose
    assert [t for t, _ in got["reshard"][1]] == ["float32[8@x,4]"]    # not reshard's P(None, 'y')


@SEVERAL_DEVICES
def test_constants_and_zeros_of_differentiation_rules_are_placed_as_jaxs(runs):
    # JAX's _one/_zero of a split value are on its mesh (`reshard 1.0:f32[]`); pow's JVP
    # spreads 1 as its exponent and broadcasts only an integer exponent of another shape; a
    # zero carry tangent is typed as its primal. Values within ELEMENTWISE ulps (exp, log,
    # tanh may differ in their last bits)
    mine, ref = runs
    got, want = dict(mine["rule_constants"]), dict(ref["rule_constants"])
    assert got.keys() == want.keys()
    retyped = got.pop("pow_int_exponent_retyped")
    assert retyped == want.pop("pow_int_exponent_retyped")
    assert retyped[0] == "ShardingTypeError"           # select_n's cases, as JAX's
    for name, (text, typ, values) in want.items():
        assert got[name][:2] == [text, typ], name
        assert_allclose_ulp(np.float32(got[name][2]), np.float32(values), ELEMENTWISE,
                            err_msg=name)
    assert "c:f32[] = reshard 1.0:f32[]" in got["tanh"][0]
    assert got["scan_carry"][0] == ["_:f32[8@x]", "b:f32[8@x]"]


@SEVERAL_DEVICES
def test_model_pieces_gradients_print_and_are_typed_as_jaxs(runs):
    # a layer norm's, a bias's, var/std's and an MLP's gradients over a split batch: the
    # cotangents summed back as JAX's _unbroadcast (no out_sharding= on that reduce_sum)
    mine, ref = runs
    for key, want in ref["model_gradients"].items():
        assert mine["model_gradients"][key] == want, key
    norm = mine["model_gradients"]["layernorm"]
    assert norm[1] == ["float32[8@x,4]", "float32[4]", "float32[4]"]
    assert "reduce_sum[axes=(0,) out_sharding=None]" in norm[0]


@SEVERAL_DEVICES
def test_broadcast_in_dim_prints_and_keeps_its_sharding_param_as_jaxs(runs):
    # JAX prints neither shape nor sharding= (the result's type says both); the param is
    # None unless an out_sharding= (or full_like of a typed value) gave one
    mine, ref = runs
    for key, want in ref["broadcast_params"].items():
        assert mine["broadcast_params"][key] == want, key
    got = mine["broadcast_params"]
    assert got["broadcast_to"][1] == ["None"]
    assert "b:f32[3,8@x] = broadcast_in_dim[broadcast_dimensions=(1,)] a" in got["broadcast_to"][0]
    assert got["lax_out_sharding_spec"][1] == [
        "NamedSharding(mesh=AbstractMesh('x': 4, 'y': 2, axis_types=(Explicit, Explicit), "
        "device_kind=cpu, num_cores=None, platform=cpu), spec=P('x', 'y'))"]
    assert got["full_like"][1][0].endswith("spec=P('x', None))")
    assert got["zeros_out_sharding"][1][0].endswith("spec=P('x',))")


@SEVERAL_DEVICES
def test_jit_without_sharded_inputs_gradients_of_replicated_values_and_scan(runs):
    mine, ref = runs
    for key in ("jit_made", "grad_of_replicated", "grad_in_jit_type", "scan_split_xs", "scan",
                "struct", "only_an_index_typed"):
        assert mine[key] == ref[key], key
    assert mine["jit_made"] == ["float32[8@x]", "P('x',)"]          # partitioned, not 1 device
    assert mine["grad_of_replicated"][0] == "float32[4,2]"           # no out_sharding needed
    assert mine["scan_split_xs"][0] == "ValueError" and mine["scan"][1] == "float32[4,8@x]"
    assert mine["struct"][0] == "float32[8@x,4]" and mine["struct"][2] == "float32[8@x]"
    # the carry named by the body's argument ('The input carry k'), as JAX names it
    cls, message = mine["scan_carry_mismatch"]
    assert cls == ref["scan_carry_mismatch"][0] == "TypeError"
    assert message == ref["scan_carry_mismatch"][1]


@SEVERAL_DEVICES
def test_auto_axes_and_explicit_axes_change_the_types_inside(runs):
    mine, ref = runs
    assert mine["axis_type_changes"] == ref["axis_type_changes"]
    changes = mine["axis_type_changes"]
    assert changes["auto"][:2] == ["float32[8@x,2]", "P('x', None)"]
    assert changes["auto"][2] == (np.arange(32.0).reshape(8, 4) @ np.arange(8.0).reshape(4, 2)
                                  ).tolist()
    assert changes["seen"][0] == ["float32[8,4]", "float32[4,2]", "(Auto, Auto)"]
    assert changes["seen"][3] == ["float32[8@x,4]", "float32[4,2]", "(Explicit, Auto)"]
    assert changes["explicit"][:2] == ["float32[8,4]", "P('x',)"]
    assert changes["seen"][-2:] == ["float32[8@x,4]", "float32[8,4@y]"]
    assert changes["auto_missing"][0] == "TypeError" and changes["explicit_no_mesh"][0] == \
        "ValueError"


@SEVERAL_DEVICES
def test_lowering_constrains_typed_results_and_auto_meshes_stay_untyped(runs):
    mine, _ = runs
    text = mine["lowered"]
    # sin, the broadcast 2 (laid out as mul's result) and mul, as JAX's module
    assert text.count("sdy.sharding_constraint") == 3
    assert '#sdy.sharding<@mesh, [{"x"}, {"y"}]>' in text
    assert mine["auto_types"] == ["float32[8]"] * 3 and mine["auto_sharding_none"]
    assert mine["auto_typeof_sharding"] == (                 # as JAX 0.10.2 prints it
        "NamedSharding(mesh=AbstractMesh('x': 4, 'y': 2, axis_types=(Auto, Auto), "
        "device_kind=cpu, num_cores=None, platform=cpu), spec=P(None,))")


def test_jax_shard_is_the_class_of_addressable_shards():
    import jxkernel as jax
    assert isinstance(jax.numpy.ones(2).addressable_shards[0], jax.Shard)


def test_use_abstract_mesh_sets_what_get_abstract_mesh_answers():
    import jxkernel as jax
    abstract = jax.sharding.AbstractMesh((4, 2), ("x", "y"))
    with jax.sharding.use_abstract_mesh(abstract):
        assert jax.sharding.get_abstract_mesh() is abstract
        assert jax.sharding.get_mesh().axis_names == ()         # as JAX: the mesh is unset
    assert jax.sharding.get_abstract_mesh().axis_names == ()
    with pytest.raises(ValueError, match="Expected mesh of type `jax.sharding.AbstractMesh`"):
        with jax.sharding.use_abstract_mesh(jax.make_mesh((1,), ("x",))):
            pass


def test_avals_without_a_sharding_compare_and_hash_as_before():
    a, b = ShapedArray((2, 3), np.float32), ShapedArray((2, 3), np.float32)
    assert a.split is None and a == b and hash(a) == hash((a.shape, a.dtype, a.weak_type))
    assert a.update(shape=(6,)).split is None and a.str_short(short_dtypes=True) == "f32[2,3]"


@SEVERAL_DEVICES
def test_shard_map_infers_in_specs_from_argument_types_under_jit(runs):
    # JAX 0.10.2 (the shard_map notebook's FSDP cell): each device sees a (2, 2) block, eager
    # and under jit; jxkernel's jit tracers had been given P() (the whole array)
    mine, _ = runs
    assert mine["infer"] == [16.0, 16.0, [[2, 2], [2, 2]]]


@SEVERAL_DEVICES
def test_untyped_results_of_given_in_shardings_are_typed_as_jaxs(runs):
    """Outside set_mesh XLA's layout types them (P('x', 'y') -> float32[8@x,2@y]); under
    set_mesh they are replicated, as JAX 0.10.2's."""
    mine, ref = runs
    assert mine["given_in_shardings"] == ref["given_in_shardings"]
    assert ref["given_in_shardings"]["outside"][0][:2] == ["P('x', 'y')", "float32[8@x,2@y]"]


@SEVERAL_DEVICES
def test_sort_refuses_operands_typed_otherwise_as_jaxs(runs):
    # JAX's sort: each operand over a mesh with Explicit axes unsplit along the sorting
    # dimension and typed as the others; sort's JVP sorts an iota typed unsplit over
    # set_mesh's mesh along, so the gradient of a sort along an unsplit axis of a split value
    # raises there (not outside set_mesh, nor under argsort or vmap, which type it alike)
    mine, ref = runs
    assert mine["sort_shardings"] == ref["sort_shardings"]
    got = mine["sort_shardings"]
    assert got["grad_unsplit_axis"][0] == "ShardingTypeError"
    assert got["grad_unsplit_axis"][1].startswith("Arguments to sort must have equal shardings")
    assert got["grad_split_axis"][1].startswith("Arguments to sort must be unsharded over")
    assert got["argsort_unsplit_axis"] == "int32[8@x,4]"
    assert (got["outside_set_mesh"]["jit"], got["outside_set_mesh"]["jvp"]) == (
        "float32[8@x,4]", "float32[8@x,4]")
    assert "g:f32[8@x,4] = broadcast_in_dim 0.0:f32[]" in got["top_k_grad_jaxpr"]
    assert got["vmap_grad_sort"] == "float32[8@x,4]"


@SEVERAL_DEVICES
def test_windowed_reductions_and_pads_batching_are_typed_as_jaxs(runs):
    # reduce_window's result typed as its operand (JAX's error where a resized split
    # dimension no longer divides), the zero reduce_window_sum's transpose and pad's batching
    # pad with on the value's mesh, pad's mask typed as the operand (select_n's cases alike)
    mine, ref = runs
    for key, want in ref["window_constants"].items():
        assert mine["window_constants"][key] == want, key
    got = mine["window_constants"]
    assert "e:f32[] = reshard 0.0:f32[]" in got["sum_grad"][0]
    assert got["pad_vmap_value"][1] == ["float32[8@x,10]"]
    assert got["split_window_dim"][1] == ["float32[4@x,4]"]
    assert got["split_window_dim_indivisible"][0] == "ShardingTypeError"
    assert got["max_jvp_tangent_typed_otherwise"][1].startswith(
        "select_and_gather_add tangents and operand shardings must match")


@SEVERAL_DEVICES
def test_vmap_of_where_over_a_split_batch_is_typed_as_jaxs(runs):
    # select_n's batching broadcasts an unbatched case split as vmap's inputs (JAX's
    # bdim_at_front with the explicit mesh axis): the cases stay typed alike
    mine, ref = runs
    assert mine["where_batching"] == ref["where_batching"]
    assert mine["where_batching"]["scalar_case"][1] == "float32[8@x,4]"
