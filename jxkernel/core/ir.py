"""The jaxpr IR: variables, literals, equations, jaxprs, and their printing.

    { lambda ; a:f32[3] b:f32[]. let
        c:f32[3] = sin a
        d:f32[3] = mul c b
      in (d,) }

Variables have no names of their own; names are given when a jaxpr is printed,
in order of first appearance, so printing is deterministic and matches JAX.
"""
from __future__ import annotations

import builtins
import enum
import re
import sys
from collections import Counter, deque

import numpy as np

from .avals import ShapedArray
from .config import config
from .source_info import stack_text


class OutputFormat(enum.Enum):
    """What a jaxpr's pretty_print writes (JAX's pretty-printer's formats): TEXT, the text
    jxkernel writes; HTML (each variable a link to where it is bound) jxkernel does not."""
    TEXT = 0
    HTML = 1


def _check_output_format(output_format) -> None:
    if output_format not in (None, OutputFormat.TEXT):
        raise NotImplementedError(f"pretty_print: jxkernel prints jaxprs as text only "
                                  f"(output_format=OutputFormat.TEXT); got {output_format!r}")


class Var:
    """A variable: defined once (as an input or by an equation), used as an atom."""
    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):         # JAX's form; variables get names only when a jaxpr prints
        return f"Var(id={id(self)}):{self.aval.dtype.name}[{','.join(map(str, self.aval.shape))}]"


class DropVar(Var):
    """An equation output nothing reads; printed as `_`."""
    __slots__ = ()


class Literal:
    """A scalar constant written into an equation (`2.0:f32[]`)."""
    __slots__ = ("val", "aval")

    def __init__(self, val, aval: ShapedArray):
        self.val, self.aval = val, aval

    def __repr__(self):
        # as JAX 0.10.2, whose weak Python ints and complexes are held as TypedInt and
        # TypedComplex (the custom interpreter tutorial prints an equation's invars)
        if type(self.val) is int:
            return f"Literal(TypedInt({self.val}, dtype={self.aval.dtype.name}))"
        if type(self.val) is complex:
            return f"Literal(TypedComplex({self.val}, dtype={self.aval.dtype.name}))"
        return f"Literal({self.val})"


def literal_value(x):
    """What rules written by users see for a jaxpr literal: a Python scalar when it is weakly
    typed (jnp keeps those weak), else its NumPy scalar; any other value as it is.

    >>> literal_value(Literal(np.float32(3.0), ShapedArray((), np.float32, weak_type=True)))
    3.0
    """
    if type(x) is not Literal:
        return x
    value = np.asarray(x.val, x.aval.dtype)
    return value.item() if x.aval.weak_type else value[()]


# ------------------------------------------------------------------ effects
class Effect:
    """A kind of side effect an equation may have (`eqn.effects`, `jaxpr.effects`): a Ref's
    reads and writes (api/state_primitives.py), checkify's errors, a callback's; libraries
    subclass it to name their own."""


class EffectTypeSet:
    """A set of effect classes (an effect is in it if its class or a base class is)."""

    def __init__(self):
        self._types: set = set()

    def add_type(self, effect_type: type) -> None:
        self._types.add(effect_type)

    def contains(self, effect) -> bool:
        return any(isinstance(effect, t) for t in self._types)

    def filter_in(self, effects):
        return [e for e in effects if self.contains(e)]

    def filter_not_in(self, effects):
        return [e for e in effects if not self.contains(e)]


# the effect types allowed in a cond, switch, scan or while_loop body, in a custom_jvp or
# custom_vjp function, and in a checkpointed function partially evaluated (JAX's sets of
# these names in `jax._src.effects`): a library adds its own, as api/state_primitives.py adds
# a Ref's; jxkernel's other effects (callbacks', checkify's) are not Effects, never refused
control_flow_allowed_effects = EffectTypeSet()
custom_derivatives_allowed_effects = EffectTypeSet()
remat_allowed_effects = EffectTypeSet()
# the effect types a library's lowering rules may have (others are JAX's ValueError at
# lowering), and those kept in program order by a token each equation takes and gives
# (xla/effect_tokens.py: a rule's `ctx.tokens_in` / `ctx.set_tokens_out`)
lowerable_effects = EffectTypeSet()
ordered_effects = EffectTypeSet()


def check_effects(jaxprs, allowed: EffectTypeSet, where: str) -> None:
    """JAX's NotImplementedError for a library's effect in `jaxprs` not in `allowed`, `where`
    naming the place as JAX's message does ("`cond`", "`custom_jvp`")."""
    disallowed = []
    for jaxpr in jaxprs:
        for effect in jaxpr.effects:
            if isinstance(effect, Effect) and not allowed.contains(effect) \
                    and effect not in disallowed:
                disallowed.append(effect)
    if disallowed:
        raise NotImplementedError(f"Effects not supported in {where}: {disallowed}")


class JaxprInputEffect(Effect):
    """An effect on one input of an equation or jaxpr (a Ref's reads and writes subclass it):
    `input` is the input's position in an abstract eval rule's answer; `eqn.effects` and
    `jaxpr.effects` name the input's variable instead, as JAX's (`resolve_input_effects`;
    a jaxpr's effects of a nested jaxpr name the operand passed to it).

    >>> JaxprInputEffect(1) == JaxprInputEffect(1), JaxprInputEffect(0).replace(2)
    (True, JaxprInputEffect(2))
    """

    def __init__(self, input):
        self.input = input

    def replace(self, input):
        return type(self)(input)

    def __eq__(self, other):
        if not isinstance(other, JaxprInputEffect):
            return NotImplemented
        return self.input == other.input

    def __hash__(self):
        return hash((type(self), self.input))

    def __repr__(self):
        return f"{type(self).__name__}({self.input})"



def resolve_input_effects(effects, invars) -> frozenset:
    """`effects` with each JaxprInputEffect's position among `invars` replaced by the input's
    variable, one on a literal dropped (JAX's `core.resolve_input_effects`)."""
    out = set()
    for effect in effects:
        if isinstance(effect, JaxprInputEffect) and isinstance(effect.input, int):
            atom = invars[effect.input] if effect.input < len(invars) else None
            if not isinstance(atom, Var):
                continue
            effect = effect.replace(atom)
        out.add(effect)
    return frozenset(out)


def _outer_input_effects(eqn, inner) -> list:
    """The effects of `inner`, a jaxpr in `eqn`'s params, on the equation: one on an input
    of `inner` becomes one on the operand passed to it (the operands' last ones, in order;
    a while loop's cond takes its consts and the carry), one on a const of a closed jaxpr
    none (it has no operand), as JAX's `eqn_effects`."""
    effects = inner.effects
    if not any(isinstance(e, JaxprInputEffect) for e in effects):
        return list(effects)
    jaxpr = inner.jaxpr if isinstance(inner, ClosedJaxpr) else inner
    operands = eqn.invars
    if "cond_nconsts" in eqn.params and inner is eqn.params.get("cond_jaxpr"):
        nc, nb = eqn.params["cond_nconsts"], eqn.params.get("body_nconsts", 0)
        operands = operands[:nc] + operands[nc + nb:]
    n = len(jaxpr.invars)
    operands = operands[len(operands) - n:] if n <= len(operands) else [None] * n
    passed = dict(zip(jaxpr.invars, operands))
    out = []
    for effect in effects:
        if isinstance(effect, JaxprInputEffect):
            atom = passed.get(effect.input)
            if not isinstance(atom, Var):
                continue
            effect = effect.replace(atom)
        out.append(effect)
    return out


_NO_EFFECTS = frozenset()
# The two tables of primitives' side effects, kept here beside JaxprEqn.effects, which reads
# them for every equation (core/primitive.py fills them through its Primitive methods):
# effects(params) -> frozenset, as JAX's `eqn.effects` (checkify's check: its ErrorEffects); a
# debug callback names its own in its params
effect_rules: dict = {}
# effectful abstract eval (def_effectful_abstract_eval): (avals..., **params) -> (out, effects),
# for a primitive whose effects its user declares with its abstract eval
effectful_abstract_eval_rules: dict = {}


class JaxprEqn:
    """`outvars = primitive[params] invars`, plus the user's source line (JAX's class name:
    user code prints it) and the mesh in context where it was recorded (`mesh.recording_mesh`:
    an AbstractMesh, set_mesh's Mesh, or None; JAX's `eqn.ctx.cur_abstract_mesh`, which
    eval_jaxpr enters again), and for the key primitives jax_threefry_partitionable as it was
    there (`threefry`, None for others: JAX's `eqn.ctx.threefry_partitionable`, which their
    bits are computed under wherever the equation is lowered or run again)."""
    __slots__ = ("invars", "outvars", "primitive", "params", "source_info", "mesh", "threefry")

    def __init__(self, invars, outvars, primitive, params, source_info=None, mesh=None,
                 threefry=None):
        self.invars, self.outvars = list(invars), list(outvars)
        self.primitive, self.params, self.source_info = primitive, params, source_info
        self.mesh, self.threefry = mesh, threefry

    @property
    def effects(self) -> frozenset:
        """The equation's side effects, as JAX's `eqn.effects`: the effect a debug callback
        names in its params, and its primitive's (`effect_rules`: checkify's check)."""
        effect = self.params.get("effect")
        prim = self.primitive
        if getattr(prim, "plain_effects", False) and prim not in effect_rules \
                and prim not in effectful_abstract_eval_rules:
            # (Primitive.effects_of's answer without its call and the avals it is given:
            # asked of every equation by dce and lowering, nearly all with no effect)
            own = _NO_EFFECTS
        else:
            own = prim.effects_of(self.params, [v.aval for v in self.invars]) \
                if hasattr(prim, "effects_of") else frozenset()
        if own and any(isinstance(e, JaxprInputEffect) and isinstance(e.input, int)
                       for e in own):
            own = resolve_input_effects(own, self.invars)
        return own if effect is None else own | {effect}

    def replace(self, **kw) -> Eqn:
        fields = {s: getattr(self, s) for s in self.__slots__}
        fields.update(kw)
        return Eqn(**fields)

    def __repr__(self):
        return pp_eqn(self, Names(), 0)


Eqn = JaxprEqn          # the short name used throughout jxkernel


class Jaxpr:
    """A typed, first-order program over primitives, in A-normal form."""
    # (weakly referenced: caches keyed by a jaxpr must not keep its inner consts alive)
    __slots__ = ("constvars", "invars", "outvars", "eqns", "declared_effects", "__weakref__")

    def __init__(self, constvars, invars, outvars, eqns):
        self.constvars, self.invars = list(constvars), list(invars)
        self.outvars, self.eqns = list(outvars), list(eqns)
        self.declared_effects = None      # (what `replace(effects=...)` says, else computed)

    def replace(self, **kw) -> Jaxpr:
        """This jaxpr with fields replaced, as JAX's: `effects=` declares its effects in
        place of those its equations have (check_jaxpr then refuses an equation's effect
        not among them, as JAX's)."""
        fields = {k: kw.pop(k, getattr(self, k)) for k in ("constvars", "invars", "outvars",
                                                           "eqns")}
        effects = kw.pop("effects", self.declared_effects)
        if kw:
            raise ValueError(f"Unknown keyword arguments: {kw}")
        out = Jaxpr(**fields)
        out.declared_effects = None if effects is None else frozenset(effects)
        return out

    @property
    def effects(self) -> frozenset:
        """The side effects of its equations and of the jaxprs inside them (JAX's
        `jaxpr.effects`), or those `replace(effects=...)` declared."""
        if self.declared_effects is not None:
            return self.declared_effects
        out = set()
        inputs = None
        for eqn in self.eqns:
            effects = list(eqn.effects)
            for inner in jaxpr_params(eqn.params):
                effects.extend(_outer_input_effects(eqn, inner))
            for effect in effects:
                if isinstance(effect, JaxprInputEffect):
                    # on one of the jaxpr's inputs (constvars and invars, as JAX's
                    # make_jaxpr_effects); on a Ref made inside: none
                    if inputs is None:
                        inputs = set(self.constvars) | set(self.invars)
                    if effect.input not in inputs:
                        continue
                out.add(effect)
        return frozenset(out)

    in_avals = property(lambda self: [v.aval for v in self.invars])
    out_avals = property(lambda self: [v.aval for v in self.outvars])

    # JAX's own attribute names (its Jaxpr keeps `_invars`, `_eqns`, ...; JAX's tests edit a
    # jaxpr through them to check check_jaxpr's errors)
    _constvars = property(lambda self: self.constvars,
                          lambda self, v: setattr(self, "constvars", list(v)))
    _invars = property(lambda self: self.invars, lambda self, v: setattr(self, "invars", list(v)))
    _outvars = property(lambda self: self.outvars,
                        lambda self, v: setattr(self, "outvars", list(v)))
    _eqns = property(lambda self: self.eqns, lambda self, v: setattr(self, "eqns", list(v)))

    def pretty_print(self, *, source_info=False, width=80, use_color=None,
                     name_stack=False, output_format=None) -> str:
        """The jaxpr as text; `use_color`: JAX's syntax highlighting (ANSI colors), by default
        where JAX colors (a terminal or notebook, jax_pprint_use_color on); `name_stack`:
        each equation's name stack as a note, `# [transpose(jvp())]`, before its source
        where `source_info` asks for that; `output_format`: OutputFormat.TEXT only."""
        _check_output_format(output_format)
        return colored(pp_toplevel(self, _with_name_stack(source_info) if name_stack
                                   else source_info, width), use_color)

    def __str__(self):
        return self.pretty_print()

    __repr__ = __str__


class ClosedJaxpr:
    """A jaxpr with values for its constvars: a complete, runnable program. A jit's or a loop
    body's consts may be Refs (core/staging.py): `ref_writes` names, by index into the consts,
    the Refs whose final values are its last outputs."""
    __slots__ = ("jaxpr", "consts", "ref_writes", "__weakref__")

    def __init__(self, jaxpr: Jaxpr, consts=(), ref_writes=()):
        assert len(jaxpr.constvars) == len(consts), (len(jaxpr.constvars), len(consts))
        self.jaxpr, self.consts, self.ref_writes = jaxpr, list(consts), tuple(ref_writes)

    effects = property(lambda self: self.jaxpr.effects)
    # (the jaxpr's variables, as JAX's ClosedJaxpr reads them through: eval_jaxpr takes one)
    constvars = property(lambda self: self.jaxpr.constvars)
    invars = property(lambda self: self.jaxpr.invars)
    outvars = property(lambda self: self.jaxpr.outvars)
    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)
    eqns = property(lambda self: self.jaxpr.eqns)
    literals = property(lambda self: self.consts)

    def pretty_print(self, *, source_info=False, width=80, use_color=None,
                     name_stack=False, output_format=None) -> str:
        return self.jaxpr.pretty_print(source_info=source_info, width=width,
                                       use_color=use_color, name_stack=name_stack,
                                       output_format=output_format)

    def __str__(self):
        return self.pretty_print()

    __repr__ = __str__

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


# ------------------------------------------------------------------ printing
def _alpha_name(n: int) -> str:
    """0 -> a, 25 -> z, 26 -> ba: base 26 with the digits a..z, as JAX names variables."""
    digits = ""
    while True:
        n, r = divmod(n, 26)
        digits = chr(ord("a") + r) + digits
        if n == 0:
            return digits


class Names:
    """Variable names of one printing: a single counter shared by nested jaxprs, as in JAX.
    Tools that render jaxprs themselves (the notebook's viewer) use it to agree with print."""

    def __init__(self):
        self.names: dict[Var, str] = {}
        self.count = 0
        self.shared: dict = {}          # Jaxpr -> the name it is printed under (`let name = ...`)

    def __call__(self, var) -> str:
        if isinstance(var, Literal):
            return pp_literal(var)
        if isinstance(var, DropVar):
            return "_"
        name = self.names.get(var)
        if name is None:
            taken = set(self.shared.values())   # (JAX's skip the shared jaxprs' names)
            name = _alpha_name(self.count)
            self.count += 1
            while name in taken:
                name = _alpha_name(self.count)
                self.count += 1
            self.names[var] = name
        return name


def pp_literal(lit: Literal) -> str:
    val = lit.val
    if isinstance(val, np.ndarray):
        val = val[()]
    return f"{val}:{lit.aval.str_short(True)}"     # NumPy's shortest text for its scalars


def pp_binder(var, names: Names) -> str:
    return f"{names(var)}:{var.aval.str_short(True)}"


# Primitives that print only some params, or in their own order (like JAX's `jit`):
# primitive -> params -> [(key, value), ...].
param_printers: dict = {}
# primitive -> the params left out wherever an equation is shown while None, their default (JAX's
# pp rules of the unary functions with accuracy= and of mul with out_dtype=): the jaxpr text
# (by a param printer) and the notebook's jaxpr view (views/jaxpr_json.py)
none_hidden_params: dict = {}
# primitive -> (key, value) -> whether that param, at its default, is left out wherever an
# equation is shown (jit's in_shardings, layouts, ctx_mesh, compiler_options_kvs: JAX's
# _pjit_pp_rule hides them so): the jaxpr text (by a param printer) and the notebook's view
default_hidden_params: dict = {}
# Primitives whose `name` JAX prints by its own rule but does not hold as a param (custom_jvp_call,
# custom_vjp_call): their nested jaxprs are not named after it when printed up front
name_not_a_param: set = set()

# Primitives printed in their own form (the state primitives: `c:f32[3] <- a[...]`):
# primitive -> (eqn, names) -> the equation's text.
eqn_printers: dict = {}

# Call-like primitives whose jaxpr inputs/outputs are named after the equation's own
# operands and results when printed (JAX does this for jit).
call_primitives: set = set()


def pp_eqn(eqn: Eqn, names: Names, indent: int, source_info=False, width=80) -> str:
    own = eqn_printers.get(eqn.primitive)
    if own is not None and eqn.invars:     # (no operands: a view printing the params alone)
        note = _note(source_info, eqn.source_info)
        return own(eqn, names) + (f"{_NOTE}{note}{_END}" if note else "")
    if eqn.primitive in call_primitives:
        # JAX's jit printer names the operands before the results (suggest_same_var_names):
        # within a jaxpr they already have names; an equation printed alone (a tracer error's
        # "operation b:f32[] = jit[...] a") names them first
        for v in eqn.invars:
            if isinstance(v, Var):
                names(v)
    outs = " ".join(pp_binder(v, names) for v in eqn.outvars)
    arg_list = [names(v) for v in eqn.invars]
    args = " ".join(arg_list)
    printer = param_printers.get(eqn.primitive)
    items = printer(eqn.params) if printer else sorted(eqn.params.items())
    if eqn.primitive in call_primitives:
        _share_call_names(eqn, names)
    rendered = [(k, pp_param(v, names, indent + 2, width, len(k) + 1, source_info))
                for k, v in items]
    head = f"{outs} = {eqn.primitive}" if outs else str(eqn.primitive)   # no results: no `=`
    one_line = " ".join(f"{k}={v}" for k, v in rendered)
    if not rendered:
        text = f"{head} {args}"
    elif "\n" not in one_line and indent + len(head) + _width(one_line) + 2 <= width:
        text = f"{head}[{one_line}] {args}"
    else:
        pad = " " * (indent + 2)
        body = "\n".join(f"{pad}{k}={v}" for k, v in rendered)
        text = f"{head}[\n{body}\n{' ' * indent}] {args}"
    if len(arg_list) > 1:
        text = _fill_operands(text, args, arg_list, indent, width)
    note = _note(source_info, eqn.source_info)
    if note:                               # on the equation's first line, as JAX puts it
        first, newline, rest = text.partition("\n")
        text = f"{first}{_NOTE}{note}{_END}{newline}{rest}"
    return text


def _fill_operands(text: str, args: str, arg_list: list, indent: int, width: int) -> str:
    """`text` (an equation ending in its operands `args`) with its operands wrapped as JAX's
    printer wraps them: before each operand after the first is a breakable space of its own
    group, which breaks (to a new line at indent + 2) only where the space itself would pass
    `width`; an operand is never measured (JAX 0.10.2's printer, probed: the line may run
    past `width` by the operand that follows a space that fits)."""
    start = text[:len(text) - len(args)]
    last = start.rpartition("\n")
    column = (len(last[2]) if last[1] else indent + _width(start)) + len(arg_list[0])
    out, pad = [start, arg_list[0]], " " * (indent + 2)
    for arg in arg_list[1:]:
        if column + 1 > width:
            out.append(f"\n{pad}{arg}")
            column = indent + 2 + len(arg)
        else:
            out.append(f" {arg}")
            column += 1 + len(arg)
    return "".join(out)


# An equation's source note (`source_info=True`) travels inside the text between these until
# pp_toplevel lines the notes up in one column, as JAX prints them (`... # f.py:3:4 (f)`)
_NOTE, _END = "\x00", "\x01"
_NOTES = re.compile("\x00([^\x01]*)\x01")


def _with_name_stack(source_info):
    """The note of `pretty_print(name_stack=True)`: JAX's `[name stack]`, then the source."""
    def note(info) -> str:
        stack = f"[{stack_text(info.name_stack)}]"
        return f"{stack} {_note(source_info, info)}" if source_info else stack
    return note


def _note(source_info, info) -> str:
    """An equation's note: `source_info` True gives JAX's `file:line:col (function)`, a
    callable its own text of the SourceInfo (the notebook's `In[3]:2`)."""
    if not source_info or info is None:
        return ""
    return source_info(info) if callable(source_info) else str(info)


def _width(text: str) -> int:
    """How wide `text` prints, its notes left out (they go to the column after the text)."""
    return len(_NOTES.sub("", text))


def _line_up_notes(text: str) -> str:
    lines = [(_NOTES.sub("", line), _NOTES.findall(line)) for line in text.split("\n")]
    column = max((len(shown) for shown, notes in lines if notes), default=0)
    return "\n".join(f"{shown.ljust(column)} # {notes[0]}" if notes else shown
                     for shown, notes in lines)


_PLAIN_PARAMS = frozenset({int, float, bool, str, type(None)})
_JAXPRS = (Jaxpr, ClosedJaxpr)


def jaxpr_params(params: dict) -> list:
    """The jaxprs found in a primitive's params (directly or in a tuple)."""
    found = []
    for value in params.values():
        kind = type(value)
        if kind in _PLAIN_PARAMS:       # (most params: asked of every equation, dce's twice)
            continue
        if isinstance(value, _JAXPRS):
            found.append(value)
        elif isinstance(value, tuple):
            found.extend(v for v in value if isinstance(v, _JAXPRS))
    return found


def all_equations(eqns):
    """Every equation of `eqns`, each followed by those of the jaxprs in its params (a jit's
    body, a cond's branches, a scan's), nested ones too: what a question about a whole program
    (its primitives, its shardings) walks."""
    for eqn in eqns:
        yield eqn
        for sub in jaxpr_params(eqn.params):
            yield from all_equations((sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub).eqns)


def _share_call_names(eqn: Eqn, names: Names):
    inner = jaxpr_params(eqn.params)
    if len(inner) != 1:
        return
    jaxpr = inner[0].jaxpr if isinstance(inner[0], ClosedJaxpr) else inner[0]
    if jaxpr in names.shared:       # printed on its own (`let name = ...`), with its own names
        return
    taken = set()          # an outer name is given to one inner variable at most
    for v_in, atom in zip(jaxpr.invars, eqn.invars):
        if isinstance(atom, Var) and v_in not in names.names and names(atom) not in taken:
            names.names[v_in] = names(atom)
            taken.add(names(atom))
    defined = {v for e in jaxpr.eqns for v in e.outvars}
    for v_out, outer in zip(jaxpr.outvars, eqn.outvars):
        if v_out in defined and v_out not in names.names and not isinstance(outer, DropVar) \
                and names(outer) not in taken:
            names.names[v_out] = names(outer)
            taken.add(names(outer))


def pp_param(value, names: Names, indent: int, width: int, prefix: int = 0,
             source_info=False) -> str:
    """A param's text; `prefix` is the width of `key=` before it on its first line."""
    if isinstance(value, (Jaxpr, ClosedJaxpr)):
        jaxpr = value.jaxpr if isinstance(value, ClosedJaxpr) else value
        if jaxpr in names.shared:
            return names.shared[jaxpr]
        return pp_jaxpr(jaxpr, names, indent, source_info, width, prefix)
    if isinstance(value, tuple) and value and \
            all(isinstance(v, (Jaxpr, ClosedJaxpr)) for v in value):
        shared = [names.shared.get(v.jaxpr if isinstance(v, ClosedJaxpr) else v) for v in value]
        if all(shared):                     # names only: one line, as JAX's `(jaxpr jaxpr1)`
            return f"({' '.join(shared)})"
        pad = " " * (indent + 2)
        inner = "\n".join(pad + pp_param(v, names, indent + 2, width, 0, source_info)
                           for v in value)
        return f"(\n{inner}\n{' ' * indent})"
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, type):
        # JAX's str(v): `var_type=<class 'flax.nnx.variablelib.Variable'>`, a scalar type as
        # given (`mul[out_dtype=<class 'numpy.float32'>]`)
        return str(value)
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    text = str(value)
    if " at 0x" in text:      # an address masked, as JAX's pp_kv_pair (`object at 0xXXXXXXXXXXXX>`)
        text = _ADDRESS.sub(lambda m: " at 0x" + "X" * len(m.group(1)), text)
    return text


_ADDRESS = re.compile(r" at 0x([0-9a-fA-F]+)")


def pp_jaxpr(jaxpr: Jaxpr, names: Names, indent: int, source_info=False, width=80,
             prefix: int = 0) -> str:
    consts = " ".join(pp_binder(v, names) for v in jaxpr.constvars)
    ins = " ".join(pp_binder(v, names) for v in jaxpr.invars)
    head = f"{{ lambda {consts}; {ins}. let" if consts else f"{{ lambda ; {ins}. let"
    eqns = [pp_eqn(e, names, indent + 4, source_info, width) for e in jaxpr.eqns]
    outs = ", ".join(names(v) for v in jaxpr.outvars)
    tail = f"in ({outs},) }}" if len(jaxpr.outvars) == 1 else f"in ({outs}) }}"
    if not any("\n" in e for e in eqns):
        one_line = " ".join([head, "; ".join(eqns), tail]) if eqns else f"{head}  {tail}"
        if indent + prefix + _width(one_line) <= width:
            return one_line
    # on lines of their own: binders and results filled to the width, as JAX's printer fills
    # their groups of breaks; no equations leave the body's one line blank, as JAX's
    more, col = indent + 4, indent + prefix + len("{ lambda ")
    consts, col = _fill([pp_binder(v, names) for v in jaxpr.constvars], col, more, width)
    ins, _ = _fill([pp_binder(v, names) for v in jaxpr.invars], col + 2, more, width)
    outs, _ = _fill([names(v) for v in jaxpr.outvars], indent + 6, more, width, ",")
    tail = f"in ({outs},) }}" if len(jaxpr.outvars) == 1 else f"in ({outs}) }}"
    body = "".join(f"\n{' ' * more}{e}" for e in eqns) or f"\n{' ' * more}"
    return f"{{ lambda {consts}; {ins}. let{body}\n{' ' * (indent + 2)}{tail}"


def _fill(items: list, col: int, indent: int, width: int, sep: str = "") -> tuple:
    """(`items` as one text from column `col`, the column where it ends): each item after the
    first on the same line while that line is shorter than `width`, else on a new line at
    `indent` (JAX's printer decides each `group(brk())` by the break alone); `sep` after each
    but the last.

    >>> _fill(["a:f32[]", "b:f32[]"], 76, 4, 80)
    ('a:f32[]\\n    b:f32[]', 11)
    """
    text = ""
    for i, item in enumerate(items):
        if i:
            text, col = text + sep, col + len(sep)
            if col < width:
                text, col = text + " ", col + 1
            else:
                text, col = text + "\n" + " " * indent, indent
        text, col = text + item, col + len(item)
    return text, col


def jaxprs_in_params(params):
    """The Jaxprs an equation's params hold (a cond's branches, a scan's body, a jit's)."""
    for value in params.values():
        for v in value if isinstance(value, tuple) else (value,):
            if isinstance(v, (Jaxpr, ClosedJaxpr)):
                yield v.jaxpr if isinstance(v, ClosedJaxpr) else v


def rewrite_param_jaxprs(value, rewrite, done: dict):
    """A param's `value` with each Jaxpr it holds (bare, closed, or in a tuple such as
    custom_linear_solve's namedtuple) replaced by `rewrite(jaxpr, done)`, each once (`done`
    maps id -> (original, result): bodies are shared); `value` itself where nothing changed.
    `rewrite` is a module function: a closure calling itself would be a reference cycle.

        >>> rewrite_param_jaxprs(3, None, {})
        3
    """
    if isinstance(value, ClosedJaxpr):
        if id(value) not in done:
            inner = rewrite(value.jaxpr, done)
            done[id(value)] = (value, value if inner is value.jaxpr else
                               ClosedJaxpr(inner, value.consts))
        return done[id(value)][1]
    if isinstance(value, Jaxpr):
        if id(value) not in done:
            done[id(value)] = (value, rewrite(value, done))
        return done[id(value)][1]
    if isinstance(value, tuple) and any(isinstance(v, (Jaxpr, ClosedJaxpr)) for v in value):
        parts = [rewrite_param_jaxprs(v, rewrite, done) for v in value]
        if all(p is v for p, v in zip(parts, value)):
            return value
        return value._make(parts) if hasattr(value, "_make") else tuple(parts)
    return value


def shared_jaxprs(top: Jaxpr) -> dict:
    """Nested jaxprs JAX prints once, up front, as `let name = { ... } in`: those met more than
    once, and those of more than 10 equations. Named after the `name` param of the equation
    holding them (`jaxpr` otherwise), made unique with a counter, as JAX names them."""
    counts: Counter = Counter()
    labels: dict = {}
    queue = deque([top])
    while queue:
        jaxpr = queue.popleft()
        counts[jaxpr] += 1 + (jaxpr is not top and len(jaxpr.eqns) > 10)
        for eqn in jaxpr.eqns:
            inner = list(jaxprs_in_params(eqn.params))
            name = None if eqn.primitive in name_not_a_param else eqn.params.get("name")
            if name is not None:
                for j in inner:
                    labels.setdefault(j, str(name).strip("<>"))
            queue.extend(inner)
    taken: Counter = Counter()
    shared = {}
    for jaxpr, count in counts.items():
        if count == 1:
            continue
        name = labels.get(jaxpr, "jaxpr")
        if taken[name]:
            taken[name] += 1
            name += str(taken[name] - 1)
        taken[name] += 1
        shared[jaxpr] = name
    return shared


def name_unused_results(jaxpr: Jaxpr, names: Names) -> None:
    """Name `_` the results nobody reads, of the printed jaxpr's own equations only: JAX's
    `_dropvars` walks the top level, so a nested jaxpr (a jit's, a scan's) names them all."""
    used = {v for e in jaxpr.eqns for v in e.invars if isinstance(v, Var)}
    used.update(v for v in jaxpr.outvars if isinstance(v, Var))
    for e in jaxpr.eqns:
        for v in e.outvars:
            if v not in used:
                names.names.setdefault(v, "_")


def _can_use_color() -> bool:
    """Where JAX colors jaxprs by default: a Jupyter or Colab shell (IPython's get_ipython
    among the builtins), else a terminal on stdout."""
    shell = getattr(builtins, "get_ipython", None)
    kind = type(shell()) if shell is not None else None
    if kind is not None and (kind.__name__ == "ZMQInteractiveShell" or "colab" in str(kind)):
        return True
    return hasattr(sys.stdout, "isatty") and sys.stdout.isatty()


CAN_USE_COLOR = _can_use_color()      # (decided once, at import, as JAX's)
_KEYWORD, _TYPE, _RESET_KEYWORD, _RESET_TYPE = "\x1b[34;1m", "\x1b[35m", "\x1b[39;22m", "\x1b[39m"
# a binder's type (`a:f32[3]`, `_:i32[]`): a variable's name, not a literal's (`2.0:f32[]`,
# `inf:f32[]`, `True:bool[]`), then its type up to a space, comma, `;`, `)` or the `.` after
# a jaxpr's binders
_BINDER_TYPE = re.compile(r"(?<![\w.'\"-])(?!(?:inf|nan):)([a-z]+|_)(:[^\s,;).]+)")
_LET = re.compile(r"\. let(\n *)?")
_IN = re.compile(r"(?<=\s)in (?=\()")


def colored(text: str, use_color=None) -> str:
    """A jaxpr's text with JAX's highlighting where `use_color` (None: JAX's default) says:
    the keywords bold blue, the binders' types magenta, literals and the rest plain.

    >>> colored("{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }", True).count("\x1b[35m")
    2
    """
    if use_color is None:
        use_color = CAN_USE_COLOR and config.jax_pprint_use_color
    if not use_color:
        return text
    text = _BINDER_TYPE.sub(lambda m: f"{m[1]}{_TYPE}{m[2]}{_RESET_TYPE}", text)
    text = text.replace("{ lambda ", f"{{ {_KEYWORD}lambda {_RESET_KEYWORD}")
    # (JAX's reset after `let` comes after the line break and indent that follow it)
    text = _LET.sub(lambda m: f". {_KEYWORD}let{m[1] or ''}{_RESET_KEYWORD}", text)
    return _IN.sub(f"{_KEYWORD}in {_RESET_KEYWORD}", text)


def pp_toplevel(jaxpr: Jaxpr, source_info=False, width=80, names: Names | None = None) -> str:
    """`jaxpr` as JAX prints it: shared nested jaxprs first (`let name = ... in`), then it.
    `source_info`: each equation's source in a column after the text, as JAX's
    `pretty_print(source_info=True)`; a callable gives its own text of each SourceInfo."""
    names = names if names is not None else Names()
    names.shared = {}
    name_unused_results(jaxpr, names)
    shared = shared_jaxprs(jaxpr)
    # every shared jaxpr is named before any is printed, as JAX 0.10.2's: one printed first
    # refers by name to those it holds (`_pad`'s `jit[name=_flip jaxpr=_flip]`)
    names.shared.update(shared)
    parts = []
    for inner, name in shared.items():
        head = f"let {name} = "
        parts.append(f"{head}{pp_jaxpr(inner, names, 0, source_info, width, len(head))} in")
    parts.append(pp_jaxpr(jaxpr, names, 0, source_info, width))
    text = "\n".join(parts)
    return _line_up_notes(text) if source_info else text


_Names = Names          # the old private name (the notebook viewer used it first)
