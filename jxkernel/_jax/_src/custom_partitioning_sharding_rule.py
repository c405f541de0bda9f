"""jxkernel._src.custom_partitioning_sharding_rule, as JAX's: custom_partitioning's Shardy
sharding rules (jxkernel/api/custom_partitioning_sharding_rule.py) and
`sdy_sharding_rule_to_mlir`, a rule for an operation's operand and result types as the
`#sdy.op_sharding_rule` attribute of jaxlib's MLIR bindings (`jax.extend.mlir.ir`; the context
must have the sdy dialect registered).

    >>> from jxkernel._jax.extend.mlir import ir
    >>> from jxkernel._jax.extend.mlir.dialects import sdy
    >>> with ir.Context() as ctx, ir.Location.unknown(ctx):
    ...     sdy.register_dialect(ctx)
    ...     x, y = (ir.RankedTensorType.get(s, ir.F32Type.get()) for s in ((4, 8), (8, 4)))
    ...     print(sdy_sharding_rule_to_mlir(str_to_sdy_sharding_rule("i j -> j i"), [x], [y]))
    #sdy.op_sharding_rule<([i, j])->([j, i]) {i=4, j=8}, custom>
"""
from ...api.custom_partitioning_sharding_rule import (  # noqa: F401
    BATCHING, ArrayMapping, CompoundFactor, SdyShardingRule, rule_attribute,
    str_to_sdy_sharding_rule)
from ..extend.mlir import ir


def sdy_sharding_rule_to_mlir(rule, operand_types, result_types):
    """`rule` for an operation whose operands and results have these MLIR tensor types: an
    `ir.Attribute` of the sdy dialect (ValueError where counts or ranks do not match)."""
    shapes = [[tuple(ir.RankedTensorType(t).shape) for t in types]
              for types in (operand_types, result_types)]
    return ir.Attribute.parse(rule_attribute(rule, *shapes))
