"""jxkernel.export against what JAX 0.10.2 gives for the same programs
(tests/data/export_cases.py, recorded by reference/make_export_reference.py), and what JAX's
file format cannot be compared on: our serialization's round trip and its errors, the
inlining of exported modules into a caller's module, and what is refused."""
import collections
import hashlib
import json
import re

import export_cases as cases
import numpy as np
import pytest
from numerics import ELEMENTWISE, assert_allclose_ulp
from export_reference import compare

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import export

PROGRAMS = [p for p in cases.PROGRAMS if p.__name__.startswith("export_")]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_program_matches_jax(program):
    compare(program, program(jxkernel))


def _exported():
    def f(x, params):
        return {"y": jnp.tanh(x) * params["w"], "n": [params["n"] + 1, None]}
    specs = (jxkernel.ShapeDtypeStruct((3,), np.float32),
             {"w": jxkernel.ShapeDtypeStruct((), np.float32),
              "n": jxkernel.ShapeDtypeStruct((), np.int32)})
    return export.export(jxkernel.jit(f))(*specs)


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_serialize_round_trip_keeps_the_signature_module_results_and_vjp():
    """A nested pytree of inputs and outputs (dict, list, None) and an integer input: the
    loaded Exported equals the original field by field, gives the same bits, and is
    differentiable to the order serialized (one), not beyond."""
    exp = _exported()
    blob = exp.serialize(vjp_order=1)
    assert isinstance(blob, bytearray) and blob.startswith(b"JXKEXPORT\n")
    again = export.deserialize(blob)
    for field in ("fun_name", "in_tree", "out_tree", "in_avals", "out_avals", "platforms",
                  "nr_devices", "calling_convention_version", "mlir_module_serialized",
                  "module_kept_var_idx", "in_shardings_hlo"):
        assert getattr(again, field) == getattr(exp, field), field
    assert again.mlir_module() == exp.mlir_module()
    x, params = jnp.array([0.5, -1.0, 2.0], jnp.float32), {"w": 3.0, "n": jnp.int32(4)}
    want, got = exp.call(x, params), again.call(x, params)
    np.testing.assert_array_equal(np.asarray(got["y"]), np.asarray(want["y"]))
    assert int(got["n"][0]) == 5 and got["n"][1] is None
    grad = jxkernel.grad(lambda v: again.call(v, params)["y"].sum())(x)
    want = 3.0 / np.cosh(np.asarray(x, np.float64)) ** 2
    assert_allclose_ulp(np.asarray(grad), want.astype(np.float32), ELEMENTWISE,
                        gpu="transcendental")                # cosh is libdevice's on a GPU
    assert again.vjp().has_vjp() is False and not export.deserialize(exp.serialize()).has_vjp()
    assert exp.vjp() is not exp.vjp()    # exported anew each time, as JAX (test_export_vjp.py)
    with pytest.raises(ValueError, match="No VJP is available"):
        jxkernel.grad(jxkernel.grad(lambda s: again.call(jnp.full(3, s), params)["y"].sum()))(1.)


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_mlir_module_prints_the_locations_as_jaxs_does():
    """`mlir_module()` prints the module with its locations (`loc(...)`), as JAX's does under
    its default jax_include_debug_info_in_dumps=True: each of main's arguments is followed by
    its name as JAX gives it (the function's parameter and path; a VJP's
    `args_and_out_cts_flat_jax[i]`), which JAX's tests of a VJP's argument shardings read as
    `tensor<...> (.*)`; a call's inlining reads the module without them."""
    exp = _exported()
    assert re.search(r"""@main\(%arg0: tensor<3xf32> loc\("x"\), %arg1: tensor<i32> """
                     r"""loc\("params\['n'\]"\)""", exp.mlir_module())
    assert re.search(r"@main\(%arg0: tensor<3xf32> (.*), %arg1: tensor<i32> (.*), %arg2: "
                     r"tensor<f32> (.*)\) -> \(tensor<3xf32> (.*)", exp.vjp().mlir_module())
    assert 'loc("args_and_out_cts_flat_jax[0]")' in exp.vjp().mlir_module()
    assert " loc(" not in exp._plain_text() and "@main(%arg0: tensor<3xf32>, " in \
        exp._plain_text()


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_bad_blobs_are_refused_with_what_is_wrong():
    blob = bytes(_exported().serialize())
    with pytest.raises(ValueError, match="not a jxkernel Exported"):
        export.deserialize(b"\x08\x01flatbuffer")
    with pytest.raises(ValueError, match="damaged"):
        export.deserialize(blob[:-10])
    head = len(b"JXKEXPORT\n") + 32
    record = json.loads(blob[head:])
    record["format"] = 99
    payload = json.dumps(record).encode()
    with pytest.raises(ValueError, match="format version 99; this jxkernel reads version 1"):
        export.deserialize(b"JXKEXPORT\n" + hashlib.sha256(payload).digest() + payload)


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_a_blob_written_before_uses_global_constants_has_it_from_its_signature():
    def without_the_field(exp):
        blob = bytes(exp.serialize())
        record = json.loads(blob[len(b"JXKEXPORT\n") + 32:])
        del record["uses_global_constants"]
        payload = json.dumps(record).encode()
        return export.deserialize(b"JXKEXPORT\n" + hashlib.sha256(payload).digest() + payload)
    n, = export.symbolic_shape("n")
    symbolic = export.export(jxkernel.jit(jnp.sum))(jxkernel.ShapeDtypeStruct((n,), jnp.float32))
    two = export.export(jxkernel.jit(jnp.sin), platforms=("cpu", "cuda"))(1.0)
    assert symbolic.uses_global_constants and two.uses_global_constants      # as JAX's
    assert without_the_field(symbolic).uses_global_constants is True
    assert without_the_field(two).uses_global_constants is True
    assert without_the_field(_exported()).uses_global_constants is False


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_a_blob_written_before_shardings_were_stored_loads_unspecified():
    exp = _exported()
    blob = bytes(exp.serialize())
    record = json.loads(blob[len(b"JXKEXPORT\n") + 32:])
    assert record["in_shardings"] == [None] * 3 and record["out_shardings"] == [None] * 2
    del record["in_shardings"], record["out_shardings"]
    payload = json.dumps(record).encode()
    old = export.deserialize(b"JXKEXPORT\n" + hashlib.sha256(payload).digest() + payload)
    assert old.nr_devices == 1 and old.in_shardings_jax(None) == (None,) * 3
    assert old.out_shardings_jax(None) == (None,) * 2
    x, params = jnp.array([0.5, -1.0, 2.0], jnp.float32), {"w": 3.0, "n": jnp.int32(4)}
    np.testing.assert_array_equal(np.asarray(old.call(x, params)["y"]),
                                  np.asarray(exp.call(x, params)["y"]))


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_unregistered_pytree_nodes_are_refused_at_serialize():
    # (JAX's words; register_namedtuple_serialization makes it serializable:
    # tests/data/public_names_cases.py's documented_modules)
    Point = collections.namedtuple("Point", "x y")
    exp = export.export(jxkernel.jit(lambda p: p.x + p.y))(Point(1.0, 2.0))
    assert float(exp.call(Point(1.0, 2.0))) == 3.0
    with pytest.raises(ValueError, match="Cannot serialize PyTreeDef containing an unregistered "
                                         "type `<class '.*Point'>`"):
        exp.serialize()


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_exported_modules_are_inlined_once_per_caller_with_renamed_functions():
    """The exported module holds a private function (a nested jit); two calls of it and a
    call of another Exported in one jit: each module's functions appear once, renamed, and
    only the caller's main is public."""
    inner = jxkernel.jit(lambda v: v * 2.0)
    double_sin = export.export(jxkernel.jit(lambda v: jnp.sin(inner(v))))(np.ones(3, np.float32))
    plus_one = export.export(jxkernel.jit(lambda v: v + 1.0))(np.ones(3, np.float32))
    assert "func.func private" in double_sin.mlir_module()

    def caller(x):
        return plus_one.call(double_sin.call(x) + double_sin.call(x * 3.0))
    x = jnp.array([0.1, 0.2, 0.3], jnp.float32)
    text = jxkernel.jit(caller).lower(x).as_text()
    assert text.count("func.func public") == 1
    defined = re.findall(r'func\.func private @("[^"]*")\(', text)
    assert defined == ['"call_exported_<lambda>"', '"<lambda>"',                 # double_sin
                       '"call_exported_<lambda>_0"']                             # plus_one
    want = np.sin(2 * np.float32(x)) + np.sin(6 * np.float32(x)) + 1
    assert_allclose_ulp(np.asarray(jxkernel.jit(caller)(x)), want.astype(np.float32),
                        ELEMENTWISE, scale=np.abs(want).max())


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_closed_over_constants_are_embedded_and_callbacks_refused():
    table = np.arange(4, dtype=np.int32) * 7
    exp = export.export(jxkernel.jit(lambda i: jnp.asarray(table)[i]))(np.int32(2))
    assert len(exp.in_avals) == 1 and int(export.deserialize(exp.serialize()).call(
        np.int32(3))) == 21
    printing = jxkernel.jit(lambda v: (jxkernel.debug.print("{}", v), v * 2)[1])
    with pytest.raises(ValueError, match="calls Python host callbacks"):
        export.export(printing)(1.0)


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_string_dimensions_are_refused():
    with pytest.raises(TypeError, match=r"args\[0\]\['x'\] has shape \('b', 4\)"):
        export.export(jxkernel.jit(lambda d: d["x"]))(
            {"x": jxkernel.ShapeDtypeStruct(("b", 4), np.float32)})
