"""jax.sharding on 8 simulated CPU devices, against NumPy and JAX's recorded answers.

One subprocess (JXKERNEL_CPU_DEVICES=8) runs tests/data/sharding_cases.py, the same cases
reference/make_sharding_reference.py ran with JAX 0.10.2, plus a few jxkernel-only probes of
the partitioner; it prints one JSON object that the tests below take apart. The value objects
(PartitionSpec, AxisType, meshes of one device) are checked in this process.
"""
import contextlib
import io
import json
import pickle
import warnings

import numpy as np
import pytest
from numerics import assert_allclose_ulp
from backend_tier import devices_named_here
from fresh_process import as_the_suite_compiles, run_code

import jxkernel as jax
from jxkernel.core.mesh import DuplicateSpecError, IndivisibleError
from jxkernel.sharding import AbstractMesh, AxisType, Mesh, NamedSharding
from jxkernel.sharding import PartitionSpec as P
import locations  # tests/support: the repository's folders

pytestmark = pytest.mark.cpu_only("simulated CPU devices")     # the GPU tier skips this file (docs/gpu.md)
# the tests reading the module fixture's process: on the NumPy backend (eight NumPy devices) its
# probes of XLA's partitioner and executables (`.loaded`, Shardy's flag) cannot run
SEVERAL_DEVICES = pytest.mark.xla_only("several devices")


_PROBES = r"""
import json, os, sys
import numpy as np
import jxkernel as jax, jxkernel.numpy as jnp
import sharding_cases
from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
from jxkernel.xla import sharded

out = {"cases": sharding_cases.run(jax)}
mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
x = jax.device_put(np.arange(16, dtype=np.float32).reshape(8, 2), NamedSharding(mesh, P("x")))
f = jax.jit(lambda a: a + 1)
f(x); f(x)
# an eager operation's operand on one device laid out as a split one of its shape (its block
# per device), a scalar replicated
ones = jnp.ones((8, 2), np.float32)
out["operand_layouts"] = [repr(s.spec) for s in sharded._operand_shardings([x, ones, 2.0])]
out["operand_sum"] = [repr((x + ones).sharding.spec), np.asarray(x + ones).tolist()]
(key, entry), = [(k, e) for k, e in f._cache.items() if k[0] == "sharded"]
loaded = entry.exe.loaded
out["text"] = entry.text
out["hits"] = entry.hits
out["parameter_shardings"] = [str(sharded.xc.HloSharding.from_proto(s))
                              for s in loaded.get_parameter_shardings()]
f(jax.device_put(np.zeros((8, 2), np.float32), NamedSharding(mesh, P(None, "y"))))
out["entries"] = sum(k[0] == "sharded" for k in f._cache)
g = jax.jit(lambda a: a * 2, out_shardings=NamedSharding(mesh, P(None, "y")))
out["out_given"] = repr(g(x).sharding.spec)
s = NamedSharding(mesh, P("x"))
grad = jax.jit(jax.grad(lambda a: jnp.sum(jax.lax.with_sharding_constraint(jnp.sin(a), s))))
out["grad"] = [repr(grad(x).sharding.spec), np.asarray(grad(x)).tolist()]
batched = jax.jit(jax.vmap(lambda a: jax.lax.with_sharding_constraint(a * 2, s)),
                  in_shardings=NamedSharding(mesh, P(None, "x")))(np.ones((3, 8), np.float32))
out["vmap"] = [repr(batched.sharding.spec), np.asarray(batched).tolist()]
out["kept"] = jax.device_put(x) is x
moved = jax.device_put(x, jax.devices()[3])
out["gathered"] = [moved.device.id, np.asarray(moved).tolist()]
with jax.set_mesh(mesh):
    y = jax.jit(lambda a: a - 1, in_shardings=P("x"), out_shardings=P())(np.arange(8.0))
out["set_mesh"] = [repr(y.sharding), np.asarray(y).tolist()]
moved = jax.device_put(x, NamedSharding(mesh, P(None, "y")))     # on the devices, by XLA
out["relayout"] = [repr(moved.sharding.spec), np.asarray(moved).tolist(),
                   [k[0] for k in sharded._eager if k[0] == "relayout"]]
v8 = jax.device_put(np.arange(8.0, dtype=np.float32), s)
w8 = jax.device_put(np.arange(8.0, dtype=np.float32) * 10, NamedSharding(mesh, P("y")))
h = jax.jit(lambda a, b: a + b)
h(v8, v8)
out["fast"] = {"hit": np.asarray(h(v8, v8)).tolist(),
               "hits": [e.hits for e in h._fast.values()],   # (a later layout replaces it)
               "other_layout": np.asarray(h(v8, w8)).tolist(),        # its 2nd argument differs
               "one_device": np.asarray(h(v8, jnp.ones(8))).tolist()}
guarded = jax.jit(lambda a: a * 2, in_shardings=s)
with jax.transfer_guard("disallow"):
    placed = jax.device_put(np.arange(8.0), s)                  # explicit: allowed
    out["guard"] = [np.asarray(guarded(placed)).tolist()]
    try:
        guarded(np.arange(8.0))                                  # implicit: refused
    except Exception as e:
        out["guard"].append(type(e).__name__)
lowered = jax.jit(lambda a, b: (a * b, a.sum()), in_shardings=(s, None)).lower(x[:, 0], 2.0)
compiled = lowered.compile()
called = compiled(x[:, 1], 3.0)
out["stages"] = {"text": lowered.as_text(),
                 "in": [repr(t.spec) for t in jax.tree.leaves(compiled.input_shardings)],
                 "out": [repr(t.spec) for t in compiled.output_shardings],
                 "called": [repr(called[0].sharding.spec), np.asarray(called[0]).tolist(),
                            float(called[1])],
                 "all_reduce": "all-reduce" in compiled.as_text(),
                 "out_info": [repr(o.sharding.spec) for o in compiled.out_info]}
abstract = jax.jit(lambda a: a * 2).lower(jax.ShapeDtypeStruct((8,), np.float32, sharding=s))
out["stages"]["struct"] = [repr(abstract.compile().input_shardings[0][0].spec),
                           '{sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}' in abstract.as_text()]
out["abstract"] = [isinstance(x.sharding, jax.sharding.Sharding),
                   isinstance(jnp.ones(2).sharding, jax.sharding.Sharding),
                   isinstance(P("x"), jax.sharding.Sharding)]

# The docstring examples of the sharding modules (they need 8 devices).
from doc_examples import check_docstring_examples
out["doc_examples"] = {}
mesh4 = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))    # sharding_view's
# core/mesh, core/sharding_types and lax/sharding's examples build their own meshes: they run
# as `pytest --doctest-modules FILE` runs them (with JXKERNEL_CPU_DEVICES=8), so cannot lean
# on names given here
STANDALONE = ("jxkernel.core.mesh", "jxkernel.core.sharding_types", "jxkernel.lax.sharding")
for module in STANDALONE + ("jxkernel.xla.sharding", "jxkernel.xla.sharded",
                            "jxkernel.xla.put", "jxkernel.xla.transfers",
                            "jxkernel.sharding", "jxkernel.sharding_view", "jxkernel.api.sharding",
                            "jxkernel.api.pmap", "jxkernel.transforms.jit.pinned",
                            "jxkernel.transforms.jit.sharded", "jxkernel.views.sharding_view",
                            "jxkernel.export._sharded"):
    try:
        if module in STANDALONE:
            check_docstring_examples(module, standalone=True)
        else:
            check_docstring_examples(module, {"mesh": mesh4 if module.endswith("view") else mesh,
                                              "P": P, "Mesh": Mesh,
                                              "NamedSharding": NamedSharding})
        out["doc_examples"][module] = "ok"
    except AssertionError as e:
        out["doc_examples"][module] = str(e)

# What jaxlib's compiler does with each kind of annotation (docs/jaxlib.md section 4).
xc, devices = sharded.xc, tuple(jax.devices())
main = ("func.func public @main(%arg0: tensor<8xf32> {ATTR}) -> tensor<8xf32> {\n"
        "%0 = stablehlo.sine %arg0 : tensor<8xf32>\nreturn %0 : tensor<8xf32>\n}")
head = "module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {\n"
texts = {"sdy": head + 'sdy.mesh @mesh = <["x"=8]>\n' +
         main.replace("ATTR", 'sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>') + "\n}",
         "gspmd": head + main.replace("ATTR", 'mhlo.sharding = "{devices=[8]<=[8]}"') + "\n}"}
build = xc.CompileOptions().executable_build_options
out["defaults"] = [build.use_spmd_partitioning, build.use_shardy_partitioner]
sys.stderr.write("--jaxlib probes--\n")
sys.stderr.flush()
out["partitioner"] = {}
for text_kind, text in texts.items():
    for shardy in (True, False):
        options = xc.CompileOptions()
        options.num_replicas, options.num_partitions = 1, 8
        options.device_assignment = xc.DeviceAssignment.create(np.arange(8, dtype=np.int32)[None])
        options.executable_build_options.use_spmd_partitioning = True
        options.executable_build_options.use_shardy_partitioner = shardy
        loaded = sharded._client.backend_of(devices[0]).client.compile_and_load(
            text, xc.DeviceList(devices), options)
        out["partitioner"][f"{text_kind} shardy={shardy}"] = [
            str(xc.HloSharding.from_proto(s)) for s in
            loaded.get_parameter_shardings() + loaded.get_output_shardings()]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def runs():
    """(jxkernel's answers, JAX's recorded answers)."""
    result = run_code(as_the_suite_compiles(_PROBES), {"JXKERNEL_CPU_DEVICES": "8"})
    mine = json.loads(result.stdout.strip().splitlines()[-1])
    mine["stderr"] = result.stderr
    return mine, locations.jax_answers("sharding_reference.json")


@SEVERAL_DEVICES
def test_shards_indices_replicas_and_pictures_are_jaxs(runs):
    mine, ref = runs[0]["cases"], runs[1]
    assert mine["mesh"] == ref["mesh"] == [
        "Mesh(axis_sizes=(4, 2), axis_names=('x', 'y'), axis_types=(Auto, Auto))",
        "Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))"]
    assert mine["meshes"] == ref["meshes"]
    assert mine["meshes"][:4] == [
        "AbstractMesh('x': 4, 'y': 2, axis_types=(Auto, Auto), device_kind=cpu, num_cores=None, "
        "platform=cpu)", "Mesh(axis_sizes=(), axis_names=())", "Mesh()",
        "AbstractMesh((), axis_types=())"]
    assert sorted(mine["shards"]) == sorted(ref["shards"]) == \
        ["P('x', 'y')", "P('x',)", "P((\'x\', \'y\'),)", "P()", "P(None, 'y')"]
    value = np.arange(32, dtype=np.float32).reshape(8, 4)
    for spec, shards in mine["shards"].items():
        assert shards == ref["shards"][spec], spec            # exact: moves of data
        for s in shards:                                      # and against NumPy
            (r0, r1), (c0, c1) = s["index"]
            np.testing.assert_array_equal(s["data"], value[r0:r1, c0:c1])
    assert mine["sharding"] == ref["sharding"]
    assert mine["shard_repr"] == ref["shard_repr"] == [
        "Shard(device=CpuDevice(id=3), index=(slice(2, 4, None), slice(2, 4, None)), "
        "replica_id=0, data=[[10. 11.]\n [14. 15.]])", [[18.0, 19.0], [22.0, 23.0]]]
    assert mine["pictures"] == ref["pictures"]
    assert mine["pictures"]["1d P('x',)"] == ("┌───────┬───────┬───────┬───────┐\n"
                                             "│CPU 0,1│CPU 2,3│CPU 4,5│CPU 6,7│\n"
                                             "└───────┴───────┴───────┴───────┘\n")


@SEVERAL_DEVICES
def test_jit_and_eager_results_have_jaxs_shardings_and_values(runs):
    mine, ref = runs[0]["cases"]["jit"], runs[1]["jit"]
    assert {k: v[0] for k, v in mine.items()} == {k: v[0] for k, v in ref.items()}
    value = np.arange(32, dtype=np.float32).reshape(8, 4)
    expected = {"matmul": np.sin(value) @ value.T, "sum0": value.sum(0), "add": value * 3,
                "transpose": value.T, "given": value * 3, "constraint": np.cos(value) + 1,
                "eager_add": value + 1, "eager_sin": np.sin(value), "eager_sum0": value.sum(0),
                "eager_mixed": value + 1, "constraint_only": value * 2,
                "vmap_of_jit": value.T - 1, "grad_of_sharded_jit": 2 * value,
                "vmap_of_sharded_jit": value.T * 3}
    for name, (_, got) in mine.items():
        got = np.asarray(got, np.float32)
        # sin/cos: XLA's vs NumPy's ulp-level differences; matmul sums 4 such terms up to 900
        assert_allclose_ulp(got, np.asarray(ref[name][1], np.float32), 2, scale=np.abs(got).max(),
                            err_msg=name)
        assert_allclose_ulp(got, expected[name].astype(np.float32), 4,
                            scale=np.abs(expected[name]).max(), err_msg=name)


@SEVERAL_DEVICES
def test_data_parallel_gradient_equals_the_unsharded_one(runs):
    mine, ref = runs[0]["cases"]["data_parallel"], runs[1]["data_parallel"]
    assert sorted(mine) == ["b1", "w1", "w2"]
    for name, (spec, sharded, plain) in mine.items():
        assert spec == ref[name][0] == "P()"           # params replicated, as JAX's
        sharded, plain = np.asarray(sharded, np.float32), np.asarray(plain, np.float32)
        scale = np.abs(plain).max()
        # the batch mean is summed per device, then across devices: another order of adds
        assert_allclose_ulp(sharded, plain, 8, scale=scale, err_msg=name)
        assert_allclose_ulp(sharded, np.asarray(ref[name][1], np.float32), 8, scale=scale,
                            err_msg=name)


@SEVERAL_DEVICES
def test_arrays_made_from_callbacks_and_single_device_arrays(runs):
    mine, ref = runs[0]["cases"]["made"], runs[1]["made"]
    assert mine == ref
    assert mine["callback"][0] == "P('x', 'y')" and len(mine["callback"][1]) == 8


@SEVERAL_DEVICES
def test_reshard_moves_arrays_between_explicit_axes(runs):
    mine, ref = runs[0]["cases"]["reshard"], runs[1]["reshard"]
    assert mine == ref
    assert mine[0] == "Mesh(axis_sizes=(4, 2), axis_names=('x', 'y'), axis_types=(Explicit, " \
        "Explicit))"
    assert [s["index"] for s in mine[2][:2]] == [[[0, 8], [0, 2]], [[0, 8], [2, 4]]]


@SEVERAL_DEVICES
def test_bad_shardings_raise_jaxs_errors(runs):
    mine, ref = runs[0]["cases"]["errors"], runs[1]["errors"]
    assert mine == ref
    assert mine["indivisible"][0] == "IndivisibleError"


@SEVERAL_DEVICES
def test_the_module_is_partitioned_by_shardy_and_cached_per_sharding(runs):
    out = runs[0]
    text = out["text"]
    assert "mhlo.num_partitions = 8 : i32" in text
    assert 'sdy.mesh @mesh = <["x"=4, "y"=2]>' in text
    assert '{sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}' in text
    assert out["parameter_shardings"] == ["{devices=[4,1,2]<=[8] last_tile_dim_replicate}"]
    assert out["hits"] == 1 and out["entries"] == 2      # a new input sharding compiles anew
    assert out["out_given"] == "P(None, 'y')"
    assert out["abstract"] == [True, True, False]          # jax.sharding.Sharding is their type


@SEVERAL_DEVICES
def test_constraints_under_grad_and_vmap_and_placement(runs):
    out = runs[0]
    spec, grad = out["grad"]
    assert spec == "P('x',)"
    assert_allclose_ulp(np.asarray(grad, np.float32), np.cos(np.arange(16.0)).reshape(8, 2)
                        .astype(np.float32), 2, scale=1.0)
    assert out["vmap"] == ["P(None, 'x')", [[2.0] * 8] * 3]
    assert out["kept"] is True
    assert out["gathered"] == [3, np.arange(16.0).reshape(8, 2).tolist()]
    assert out["set_mesh"] == ["NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, "
                               "Auto)), spec=P(), memory_kind=device)",
                               (np.arange(8.0) - 1).tolist()]


def test_partition_specs_meshes_and_axis_types_as_jax_prints_them():
    assert [repr(p) for p in (P("x", None), P(), P(("x", "y")), P(None))] == \
        ["P('x', None)", "P()", "P(('x', 'y'),)", "P(None,)"]
    assert P("x") != P("x", None) and P("x") == P("x") and hash(P("x")) == hash(P("x"))
    # entries kept as JAX's PartitionSpec keeps them (its canonicalize_partitions): a tuple of
    # one name is that name, an empty tuple None, a list a tuple
    assert [repr(p) for p in (P(("x",)), P(()), P(["x", "y"]), P(["x"], None))] == \
        ["P('x',)", "P(None,)", "P(('x', 'y'),)", "P('x', None)"]
    assert P(("x",)) == P("x") and hash(P(("x",))) == hash(P("x"))
    assert (repr(AxisType.Auto), str(AxisType.Explicit)) == ("Auto", "AxisType.Explicit")
    assert repr(AbstractMesh((4, 2), ("x", "y"))) == \
        "AbstractMesh('x': 4, 'y': 2, axis_types=(Auto, Auto))"
    mesh = jax.make_mesh((1,), ("d",))                   # JAX 0.10.2: Explicit by default
    assert repr(mesh) == "Mesh(axis_sizes=(1,), axis_names=('d',), axis_types=(Explicit,))"
    s = jax.NamedSharding(mesh, jax.P("d"))
    assert s == NamedSharding(mesh, P("d")) and hash(s) == hash(NamedSharding(mesh, P("d")))
    assert s.is_equivalent_to(NamedSharding(mesh, P()), 1) and s.is_fully_replicated
    assert s.shard_shape((3, 2)) == (3, 2) and s.num_devices == 1


def test_with_mesh_warns_that_it_is_deprecated_as_jax_does():
    # JAX 0.10.2's text and category (jax/_src/mesh.py, Mesh.__enter__), naming the `with` line
    mesh = Mesh(np.array(jax.devices()[:1]), ("d",))
    with pytest.warns(DeprecationWarning) as caught:
        with mesh:
            inside = jax.sharding.get_mesh()
    assert [str(w.message) for w in caught] == [
        "`with mesh:` context manager has been deprecated. Please use `with jax.set_mesh(mesh):` "
        "instead."]
    assert caught[0].filename == __file__ and inside == mesh
    with warnings.catch_warnings():
        warnings.simplefilter("error")             # the replacement it names does not warn
        with jax.set_mesh(mesh):
            assert jax.sharding.get_mesh() == mesh


def test_an_array_put_on_a_one_device_mesh_keeps_its_sharding():
    s = jax.NamedSharding(jax.make_mesh((1,), ("d",)), jax.P("d"))
    x = jax.device_put(np.arange(3.0), s)
    assert x.sharding is s and np.asarray(x).tolist() == [0.0, 1.0, 2.0]
    assert [sh.index for sh in x.addressable_shards] == [(slice(None),)]


@pytest.mark.xla_only("sharded arrays")
def test_a_sharded_jits_fast_path_keys_its_static_arguments_by_name_and_type():
    # its fast dict filed f(x, n=3) without the keyword, where f(x) (n defaulted) found it
    # and ran n=3's program; and keyed statics untyped, where the call's key is typed
    s = jax.NamedSharding(jax.make_mesh((1,), ("d",)), jax.P("d"))
    f = jax.jit(lambda x, n=1: x * n, static_argnames="n", in_shardings=s)
    x = jax.device_put(np.arange(3.0, dtype=np.float32), s)
    for _ in range(2):
        assert np.asarray(f(x, n=3)).tolist() == [0.0, 3.0, 6.0]
        assert np.asarray(f(x)).tolist() == [0.0, 1.0, 2.0]
        assert f(x, n=2).dtype == np.float32 and f(x, n=True).dtype == np.float32
    assert f._cache_size() == 4 and f.cache_hits() == 4


def test_named_sharding_over_an_abstract_mesh():
    # JAX 0.10.2: a sharding in a type, with no devices (what JAX prints and raises)
    mesh = AbstractMesh((2, 4), ("x", "y"))
    s = NamedSharding(mesh, P("x", None))
    assert repr(s) == ("NamedSharding(mesh=AbstractMesh('x': 2, 'y': 4, axis_types=(Auto, "
                       "Auto)), spec=P('x', None))")
    same = NamedSharding(mesh, P("x", None))
    assert s == same and hash(s) == hash(same)
    assert (s.num_devices, s.is_fully_replicated, s.memory_kind) == (8, False, None)
    assert s.shard_shape((4, 8)) == (2, 8)
    for attr in ("device_set", "_device_assignment", "is_fully_addressable",
                 "addressable_devices"):
        with pytest.raises(ValueError, match=f"{attr} is not implemented for "
                                             f"`jax.sharding.AbstractMesh`"):
            getattr(s, attr)
    with pytest.raises(ValueError, match=r"Resource axis: z of P\('z',\) is not found"):
        NamedSharding(mesh, P("z"))
    with pytest.raises(ValueError, match="is_fully_addressable is not implemented"):
        jax.device_put(np.zeros(4), s)
    typed = NamedSharding(AbstractMesh((2,), ("x",), (AxisType.Explicit,)), P("x"))
    spec = jax.ShapeDtypeStruct((4,), np.float32, sharding=typed)
    assert jax.eval_shape(lambda a: a * 2, spec) == spec


def test_bad_meshes_and_specs_name_what_to_fix():
    one = np.array(jax.devices()[:1])
    with pytest.raises(ValueError, match=r"devices.ndim == 1 and len\(axis_names\) == 2"):
        Mesh(one, ("x", "y"))
    mesh = Mesh(one, ("x",))
    with pytest.raises(DuplicateSpecError, match="duplicate entries for `x`"):
        NamedSharding(mesh, P("x", "x"))
    with pytest.raises(ValueError, match=r"Resource axis: q of P\('q',\) is not found"):
        NamedSharding(mesh, P("q"))
    with pytest.raises(TypeError, match="PartitionSpec entries must be"):
        P(3)
    with pytest.raises(ValueError, match="only valid for values of rank at least 2"):
        jax.device_put(np.zeros(2), NamedSharding(mesh, P("x", None)))
    with pytest.raises(ValueError, match="Please set a mesh via `jax.set_mesh`"):
        jax.device_put(np.zeros(2), P("x"))
    assert issubclass(IndivisibleError, ValueError)


@SEVERAL_DEVICES
def test_jaxlib_partitions_sdy_annotations_only_with_the_shardy_flag(runs):
    """Why jxkernel emits Shardy's attributes and sets use_shardy_partitioner (section 4 of
    docs/jaxlib.md): with the flag, sdy shardings are honoured and propagated; without it,
    GSPMD runs (deprecated: it logs so) and leaves the result replicated; GSPMD's own
    mhlo.sharding is ignored under Shardy. Neither flag is on by default."""
    out = runs[0]
    assert out["defaults"] == [False, False]
    assert out["partitioner"] == {
        "sdy shardy=True": ["{devices=[8]<=[8]}", "{devices=[8]<=[8]}"],
        "sdy shardy=False": ["{devices=[8]<=[8]}", "{replicated}"],
        "gspmd shardy=True": ["{replicated}", "{replicated}"],
        "gspmd shardy=False": ["{devices=[8]<=[8]}", "{replicated}"]}
    ours, probes = out["stderr"].split("--jaxlib probes--")
    deprecated = "GSPMD sharding propagation is going to be deprecated"
    assert deprecated not in ours and deprecated in probes


@SEVERAL_DEVICES
def test_the_fast_path_runs_a_sharded_jit_only_on_arguments_laid_out_as_compiled(runs):
    fast, v = runs[0]["fast"], np.arange(8.0)
    assert fast["hits"] == [1]                     # the second call took jit's fast path
    assert fast["hit"] == (2 * v).tolist()
    assert fast["other_layout"] == (11 * v).tolist() and fast["one_device"] == (v + 1).tolist()


@SEVERAL_DEVICES
def test_the_docstring_examples_of_the_sharding_modules_are_true(runs):
    assert runs[0]["doc_examples"] == dict.fromkeys(
        ["jxkernel.core.mesh", "jxkernel.core.sharding_types", "jxkernel.lax.sharding",
         "jxkernel.xla.sharding", "jxkernel.xla.sharded", "jxkernel.xla.put",
         "jxkernel.xla.transfers", "jxkernel.sharding", "jxkernel.sharding_view",
         "jxkernel.api.sharding", "jxkernel.api.pmap", "jxkernel.transforms.jit.pinned",
         "jxkernel.transforms.jit.sharded", "jxkernel.views.sharding_view",
         "jxkernel.export._sharded"], "ok")


def test_visualize_sharding_draws_a_shape_and_a_sharding():
    # (the layout itself is compared with JAX's pictures above, through visualize_array_sharding)
    x = jax.numpy.zeros((4, 8))
    drawn = []
    for draw in (lambda: jax.debug.visualize_sharding(x.shape, x.sharding, use_color=False),
                 lambda: jax.debug.visualize_array_sharding(x)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            draw()
        drawn.append(out.getvalue().splitlines())
    assert drawn[0] == drawn[1]
    lines = drawn[0]
    assert lines[0] == "┌" + "─" * 48 + "┐" and lines[-1] == "└" + "─" * 48 + "┘"
    device = f"{x.device.platform.upper()} 0"      # CPU 0 as JAX's; NUMPY 0 on the NumPy backend
    assert [line.strip("│ ") for line in lines[1:-1]] == [""] * 4 + [device] + [""] * 4
    with pytest.raises(ValueError, match="only works for shapes with 1 and 2 dimensions"):
        jax.debug.visualize_sharding((2, 2, 2), x.sharding)


@SEVERAL_DEVICES
def test_device_put_between_shardings_of_one_mesh_moves_data_on_the_devices(runs):
    spec, value, programs = runs[0]["relayout"]
    assert spec == "P(None, 'y')" and value == np.arange(16.0).reshape(8, 2).tolist()
    assert "relayout" in programs          # an identity program with the new result sharding


@SEVERAL_DEVICES
def test_transfer_guards_see_host_data_put_on_a_mesh(runs):
    assert runs[0]["guard"] == [(2 * np.arange(8.0)).tolist(), "JaxRuntimeError"]


@SEVERAL_DEVICES
def test_lower_and_compile_of_a_sharded_jit_tell_its_shardings(runs):
    stages = runs[0]["stages"]
    assert '%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}' in stages["text"]
    assert '%arg1: tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>}' in stages["text"]
    assert stages["in"] == ["P('x',)", "P()"] and stages["out"] == ["P('x',)", "P()"]
    assert stages["out_info"] == ["P('x',)", "P()"]
    assert stages["struct"] == ["P('x',)", True]     # a ShapeDtypeStruct's sharding is used
    odd = np.arange(1.0, 16.0, 2)                       # column 1 of the 8x2 arange
    assert stages["called"] == ["P('x',)", (odd * 3).tolist(), float(odd.sum())]
    assert stages["all_reduce"]          # the sum of a split vector: XLA added the reduction


def test_a_jit_with_out_shardings_called_again_with_an_array_not_laid_out_so():
    # the second call of a jit given out_shardings, with a plain one-device array, failed
    # ("an argument is laid out otherwise than compiled for"): the fast path had kept the
    # program for an argument the general path had first moved onto the mesh
    mesh = jax.make_mesh((1,), ("i",))
    f = jax.jit(lambda x: x * 2, out_shardings=NamedSharding(mesh, P()))
    outs = [np.asarray(f(jax.numpy.ones(3))) for _ in range(3)]
    assert [o.tolist() for o in outs] == [[2.0, 2.0, 2.0]] * 3 and f.cache_hits() == 2


def test_a_bare_partition_spec_without_a_mesh_is_refused_in_jaxs_words():
    # each function its own class and words (device_put's, jit's, reshard's, the creation
    # functions'), outside a mesh and, where JAX takes no bare spec at all, under set_mesh
    from surface_gaps_cases import recorded, run_mistakes
    assert run_mistakes(jax, "spec") == devices_named_here(recorded("mistakes", "spec"))


def test_sharding_classes_show_jaxs_names_and_pickle_by_them():
    # type(P()) is jxkernel.P, the meshes' classes are at jxkernel._src.mesh, as JAX's at
    # jax.P and jax._src.mesh: their reprs, __module__/__qualname__ and pickles say so
    from surface_gaps_cases import class_paths, recorded
    want = recorded("class_paths")
    # a Mesh holds jaxlib's Devices, which pickle refuses in Python's words: 3.12 names the type
    # by its full name ("cannot pickle 'jaxlib._jax.Device' object", JAX 0.10.2's words on
    # 3.12.1 and 3.13.0), 3.11 as recorded ('Device'): the recording read in this Python's words
    try:
        pickle.dumps(jax.devices()[0])
        refused = None           # the NumPy backend's devices pickle (by id): so do these two
    except TypeError as e:
        refused = ["TypeError", str(e)]
    for name in ("Mesh", "NamedSharding"):
        assert want[name]["pickle"] == ["TypeError", "cannot pickle 'Device' object"]
        want[name]["pickle"] = refused or [[want[name]["module"], name], True]
    assert class_paths(jax) == devices_named_here(want)
    # a fresh process: unpickling imports jxkernel._src.mesh and ._src.partition_spec itself
    mesh = jax.make_mesh((1,), ("x",))
    data = (mesh.abstract_mesh, P("x", P.UNCONSTRAINED), AxisType.Auto)
    pickled = pickle.dumps(data).hex()
    out = run_code(f"import pickle; print(pickle.loads(bytes.fromhex('{pickled}')))")
    assert out.stdout.strip() == repr(data)


def test_under_set_mesh_a_value_from_no_mesh_is_typed_over_the_empty_mesh():
    # jit's (make_jaxpr's, vmap's, jvp's, eval_shape's) NumPy, scalar and one-device
    # arguments, and what sin, transpose, sum, reshape make of them, are typed over
    # AbstractMesh(()) as JAX's; x * s, zeros, arange, stack take set_mesh's mesh
    from surface_gaps_cases import meshless_args, recorded
    assert meshless_args(jax) == recorded("meshless_args")


def test_a_contraction_given_out_sharding_is_typed_so_without_a_constraint():
    # jnp.einsum's (and matmul's) last dot_general takes the out_sharding, as JAX's: the
    # jaxpr holds no sharding_constraint after it
    from surface_gaps_cases import out_sharding_jaxprs, recorded
    assert out_sharding_jaxprs(jax) == recorded("out_sharding_jaxprs")


def test_concatenate_stack_and_select_take_operands_of_one_type():
    # JAX's rules: typed operands of concatenate, stack and select_n's cases must share one
    # sharding (its ShardingTypeErrors); untyped ones (NumPy) and a broadcast scalar, typed
    # as the broadcast (jnp.where(x > 0, x, 0.0)), pass
    from surface_gaps_cases import recorded, run_mistakes
    assert run_mistakes(jax, "operands") == devices_named_here(recorded("mistakes", "operands"))


@SEVERAL_DEVICES
def test_an_eager_operand_on_one_device_is_laid_out_as_a_split_operand_of_its_shape(runs):
    # not a whole copy per device: the page Distributed_arrays_and_automatic_parallelization
    # adds a 256 MB array on one device to one split over 8 CPU devices (2 GB more, not 256 MB)
    probes, _ = runs
    assert probes["operand_layouts"] == ["P('x',)", "P('x',)", "P()"]
    assert probes["operand_sum"] == ["P('x',)", (np.arange(16.0).reshape(8, 2) + 1).tolist()]
