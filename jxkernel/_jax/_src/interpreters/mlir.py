"""jxkernel._src.interpreters.mlir, as jax._src.interpreters.mlir: jax.interpreters.mlir's
names (jxkernel/_jax/interpreters/mlir.py), and the `hlo` builders and `LoweringRuleContext`
a lowering rule's module imports from here in JAX (`LoweringParameters` too: a
lowering's override rules); `_lowerings` (the lowering rules by
primitive) and `_constant_handlers` (a library's array class's constants: core/earray.py);
`jaxpr_subcomp`, every jaxpr's lowering, a view of jxkernel.xla.lowering's: a wrapper set here
is set there, so that every lowering calls it (as a test of JAX's wraps JAX's to collect the
jaxprs a jit lowers); `ir`, jaxlib's MLIR bindings (`mlir.ir.DictAttr` of a compiler_ir()'s
attributes), loaded on first access; `ir_attribute`, a value as an attribute's text.

    >>> hlo.sine.__name__, LoweringRuleContext.__name__
    ('<lambda>', 'LoweringRuleContext')
"""
import sys
import types

from ...interpreters.mlir import (current_rule_context, emit_python_callback,  # noqa: F401
                                  lower_fun, register_lowering)
from ..lib import mlir as _lib_mlir
from ..lib.mlir.dialects import hlo  # noqa: F401
from ....core.earray import constant_handlers as _constant_handlers  # noqa: F401
from ....core.lazy_names import lazy_names
from ....core.primitive import lowering_rules as _lowerings  # noqa: F401
from ....xla.lowering import LoweringParameters, LoweringRuleContext  # noqa: F401
from ....xla import lowering as _lowering
from ....xla.effect_tokens import TokenSet  # noqa: F401
from ....xla.ffi import attribute as _attribute


def ir_attribute(value) -> str:
    """JAX's `mlir.ir_attribute`: a Python or NumPy value (a dict, a scalar, a string, an
    array) as an MLIR attribute, here its text (jxkernel's lowering rules write StableHLO
    text), which `ffi_lowering(..., extra_attributes={name: ir_attribute(...)})` takes.

        >>> ir_attribute({"num_batch_dims": "1"})
        '{num_batch_dims = "1"}'
    """
    return _attribute(value)


# JAX's `make_ir_context()` (an MLIR context of jaxlib's bindings, StableHLO loaded) and
# `create_token()`, xla/mlir_bindings.py's: jaxlib's MLIR loads on their first access
_lazy_getattr, _ = lazy_names(__name__, {}, {
    name: ("jxkernel.xla.mlir_bindings", name) for name in ("make_ir_context", "create_token")})


class _MlirView(types.ModuleType):
    """This module, its `jaxpr_subcomp` read from and written to xla/lowering.py's."""

    def __getattr__(self, name):             # (only for names not found here)
        if name == "jaxpr_subcomp":
            return _lowering.jaxpr_subcomp
        if name == "ir":     # jaxlib's MLIR `ir` (what compiler_ir() is made of), loaded then
            return _lib_mlir.ir
        if name in ("make_ir_context", "create_token"):
            return _lazy_getattr(name)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name == "jaxpr_subcomp":
            setattr(_lowering, name, value)
        else:
            super().__setattr__(name, value)


# Kept, by design: Python gives a module no `__setattr__` hook (PEP 562 gives `__getattr__` and
# `__dir__` only), and JAX's tests set `mlir.jaxpr_subcomp` on the module they imported, which
# must reach xla/lowering.py's. The language reference's way to customize a module's attribute
# setting ("Customizing module attribute access") is this assignment of a ModuleType subclass.
sys.modules[__name__].__class__ = _MlirView
