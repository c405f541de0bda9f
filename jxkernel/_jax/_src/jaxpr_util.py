"""jxkernel._src.jaxpr_util, as jax._src.jaxpr_util: counts over a jaxpr's equations, its
nested jaxprs' included (a jit's, a cond's branches): by primitive, by primitive and source
line, by primitive and result types, by source line; and the equations that read a variable.

    >>> import jxkernel as jax, jxkernel.numpy as jnp
    >>> jaxpr = jax.make_jaxpr(lambda x: jnp.sin(jax.jit(jnp.sin)(x)) + 1.0)(1.0).jaxpr
    >>> sorted(primitives(jaxpr).items())
    [('add', 1), ('jit', 1), ('sin', 2)]
    >>> primitives_by_shape(jaxpr)["sin :: float32[]"], count_eqns(jaxpr)
    (2, 4)
"""
from __future__ import annotations

from collections import defaultdict

from ...core.ir import ClosedJaxpr, DropVar, Literal
from ..extend.core import jaxprs_in_params, subjaxprs
from ..extend.source_info_util import summarize


def _plain(jaxpr):
    return jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr


def all_eqns(jaxpr, revisit_inner_jaxprs: bool = True):
    """(the jaxpr holding it, equation) for every equation, nested jaxprs' after their
    holder's; a jaxpr nested twice is visited once unless `revisit_inner_jaxprs`."""
    seen = None if revisit_inner_jaxprs else set()

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            yield jaxpr, eqn
        for inner in subjaxprs(jaxpr):
            if seen is None:
                yield from walk(inner)
            elif inner not in seen:
                seen.add(inner)
                yield from walk(inner)
    return walk(_plain(jaxpr))


def count_eqns(jaxpr, revisit_inner_jaxprs: bool = True) -> int:
    """How many equations `jaxpr` has, its nested jaxprs' included."""
    return sum(1 for _ in all_eqns(jaxpr, revisit_inner_jaxprs))


def collect_eqns(jaxpr, key) -> dict:
    """key(eqn) -> the equations with that key."""
    found = defaultdict(list)
    for _, eqn in all_eqns(jaxpr):
        found[key(eqn)].append(eqn)
    return dict(found)


def histogram(jaxpr, key, key_fmt=lambda k: k) -> dict:
    """key_fmt(key(eqn)) -> how many equations have that key."""
    return {key_fmt(k): len(v) for k, v in collect_eqns(jaxpr, key).items()}


def primitives(jaxpr) -> dict:
    """primitive name -> how many equations bind it."""
    return histogram(jaxpr, lambda eqn: eqn.primitive.name)


def primitives_by_source(jaxpr) -> dict:
    """"name @ file:line (function)" -> count."""
    return histogram(jaxpr, lambda eqn: (eqn.primitive.name, summarize(eqn.source_info)),
                     " @ ".join)


def primitives_by_shape(jaxpr) -> dict:
    """"name :: result types" -> count, each type as JAX's `aval.str_short()` writes it by
    default (`float32[2]`; a dropped result is `*`)."""
    def types(eqn):
        return " ".join("*" if isinstance(v, DropVar) else v.aval.str_short()
                        for v in eqn.outvars)
    return histogram(jaxpr, lambda eqn: (eqn.primitive.name, types(eqn)), " :: ".join)


def source_locations(jaxpr) -> dict:
    """"file:line (function)" -> how many equations that line made."""
    return histogram(jaxpr, lambda eqn: summarize(eqn.source_info))


def eqns_using_var(jaxpr, invar):
    """The innermost equations that read `invar`: an equation whose params hold jaxprs (a
    jit, a cond) is looked into, at the binder its operand is bound to."""
    for eqn in _plain(jaxpr).eqns:
        index = next((i for i, atom in enumerate(eqn.invars)
                      if not isinstance(atom, Literal) and atom is invar), None)
        if index is None:
            continue
        inner = list(jaxprs_in_params(eqn.params))
        if not inner:
            yield eqn
        for sub in inner:
            if index >= len(sub.invars):
                raise RuntimeError(f"Failed to find index {index} in jaxpr.invars while "
                                   f"building report")
            yield from eqns_using_var(sub, sub.invars[index])
