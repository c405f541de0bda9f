"""Lowering: an interpreter from jaxprs to StableHLO text.

Each primitive's lowering rule (in `lowering_rules`, defined beside the
primitive in lax/) receives a `LoweringRuleContext` and the StableHLO values of
its operands, and returns the values of its results:

    def _sin_lowering(ctx, x):
        return ctx.op1("stablehlo.sine", [x])
"""
from __future__ import annotations

import collections
import threading
import warnings
from typing import Callable, NamedTuple

import numpy as np

from .memory_kinds import annotated, program_kinds, with_kind
from ..core import avals as _avals
from ..core.config import config
from ..core.dce import dce_jaxpr
from ..core.errors import aval_text
from ..core.ir import ClosedJaxpr, Jaxpr, Literal
from ..core.mesh import UNCONSTRAINED, AxisType
from ..core.primitive import lowering_rules
from ..core.source_info import (OutsideSourceInfo, SourceInfo, positions, stack_text,
                                user_stacklevel)
from . import effect_tokens as _tokens
from . import stablehlo as hlo
from .client import JAX_NAMES
from .layout import Format, layout_mode

# The platform index argument of a module for several platforms, as JAX marks it: the same
# value all through a run, which inner functions take first and callers pass along
PLATFORM_INDEX_TYPE = hlo.tensor_type((), np.int32)
PLATFORM_INDEX_ATTR = 'jax.global_constant = "_platform_index"'


class NeedsMesh(ValueError):
    """Lowering met a sharding constraint in a module compiled for one device; the caller
    (jit) compiles it again partitioned over `mesh`."""

    def __init__(self, message, mesh):
        super().__init__(message)
        self.mesh = mesh


class ModuleContext:
    """What every rule of one module shares: the module, its platform, its nested functions.

    A module for several `platforms` (jax.export's) lowers each equation once per platform
    where its rule reads `platform`, and picks among the lowerings by a platform index
    argument (see `lower_per_platform`).
    """

    def __init__(self, module: hlo.Module, platform: str, platforms=None):
        self.module = module
        self.platforms = tuple(platforms) if platforms else (platform,)
        self._platform = self.platforms[0]
        self._platform_reads = 0
        self.took_default = False                # the lowering is its rule's default (below)
        self.functions: dict = {}                # (id(jaxpr), key) -> (jaxpr, Function)
        self.rule_lowerings: dict = {}           # users' rules lowered: xla/user_rules.py
        self.host_callbacks: list = []
        self.mesh = None                         # a sharded module's Mesh (named @mesh)
        self.devices = ()                        # the devices it is lowered for, where known
        self.donated: list = []                  # per input: donated after all (set_up_aliases)
        self.manual = None                       # in a shard_map body: (mesh, manual axes)
        self.sharding_groups = 0                 # shard_alike's Shardy groups so far
        self.tokens = ()          # the ordered effects main takes and returns tokens for
        # jax.export with symbolic shapes swaps in its own rules, and `symbolic` computes
        # dimension sizes in the module (export/_symbolic_lowering.py)
        self.rules = lowering_rules
        self.lowering_parameters = _PLAIN_PARAMETERS    # JAX's name; export's say for_export
        self.one_platform = None                 # set by for_one_platform
        self.symbolic = None
        self.global_constants = False            # calls an Exported that takes global constants
        # Each op's location: its equation's name under the function's (`jit(f)/sin`, as
        # JAX's name stack; XLA keeps it as the op's op_name and names HLO values after it),
        # or with `source_lines` the user's line (`%explain` reads it back from XLA's metadata).
        # `name_stack` is the text before the equation's own name stack: "jit(f)/", and inside
        # a rule's inner jaxpr the rule's op and scope ("jit(f)/jvp()/cond/branch_0_fun/")
        self.name_stack = ""
        self.source_lines = False
        # with source_lines "named" (JAX's locations): the frames ((code, instruction offset),
        # innermost first) each op's own follow, up to jaxpr_subcomp's: in main, the user's
        # frames that lowered it (JAX's outer traceback); inside a region, its equation's
        # frames then those; none in an inner function, as JAX lowers one for any caller
        self.outer_frames: tuple = ()
        self.full_tracebacks = True     # (jax_include_full_tracebacks_in_locations)
        self.rule_source = None                  # the equation a lower_fun rule lowers: its source
        self.keepalives: list = []               # objects a rule asks to outlive the lowering

    def add_keepalive(self, keepalive) -> None:
        """Keep `keepalive` (a rule's host callback, say) alive with this module (JAX's
        ModuleContext.add_keepalive)."""
        self.keepalives.append(keepalive)

    @property
    def platform(self) -> str:
        """The platform the rule being lowered is for ("cpu", "gpu"). Reading it is what makes
        a rule one that differs per platform, in a module for several."""
        self._platform_reads += 1
        return self._platform

    @property
    def multi_platform(self) -> bool:
        return len(self.platforms) > 1

    def for_one_platform(self, lower: Callable):
        """`lower()` with the equations it lowers lowered for the platform being lowered for
        alone: a rule registered for some platforms (`register_lowering(p, rule, "cpu")`)
        lowers inner equations, as JAX's lower_per_platform narrows the platforms of its
        rule's context, whose own rules may exist for that platform only."""
        saved, self.one_platform = self.one_platform, self._platform
        try:
            return lower()
        finally:
            self.one_platform = saved

    def lower_for(self, platform: str, lower: Callable) -> tuple:
        """(`lower()` with rules seeing `platform`, whether one of its rules read it). A rule
        lowered inside `lower` (a branch's equations) answers for itself, not for `lower`."""
        saved = self._platform, self._platform_reads, self.took_default
        self._platform, self._platform_reads, self.took_default = platform, 0, False
        try:
            return lower(), self._platform_reads > 0
        finally:
            self._platform, self._platform_reads, self.took_default = saved


class LoweringParameters:
    """JAX's `mlir.LoweringParameters`, the part jxkernel reads: `override_lowering_rules`,
    (primitive, rule) pairs lowered in place of those primitives' own rules in one lowering
    (`jit(f).trace(x).lower(_private_parameters=...)`). A rule is called as jxkernel's are,
    `rule(ctx, *operands, **params)`, and returns its results as a list, as JAX's do.

    >>> LoweringParameters(override_lowering_rules=()).override_lowering_rules
    ()
    """

    def __init__(self, override_lowering_rules=None, global_constant_computation=False,
                 for_export=False, export_ignore_forward_compatibility=False,
                 hoist_constants_as_args=False):
        self.override_lowering_rules = override_lowering_rules
        self.global_constant_computation = global_constant_computation
        # what a rule may ask of the lowering it is part of (`ctx.module_context.
        # lowering_parameters`): whether it is jax.export's, under
        # jax_export_ignore_forward_compatibility, and whether a rule's constants become
        # arguments (never here: a rule's are embedded, as JAX's default)
        self.for_export = for_export
        self.export_ignore_forward_compatibility = export_ignore_forward_compatibility
        self.hoist_constants_as_args = hoist_constants_as_args

    def rules(self) -> dict | None:
        """The rule table of a lowering under these overrides (None: the usual one)."""
        if not self.override_lowering_rules:
            return None
        table = dict(lowering_rules)
        for prim, rule in self.override_lowering_rules:
            table[prim] = (lambda ctx, *a, _rule=rule, **p: _in_context(_rule, ctx, a, p)) \
                if prim.multiple_results else _single_result(rule)
        return table


_PLAIN_PARAMETERS = LoweringParameters()
_NO_TOKENS = _tokens.TokenSet()
# the contexts of the users' rules running now, innermost last: jax._src.lib.mlir.dialects.hlo's
# builders append to its block (a rule registered with jax's register_lowering, or overriding)
rule_contexts: list = []


def _single_result(rule):
    """A JAX-convention rule (results as a list) for a primitive of one result."""
    def lowered(ctx, *args, **params):
        out = _in_context(rule, ctx, args, params)
        return out[0] if isinstance(out, (list, tuple)) else out
    return lowered


def _in_context(rule, ctx, args, params):
    rule_contexts.append(ctx)
    try:
        return rule(ctx, *args, **params)
    finally:
        rule_contexts.pop()


class LoweringRuleContext:
    """One equation's view while lowering: its block, types, source line and name (`sin`,
    `jit(g)`: what its ops' location says)."""
    __slots__ = ("module_ctx", "block", "avals_in", "avals_out", "source_info", "name",
                 "tokens_in", "tokens_out")

    def __init__(self, module_ctx, block, avals_in, avals_out, source_info=None, name=None):
        self.module_ctx, self.block = module_ctx, block
        self.avals_in, self.avals_out = avals_in, avals_out
        self.source_info, self.name = source_info, name
        # a library's ordered effects' tokens (effect_tokens.py), JAX's names
        self.tokens_in, self.tokens_out = _NO_TOKENS, None

    def set_tokens_out(self, tokens_out) -> None:
        """Give the tokens this equation's ordered effects leave (JAX's; once)."""
        assert self.tokens_out is None, "Should only set `tokens_out` once."
        self.tokens_out = tokens_out

    def __repr__(self):
        # the fields a rule reads; JAX's dataclass repr also shows its MLIR context and caches
        return f"LoweringRuleContext(avals_in={self.avals_in!r}, avals_out={self.avals_out!r})"

    @property
    def platform(self) -> str:
        return self.module_ctx.platform

    def typed_as(self, avals, outs) -> list:
        """Values `outs` of types `avals` constrained to the types' shardings, as a
        primitive's results are (an optimization barrier's inside a rule: JAX's
        lower_with_sharding_in_types of each; left unconstrained, XLA reads an unreduced
        value as replicated)."""
        return _typed_layouts(self, [_Typed(a) for a in avals], outs)

    def default_rule(self) -> None:
        """Say that this rule lowers as its default, JAX's rule registered for no platform in
        particular (`ctx.platform` not one it has its own rule for: XLA's Cholesky on a TPU):
        in a module for several platforms, JAX puts the default's branch after those of the
        platforms' own rules, and so does `lower_per_platform`."""
        self.module_ctx.took_default = True

    @property
    def module_context(self) -> ModuleContext:
        """JAX's name for the module's context (`ctx.module_context.add_keepalive(...)`)."""
        return self.module_ctx

    @property
    def frames(self) -> tuple:
        """With JAX's locations (source_lines "named"): this equation's frames, innermost
        first, then those it was lowered under (ModuleContext.outer_frames)."""
        return source_frames(self.source_info) + self.module_ctx.outer_frames

    @property
    def loc(self):
        named = None if self.name is None else \
            hlo.string_attr(self.module_ctx.name_stack + self.name)
        if self.module_ctx.source_lines == "named":
            # JAX's debug info (`as_text(debug_info=True)`, `compiler_ir()`): the op's name
            # around its call sites, each frame's qualified name around its file and span
            # (XLA's HLO says `op_name=` and the frames)
            where = frames_location(self.frames, self.module_ctx.full_tracebacks)
            if named is None:
                return None if where is None else f"loc({where})"
            return f"loc({named})" if where is None else f"loc({named}({where}))"
        if self.module_ctx.source_lines:
            info = self.source_info
            if info is None:
                return None
            where = f"{hlo.string_attr(info.file)}:{info.line}:0"
            # a plain file location: XLA keeps it as `metadata={source_file=...
            # source_line=...}` in the optimized HLO (a named loc becomes a stack-frame table)
            return f"loc({where})"
        return None if named is None else f"loc({named})"

    def op(self, name, operands, attrs=None, regions=(), result_types=None) -> list:
        """Emit op `name`; results typed as this equation's outputs unless given."""
        if result_types is None:
            result_types = [hlo.aval_type(a) for a in self.avals_out]
        return self.block.op(name, operands, result_types, attrs, regions, self.loc)

    def op1(self, name, operands, attrs=None, regions=(), result_type=None):
        """Emit a one-result op, typed as this equation's (first) output unless given."""
        if result_type is None:
            result_type = hlo.aval_type(self.avals_out[0])
        return self.block.op(name, operands, [result_type], attrs, regions, self.loc)[0]

    def constant(self, value, dtype=None):
        return self.block.constant(value, dtype)

    def new_block(self, arg_types) -> hlo.Block:
        return self.block.function.new_block(arg_types)

    def region_block(self, arg_types) -> hlo.Block:
        """A block for a reducer region built by the rule: its ops are located as the rule's,
        its arguments at the primitive's bare name, as in JAX's modules (XLA names the
        reducer's parameters `%reduce_sum.3`, its add `jit(f)/reduce_sum`)."""
        loc = self.loc
        if self.module_ctx.source_lines or self.name is None:
            return self.block.function.new_block(arg_types, loc)
        bare = self.name.rsplit("/", 1)[-1]
        return self.block.function.new_block(arg_types, loc, f"loc({hlo.string_attr(bare)})")

    def renamed(self, name: str) -> LoweringRuleContext:
        """This context with its ops named `name` under the equation's name stack (JAX names
        a checkpoint's ops after its primitive, `remat2`)."""
        info = self.source_info
        if info is not None and info.name_stack:
            name = f"{stack_text(info.name_stack)}/{name}"
        return LoweringRuleContext(self.module_ctx, self.block, self.avals_in, self.avals_out,
                                   self.source_info, name)

    def with_block(self, block) -> LoweringRuleContext:
        return LoweringRuleContext(self.module_ctx, block, self.avals_in, self.avals_out,
                                   self.source_info, self.name)

    def with_avals(self, avals_in, avals_out) -> LoweringRuleContext:
        """This context with other types for its operands and results (a rule run on
        widened values: `lax._lowering.widen_2bit`); its tokens kept."""
        ctx = LoweringRuleContext(self.module_ctx, self.block, avals_in, avals_out,
                                  self.source_info, self.name)
        ctx.tokens_in = self.tokens_in
        return ctx

    @property
    def scope(self) -> str:
        """The text the names of this equation's inner equations start with: the function's
        and the equation's own name stack (`jit(f)/jvp()/`), as JAX's `ctx.name_stack`."""
        info = self.source_info
        outer = self.module_ctx.name_stack
        if info is None or not info.name_stack:
            return outer
        return f"{outer}{stack_text(info.name_stack)}/"

    def lower_jaxpr(self, jaxpr, args, block=None, scope=None) -> list:
        """Lower `jaxpr` inline into `block` (default: this equation's block) with operand
        values `args`; a ClosedJaxpr's consts are embedded as constants. Its equations are
        named under this one's name stack and `scope` (a cond's `cond/branch_0_fun`), as JAX's
        rules name the jaxprs they lower."""
        block = block or self.block
        consts = []
        if isinstance(jaxpr, ClosedJaxpr):
            consts = embedded_consts(block, jaxpr.consts, jaxpr.jaxpr.constvars)
            jaxpr = jaxpr.jaxpr
        module_ctx = self.module_ctx
        outer = module_ctx.name_stack
        inner = self.scope if scope is None else f"{self.scope}{scope}/"
        outer_frames = module_ctx.outer_frames
        if module_ctx.source_lines == "named":      # its ops' frames follow this equation's
            if block is not self.block and self.loc is not None:
                block.fallback = self.loc   # (a region's constants: at its op, as JAX's)
            module_ctx.outer_frames = self.frames
        elif inner is outer:
            return lower_jaxpr_into(module_ctx, block, jaxpr, consts, args)
        module_ctx.name_stack = inner
        try:
            return lower_jaxpr_into(module_ctx, block, jaxpr, consts, args)
        finally:
            module_ctx.name_stack, module_ctx.outer_frames = outer, outer_frames

    def call_jaxpr(self, jaxpr: ClosedJaxpr, args, name="inner", placed=None) -> list:
        """Lower `jaxpr` once per module as a private function and call it; `placed`: (per
        operand, per result) whether it is given a sharding on the one device (a pinned
        jit's), constrained to it inside the function, as JAX's."""
        # a library's ordered effects (effect_tokens.py): as JAX's, the function takes a token
        # per effect first and gives the next ones back first
        ordered = _tokens.ordered_library_effects(_effects_of(jaxpr))
        if self.module_ctx.symbolic is not None or has_ordered_effect(jaxpr, library=False):
            # inline: main's symbolic values are out of a function's reach, and the ordered
            # effects of debug prints and io_callbacks stay threaded by this block's token
            return self.lower_jaxpr(jaxpr, args)
        fn = function_for(self.module_ctx, jaxpr, name, placed, len(ordered))
        tokens = [_tokens.block_token(self.block, self.loc)] * len(ordered) if ordered else []
        outs = self.block.call(fn, [*platform_index_args(self.block), *tokens, *args], self.loc)
        if ordered:
            _tokens.take_main_tokens(self.block, outs[:len(ordered)])
        return outs[len(ordered):]



# ------------------------------------------------------------------ ordered effects
TOKEN = _tokens.TOKEN
_ORDERED = {"debug_print", "io_callback"}


def effect_token(ctx: "LoweringRuleContext"):
    """The token the ordered effects of `ctx`'s block are threaded by, as JAX threads its
    ordered effects: each ordered callback takes it and gives the next one, so XLA keeps them
    in program order (a `lax.cond` holding one included). A block starts its own
    (`stablehlo.after_all`) unless a cond's branch was handed its enclosing block's."""
    return _tokens.block_token(ctx.block, ctx.loc)


def has_ordered_effect(jaxpr, library: bool = True) -> bool:
    """Whether `jaxpr` (or one nested in its equations) has an ordered debug print or
    io_callback, or (unless not `library`) a library's ordered effect: a cond over it threads
    its block's token through its branches.

    >>> import jxkernel as jax
    >>> has_ordered_effect(jax.make_jaxpr(lambda x: jax.debug.print("{}", x, ordered=True))(1.))
    True
    """
    jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
    for eqn in jaxpr.eqns:
        if eqn.primitive.name in _ORDERED and eqn.params.get("ordered"):
            return True
        if library and eqn.effects and _tokens.ordered_library_effects(eqn.effects):
            return True
        for param in eqn.params.values():
            inner = param if isinstance(param, (tuple, list)) else (param,)
            if any(isinstance(j, (Jaxpr, ClosedJaxpr)) and has_ordered_effect(j, library)
                   for j in inner):
                return True
    return False


def _effects_of(jaxpr) -> frozenset:
    return (jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr).effects


# the class names JAX gives the ordered effects over several devices it refuses: an ordered
# debug print's (JAX 0.10.2 runs an ordered io_callback there, in jit, shard_map and pmap)
_ORDERED_EFFECT_NAMES = {"debug_print": "OrderedDebugEffect"}


def check_one_device_effects(jaxpr, mesh) -> None:
    """JAX's ValueError for an ordered debug print in a program over several devices (a
    pmap's, a shard_map's, or a jit's over a mesh): its order is one program's on one device."""
    debug = sorted(_ordered_effect_names(jaxpr))
    # a library's ordered effects (effect_tokens.py), by their text as JAX names them
    names = debug + sorted(map(repr, _tokens.ordered_library_effects(jaxpr.effects)))
    if names:
        hint = ("pass ordered=False to its jax.debug.print (each device's call then runs in "
                "no set order), or run it on one device") if debug else "run it on one device"
        raise ValueError(
            f"The following ordered effects are not supported for more than 1 device: "
            f"[{', '.join(names)}]. This program runs over the {mesh.size} devices of "
            f"{mesh}; {hint}.")


def _ordered_effect_names(jaxpr) -> set:
    jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
    found = set()
    for eqn in jaxpr.eqns:
        if eqn.primitive.name in _ORDERED_EFFECT_NAMES and eqn.params.get("ordered"):
            found.add(_ORDERED_EFFECT_NAMES[eqn.primitive.name])
        for param in eqn.params.values():
            for j in (param if isinstance(param, (tuple, list)) else (param,)):
                if isinstance(j, (Jaxpr, ClosedJaxpr)):
                    found |= _ordered_effect_names(j)
    return found


def platform_index_args(block) -> list:
    """What a call from `block` passes first to a function of this module: the platform
    index, in a module for several platforms (nothing in a module for one)."""
    index = block.function.platform_index
    return [] if index is None else [index]


def function_for(module_ctx: ModuleContext, closed: ClosedJaxpr, name: str,
                 placed=None, n_tokens: int = 0) -> hlo.Function:
    """The private func.func holding `closed` in this module (made on first use); in a module
    for several platforms it takes the platform index first, as JAX's inner functions do.
    `placed`: call_jaxpr's (its operands and results constrained over the empty mesh).
    `n_tokens`: the tokens of a library's ordered effects it takes first and gives back first
    (`jax.token = true`), as JAX's."""
    key = id(closed) if placed is None else (id(closed), placed)
    if module_ctx.one_platform is not None:          # (its body lowered for that one)
        key = (key, module_ctx.one_platform)
    found = module_ctx.functions.get(key)
    if found is not None:
        return found[1]
    jaxpr = dce_jaxpr(closed.jaxpr, prune_calls=True)   # what its results do not need goes,
    # as in JAX's pjit (and what the calls in it do not read)
    fn = new_function(module_ctx, name, [TOKEN] * n_tokens +
                      [hlo.aval_type(v.aval) for v in jaxpr.invars],
                      [_tokens.TOKEN_ATTR] * n_tokens + [None] * len(jaxpr.invars),
                      public=False)
    consts = embedded_consts(fn.body, closed.consts, closed.jaxpr.constvars)  # concrete: embed
    args = fn.args[len(platform_index_args(fn.body)):]
    if n_tokens:
        _tokens.take_main_tokens(fn.body, args[:n_tokens])
        args = args[n_tokens:]
    if placed is not None and module_ctx.mesh is None:  # (over a mesh: its partitioning's)
        args = hlo.on_one_device(module_ctx.module, fn.body, args, jaxpr.invars, placed[0])
    # names and frames inside are its own
    outer, module_ctx.name_stack = module_ctx.name_stack, ""
    outer_frames, module_ctx.outer_frames = module_ctx.outer_frames, ()
    try:
        outs = lower_jaxpr_into(module_ctx, fn.body, jaxpr, consts, args)
    finally:
        module_ctx.name_stack, module_ctx.outer_frames = outer, outer_frames
    if placed is not None and module_ctx.mesh is None:
        outs = hlo.on_one_device(module_ctx.module, fn.body, outs, jaxpr.outvars, placed[1])
    if n_tokens:
        fn.set_results(_tokens.main_tokens_out(fn.body, n_tokens) + list(outs),
                       [_tokens.TOKEN_ATTR] * n_tokens + [None] * len(outs))
    else:
        fn.set_results(outs)
    module_ctx.functions[key] = (closed, fn)    # keep `closed` alive so its id stays unique
    return fn


def new_function(module_ctx: ModuleContext, name: str, arg_types, arg_attrs=None,
                 public: bool = True) -> hlo.Function:
    """A function of the module taking `arg_types`, after the platform index in a module for
    several platforms."""
    arg_attrs = list(arg_attrs) if arg_attrs else [None] * len(arg_types)
    if not module_ctx.multi_platform:
        return module_ctx.module.function(name, arg_types, arg_attrs, public)
    fn = module_ctx.module.function(name, [PLATFORM_INDEX_TYPE, *arg_types],
                                    [PLATFORM_INDEX_ATTR, *arg_attrs], public)
    fn.platform_index = fn.args[0]
    return fn


def embedded_consts(block, consts, constvars) -> list:
    """A closed jaxpr's consts as constants of `block`, each of its constvar's dtype: a NumPy
    value a function closed over is typed canonically in the jaxpr (float64 as float32 while
    x64 is off) and must be embedded so (a jit returning it from a jit inside gave an Array
    typed f32 over an f64 buffer)."""
    out = []
    for c, v in zip(consts, constvars):
        if v.aval is _avals.abstract_token:    # (a token closed over: a new one, as JAX's)
            out.append(block.op1("stablehlo.create_token", [], "!stablehlo.token"))
            continue
        value, dtype = np.asarray(c), getattr(v.aval, "dtype", None)
        if isinstance(dtype, np.dtype) and value.dtype != dtype:
            value = value.astype(dtype)
        out.append(block.constant(value))
    return out


def lower_jaxpr_into(module_ctx, block, jaxpr: Jaxpr, const_values, arg_values) -> list:
    """Emit `jaxpr`'s equations into `block`; returns the values of its outputs. Every jaxpr
    a module holds (its main's, an inner function's, a region's) is lowered here, through
    `jaxpr_subcomp` read by name at each call: a wrapper set in its place (on JAX's
    `mlir` module, a view of this name: JAX's test_nested_jit_hoisting) sees each one."""
    return jaxpr_subcomp(module_ctx, jaxpr, block, const_values, arg_values)


def no_rule_error(primitive: str, platforms) -> NotImplementedError:
    """JAX's error and words where `primitive` has no lowering for `platforms` (jxkernel's
    names; written as JAX's: 'cuda', not 'gpu'): one platform, or a list where a module for
    several lacks the rule for those ("for platforms ['cpu']"). The error carries
    `no_rule_for`, the names, so `lower_per_platform` can gather them."""
    names = ([JAX_NAMES.get(p, p) for p in platforms] if isinstance(platforms, list)
             else JAX_NAMES.get(platforms, platforms))
    where = f"platforms {names}" if isinstance(names, list) else f"platform {names}"
    error = NotImplementedError(f"MLIR translation rule for primitive '{primitive}' not found "
                                f"for {where}")
    error.no_rule_for, error.primitive = names, primitive
    return error


# Where the equations a lowering rule traces from its own function (lax/_lowering.py's
# lower_fun: a scan's loop counter, igamma's series) come from: no line of the user's. They
# are located at the equation the rule lowers, as JAX traces a rule's function under that
# equation's traceback; the jaxpr is traced once and cached, so it records this stand-in and
# jaxpr_subcomp puts the equation's source (ModuleContext.rule_source) in its place. Traced
# with the running line instead, `%explain h(a, x)` put igamma's ops on the line of whatever
# call first lowered an igamma, in another cell or function.
RULE_SOURCE = SourceInfo("<lowering rule>", 0, "<lowering rule>")


def jaxpr_subcomp(module_ctx, jaxpr: Jaxpr, block, const_values, arg_values) -> list:
    """JAX's name (mlir.jaxpr_subcomp, its module context and jaxpr first): `jaxpr`'s
    equations emitted into `block`, the values of its outputs returned."""
    env = dict(zip(jaxpr.constvars, const_values))
    env.update(zip(jaxpr.invars, arg_values))

    def read(atom):
        if isinstance(atom, Literal):       # a constant per use, as JAX writes them (XLA CSEs)
            return block.constant(atom.val, atom.aval.dtype)
        return env[atom]

    for eqn in jaxpr.eqns:
        rule = module_ctx.rules.get(eqn.primitive)
        if rule is None:
            raise no_rule_error(eqn.primitive.name, list(module_ctx.platforms)
                                if module_ctx.multi_platform else module_ctx.platform)
        info = eqn.source_info
        if info is not None and info.file == RULE_SOURCE.file:
            # (its frames, in JAX's locations, are the rule's equation's: outer_frames)
            info = module_ctx.rule_source and module_ctx.rule_source._replace(
                name_stack=info.name_stack, code=None, caller=None)
        ctx = LoweringRuleContext(module_ctx, block, [a.aval for a in eqn.invars],
                                  [v.aval for v in eqn.outvars], info, _eqn_name(eqn))
        args = list(map(read, eqn.invars))
        if eqn.effects:
            ctx.tokens_in = _tokens.tokens_in(ctx, eqn.effects)

        def lower(rule_ctx):
            # (lower_per_platform's copy of ctx, into a block of its own, takes its tokens
            # and gives back the ones its rule set)
            rule_ctx.tokens_in = ctx.tokens_in
            outs = rule(rule_ctx, *args, **eqn.params)
            if rule_ctx is not ctx:
                ctx.tokens_out = rule_ctx.tokens_out
            return list(outs) if eqn.primitive.multiple_results else [outs]
        if module_ctx.multi_platform and module_ctx.one_platform is None:
            outs = lower_per_platform(ctx, lower)
        else:
            took_default = module_ctx.took_default  # (an inner equation's rule's, not the caller's)
            outs = lower(ctx)
            module_ctx.took_default = took_default
        assert len(outs) == len(eqn.outvars), (eqn.primitive, len(outs), len(eqn.outvars))
        if ctx.tokens_in:
            _tokens.take_tokens_out(ctx, eqn.primitive)
        if _avals.sharding_types_seen and eqn.primitive.name != "shard_map":
            # (in a body partly manual over a mesh of Explicit axes too: its values are typed
            # over the Explicit ones, which JAX constrains there as well; a shard_map's results
            # are laid out by its out_specs, unconstrained, as JAX's)
            outs = _typed_layouts(ctx, eqn.outvars, outs,
                                  eqn.primitive not in results_left_unconstrained)
        env.update(zip(eqn.outvars, outs))
    return [read(v) for v in jaxpr.outvars]


# JAX's jax_traceback_in_locations_limit: the most frames an op's location names
LOCATION_FRAMES = 100
_frame_texts: dict = {}         # (code, instruction offset) -> its frame's location text


def source_frames(info: SourceInfo | None) -> tuple:
    """`info`'s frames (its line, then its callers up to the function traced), innermost
    first, as (code, instruction offset) pairs."""
    frames = []
    if isinstance(info, OutsideSourceInfo):     # (no frame of the user's inside its trace)
        return ()
    while info is not None and len(frames) < LOCATION_FRAMES:
        if info.code is not None:
            frames.append((info.code, info.lasti))
        info = info.caller
    return tuple(frames)


def frame_text(code, lasti: int) -> str:
    """One frame's location text, as JAX writes it: `"qualname"("file":line:col to :end)`,
    `to line:end` where the expression ends on another line."""
    key = (code, lasti)
    text = _frame_texts.get(key)
    if text is None or text[0] is not code:
        line, end_line, col, end_col = positions(code, lasti)
        where = f"{hlo.string_attr(code.co_filename)}:{line or 0}:{col or 0}"
        if end_col is not None and end_line is not None:
            where += f" to :{end_col}" if end_line == line else f" to {end_line}:{end_col}"
        if len(_frame_texts) > 8192:
            _frame_texts.clear()
        text = _frame_texts[key] = (code, f"{hlo.string_attr(code.co_qualname)}({where})")
    return text[1]


def frames_location(frames, full: bool = True) -> str | None:
    """The location of `frames` ((code, instruction offset) pairs, innermost first), as JAX
    writes them: with `full` (jax_include_full_tracebacks_in_locations, its default) one
    frame's text alone, else `callsite(innermost at callsite(... at outermost))`; without,
    the innermost's file, line and column (`"f.py":3:11`); None for none."""
    frames = frames[:LOCATION_FRAMES]
    if not frames:
        return None
    if not full:
        code, lasti = frames[0]
        line, _, col, _ = positions(code, lasti)
        return f"{hlo.string_attr(code.co_filename)}:{line or 0}:{col or 0}"
    frames = [frame_text(code, lasti) for code, lasti in frames]
    where = frames[-1]
    for frame in reversed(frames[:-1]):
        where = f"callsite({frame} at {where})"
    return where


def _eqn_name(eqn) -> str:
    """What JAX's name stack says for an equation: its primitive, a call with its name, under
    the equation's own name stack (`jvp()/sin`; a call is a scope the transformations wrap,
    `jvp(jit(g))`, as JAX's pjit lowering names its call)."""
    name = eqn.primitive.name
    info = eqn.source_info
    if name == "jit":
        name = f"jit({eqn.params['name']})"
        if info is not None and info.name_stack:
            return stack_text((*info.name_stack, name))
        return name
    if info is not None and info.name_stack:
        return f"{stack_text(info.name_stack)}/{name}"
    return name


def lower_per_platform(ctx: LoweringRuleContext, lower: Callable) -> list:
    """`lower(ctx)`'s results in a module for several platforms, as JAX's lower_per_platform
    makes them: a rule that does not read the platform is lowered once; one that does is
    lowered for each platform, and where the lowerings differ, a `stablehlo.case` on the
    platform index picks the rule's index, and a second case on it runs that lowering."""
    module_ctx, block = ctx.module_ctx, ctx.block
    fn = block.function
    start = fn.mark()
    saved = _module_mark(module_ctx)
    first = _lowered_or_missing(ctx, lower, module_ctx.platforms[0])
    if isinstance(first, tuple) and not first[2]:
        block.lines.extend(first[0])
        block.effect_token = first[4]
        return first[1]
    _module_rewind(module_ctx, saved)     # (its inner functions, lowered for every platform)
    kinds: dict = {}          # the text a lowering emits -> the platforms that emit it
    defaults: set = set()     # the kinds the rule's default lowering emits
    refusals: list = []       # the platforms the rule has no lowering for
    for platform in module_ctx.platforms:
        fn.rewind(start)      # each from the same names, so alike lowerings print alike
        lowered = _lowered_or_missing(ctx, lower, platform, narrow=True)
        if not isinstance(lowered, tuple):
            refusals.append(lowered)
            continue
        lines, outs, _, default, token = lowered
        kind = (tuple(lines), tuple(v.name for v in outs))
        kinds.setdefault(kind, []).append(platform)
        if default:
            defaults.add(kind)
    if refusals:              # JAX names every platform lacking the rule at once
        raise no_rule_error(refusals[0].primitive, [r.no_rule_for for r in refusals])
    if len(kinds) == 1:
        block.lines.extend(lines)
        block.effect_token = token
        return outs
    fn.rewind(start)
    # as JAX orders its rules: the platforms' own first, in the order of the platforms, then
    # the default's
    return _case_over_platforms(ctx, lower, [platforms for kind, platforms in kinds.items()
                                             if kind not in defaults] +
                                [kinds[kind] for kind in kinds if kind in defaults])


def _module_mark(module_ctx) -> tuple:
    """Where the module's functions stand, for `_module_rewind`."""
    return module_ctx.module.mark(), set(module_ctx.functions)


def _module_rewind(module_ctx, mark) -> None:
    """Drop the functions made since `mark`, with their names: those of a rule's lowering
    that is then lowered again per platform, its inner equations for that platform alone."""
    module_mark, keys = mark
    module_ctx.module.rewind(module_mark)
    for key in set(module_ctx.functions) - keys:
        del module_ctx.functions[key]


def _lowered_or_missing(ctx, lower, platform, narrow=False):
    """`_lowered_for`'s, or the refusal where the rule itself refuses `platform` (one from a
    module's inner equation, already naming all the platforms, goes on up)."""
    try:
        return _lowered_for(ctx, lower, platform, narrow)
    except NotImplementedError as refusal:
        if isinstance(getattr(refusal, "no_rule_for", []), list):
            raise
        return refusal


def _lowered_for(ctx, lower, platform, narrow=False) -> tuple:
    """(the lines emitted, the results, whether the rule read the platform, whether it lowered
    as its default: `default_rule`, the token its ordered effects leave) of `lower` for
    `platform`, into a block of its own (which threads its effects from `ctx.block`'s token);
    its inner equations lowered for `platform` alone where `narrow` (a rule known to read it)."""
    scratch = ctx.block.function.new_block([])
    scratch.effect_token = ctx.block.effect_token
    default = []

    def lowered():
        if narrow:
            outs = ctx.module_ctx.for_one_platform(lambda: lower(ctx.with_block(scratch)))
        else:
            outs = lower(ctx.with_block(scratch))
        default.append(ctx.module_ctx.took_default)
        return outs
    outs, read = ctx.module_ctx.lower_for(platform, lowered)
    return scratch.lines, outs, read, default[0], scratch.effect_token


def _case_over_platforms(ctx, lower, kinds) -> list:
    """The rule's results chosen by the platform index: `kinds` lists, per distinct
    lowering, the platforms that take it."""
    block = ctx.block
    fn = block.function
    kind_of = {p: k for k, platforms in enumerate(kinds) for p in platforms}
    which = index_case(block, fn.platform_index,
                       [kind_of[p] for p in ctx.module_ctx.platforms], ctx.loc)
    branches, outs = [], []
    for platforms in kinds:
        branch = fn.new_block([])

        def lowered(platforms=platforms, branch=branch):
            if len(platforms) == 1:
                # a branch for one platform lowers its rule's inner equations for that
                # platform alone (JAX's rule sees only its platforms: a TPU rule's QR is
                # the TPU's, not a choice among all the module's platforms)
                return ctx.module_ctx.for_one_platform(lambda: lower(ctx.with_block(branch)))
            return lower(ctx.with_block(branch))
        outs, _ = ctx.module_ctx.lower_for(platforms[0], lowered)
        branch.ret(outs)
        branches.append(branch)
    return block.op("stablehlo.case", [which], [v.type for v in outs], regions=branches,
                    loc=ctx.loc)


def index_case(block, index, results, loc=None):
    """`results[index]` (i32 scalars) as JAX maps one index to another: a `stablehlo.case`
    whose branch i returns `results[i]`."""
    branches = []
    for result in results:
        branch = block.function.new_block([])
        branch.ret([branch.constant(np.int32(result))])
        branches.append(branch)
    return block.op1("stablehlo.case", [index], PLATFORM_INDEX_TYPE, regions=branches, loc=loc)


# primitives whose lowering JAX gives no constraint of its result's type (comparisons:
# _compare_lower_hlo): their results are laid out by propagation alone
results_left_unconstrained: set = set()


def _typed_layouts(ctx, outvars, outs, constrain=True) -> list:
    """Results whose type carries a sharding (Explicit axes), constrained to it, so XLA lays
    them out as the type says (JAX emits the same sdy.sharding_constraint); not `constrain`:
    as they are (results_left_unconstrained)."""
    typed = next((v.aval.split for v in outvars if v.aval.split is not None), None)
    if typed is not None and ctx.module_ctx.mesh is None:  # jit partitions it over the mesh
        raise NeedsMesh(f"a result typed {typed!r} (Explicit mesh axes) inside a program "
                        f"compiled for one device: jit it at the top level", typed.mesh)
    if not constrain:
        return outs
    module, mesh = ctx.module_ctx.module, ctx.module_ctx.mesh
    manual = ctx.module_ctx.manual
    if manual is not None:      # in a body: only values typed over Explicit axes left to it
        return [out if v.aval.split is None or not _explicit_left(v.aval.split, manual[1])
                else _typed_layout(ctx, module, mesh, v, out) for v, out in zip(outvars, outs)]
    return [out if v.aval.split is None else _typed_layout(ctx, module, mesh, v, out)
            for v, out in zip(outvars, outs)]


def _explicit_left(sharding, manual) -> bool:
    """Whether `sharding`'s mesh has an Explicit axis not among the `manual` axes (a body
    partly manual over a mesh of Explicit axes: its values are typed over those)."""
    return any(t is AxisType.Explicit and n not in manual
               for n, t in zip(sharding.mesh.axis_names, sharding.mesh.axis_types))


def operand_typed_as(ctx, value, aval, out_aval):
    """An elementwise op's operand of type `aval`, already broadcast to the result's shape,
    constrained to the result's sharding where the result's type is split (Explicit axes) and
    the operand's differs (JAX's multi_broadcast_in_dim: a broadcast operand always; one of the
    result's shape where its sharding is not the result's, not when unreduced or reduced)."""
    split = out_aval.split
    if split is None or ctx.module_ctx.mesh is None:   # (no mesh: the result raises NeedsMesh)
        return value
    manual = ctx.module_ctx.manual
    if manual is not None and not _explicit_left(split, manual[1]):
        return value
    if aval.shape == out_aval.shape:
        own = aval.split
        if own is not None and (own.spec.unreduced or own.spec.reduced) or \
                aval.sharding == out_aval.sharding:
            return value
    typed = _avals.ShapedArray(out_aval.shape, aval.dtype, sharding=split)
    return _typed_layout(ctx, ctx.module_ctx.module, ctx.module_ctx.mesh,
                         _Typed(typed), value)


class _Typed(NamedTuple):
    """What _typed_layout reads of a result: its type."""
    aval: object


def _typed_layout(ctx, module, mesh, v, out):
    # loads with the first mesh or sharded Array: `import jxkernel` needs neither
    from .sharding import sdy_sharding
    return ctx.op1("sdy.sharding_constraint", [out],
                   {"sharding": sdy_sharding(module, mesh, v.aval.split, len(v.aval.shape),
                                             typed=True)},
                   result_type=hlo.aval_type(v.aval))


def set_up_aliases(jaxpr: Jaxpr, donated, aliases=None, layouts=None) -> tuple[list, list]:
    """(per input its attribute text or None, per input whether it is donated after all), as
    JAX's _set_up_aliases decides them: a donated input aliases the first free result of its
    shape and dtype (`tf.aliasing_output`), else gives its buffer to XLA for any free result
    with as many elements (`jax.buffer_donor`); one that neither finds is not donated (not
    deleted by calls) and lowering warns, as JAX does. An input the program never reads is
    donated as any other: jit drops such inputs before lowering (pipeline.lower), unless
    keep_unused, where JAX donates them too. `aliases` ({input index: result index}) fixes
    some first: a Ref's buffer goes to its own final value. `layouts`: (per input, per result)
    the layout jit gave it (Layout.AUTO, a Layout or None), see `_aliased`."""
    plan, donated = alias_plan(jaxpr, donated, aliases, layouts)
    attrs = [None] * len(jaxpr.constvars + jaxpr.invars)
    for i, j in plan.items():
        attrs[i] = "jax.buffer_donor = true" if j is None else \
            f"tf.aliasing_output = {hlo.i32_attr(j)}"
    return attrs, donated


def alias_plan(jaxpr: Jaxpr, donated, aliases=None, layouts=None) -> tuple[dict, list]:
    """({donated input: the result it aliases, or None where XLA takes it as a donor for any
    result}, per input whether it is donated after all): `set_up_aliases`' decisions, which
    the NumPy backend follows too (it writes an aliased result into the input's ndarray)."""
    in_vars = jaxpr.constvars + jaxpr.invars
    aliases = aliases or {}
    donated = [bool(d) for d in donated]
    plan, left = {}, list(donated)
    for i, j in aliases.items():
        if donated[i]:
            plan[i], left[i] = j, False
    found = _donations([v.aval for v in in_vars], [v.aval for v in jaxpr.outvars], left,
                       {j for i, j in aliases.items() if donated[i]})
    for i, j in found.items():
        plan[i] = None if j is None or not _aliased(layouts, i, j, in_vars, jaxpr.outvars) \
            else j
        left[i] = False
    _warn_unusable([v.aval for v in in_vars], left)
    return plan, [d and not u for d, u in zip(donated, left)]


def _aliased(layouts, i, j, in_vars, out_vars) -> bool:
    """Whether donated input `i`, matched with result `j` of its type, aliases it, as JAX's
    _set_up_aliases decides with jit's layouts (`layouts`: None, or (per input, per result)
    Layout.AUTO, a Layout or None): where both are the same (none given, say), else XLA
    takes the buffer as a donor; JAX's ValueError where one is Layout.AUTO and the other not."""
    if layouts is None:
        return True
    given_in, given_out = layouts[0][i], layouts[1][j]
    # (a Layout that is the value's default one stands for none, as JAX's is_default_layout)
    given_in, given_out = (x if x is None or Format.is_auto(x) or layout_mode(x, v.aval) else None
                           for x, v in ((given_in, in_vars[i]), (given_out, out_vars[j])))
    auto_in, auto_out = (Format.is_auto(x) for x in (given_in, given_out))
    if auto_in != auto_out:                          # (JAX's words)
        wanted = "output" if auto_in else "input"
        raise ValueError(
            f"Input layout being donated was {given_in} while output layout was {given_out}. "
            f"Did you mean to set the **{wanted} layout** to **Layout.AUTO**?\nThis will "
            f"allow for the input and output layout to be chosen by XLA and not the layout of "
            f"the {wanted} which might not be optimal.")
    return given_in == given_out


def set_up_donors(jaxpr: Jaxpr, donated, arg_shardings, result_shardings,
                  layouts=None) -> tuple[list, list]:
    """set_up_aliases for a program partitioned over a mesh, as JAX's decides there: each
    device's share matched (shard shapes); where every result's sharding is given, a donated
    input aliases the first free result of its shard's type (`tf.aliasing_output`; jit's
    `layouts` as set_up_aliases reads them) and one that finds a result of as many elements
    only is given to XLA (`jax.buffer_donor`: XLA reuses what it can, xla/sharded.py deletes
    those alone); where a result's sharding is XLA's choice (None, or P.UNCONSTRAINED in
    it), every donated input is given so; one that none takes is not donated and lowering
    warns, naming its shard's type (`float32[2,2]`), as JAX's."""
    in_vars = jaxpr.constvars + jaxpr.invars
    arg_shardings = arg_shardings or [None] * len(in_vars)
    result_shardings = result_shardings or [None] * len(jaxpr.outvars)
    ins = [_shard_aval(v.aval, s) for v, s in zip(in_vars, arg_shardings)]
    left = [bool(d) for d in donated]
    attrs = [None] * len(in_vars)
    if all(s is not None and UNCONSTRAINED not in s.spec.partitions for s in result_shardings):
        outs = [_shard_aval(v.aval, s) for v, s in zip(jaxpr.outvars, result_shardings)]
        for i, j in _donations(ins, outs, left, set()).items():
            attrs[i], left[i] = ("jax.buffer_donor = true" if j is None or
                                 not _aliased(layouts, i, j, in_vars, jaxpr.outvars) else
                                 f"tf.aliasing_output = {hlo.i32_attr(j)}"), False
        _warn_unusable(ins, left)
        return attrs, [d and not u for d, u in zip(donated, left)]
    usable = [bool(d) for d in donated]
    return ["jax.buffer_donor = true" if u else None for u in usable], usable


def _shard_aval(aval, sharding):
    """The aval of each device's share of a value laid out as `sharding` (None: whole)."""
    if sharding is None or aval is _avals.abstract_token:
        return aval
    return aval.update(shape=sharding.shard_shape(aval.shape), sharding=None)


def _donations(avals_in, avals_out, left, taken) -> dict:
    """{input: the result it aliases, or None where it is given to XLA for any}: each input
    `left` to donate takes the first free result (not in `taken`) of its shape and dtype,
    then one of as many elements, as JAX's _set_up_aliases matches them (tokens: by type)."""
    waiting, found = collections.defaultdict(collections.deque), {}
    for i, (aval, d) in enumerate(zip(avals_in, left)):
        if d:
            waiting[(aval.shape, aval.dtype)].append(i)
    taken = set(taken)
    for j, aval in enumerate(avals_out):
        if j not in taken and waiting.get((aval.shape, aval.dtype)):
            found[waiting[(aval.shape, aval.dtype)].popleft()] = j
            taken.add(j)
    by_size = collections.defaultdict(collections.deque)
    for j, aval in enumerate(avals_out):
        if j not in taken and aval is not _avals.abstract_token:
            by_size[aval.size].append(j)
    for i, aval in enumerate(avals_in):
        if left[i] and i not in found and aval is not _avals.abstract_token and \
                by_size.get(aval.size):
            by_size[aval.size].popleft()
            found[i] = None
    return found


def _warn_unusable(avals_in, left) -> None:
    if any(left):
        unusable = ", ".join(aval_text(a, weak=False) for a, u in zip(avals_in, left) if u)
        warnings.warn(f"Some donated buffers were not usable: {unusable}.\nSee an explanation "
                      f"at https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
                      stacklevel=user_stacklevel())


# Symbolic sizes (jax.export's dimensions) in a program lowered outside jax.export, such as an
# eager `jnp.zeros((a + 1,))`: jax.export, once loaded (their class is its), sets this to a
# function(module_ctx, block, jaxpr, args, dim_values) that has the module compute them, as
# JAX's lowering does (from `dim_values`, {variable: main's argument}, where the arguments
# are of symbolic shapes), so that a variable no argument gives raises JAX's UnexpectedDimVar.
symbolic_sizes = None
# and a function(jaxpr) giving the dimension variables of its arguments' shapes, sorted by
# name, which `main` takes first (JAX's jit over symbolic shapes), or [] where none
symbolic_dim_vars = None


class _LoweringSite(threading.local):
    frames: tuple = ()      # (code, instruction offset) of the user's frames, innermost first


# Where the module being lowered was asked for (jit's `.lower()`): main's ops in JAX's
# locations end in these frames (JAX's outer traceback, its lowering's traceback)
lowering_site = _LoweringSite()


class at_site:
    """``with at_site(frames):`` modules lowered with JAX's locations (`locations="named"`)
    end their main's frames in `frames` ((code, instruction offset) pairs, innermost
    first: a Traceback's raw frames, zipped)."""
    __slots__ = ("frames", "prev")

    def __init__(self, frames):
        self.frames = tuple(frames)

    def __enter__(self):
        self.prev, lowering_site.frames = lowering_site.frames, self.frames

    def __exit__(self, *exc):
        lowering_site.frames = self.prev


def _with_layout_modes(attrs, layouts, variables) -> list:
    """`attrs` (per variable its attribute text or None; None: none) with each one's
    `mhlo.layout_mode` (xla/layout.py's layout_mode) joined in."""
    attrs = list(attrs or [None] * len(variables))
    for k, (layout, v) in enumerate(zip(layouts, variables)):
        mode = layout_mode(layout, v.aval)
        if mode is not None:
            attrs[k] = mode if attrs[k] is None else f"{attrs[k]}, {mode}"
    return attrs


def _unsharded_keys(key_ndims, mesh, arg_shardings, result_shardings) -> tuple:
    """(per input, per result) the key ranks of `key_ndims` (lower_module) of those given no
    sharding or one UNCONSTRAINED in every dimension, as JAX's `all_unconstrained`; None for a
    side with none, or off a mesh."""
    if key_ndims is None or mesh is None:
        return None, None

    def open_(ndims, shardings):
        shardings = shardings or [None] * len(ndims)
        out = [n if n is not None and (s is None or (
            hasattr(s, "spec") and len(s.spec) == n and n > 0 and
            all(p is UNCONSTRAINED for p in s.spec))) else None
            for n, s in zip(ndims, shardings)]
        return out if any(n is not None for n in out) else None
    return open_(key_ndims[0], arg_shardings), open_(key_ndims[1], result_shardings)


def lower_module(jaxpr: Jaxpr, *, name: str, platform: str, donated=None,
                 result_names=None, locations: bool = False, mesh=None,
                 arg_shardings=None, result_shardings=None, platforms=None,
                 arg_names=None, aliases=None, one_device=None,
                 rules=None, devices=(), manual=None,
                 tokens: bool = False, embedded=None,
                 key_ndims=None, layouts=None) -> tuple[str, ModuleContext]:
    """A whole StableHLO module whose `main` computes `jaxpr` (constvars first, then invars).

    Returns the module text and its ModuleContext (which lists host callbacks, if any).
    `locations=True` writes each equation's source line on its ops (`loc("file":line:0)`),
    which XLA carries into the optimized HLO's metadata (jxkernel.explain reads it back);
    `locations="named"` writes the op's name around it, as JAX's debug info does
    (`loc("jit(f)/sin"("f"("file":line:0)))`, `Lowered.as_text(debug_info=True)`).
    With a `mesh`, the module is partitioned by XLA (Shardy) over the mesh's devices:
    `arg_shardings`/`result_shardings` (per value a NamedSharding, or None: left to XLA) become
    `sdy.sharding` attributes (see xla/sharded.py). For several `platforms`, `main` takes the
    platform index first, as jax.export's modules do. `result_names` (one per result, e.g.
    "result['w']") become JAX's `jax.result_info` attributes, `arg_names` (one per invar)
    the arguments' locations, which name XLA's parameters. `one_device`: (per invar, per
    result) whether it is given a sharding on the one device (stablehlo.on_empty_mesh).
    `rules`: the rule table to lower with (LoweringParameters.rules), else lowering_rules.
    `devices`: those it is lowered for (the rules that ask: inspect_array_sharding's).
    `manual`: (mesh, axes) where the module is one device's program, manual over those axes
    (custom_partitioning's per-device function: its collectives address the mesh).
    `tokens`: on one device, `main` takes a token per ordered effect of a library's first and
    returns the next ones first, as JAX's (`module_ctx.tokens`: those effects; the
    executable passes them between programs, effect_tokens.runtime_tokens).
    `embedded`: {var: host value} of closed-over constants `jaxpr`'s equations read but
    `main` does not take, written in as `stablehlo.constant`s first (JAX's default).
    `layouts`: (per input, constvars first, per result) the layout jit gave it
    (Layout.AUTO, a Layout, or None), written as JAX's `mhlo.layout_mode` attributes.
    """
    _tokens.check_lowerable(jaxpr)
    partitions = 1 if mesh is None else mesh.size
    # one replica always, as JAX's modules say: several devices are partitions of one program
    attrs = {"mhlo.num_partitions": hlo.i32_attr(partitions),
             "mhlo.num_replicas": hlo.i32_attr(1)}
    module = hlo.Module(f"jit_{name}", attrs)
    module_ctx = ModuleContext(module, platform, platforms)
    module_ctx.name_stack, module_ctx.source_lines = f"jit({name})/", locations
    module_ctx.devices, module_ctx.manual = tuple(devices), manual
    if rules is not None:
        module_ctx.rules = rules
    in_vars = jaxpr.constvars + jaxpr.invars
    donated = list(donated) if donated is not None else [False] * len(in_vars)
    if mesh is None:
        arg_attrs, module_ctx.donated = set_up_aliases(jaxpr, donated, aliases, layouts)
    else:
        arg_attrs, module_ctx.donated = set_up_donors(jaxpr, donated, arg_shardings,
                                                      result_shardings, layouts)
    result_attrs = None
    if mesh is None and one_device is not None:
        arg_attrs, result_attrs = hlo.on_empty_mesh(module, in_vars, arg_attrs, jaxpr.outvars,
                                                     one_device)
    if mesh is not None:
        if mesh.size > 1:
            check_one_device_effects(jaxpr, mesh)
        # loads with the first mesh or sharded Array: `import jxkernel` needs neither
        from .sharding import sdy_attrs
        module_ctx.mesh = mesh
        arg_attrs, result_attrs = sdy_attrs(module, mesh, in_vars, arg_attrs, arg_shardings,
                                            jaxpr.outvars, result_shardings)
    # the memory kinds, where one is not 'device' (xla/memory_kinds.py): PJRT places results so
    mem_kinds = program_kinds(jaxpr, in_vars, arg_shardings, result_shardings,
                              one_device if mesh is None else None) if rules is None else None
    if mem_kinds is not None:
        arg_attrs = [with_kind(a, k) for a, k in
                     zip(arg_attrs or [None] * len(in_vars), mem_kinds[0])]
        result_attrs = [with_kind(a, k) for a, k in
                        zip(result_attrs or [None] * len(jaxpr.outvars), mem_kinds[1])]
    if layouts is not None:
        arg_attrs = _with_layout_modes(arg_attrs, layouts[0], in_vars)
        result_attrs = _with_layout_modes(result_attrs, layouts[1], jaxpr.outvars)
    ordered = _tokens.ordered_library_effects(jaxpr.effects) if tokens and mesh is None \
        else []
    module_ctx.tokens = tuple(ordered)
    n_tok = len(ordered)
    if n_tok:
        arg_attrs = [_tokens.TOKEN_ATTR] * n_tok + \
            list(arg_attrs or [None] * len(in_vars))
        result_attrs = None if result_attrs is None else \
            [_tokens.TOKEN_ATTR] * n_tok + list(result_attrs)
    # arguments of symbolic shapes (`jit(f).lower` of them): JAX's main takes the dimension
    # variables first, sorted by name, as `jax.global_constant`s
    dim_vars = symbolic_dim_vars(jaxpr) if symbolic_dim_vars is not None and rules is None \
        else []
    if dim_vars:
        arg_attrs = [f"jax.global_constant = {hlo.string_attr(d)}" for d in dim_vars] + \
            list(arg_attrs or [None] * (n_tok + len(in_vars)))
    main = new_function(module_ctx, "main", ["tensor<i32>"] * len(dim_vars) +
                        [_tokens.TOKEN] * n_tok + [hlo.aval_type(v.aval) for v in in_vars],
                        arg_attrs)
    if locations == "named":    # JAX's: main's ops follow the frames that lowered it
        module_ctx.outer_frames = lowering_site.frames
        module_ctx.full_tracebacks = config.jax_include_full_tracebacks_in_locations
        where = frames_location(module_ctx.outer_frames, module_ctx.full_tracebacks)
        main.body.fallback = f"loc({hlo.string_attr(f'jit({name})')}" + \
            (f"({where}))" if where else ")")
    args = main.args[len(platform_index_args(main.body)):]
    dim_values, args = args[:len(dim_vars)], args[len(dim_vars):]
    if n_tok:
        _tokens.take_main_tokens(main.body, args[:n_tok])
        args = args[n_tok:]
    n_consts = len(jaxpr.constvars)
    if symbolic_sizes is not None and rules is None:
        symbolic_sizes(module_ctx, main.body, jaxpr, args[n_consts:],
                       dict(zip(dim_vars, dim_values)))
    if arg_names is not None:
        main.arg_names[len(main.args) - len(arg_names):] = list(arg_names)
    consts, body = args[:n_consts], jaxpr
    if embedded:
        body = Jaxpr([*embedded, *jaxpr.constvars], jaxpr.invars, jaxpr.outvars, jaxpr.eqns)
        consts = embedded_consts(main.body, embedded.values(), embedded) + list(consts)
    args = args[n_consts:]
    keys_in, keys_out = _unsharded_keys(key_ndims, mesh, arg_shardings, result_shardings)
    if keys_in is not None:
        args = hlo.replicate_trailing_dims(module, main.body, args, jaxpr.invars,
                                           keys_in[n_consts:])
    outs = lower_jaxpr_into(module_ctx, main.body, body, consts, args)
    if mem_kinds is not None:       # a result's kind asked by out_shardings: a transfer there
        outs = [o if k is None else annotated(main.body, o, k) for o, k in zip(outs, mem_kinds[2])]
    if keys_out is not None:
        outs = hlo.replicate_trailing_dims(module, main.body, outs, jaxpr.outvars, keys_out)
    if n_tok:
        outs = _tokens.main_tokens_out(main.body, n_tok) + outs
        result_names = None if result_names is None else [None] * n_tok + list(result_names)
        if result_attrs is None:
            result_attrs = [_tokens.TOKEN_ATTR] * n_tok + [None] * (len(outs) - n_tok)
    if result_names is not None:
        result_attrs = [", ".join(filter(None, [n is not None and   # (a Ref's final value: none)
                                                f"jax.result_info = {hlo.string_attr(n)}", a]))
                        for n, a in zip(result_names, result_attrs or [None] * len(outs))]
    main.set_results(outs, result_attrs)
    return module.text(), module_ctx
