"""ffi_call and ffi_lowering beside their plain use (tests/lax/test_ffi_calls.py compares):
`run(jax)` -> {case: the custom_call lines of a lowered module, a jaxpr's words or an error's
class and message}. What JAX 0.10.2 answers (ffi_calls_reference.json, recorded by
reference/make_ffi_calls_reference.py): input_output_aliases' and result_shape_dtypes'
ValueErrors, a `Layout` as a lowering's operand layout, dict and array attributes as
FrozenDict/HashableArray params written as MLIR attributes, a token operand and result, a
typed key operand (its uint32 data), `mlir.ir_attribute` of a dict."""
import importlib
import re

import numpy as np

from ffi_lowering_text_cases import _custom_calls


def _said(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        return {"error": type(e).__name__, "message": str(e)}


def run(jax):
    jnp = jax.numpy
    src = lambda name: importlib.import_module(f"{jax.__name__}._src.{name}")  # noqa: E731
    mlir, core, Layout = src("interpreters.mlir"), src("core"), src("layout").Layout
    x = jnp.ones(5)
    out = {}

    def lowered_with(result, aliases, *args):
        return jax.jit(lambda *a: jax.ffi.ffi_call("test", result, input_output_aliases=aliases)(
            *a)).lower(*args).as_text()

    out["alias/input_index"] = _said(lambda: lowered_with(x, {1: 0}, x))
    out["alias/output_index"] = _said(lambda: lowered_with(x, {0: 1}, x))
    out["alias/dtype"] = _said(lambda: lowered_with(jax.ShapeDtypeStruct((5,), np.int32),
                                                    {0: 0}, x))
    out["alias/shape"] = _said(lambda: lowered_with(jax.ShapeDtypeStruct((5, 5), x.dtype),
                                                    {0: 0}, x))
    out["result/none"] = _said(lambda: jax.ffi.ffi_call("test", None)())
    out["result/second"] = _said(lambda: jax.ffi.ffi_call(
        "test", (jax.ShapeDtypeStruct((), np.float32), ()))())

    prim = core.Primitive("ffi_calls_layout")
    prim.def_impl(lambda x: x)
    prim.def_abstract_eval(lambda x: x)
    layout = Layout((0, 1, 2))
    mlir.register_lowering(prim, lambda ctx, x: jax.ffi.ffi_lowering(
        "test_ffi", operand_layouts=[layout], result_layouts=[layout])(ctx, x))
    out["layout_object"] = _said(lambda: _custom_calls(
        jax.jit(prim.bind).lower(jnp.ones((3, 3, 3))).as_text()))

    def attributes(value):
        f = lambda x: jax.ffi.ffi_call("test_ffi", x)(x, non_hashable_arg=value)  # noqa: E731
        jaxpr = str(jax.make_jaxpr(f)(x))
        return {"jaxpr_attribute": jaxpr[jaxpr.index("attributes="):].splitlines()[0],
                "custom_calls": _custom_calls(jax.jit(f).lower(x).as_text())}
    out["attributes/dict"] = _said(lambda: attributes({"a": 1}))
    out["attributes/array"] = _said(lambda: attributes(np.arange(3)))

    def token():
        lax = jax.lax
        return _custom_calls(jax.jit(lambda: jax.ffi.ffi_call("test_ffi", core.abstract_token)(
            lax.create_token())).lower().as_text())
    out["token"] = _said(token)
    # (the operand's name, %arg0 or %0, is no part of the answer)
    out["key_operand"] = _said(lambda: [re.sub(r"\(%\w+\)", "(%k)", line) for line in _custom_calls(
        jax.jit(lambda k: jax.ffi.ffi_call("edtype", (), has_side_effect=True)(k)).lower(
            jax.random.key(0)).as_text())])
    def ir_attribute():
        with mlir.make_ir_context():
            return str(mlir.ir_attribute({"num_batch_dims": "1", "b": np.int32(2)}))
    out["ir_attribute"] = _said(ir_attribute)
    return out
