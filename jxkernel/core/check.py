"""A type checker for jaxprs: every transformation's output goes through it in tests,
so a bug is caught where it is made rather than three layers later."""
from __future__ import annotations

import contextlib

from .avals import NO_AXES, ShapedArray
from .ir import (ClosedJaxpr, Jaxpr, JaxprInputEffect, Literal, Names, Var, call_primitives,
                 jaxpr_params, pp_eqn, pp_toplevel)
from .hijax import HiPrimitive
from .sharding_types import abstract_eval
from . import vma


class JaxprTypeError(TypeError):
    pass


JaxprTypeError.__module__ = "jxkernel.errors"      # its public home, as JAX's jax.errors


def check_jaxpr(jaxpr) -> None:
    """Raise JaxprTypeError unless every variable is defined once before use and every
    equation's output types are what its primitive's abstract eval gives. The message is
    JAX's: what is wrong, then the equation it is in and its source line, then the jaxpr
    around it (ten equations either side)."""
    if isinstance(jaxpr, ClosedJaxpr):
        for var, const in zip(jaxpr.jaxpr.constvars, jaxpr.consts):
            if var.aval.is_high:            # a hijax value: typed by its registration
                continue
            shape = getattr(const, "shape", ())
            if tuple(shape) != var.aval.shape:
                raise JaxprTypeError(f"const of shape {shape} bound to {var.aval.str_short(True)}")
        jaxpr = jaxpr.jaxpr
    names = _Names(jaxpr)
    try:
        _check(jaxpr, names)
    except _EquationError as e:
        raise JaxprTypeError("\n\n".join([e.message, "while checking jaxpr:",
                                           _eqn_range(jaxpr, e.index - 10, e.index + 10,
                                                      names.get())])) from None
    except JaxprTypeError as e:
        raise JaxprTypeError("\n\n".join([e.args[0], "while checking jaxpr:",
                                           _eqn_range(jaxpr, 0, 20, names.get())])) from None


class _EquationError(Exception):
    """What is wrong with equation `index`, as JAX words it (in equation ..., from source)."""

    def __init__(self, message: str, index: int):
        super().__init__(message)
        self.message, self.index = message, index


class _Names:
    """The variables' names as the jaxpr prints (JAX names them by printing it first), made
    when an error first names one: a jaxpr that checks is never printed."""

    def __init__(self, jaxpr):
        self.jaxpr, self.names = jaxpr, None

    def get(self) -> Names:
        if self.names is None:
            self.names = Names()
            try:
                pp_toplevel(self.jaxpr, names=self.names)
            except Exception:   # noqa: BLE001 (too broken to print: names as they come)
                self.names = Names()
        return self.names

    def __call__(self, var) -> str:
        return self.get()(var)


def _check(jaxpr, names: _Names) -> None:
    defined: set = set()

    def define(v):
        if not isinstance(v, Var):
            raise JaxprTypeError(f"{v!r} is not a Var")
        if v in defined:
            raise JaxprTypeError(f"Variable '{names(v)}' already bound")
        defined.add(v)

    def read(atom):
        if isinstance(atom, Literal):
            return atom.aval
        if atom not in defined:
            raise JaxprTypeError(f"Variable '{names(atom)}' not defined")
        return atom.aval

    for v in jaxpr.constvars:
        define(v)
    for v in jaxpr.invars:
        define(v)
    declared = jaxpr.declared_effects
    for i, eqn in enumerate(jaxpr.eqns):
        try:
            _check_eqn(eqn, read, define, names)
            if declared is not None:
                _check_declared_effects(eqn, declared)
        except JaxprTypeError as e:
            source = "" if eqn.source_info is None else str(eqn.source_info)
            raise _EquationError("\n\n".join(
                [e.args[0], "in equation:", pp_eqn(eqn, names.get(), 2),
                 f"from source: {source}"]), i) from None
    for v in jaxpr.outvars:
        read(v)


def _check_declared_effects(eqn, declared) -> None:
    """JAX's error for an equation's effect a jaxpr's declared effects lack (a Ref's effects,
    on an input, are not checked here)."""
    for effect in eqn.effects:
        if not isinstance(effect, JaxprInputEffect) and effect not in declared:
            raise JaxprTypeError(f"Equation effect not present in jaxpr effects. Equation "
                                 f"effect: {effect}. Jaxpr effects: {declared}")


def _check_eqn(eqn, read, define, names) -> None:
    in_avals = [read(a) for a in eqn.invars]
    _check_arity(eqn)
    with _body_types(eqn.params):
        for inner in jaxpr_params(eqn.params):
            check_jaxpr(inner)
    if isinstance(eqn.primitive, HiPrimitive):
        # its abstract_eval reads and updates the quasi-dynamic data of the trace that
        # staged it, which the jaxpr does not keep: only its variables are checked
        for v in eqn.outvars:
            define(v)
        return
    # typed as staging types them: varying over the inputs' manual axes (shard_map bodies)
    out_avals = abstract_eval(eqn.primitive, in_avals, eqn.params)
    if vma.checked:
        out_avals = vma.out_types(eqn.primitive, in_avals, eqn.params, out_avals)
    if len(out_avals) != len(eqn.outvars):
        raise JaxprTypeError(f"{len(eqn.outvars)} outputs, rule gives {len(out_avals)}")
    for v, aval in zip(eqn.outvars, out_avals):
        if v.aval.strip_weak_type() != aval.strip_weak_type() and \
                (vma.checked or _vma_free(v.aval) != _vma_free(aval)):
            raise JaxprTypeError(f"Value for variable '{names(v)}' inconsistently typed as "
                                 f"{aval.str_short(True)} for let-binder of type "
                                 f"{v.aval.str_short(True)}")
        define(v)


def _check_arity(eqn) -> None:
    """A call's operands against its jaxpr's inputs, a cond's branches against each other
    (before the inner jaxprs are checked, as JAX's rules do)."""
    inner = eqn.params.get("jaxpr") if eqn.primitive in call_primitives else None
    if isinstance(inner, (Jaxpr, ClosedJaxpr)):
        inner = inner.jaxpr if isinstance(inner, ClosedJaxpr) else inner
        if len(eqn.invars) != len(inner.invars):
            raise JaxprTypeError(f"Call primitive {eqn.primitive} with {len(eqn.invars)} "
                                 f"operands cannot call jaxpr with {len(inner.invars)} inputs")
    branches = eqn.params.get("branches") if eqn.primitive.name == "cond" else None
    # (branches that are not jaxprs are the cond rule's own error to raise, in its words)
    if isinstance(branches, (tuple, list)) and branches and \
            all(isinstance(b, (Jaxpr, ClosedJaxpr)) for b in branches):
        counts = [len((b.jaxpr if isinstance(b, ClosedJaxpr) else b).invars) for b in branches]
        for i, n in enumerate(counts[1:], start=1):
            if n != counts[0]:
                raise JaxprTypeError(f"cond branch 0 takes {counts[0]} inputs, branch {i} "
                                     f"takes {n}")


def _eqn_range(jaxpr, lo: int, hi: int, names: Names) -> str:
    """The jaxpr printed with equations lo..hi only, `...` for those left out (JAX's
    pp_jaxpr_eqn_range)."""
    lo = max(lo, 0)
    hi = max(lo, min(hi, len(jaxpr.eqns)))
    if lo == 0 and hi == len(jaxpr.eqns):
        return pp_toplevel(jaxpr, names=names)
    part = Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, jaxpr.eqns[lo:hi])
    lines = pp_toplevel(part, names=names).split("\n")
    if len(lines) == 1:                 # (printed on one line: the `let` ends it before `in`)
        head, _, tail = lines[0].partition(" in ")
        return f"{head} ... in {tail}" if not part.eqns else lines[0]
    middle = lines[1:-1]
    if lo > 0:
        middle = ["    ...", *middle]
    if hi < len(jaxpr.eqns):
        middle = [*middle, "    ..."]
    return "\n".join([lines[0], *middle, lines[-1]])


def _vma_free(aval):
    """`aval` without its varying manual axes: outside a check_vma shard_map body (a jit's
    jaxpr traced inside one, checked on its own) the checker cannot say which axes its
    values vary over, so it compares the rest of their types."""
    return aval.update(vma=NO_AXES).strip_weak_type() if type(aval) is ShapedArray and \
        aval.vma else aval.strip_weak_type()


def _body_types(params):
    """How an equation's inner jaxprs are typed: a check_vma shard_map's body with its manual
    axes varying (as it was traced), any other as it stands."""
    if params.get("check_vma") and "newly_manual_axes" in params and "mesh" in params:
        return vma.checking(params["newly_manual_axes"], params["mesh"].axis_names)
    return contextlib.nullcontext()
