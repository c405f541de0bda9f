"""jaxlib's own MLIR Python bindings and XLA client module, for the JAX names that hand them
to users: `jax.extend.mlir` (`ir`, `passmanager`, `dialects.*`) and `jax._src.lib.xla_client`.

jxkernel itself writes StableHLO as text (xla/stablehlo.py); these are for programs that build
MLIR with the bindings and run it on the PJRT client themselves, as autodidax does:

    >>> ir = module("ir")
    >>> with ir.Context() as ctx, ir.Location.unknown(ctx):
    ...     str(ir.RankedTensorType.get((2,), ir.F32Type.get()))
    'tensor<2xf32>'

jaxlib is imported here only (the rule: jaxlib stays inside jxkernel/xla/); the facades copy a
module's public names as `from M import *` would.
"""
from __future__ import annotations

import importlib

from jaxlib import _jax
from jaxlib import _profiler
from jaxlib import xla_client as _xla_client

# the modules JAX 0.10.2's jax.extend.mlir re-exports, by their jaxlib names
MODULES = ("ir", "passmanager", "dialects.arith", "dialects.builtin", "dialects.chlo",
           "dialects.func", "dialects.math", "dialects.memref", "dialects.mpmd",
           "dialects.scf", "dialects.sdy", "dialects.sparse_tensor", "dialects.stablehlo",
           "dialects.vector")


def module(name: str):
    """jaxlib's `jaxlib.mlir.<name>` (one of MODULES)."""
    if name not in MODULES:
        raise ValueError(f"no MLIR binding module {name!r}; there are {MODULES}")
    return importlib.import_module(f"jaxlib.mlir.{name}")


def star(name: str) -> dict:
    """The names `from jaxlib.mlir.<name> import *` binds."""
    mod = module(name)
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in vars(mod) if not n.startswith("_")]
    return {n: getattr(mod, n) for n in names}


def extension():
    """jaxlib's extension module, `jaxlib._jax` (JAX's `jax._src.lib._jax`)."""
    return _jax


def profiler_module():
    """jaxlib's profiler module, `jaxlib._profiler` (JAX's `jax._src.lib._profiler`)."""
    return _profiler


def xla_client():
    """jaxlib's `xla_client` module (JAX's `jax._src.lib.xla_client`)."""
    return _xla_client


def lapack():
    """jaxlib's LAPACK module, `jaxlib.lapack` (JAX's `jax._src.lib.lapack`: its `_lapack`
    loads the routines, `initialize()`, before a custom call of a LAPACK target runs)."""
    return importlib.import_module("jaxlib.lapack")


def extension_version() -> int:
    """jaxlib's C++ extension version (JAX's `jax._src.lib.jaxlib_extension_version`: JAX's
    tests and libraries compare it to decide what the runtime supports)."""
    return getattr(_xla_client, "_version", 0)


def jaxlib_version() -> str:
    """The installed jaxlib's version string (JAX's `jax._src.lib.version_str`)."""
    return importlib.import_module("jaxlib.version").__version__


def portable_artifact_functions() -> dict:
    """jaxlib's StableHLO artifact functions jax.extend.mlir exposes."""
    return {n: getattr(_jax.mlir, n) for n in (
        "deserialize_portable_artifact", "serialize_portable_artifact",
        "refine_polymorphic_shapes", "hlo_to_stablehlo")}


def make_ir_context():
    """An MLIR context of jaxlib's bindings with StableHLO and CHLO loaded (JAX's
    `mlir.make_ir_context`: for code that builds StableHLO with the bindings)."""
    ir = module("ir")
    context = ir.Context()
    module("dialects.stablehlo").register_dialect(context)
    module("dialects.chlo").register_dialect(context)
    context.load_all_available_dialects()
    return context


def create_token():
    """A new `!stablehlo.token` (`stablehlo.create_token`) at the bindings' current insertion
    point (JAX's `mlir.create_token`)."""
    return module("dialects.stablehlo").create_token()
