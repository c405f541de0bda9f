"""A jaxpr as JSON: the `application/vnd.jxkernel.jaxpr+json` MIME bundle the jaxpr views carry
beside text/html and text/plain, so the JupyterLab extension can render a jaxpr (even from a
saved notebook, with no kernel running).

    >>> bundle = jaxpr_bundle(jxkernel.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0), "f")
    >>> [e["primitive"] for e in bundle["jaxpr"]["eqns"]]
    ['sin', 'mul']

Variable names are the printed ones: the jaxpr is printed first with the core's printer and
the structure reads the names it chose, so `text` and `jaxpr` agree. Names do not say which
variable is meant (jit's inner jaxpr reuses its operands' names), so every variable also has an
`id`, unique in the bundle, that its definition and each of its uses carry (VarIds).
"""
from __future__ import annotations

import numpy as np

from ..core import ir
from . import source
from .schema import mime_type

MIME = mime_type("JaxprBundle")
VERSION = 2             # 2: variables carry their `id`


def jaxpr_bundle(jaxpr, name: str) -> dict:
    """The MIME bundle's value: {"version", "name", "text", "jaxpr"} for a (closed) jaxpr."""
    names = ir.Names()
    text = ir.pp_toplevel(open_jaxpr(jaxpr), names=names)   # names every variable, nested too
    return {"version": VERSION, "name": name, "text": text,
            "jaxpr": jaxpr_to_json(jaxpr, names)}


def open_jaxpr(jaxpr) -> ir.Jaxpr:
    """The jaxpr of a ClosedJaxpr (consts aside); a Jaxpr as it is."""
    return jaxpr.jaxpr if isinstance(jaxpr, ir.ClosedJaxpr) else jaxpr


def jaxpr_to_json(jaxpr, names: ir.Names | None = None) -> dict:
    """A (closed) jaxpr as JSON-able data: invars, constvars, outvars and equations, each
    equation with its params (all of them, sorted; sub-jaxprs structured, other values as
    printed) and the user's source line where the core recorded it. Pass the `names` of a
    printing to agree with it. The JupyterLab extension and the jaxpr widget render from this.

        >>> jaxpr_to_json(jxkernel.make_jaxpr(lambda x: x + 1)(1.0))["eqns"][0]["invars"]
        [{'name': 'a', 'aval': 'f32[]', 'id': 0}, {'literal': '1.0', 'aval': 'f32[]'}]
    """
    if names is None:
        names = ir.Names()
        ir.pp_toplevel(open_jaxpr(jaxpr), names=names)
    return _jaxpr(open_jaxpr(jaxpr), VarIds(names))


class VarIds:
    """Which variable a printed name means: an id per variable, unique in one payload, that its
    definition and its uses share. Each jaxpr block is a scope of its own: an inner jaxpr's
    variable is another variable even where it prints under an outer name (jit's do), and a
    jaxpr shown twice has its variables twice. Literals and unused results (`_`) get none.

        >>> jaxpr = jax.make_jaxpr(lambda x: x + 1.0)(1.0).jaxpr
        >>> x, literal = jaxpr.invars[0], jaxpr.eqns[0].invars[1]
        >>> ids, scope = VarIds(ir.Names()), {}
        >>> ids.define(scope, x), ids.use(scope, x), ids.use(scope, literal)
        (0, 0, None)
    """

    def __init__(self, names: ir.Names):
        self.names, self.count = names, 0

    def define(self, scope: dict, var) -> int | None:
        if self.names(var) == "_":
            return None
        scope[var] = self.count
        self.count += 1
        return scope[var]

    def use(self, scope: dict, atom) -> int | None:
        return scope.get(atom) if isinstance(atom, ir.Var) else None


def _jaxpr(jaxpr, ids) -> dict:
    scope: dict = {}                         # this block's variables -> their ids
    constvars = [_def(v, ids, scope) for v in jaxpr.constvars]    # in the printed order
    invars = [_def(v, ids, scope) for v in jaxpr.invars]
    eqns = [_eqn(e, ids, scope) for e in jaxpr.eqns]
    return {"invars": invars, "constvars": constvars,
            "outvars": [_use(v, ids, scope) for v in jaxpr.outvars], "eqns": eqns}


def _def(v, ids, scope) -> dict:
    return _var(v, ids.names, ids.define(scope, v))


def _use(a, ids, scope) -> dict:
    if isinstance(a, ir.Literal):
        val = a.val[()] if isinstance(a.val, np.ndarray) else a.val
        return {"literal": str(val), "aval": a.aval.str_short(True)}
    return _var(a, ids.names, ids.use(scope, a))


def _var(v, names, vid) -> dict:
    out = {"name": names(v), "aval": v.aval.str_short(True)}
    return out if vid is None else {**out, "id": vid}


def _param(value, ids):
    if isinstance(value, (ir.Jaxpr, ir.ClosedJaxpr)):
        return _jaxpr(open_jaxpr(value), ids)
    if isinstance(value, tuple) and value and \
            all(isinstance(v, (ir.Jaxpr, ir.ClosedJaxpr)) for v in value):
        return [_jaxpr(open_jaxpr(v), ids) for v in value]          # cond's branches
    return ir.pp_param(value, ids.names, 0, 10_000)


def _shown(key, value) -> bool:
    return False


def _eqn(eqn, ids, scope) -> dict:
    info = eqn.source_info
    invars = [_use(v, ids, scope) for v in eqn.invars]        # read before the outputs bind
    return {"primitive": str(eqn.primitive),
            "params": {k: _param(v, ids) for k, v in sorted(eqn.params.items())
                       if (v is not None or k not in ir.none_hidden_params.get(eqn.primitive, ()))
                       and not ir.default_hidden_params.get(eqn.primitive, _shown)(k, v)},
            "invars": invars,
            "outvars": [_def(v, ids, scope) for v in eqn.outvars],
            "source": source.label(info) or None,
            "source_line": (source.line(info) or None) if source.label(info) else None}
