"""jxkernel._src.interpreters.mlir, as jax._src.interpreters.mlir: jax.interpreters.mlir's
names (jxkernel/_jax/interpreters/mlir.py), and the `hlo` builders and `LoweringRuleContext`
a lowering rule's module imports from here in JAX.

    >>> hlo.sine.__name__, LoweringRuleContext.__name__
    ('<lambda>', 'LoweringRuleContext')
"""
from ...interpreters.mlir import (current_rule_context, emit_python_callback,  # noqa: F401
                                  lower_fun, register_lowering)
from ..lib.mlir.dialects import hlo  # noqa: F401
from ....xla.lowering import LoweringParameters, LoweringRuleContext  # noqa: F401
