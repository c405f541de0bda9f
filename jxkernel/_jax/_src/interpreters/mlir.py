"""jxkernel._src.interpreters.mlir, as jax._src.interpreters.mlir: jax.interpreters.mlir's
names (jxkernel/_jax/interpreters/mlir.py), and the `hlo` builders and `LoweringRuleContext`
a lowering rule's module imports from here in JAX (`LoweringParameters` too: a
lowering's override rules); `_lowerings` (the lowering rules by
primitive) and `_constant_handlers` (a library's array class's constants: core/earray.py).

    >>> hlo.sine.__name__, LoweringRuleContext.__name__
    ('<lambda>', 'LoweringRuleContext')
"""
from ...interpreters.mlir import (current_rule_context, emit_python_callback,  # noqa: F401
                                  lower_fun, register_lowering)
from ..lib.mlir.dialects import hlo  # noqa: F401
from ....core.earray import constant_handlers as _constant_handlers  # noqa: F401
from ....core.primitive import lowering_rules as _lowerings  # noqa: F401
from ....xla.lowering import LoweringParameters, LoweringRuleContext  # noqa: F401
