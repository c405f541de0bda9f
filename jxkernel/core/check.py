"""A type checker for jaxprs: every transformation's output goes through it in tests,
so a bug is caught where it is made rather than three layers later."""
from __future__ import annotations

import contextlib

from .avals import NO_AXES, ShapedArray
from .ir import ClosedJaxpr, Literal, Var, jaxpr_params
from .hijax import HiPrimitive
from .sharding_types import abstract_eval
from . import vma


class JaxprTypeError(TypeError):
    pass


JaxprTypeError.__module__ = "jxkernel.errors"      # its public home, as JAX's jax.errors


def check_jaxpr(jaxpr) -> None:
    """Raise JaxprTypeError unless every variable is defined once before use and every
    equation's output types are what its primitive's abstract eval gives."""
    if isinstance(jaxpr, ClosedJaxpr):
        for var, const in zip(jaxpr.jaxpr.constvars, jaxpr.consts):
            if var.aval.is_high:            # a hijax value: typed by its registration
                continue
            shape = getattr(const, "shape", ())
            if tuple(shape) != var.aval.shape:
                raise JaxprTypeError(f"const of shape {shape} bound to {var.aval.str_short()}")
        jaxpr = jaxpr.jaxpr
    defined: set = set()

    def define(v, where):
        if not isinstance(v, Var):
            raise JaxprTypeError(f"{where}: {v!r} is not a Var")
        if v in defined:
            raise JaxprTypeError(f"{where}: variable {v!r} defined twice")
        defined.add(v)

    def read(atom, where):
        if isinstance(atom, Literal):
            return atom.aval
        if atom not in defined:
            raise JaxprTypeError(f"{where}: variable {atom!r} used before it is defined")
        return atom.aval

    for v in jaxpr.constvars:
        define(v, "constvar")
    for v in jaxpr.invars:
        define(v, "invar")
    for i, eqn in enumerate(jaxpr.eqns):
        where = f"equation {i} ({eqn.primitive})"
        in_avals = [read(a, where) for a in eqn.invars]
        with _body_types(eqn.params):
            for inner in jaxpr_params(eqn.params):
                check_jaxpr(inner)
        if isinstance(eqn.primitive, HiPrimitive):
            # its abstract_eval reads and updates the quasi-dynamic data of the trace that
            # staged it, which the jaxpr does not keep: only its variables are checked
            for v in eqn.outvars:
                define(v, where)
            continue
        # typed as staging types them: varying over the inputs' manual axes (shard_map bodies)
        out_avals = abstract_eval(eqn.primitive, in_avals, eqn.params)
        if vma.checked:
            out_avals = vma.out_types(eqn.primitive, in_avals, eqn.params, out_avals)
        if len(out_avals) != len(eqn.outvars):
            raise JaxprTypeError(f"{where}: {len(eqn.outvars)} outputs, rule gives {len(out_avals)}")
        for v, aval in zip(eqn.outvars, out_avals):
            if v.aval.strip_weak_type() != aval.strip_weak_type() and \
                    (vma.checked or _vma_free(v.aval) != _vma_free(aval)):
                raise JaxprTypeError(f"{where}: output typed {v.aval.str_short()} but the rule "
                                     f"gives {aval.str_short()}")
            define(v, where)
    for v in jaxpr.outvars:
        read(v, "outvars")


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
