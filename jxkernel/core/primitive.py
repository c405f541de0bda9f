"""Primitives and their rule tables.

A primitive is a name plus rules. The rules live in plain dicts keyed by the
primitive, filled in right below each primitive's definition in `lax/`:

    sin_p = Primitive("sin")
    abstract_eval_rules[sin_p] = ...
    lowering_rules[sin_p] = ...

`bind(*arrays, **params)` hands the primitive to the current trace.
"""
from __future__ import annotations

import os
import sys

from . import trace as _trace
from .ir import Effect, EffectTypeSet, JaxprInputEffect, literal_value  # noqa: F401
# the side-effect tables live in core/ir.py, beside JaxprEqn.effects, their reader
from .ir import effect_rules, effectful_abstract_eval_rules
from .native import native

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class Primitive:
    """An operation the transformations know by its rules. Arrays positional, params keyword."""
    __slots__ = ("name", "multiple_results")
    # effects_of is this class's own: JaxprEqn.effects (core/ir.py) then answers "none" without
    # calling it for a primitive in neither effect table (a subclass's own effects_of is called)
    plain_effects = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.plain_effects = cls.effects_of is Primitive.effects_of

    def __init__(self, name: str, multiple_results: bool = False):
        self.name = name
        self.multiple_results = multiple_results
        all_primitives.setdefault(name, self)     # a user's Primitive("sin") leaves lax's sin
        if not sys._getframe(1).f_code.co_filename.startswith(_PACKAGE_DIR):
            foreign_primitives.add(self)

    def _python_bind(self, *args, **params):
        return _trace._ctx.trace.process_primitive(self, args, params)

    # Eagerly, the compiled fast path (core/native.py) first runs the primitive's last run
    # in C when these operands and params match it (xla/dispatch.py's _last_run), and
    # otherwise calls _python_bind
    bind = native.bind(_python_bind) if native else _python_bind

    # JAX's way of giving a primitive its rules (jax.extend.core.Primitive); each fills the
    # table the transformations read, and returns the rule, so it works as a decorator.
    def def_impl(self, impl):
        """Run `impl(*args, **params)` on concrete values when bound eagerly.

        >>> p = Primitive("twice"); _ = p.def_impl(lambda x: 2 * x)
        >>> p.bind(3)
        6
        """
        if isinstance(impl, CompiledImpl) and impl.prim is self:
            impl_rules.pop(self, None)     # `p.impl` saved before any rule: none again
            return impl
        impl_rules[self] = lambda *args, **params: impl(*map(literal_value, args), **params)
        return impl

    def def_abstract_eval(self, abstract_eval):
        """`abstract_eval(*avals, **params)` gives the output ShapedArray(s), for tracing."""
        abstract_eval_rules[self] = abstract_eval
        return abstract_eval

    def def_effectful_abstract_eval(self, effectful_abstract_eval):
        """`effectful_abstract_eval(*avals, **params)` gives (output aval(s), effects): the
        equation's effects are read from it, with the equation's input avals (JAX's way of
        declaring a primitive's side effects).

        >>> p = Primitive("noisy"); _ = p.def_effectful_abstract_eval(lambda a: (a, {"beep"}))
        >>> p.abstract_eval(1.0)
        (1.0, frozenset({'beep'}))
        """
        abstract_eval_rules[self] = lambda *avals, **params: \
            effectful_abstract_eval(*avals, **params)[0]
        effectful_abstract_eval_rules[self] = effectful_abstract_eval
        return effectful_abstract_eval

    @property
    def impl(self):
        """The impl rule as registered now (JAX's attribute): code that saves it, swaps in
        another with def_impl and restores the saved one (JAX's tests count calls so) gets
        the function itself back, not a lookup that would find its own replacement.

        >>> p = Primitive("thrice"); _ = p.def_impl(lambda x: 3 * x)
        >>> saved = p.impl; _ = p.def_impl(lambda x: saved(x) + 1); p.bind(2)
        7
        >>> _ = p.def_impl(saved); p.bind(2)
        6
        """
        found = impl_rules.get(self)
        return found if found is not None else CompiledImpl(self)

    def abstract_eval(self, *avals, **params):
        """(output aval(s), effects), as JAX's `Primitive.abstract_eval` returns them."""
        effectful = effectful_abstract_eval_rules.get(self)
        if effectful is not None:
            out, effects = effectful(*avals, **params)
            return out, frozenset(effects)
        return rule("abstract_eval", self)(*avals, **params), frozenset()

    def effects_of(self, params, avals=None) -> frozenset:
        """The side effects an equation of this primitive with `params` (and input `avals`)
        has: its effectful abstract eval's, else its `effect_rules` entry; none without one."""
        effectful = effectful_abstract_eval_rules.get(self)
        if effectful is not None and avals is not None:
            return frozenset(effectful(*avals, **params)[1])
        effects = effect_rules.get(self)
        return frozenset() if effects is None else effects(params)

    def get_bind_params(self, params) -> dict:
        """The keywords to `bind` an equation's primitive with, from its `params` (as JAX's,
        for interpreters of jaxprs): jxkernel binds every primitive with its params as they are.

        >>> Primitive("twice_params").get_bind_params({"n": 2})
        {'n': 2}
        """
        return dict(params)

    def __repr__(self):
        return self.name

    __str__ = __repr__


class CompiledImpl:
    """`p.impl` of a primitive with no impl rule: `p` compiled alone and run, as an eager
    bind does (xla/dispatch.py's `run_compiled`, set in `compiled_impl` as it loads). Given
    back to `def_impl`, it removes the rule set since."""
    __slots__ = ("prim",)

    def __init__(self, prim):
        self.prim = prim

    def __call__(self, *args, **params):
        return compiled_impl[0](self.prim, args, params)


# how a primitive without an impl rule runs eagerly: set by xla/dispatch.py (the layer that
# compiles) when it loads
compiled_impl: list = [None]


all_primitives: dict[str, Primitive] = {}

# rule tables -----------------------------------------------------------------
# abstract_eval(*avals, **params) -> aval, or a list of avals when multiple_results
abstract_eval_rules: dict = {}
# lowering(ctx, *values, **params) -> value or list of values (StableHLO, see xla/lowering.py)
lowering_rules: dict = {}
# impl(*args, **params): eager evaluation; default: compile the one primitive with XLA
impl_rules: dict = {}
# jvp(primals, tangents, **params) -> (primal_out, tangent_out)
jvp_rules: dict = {}
# transpose(cotangent, *args, **params) -> cotangents of the linear args
transpose_rules: dict = {}
# batching(batched_args, batch_dims, **params) -> (out, out_dims)
batching_rules: dict = {}
# axis_batching(axis_data, vals, dims, **params): batching that needs the axis's name and size
# (psum, all_gather, axis_index, ...) or maps a jaxpr inside (jit, cond, scan)
axis_batching_rules: dict = {}
# partial_eval(trace, args, params): primitives with jaxprs inside (jit, cond, scan) split
# their body into a known and an unknown part instead of being staged whole
partial_eval_rules: dict = {}
# staging(trace, args, params) -> outputs: primitives that stage specially (jit inline=True
# inlines its jaxpr instead of recording one equation)
staging_rules: dict = {}
# const_folding(*consts, **params) -> (value, aval) or None: evaluates on constants while
# staging (e.g. converting a Python scalar's dtype), as JAX's const folding does
const_folding_rules: dict = {}
# forwarding(in_avals, params) -> per result, the index of the operand it equals, or None: a
# jit trace hands that operand back and stages no equation (JAX's pe.forwarding_rules: a
# broadcast_in_dim to the operand's own shape); partial evaluation and linear_transpose's
# trace record the equation, as JAX's JaxprTrace does
forwarding_rules: dict = {}
# platform_lowering: {platform: lowering} of primitives lowered per platform by users
# (interpreters.mlir.register_lowering(..., platform=)); lowering_rules dispatches on it
platform_lowering_rules: dict = {}
# sharding(name, in_avals, params, out_avals) -> each result dimension's mesh axes, or None
# (untyped): sharding in types on Explicit meshes (core/sharding_types.py)
sharding_rules: dict = {}
# sharding_typing(in_avals, params, out_avals) -> typed out_avals: results typed by a param
# (sharding_constraint) or an inner jaxpr (jit, cond, scan) rather than by their operands
sharding_typing_rules: dict = {}
# side_effecting: primitives whose equations run for what they do, not only for their results
# (io_callback); dead-code elimination (core/dce.py) keeps them
side_effecting: set = set()
# the primitives made outside jxkernel (a library's, a user's `core.Primitive("prim")`): one
# of their equations without results or effects is dead code, as in JAX; jxkernel's own
# primitives without results (debug_print, box_set) stand for effects it does not type
foreign_primitives: set = set()
# own_vma: primitives whose abstract evaluation sets `vma` itself (collectives, pvary); any
# other primitive's inputs are matched with pvary (core/vma.py)
own_vma_rules: set = set()
# numpy(*values, **params) -> value or list of values: the primitive evaluated with NumPy on
# np.ndarrays, results of the dtypes and shapes its abstract eval gives (core/numpy_eval.py
# interprets a jaxpr with them, where jaxlib cannot run)
numpy_rules: dict = {}
# numpy_lowering(params, devices): what an equation does when its program is lowered for the
# NumPy backend's devices, where XLA's lowering rule acts at lowering time
# (inspect_array_sharding's callback); xla/pipeline.py runs them as it "lowers" (keeps the
# jaxpr), once per program, as XLA's rules run once per module
numpy_lowering_rules: dict = {}
# jet(primals, series, **params) -> (primal out, its Taylor coefficients): jax.experimental.jet's
# rules, all registered by api/jet.py (JAX keeps them in jet.py); a primitive without one
# raises KeyError there, as JAX's table does
jet_rules: dict = {}

# effects whose equation dead-code elimination may still drop when its results are unused
# (JAX's pe.dceable_effects: a Ref's read)
dceable_effects = EffectTypeSet()


RULE_TABLES = {
    "abstract_eval": abstract_eval_rules,
    "lowering": lowering_rules,
    "impl": impl_rules,
    "jvp": jvp_rules,
    "transpose": transpose_rules,
    "batching": batching_rules,
    "axis_batching": axis_batching_rules,
    "partial_eval": partial_eval_rules,
    "staging": staging_rules,
    "const_folding": const_folding_rules,
    "forwarding": forwarding_rules,
    "platform_lowering": platform_lowering_rules,
    "sharding": sharding_rules,
    "sharding_typing": sharding_typing_rules,
    "own_vma": own_vma_rules,
    "numpy": numpy_rules,
    "numpy_lowering": numpy_lowering_rules,
    "jet": jet_rules,
    "effects": effect_rules,
}


# JAX raises the builtin class itself, and user code prints `type(e).__name__`.
MissingRuleError = NotImplementedError


# JAX's words for a missing rule, so its documentation and users' `except` clauses apply.
_MISSING = {
    "abstract_eval": "Abstract evaluation for '{}' not implemented",
    "impl": "Evaluation rule for '{}' not implemented",
    "jvp": "Differentiation rule for '{}' not implemented",
    "transpose": "Transpose rule (for reverse-mode differentiation) for '{}' not implemented",
    "batching": "Batching rule for '{}' not implemented",
    "lowering": "MLIR translation rule for primitive '{}' not found",
    "numpy": "NumPy evaluation rule for '{}' not implemented",
}


def rule(table: str, prim: Primitive):
    """The `table` rule of `prim`, or JAX's NotImplementedError naming both."""
    try:
        return RULE_TABLES[table][prim]
    except KeyError:
        raise MissingRuleError(_MISSING[table].format(prim.name)) from None
