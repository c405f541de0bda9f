"""jaxlib's views of a StableHLO module, for jax.stages and jax.export: the HLO form, the
MLIR `ir.Module`, the unoptimized cost estimate, and StableHLO's portable artifact (the
versioned bytecode JAX stores in `Exported.mlir_module_serialized`).

    >>> text = jax.jit(jnp.sin).lower(np.ones(3, np.float32)).as_text()
    >>> blob = portable_artifact(text)
    >>> blob[:4]
    b'ML\\xefR'
    >>> module_text(blob) == module_text(portable_artifact(module_text(blob)))
    True
"""
from __future__ import annotations

import re

from . import client as _client
from .client import xc
from .compiler import _parse_ir


def xla_computation(text: str):
    """The module as jaxlib's XlaComputation (HLO), as XLA's compiler first sees it."""
    from jaxlib import _jax
    return _jax.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False,
                                                    return_tuple=False)


def hlo_text(text: str, debug_info: bool = False) -> str:
    """XLA's HLO of the module as JAX's `Lowered.as_text("hlo")` prints it (HLO's short
    parsable form), with each op's metadata (its source line) under `debug_info`."""
    from jaxlib import _hlo
    options = _hlo.HloPrintOptions.short_parsable()
    options.print_metadata = debug_info
    return xla_computation(text).as_hlo_module().to_string(options)


def printed_text(text: str, debug_info: bool = False) -> str:
    """The module as MLIR prints it, which is what JAX's `Lowered.as_text()` shows: the short
    forms (`stablehlo.compare LT, %a, %b, SIGNED`), constants named `%cst`/`%c`, and with
    `debug_info` each op's location."""
    if xc is None:        # no jaxlib (Pyodide): our own text, in generic form in places
        return text if debug_info else _LOCATION.sub("", text)
    printed = _parse_ir(text).operation.get_asm(enable_debug_info=debug_info)
    # the parser gives what has no source line its place in our text ("-":LINE:COL): to the
    # reader that is no location at all, and JAX prints loc(unknown) there
    return _PARSE_POSITION.sub("loc(unknown)", printed) if debug_info else printed


_PARSE_POSITION = re.compile(r'loc\("-":\d+:\d+\)')
# an op's ` loc(...)` in our text: `loc(unknown)`, `loc("jit(f)/sin")`, `loc("f.py":3:0)`
_LOCATION = re.compile(r' loc\((?:"(?:[^"\\]|\\.)*"|[^()"])*\)')


def pprof_profile(profile_json: str) -> bytes:
    """A pprof profile (protocol buffer) of its JSON form (jaxlib's encoder), as JAX's
    jaxpr_util.pprof_equation_profile writes one."""
    from jaxlib import _jax
    return _jax.json_to_pprof_profile(profile_json)


def mlir_module(text: str):
    """The module parsed into jaxlib's MLIR `ir.Module` (in a fresh context)."""
    return _parse_ir(text)


def unoptimized_cost_analysis(text: str, device) -> dict | None:
    """XLA's cost estimate of the module before any optimization (JAX's Lowered.cost_analysis),
    or None where the backend is a PJRT plugin (GPU, TPU): the PJRT C API has no cost model
    of an unoptimized module (GetHloCostAnalysis), and JAX's Lowered.cost_analysis answers
    None there too. The compiled program's own estimate (Compiled.cost_analysis) works there."""
    client = _client.backend_of(device).client
    if using_pjrt_c_api(client):
        return None
    try:
        return dict(xc._xla.hlo_module_cost_analysis(client, xla_computation(text).as_hlo_module()))
    except _client.JaxRuntimeError as e:
        # jaxlib 0.11's CUDA plugin does not say "PJRT C API" in its platform_version, yet has
        # no such model either: XLA answers UNIMPLEMENTED, which JAX turns into None too
        if str(e).startswith("UNIMPLEMENTED"):
            return None
        raise


def using_pjrt_c_api(client) -> bool:
    """Is `client` a PJRT plugin's, reached through the C API (as JAX's xla_bridge tells)?"""
    return "PJRT C API" in client.platform_version


def portable_artifact(text: str) -> bytes:
    """The module as a StableHLO portable artifact (VHLO bytecode), targeting the oldest
    StableHLO version that XLA builds of the last 4 weeks still read, as JAX does. Shardy's
    meshes and shardings stay as they are (`sdy.mesh`, `sdy.sharding`) where the backend
    reads them so (`serialize_with_sdy`, JAX's choice too), not as `mhlo.sharding` strings."""
    from jaxlib import _jax
    from jaxlib.mlir.dialects import stablehlo
    target = stablehlo.get_version_from_compatibility_requirement(
        stablehlo.StablehloCompatibilityRequirement.WEEK_4)
    module = _parse_ir(text)
    with_sdy = getattr(_client.default_device().client, "serialize_with_sdy", False)
    with module.context:
        return _jax.mlir.serialize_portable_artifact(module, target, with_sdy)


def module_text(artifact: bytes, debug_info: bool = False) -> str:
    """The StableHLO text of a portable artifact (the inverse of `portable_artifact`).
    `debug_info=True` prints each operation's and argument's location too (`loc(...)`), as
    JAX's `Exported.mlir_module()` prints it (mlir.module_to_string under JAX's default
    jax_include_debug_info_in_dumps=True)."""
    from jaxlib import _jax
    module = _parse_ir('module {\n}\n')          # for a context with our dialects loaded
    with module.context as context:
        loaded = _jax.mlir.deserialize_portable_artifact(artifact, context)
        return loaded.operation.get_asm(enable_debug_info=debug_info) if debug_info \
            else str(loaded)


def refine_shapes(text: str) -> str:
    """`text` with every dynamic (`?`) size made static, following the static argument types
    of its `main` (jaxlib's shape refinement, which JAX runs before compiling a call to a
    shape-polymorphic export); the sizes computed in the module must fold to constants."""
    from jaxlib import _jax
    from jaxlib.mlir import ir
    try:
        bytecode = _jax.mlir.refine_polymorphic_shapes(
            text.encode(), enable_shape_assertions=True, validate_static_shapes=True)
    except Exception as e:      # JAX raises ValueError("Error refining shapes. ...") too
        raise ValueError(f"Error refining shapes: {e}\nThe module:\n{text}") from None
    module = _parse_ir('module {\n}\n')          # for a context with our dialects loaded
    with module.context:
        return str(ir.Module.parse(bytecode))
