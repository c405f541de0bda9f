"""A jaxpr as JSON: the `application/vnd.jxkernel.jaxpr+json` MIME bundle the jaxpr views carry
beside text/html and text/plain, so the JupyterLab extension can render a jaxpr (even from a
saved notebook, with no kernel running).

    >>> bundle = jaxpr_bundle(jxkernel.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0), "f")
    >>> [e["primitive"] for e in bundle["jaxpr"]["eqns"]]
    ['sin', 'mul']

Variable names are the printed ones: the jaxpr is printed first with the core's printer and
the structure reads the names it chose, so `text` and `jaxpr` agree.
"""
from __future__ import annotations

import numpy as np

from ..core import ir
from .display import source_label, source_line

MIME = "application/vnd.jxkernel.jaxpr+json"
VERSION = 1


def jaxpr_bundle(jaxpr, name: str) -> dict:
    """The MIME bundle's value: {"version", "name", "text", "jaxpr"} for a (closed) jaxpr."""
    names = ir.Names()
    text = ir.pp_toplevel(_open(jaxpr), names=names)   # names every variable, nested ones too
    return {"version": VERSION, "name": name, "text": text,
            "jaxpr": jaxpr_to_json(jaxpr, names)}


def _open(jaxpr) -> ir.Jaxpr:
    return jaxpr.jaxpr if isinstance(jaxpr, ir.ClosedJaxpr) else jaxpr


def jaxpr_to_json(jaxpr, names: ir.Names | None = None) -> dict:
    """A (closed) jaxpr as JSON-able data: invars, constvars, outvars and equations, each
    equation with its params (sub-jaxprs structured, other values as printed) and the user's
    source line where the core recorded it. Pass the `names` of a printing to agree with it.

        >>> jaxpr_to_json(jxkernel.make_jaxpr(lambda x: x + 1)(1.0))["eqns"][0]["invars"]
        [{'name': 'a', 'aval': 'f32[]'}, {'literal': '1.0', 'aval': 'f32[]'}]
    """
    if names is None:
        names = ir.Names()
        ir.pp_toplevel(_open(jaxpr), names=names)
    return _jaxpr(_open(jaxpr), names)


def _jaxpr(jaxpr, names) -> dict:
    return {"invars": [_var(v, names) for v in jaxpr.invars],
            "constvars": [_var(v, names) for v in jaxpr.constvars],
            "outvars": [_atom(v, names) for v in jaxpr.outvars],
            "eqns": [_eqn(e, names) for e in jaxpr.eqns]}


def _var(v, names) -> dict:
    return {"name": names(v), "aval": v.aval.str_short()}


def _atom(a, names) -> dict:
    if isinstance(a, ir.Literal):
        val = a.val[()] if isinstance(a.val, np.ndarray) else a.val
        return {"literal": str(val), "aval": a.aval.str_short()}
    return _var(a, names)


def _param(value, names):
    if isinstance(value, (ir.Jaxpr, ir.ClosedJaxpr)):
        return jaxpr_to_json(value, names)
    if isinstance(value, tuple) and value and \
            all(isinstance(v, (ir.Jaxpr, ir.ClosedJaxpr)) for v in value):
        return [jaxpr_to_json(v, names) for v in value]          # cond's branches
    return ir.pp_param(value, names, 0, 10_000)


def _eqn(eqn, names) -> dict:
    info = eqn.source_info
    return {"primitive": str(eqn.primitive),
            "params": {k: _param(v, names) for k, v in sorted(eqn.params.items())},
            "invars": [_atom(v, names) for v in eqn.invars],
            "outvars": [_var(v, names) for v in eqn.outvars],
            "source": source_label(info) or None,
            "source_line": (source_line(info) or None) if source_label(info) else None}
