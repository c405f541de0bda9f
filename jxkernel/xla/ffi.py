"""jaxlib's side of jax.ffi: registering custom-call targets, types and batch partitioning
with XLA, where jaxlib keeps the XLA FFI headers (jxkernel/lax/ffi.py is the public module,
jxkernel.ffi), and the typed-FFI custom call every FFI lowering emits (jax.ffi's, LAPACK's,
cuSOLVER's).

    >>> os.path.isdir(include_dir())
    True
"""
from __future__ import annotations

import os

import numpy as np

from . import stablehlo as hlo
from .client import xc


def register_ffi_target(name: str, fn, platform: str = "cpu", api_version: int = 1,
                        **kwargs) -> None:
    """Register `fn` (a PyCapsule of the handler, or a dict of them by FFI stage) as the
    custom-call target `name`: api_version 1 for the typed FFI, 0 for the older ABI."""
    return xc.register_custom_call_target(name, fn, platform, api_version, **kwargs)


def register_ffi_type(name: str, type_registration, platform: str = "cpu") -> None:
    """Register a user type for the typed FFI (type_id and optional type_info capsules)."""
    return xc.register_custom_type(name, type_registration, platform=platform)


def register_ffi_type_id(name: str, obj, platform: str = "cpu") -> None:
    """Gone with jaxlib 0.8 (as JAX 0.10.2 says): use register_ffi_type."""
    raise ValueError("register_ffi_type_id is not supported after jaxlib version 381.")


def register_ffi_target_as_batch_partitionable(name: str) -> None:
    """Let XLA partition the target `name` along its batch dimensions."""
    xc.register_custom_call_as_batch_partitionable(name)


def include_dir() -> str:
    """The folder of the XLA FFI C++ headers that jaxlib ships (for building handlers)."""
    import jaxlib        # here: the NumPy backend imports this module's lowering helpers only
    return os.path.join(os.path.dirname(os.path.abspath(jaxlib.__file__)), "include")


# ------------------------------------------------------------------ the custom call
def row_major(ndim: int) -> tuple:
    """The minor-to-major order of a row-major (C-order) array: the last dimension fastest.

    >>> row_major(3)
    (2, 1, 0)
    """
    return tuple(range(ndim - 1, -1, -1))


def layout(order) -> str:
    """A minor-to-major dimension order as a custom call's layout attribute, printed as MLIR
    prints it (one dimension as a splat).

    >>> layout((0, 1)), layout((0,)), layout(())
    ('dense<[0, 1]> : tensor<2xindex>', 'dense<0> : tensor<1xindex>', 'dense<> : tensor<0xindex>')
    """
    order = tuple(order)
    if len(order) == 1:
        body = str(order[0])
    else:
        body = "[" + ", ".join(map(str, order)) + "]" if order else ""
    return f"dense<{body}> : tensor<{len(order)}xindex>"


def attribute(value) -> str:
    """A handler attribute (a backend_config entry), typed as JAX's mlir.ir_attribute types it.

    >>> attribute(True), attribute(np.uint8(76)), attribute(2), attribute("on")
    ('true', '76 : ui8', '2 : i64', '"on"')
    >>> attribute(np.arange(3, dtype=np.int32))
    'dense<[0, 1, 2]> : tensor<3xi32>'
    >>> attribute({"b": 1, "a": "x"})
    '{a = "x", b = 1 : i64}'
    """
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, dict):         # a dictionary attribute (MLIR's sorts its names)
        return dictionary({k: attribute(value[k]) for k in sorted(value)})
    if isinstance(value, np.generic):
        return f"{value.item()!r} : {hlo.element_type(value.dtype)}"
    if isinstance(value, int):
        return f"{value} : i64"
    if isinstance(value, float):
        return f"{value!r} : f64"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, np.ndarray) and value.dtype.names == ("float0",):
        value = np.zeros(value.shape, np.bool_)     # float0 holds nothing: JAX's false bools
    if isinstance(value, np.ndarray):      # dense elements, as JAX's ir_attribute makes them
        return f"dense<{_elements(value)}> : {hlo.tensor_type(value.shape, value.dtype)}"
    raise TypeError(f"FFI attribute of type {type(value).__name__} ({value!r}): use a Python "
                    "or NumPy scalar, a string or a 1-d NumPy array")


def _elements(array) -> str:
    """A NumPy array's elements as MLIR's dense literal writes them, nested by dimension
    (`[[1, 2], [3, 4]]`); a non-finite float by its bits, as MLIR takes it."""
    if array.ndim:
        return "[" + ", ".join(_elements(a) for a in array) + "]"
    x = array.item()
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float):
        if np.isfinite(x):
            return repr(x)
        return "0x" + array.view(f"u{array.dtype.itemsize}").item().to_bytes(
            array.dtype.itemsize, "big").hex().upper()
    return str(x)


def dictionary(attributes) -> str:
    """The typed FFI's backend_config: `attributes` (name: attribute text) as a dictionary.

    >>> dictionary({"uplo": attribute(np.uint8(76))})
    '{uplo = 76 : ui8}'
    """
    return "{" + ", ".join(f"{k} = {v}" for k, v in attributes.items()) + "}"


def custom_call(ctx, target: str, operands, result_avals, *, backend_config: str | None,
                operand_layouts, result_layouts, aliases=None, has_side_effect=None,
                api_version: int = 4, extra_attributes=None) -> list:
    """Emit a custom call of the FFI target `target`; returns its results (of `result_avals`).
    `operand_layouts`, `result_layouts`: a minor-to-major order per operand and per result;
    `backend_config`: the attribute's text (a dictionary `{uplo = 76 : ui8}` for the typed
    FFI, api_version 4, written as JAX's `mhlo.backend_config`); `aliases`: {operand index:
    the result that overwrites it}; `has_side_effect`: written out unless None;
    `extra_attributes`: more attributes (name: text), e.g. the batch partitioning of linear
    algebra's calls (lapack.ffi_call). With `backend_config` and the layouts None, the call
    has none of them, and its api_version only where not 1 (JAX's `mlir.custom_call` with its
    defaults: `plain_custom_call`)."""
    attrs = {"call_target_name": f'"{target}"'}
    if has_side_effect is not None:
        attrs["has_side_effect"] = "true" if has_side_effect else "false"
    if api_version == 4:
        # the typed FFI's attributes as JAX writes them: a dictionary in the discardable
        # `mhlo.backend_config`, beside an empty `backend_config` and no api_version (the
        # default, 1), which XLA reads as its typed FFI call
        attrs.update({"backend_config": '""', "mhlo.backend_config": backend_config})
    elif backend_config is None:
        if api_version != 1:
            attrs["api_version"] = f"{api_version} : i32"
    else:
        attrs.update({"api_version": f"{api_version} : i32", "backend_config": backend_config})
    if operand_layouts is not None:
        attrs.update({"operand_layouts": "[" + ", ".join(map(layout, operand_layouts)) + "]",
                      "result_layouts": "[" + ", ".join(map(layout, result_layouts)) + "]"})
    if aliases:
        single = len(result_avals) == 1
        attrs["output_operand_aliases"] = "[" + ", ".join(
            f"#stablehlo.output_operand_alias<output_tuple_indices = "
            f"{'[]' if single else f'[{res}]'}, operand_index = {op}, "
            f"operand_tuple_indices = []>" for op, res in sorted(aliases.items())) + "]"
    attrs.update(extra_attributes or {})
    operands = list(operands)
    symbolic = getattr(ctx.module_ctx, "symbolic", None)
    if symbolic is not None and any(not isinstance(d, (int, np.integer))
                                    for a in result_avals for d in a.shape):
        # jax.export with symbolic sizes: each result's shape an operand after the others,
        # named by `indices_of_shape_operands` (JAX's mlir.custom_call with result_shapes);
        # shape refinement types the results from them and drops them
        shapes = [symbolic.shape(ctx.block, a.shape) for a in result_avals]
        indices = layout(range(len(operands), len(operands) + len(shapes)))
        attrs["indices_of_shape_operands"] = indices.replace("xindex>", "xi64>")
        if operand_layouts is not None:
            attrs["operand_layouts"] = "[" + ", ".join(
                [*map(layout, operand_layouts), *(layout((0,)),) * len(shapes)]) + "]"
        operands += shapes
    return ctx.op("stablehlo.custom_call", operands, attrs,
                  result_types=[hlo.aval_type(a) for a in result_avals])


def plain_custom_call(ctx, target: str, operands, result_avals, *, api_version: int = 1) -> list:
    """A custom call as JAX's `mlir.custom_call` writes one with its defaults: no backend
    config, no layouts, the api_version only where it is not 1. JAX's default lowerings of
    linear algebra, its TPU's, are such calls of XLA's own kernels ("Qr", api_version 1;
    "LuDecomposition", 2), which only XLA's TPU compiler has."""
    return custom_call(ctx, target, operands, result_avals, backend_config=None,
                       operand_layouts=None, result_layouts=None, api_version=api_version)
