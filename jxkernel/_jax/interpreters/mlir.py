"""jxkernel.interpreters.mlir, as jax.interpreters.mlir: how primitives compile.

jxkernel writes StableHLO as text, not through MLIR's Python bindings. A registered rule
may build elementwise operations with `jax._src.lib.mlir.dialects.hlo` (`hlo.AddOp(x,
y).result`, as JAX's primitives guide does; they are appended to the block being lowered),
and may return JAX's one-element list; for anything else, lower a primitive as a function
of existing operations:

    >>> from jxkernel.extend.core import Primitive
    >>> axpy_p = Primitive("axpy_mlir_doc")
    >>> _ = axpy_p.def_abstract_eval(lambda a, x, y: y)
    >>> register_lowering(axpy_p, lower_fun(lambda a, x, y: a * x + y, multiple_results=False))
    >>> jax.jit(axpy_p.bind)(2.0, jnp.ones(2), jnp.ones(2))
    Array([3., 3.], dtype=float32)
"""
from ...core.primitive import lowering_rules, numpy_rules, platform_lowering_rules
from ...lax import _lowering
from ...xla.lowering import no_rule_error, rule_contexts
from ...xla.user_rules import call_cached_rule


def emit_python_callback(ctx, callback, token, operands, operand_avals, result_avals, *,
                         has_side_effect, returns_token=True, partitioned=False, sharding=None):
    """Emit a call of `callback` on the host from a lowering rule: (results, token,
    keepalive), as JAX's (see jxkernel.lax.callbacks.emit_python_callback)."""
    from ...lax.callbacks import emit_python_callback as emit  # callbacks load on first use
    return emit(ctx, callback, token, operands, operand_avals, result_avals,
                has_side_effect=has_side_effect, returns_token=returns_token,
                partitioned=partitioned, sharding=sharding)


def lower_fun(fun, multiple_results: bool = True):
    """A lowering rule that traces `fun(*args, **params)`, written with jax.numpy/lax
    operations, and compiles it in place of the primitive."""
    rule = _lowering.lower_fun(fun, multiple_results)
    # what the physical pass traces where a library's primitive has operands or results of
    # an extended dtype (core/physical.py: as JAX lowers `fun` on the logical types)
    rule.traceable = (fun, multiple_results)
    return rule


_rule_contexts = rule_contexts           # (xla/lowering.py's: overriding rules push too)


def current_rule_context():
    """The LoweringRuleContext of the registered rule running now (None outside one): where
    jax._src.lib.mlir.dialects.hlo's builders append their operations."""
    return _rule_contexts[-1] if _rule_contexts else None


def _with_context(prim, rule, cacheable=True, inline=True):
    """`rule` run with its context current, once per module for equal equations where
    `cacheable` (JAX's lowering cache: `xla/user_rules.py`); a JAX-style rule's
    one-element list of results for a single-result primitive is that result (JAX's rules
    always return a list)."""
    def run(ctx, *args, **params):
        if cacheable:
            return call_cached_rule(ctx, prim, in_context, args, params, inline)
        return in_context(ctx, *args, **params)

    def in_context(ctx, *args, **params):
        _rule_contexts.append(ctx)
        try:
            out = rule(ctx, *args, **params)
        finally:
            _rule_contexts.pop()
        if not prim.multiple_results and isinstance(out, (list, tuple)) and len(out) == 1:
            return out[0]
        return out
    run.traceable = getattr(rule, "traceable", None)     # (lower_fun's: core/physical.py)
    run.registered = True       # a library's: lowered as it is under symbolic shapes too
    return run


def register_lowering(prim, rule, platform: str | None = None, inline: bool = True,
                      cacheable: bool = True) -> None:
    """Compile `prim` with `rule` on `platform` ("cpu", "cuda", "rocm", "tpu"), or on all.
    A `cacheable` rule is called once per module for each (input types, parameters), its
    operands the arguments of a function of its own, as JAX's, emitted in place, or, with
    `inline=False`, kept as a private function of the module each equation calls (`func.call`;
    an ordered effect's tokens passed first and returned first)."""
    if platform is not None and platform not in _KNOWN_PLATFORMS:
        raise NotImplementedError(
            f"Registering an MLIR lowering rule for primitive {prim} for an unknown platform "
            f"{platform}. Known platforms are: {', '.join(_KNOWN_PLATFORMS)}.")
    traceable = getattr(rule, "traceable", None)
    if traceable is not None and platform in (None, "cpu") and (
            prim not in numpy_rules or prim in _numpy_from_lowering):
        # a rule made by lower_fun runs on the NumPy backend too: its function's jaxpr, with
        # NumPy (the backend runs no MLIR: xla/numpy_user_rules.py runs hlo's elementwise ops)
        numpy_rules[prim] = _numpy_from_lowering[prim] = _lowering.numpy_fun(*traceable)
    rule = _with_context(prim, rule, cacheable, inline)
    if platform is None:
        lowering_rules[prim] = rule
        return
    by_platform = platform_lowering_rules.setdefault(prim, {})
    by_platform[platform] = rule
    lowering_rules[prim] = _platform_dispatch(prim, by_platform)

# the NumPy rules register_lowering made from lower_fun's functions (replaced by a later one)
_numpy_from_lowering: dict = {}
# what ctx.platform says for each name register_lowering accepts
_ALIASES = {"cuda": "gpu", "rocm": "gpu"}
# the platforms JAX 0.10.2's register_lowering knows (its error lists them so)
_KNOWN_PLATFORMS = ("cpu", "cuda", "gpu", "oneapi", "rocm", "tpu")


def _platform_dispatch(prim, by_platform):
    def rule(ctx, *args, **params):
        for platform, platform_rule in by_platform.items():
            if _ALIASES.get(platform, platform) == ctx.platform or platform == ctx.platform:
                # (its inner equations for this platform alone, as JAX's)
                return ctx.module_ctx.for_one_platform(
                    lambda: platform_rule(ctx, *args, **params))
        raise no_rule_error(prim.name, ctx.platform)
    rule.registered = True
    return rule
