"""Users' lowering rules (`jax.interpreters.mlir.register_lowering`) run as JAX 0.10.2 runs
them: lowered once per module for each (primitive, input types, parameters), and emitted
inline at each equation that matches (JAX's `lowering_cache` and `inlined_func_call`).

    p.bind(x, x, y) twice in one jit: the rule is called once, with %arg0, %arg1, %arg2
"""
from . import stablehlo as hlo
from .effect_tokens import TOKEN, TokenSet, take_tokens_out
from .lowering import LoweringRuleContext, new_function


def call_cached_rule(ctx: LoweringRuleContext, prim, rule, args, params, inline=True):
    """`rule(ctx, *args, **params)`'s results, the rule lowered once per module for each
    (primitive, input types, parameters) into a function of its own whose parameters are fresh
    block arguments (a value passed twice reaches the rule as two), its body emitted here. A
    module for several platforms, with symbolic shapes or inside a shard_map body lowers the
    rule in place, each time."""
    module_ctx = ctx.module_ctx
    key = _rule_key(prim, ctx, params)
    if key is None or module_ctx.multi_platform or module_ctx.symbolic is not None \
            or module_ctx.manual is not None:
        return rule(ctx, *args, **params)
    if not inline:
        return _called(ctx, prim, rule, key, args, params)
    if ctx.tokens_in:           # (its tokens are the block's)
        return rule(ctx, *args, **params)
    fn = module_ctx.rule_lowerings.get(key)
    if fn is None:
        fn = module_ctx.rule_lowerings[key] = _rule_function(module_ctx, ctx, prim, rule, params)
    outs = ctx.block.inline(fn, args)
    return outs if prim.multiple_results else outs[0]


def _rule_key(prim, ctx, params):
    """The cache key JAX's lowering cache uses (None where a parameter is unhashable)."""
    key = (prim, tuple(ctx.avals_in), tuple(sorted(params.items())))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _rule_function(module_ctx, ctx, prim, rule, params) -> hlo.Function:
    # not one of the module's functions: its body is emitted where it is used
    fn = hlo.Function(module_ctx.module, prim.name, [hlo.aval_type(a) for a in ctx.avals_in],
                      public=False)
    inner = LoweringRuleContext(module_ctx, fn.body, tuple(ctx.avals_in), list(ctx.avals_out),
                                None, prim.name)
    outer, module_ctx.name_stack = module_ctx.name_stack, ""    # named as JAX's: the primitive
    try:
        outs = rule(inner, *fn.args, **params)
    finally:
        module_ctx.name_stack = outer
    fn.set_results(list(outs) if prim.multiple_results else [outs])
    return fn


def _called(ctx, prim, rule, key, args, params):
    """A `func.call` of the rule lowered once per module into a private function of its own
    (JAX's `inline=False`), an ordered effect's tokens its first arguments and results."""
    module_ctx, effects = ctx.module_ctx, [e for e, _ in ctx.tokens_in.items()]
    fn = module_ctx.rule_lowerings.get(("called", key))
    if fn is None:
        fn = new_function(module_ctx, prim.name, [TOKEN] * len(effects) +
                          [hlo.aval_type(a) for a in ctx.avals_in], public=False)
        inner = LoweringRuleContext(module_ctx, fn.body, tuple(ctx.avals_in),
                                    list(ctx.avals_out), None, prim.name)
        inner.tokens_in = TokenSet(dict(zip(effects, fn.args)))
        outer, module_ctx.name_stack = module_ctx.name_stack, ""
        try:
            outs = rule(inner, *fn.args[len(effects):], **params)
        finally:
            module_ctx.name_stack = outer
        outs = list(outs) if prim.multiple_results else [outs]
        if effects:
            take_tokens_out(inner, prim)
            outs = [fn.body.effect_token] * len(effects) + outs
        fn.set_results(outs)
        module_ctx.rule_lowerings[("called", key)] = fn
    results = ctx.block.call(fn, [t for _, t in ctx.tokens_in.items()] + list(args), ctx.loc)
    tokens, results = results[:len(effects)], results[len(effects):]
    if effects:
        ctx.set_tokens_out(TokenSet(dict(zip(effects, tokens))))
    return results if prim.multiple_results else results[0]
