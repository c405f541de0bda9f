"""The notebook's views as JSON MIME bundles, beside their text/html and text/plain: the
JupyterLab extension renders them richly, also in a saved notebook with no kernel running
(nbviewer and GitHub show the HTML). The jaxpr's bundle is in jaxpr_json.py.

    application/vnd.jxkernel.traced+json        traced vs static (%jxtraced, %%jit errors)
    application/vnd.jxkernel.hlo+json           StableHLO, optimized HLO, XLA's cost (%hlo)
    application/vnd.jxkernel.compilations+json  the recompilation log (%jxcompiles)

Each value is a dict with "version" (1) first; docs/labextension.md describes the fields.

    >>> traced_bundle("In[1]", "y = x * n", [dict(name="x", kind="traced", detail="f32[3]")],
    ...               [], None, {"x": [(1, 4, 5)]})["positions"]
    {'x': [[1, 4, 5]]}
"""
from __future__ import annotations

import math

from .compile_report import event_json
from .schema import mime_type

TRACED_MIME = mime_type("TracedBundle")
HLO_MIME = mime_type("HloBundle")
COMPILATIONS_MIME = mime_type("CompilationsBundle")
VERSION = 1


def traced_bundle(label, source, inputs, outputs, error, positions, first_line=1) -> dict:
    """A cell's (or function's) source with its inputs marked: `positions` maps an input's
    name to its (line, start, end) spans, lines from 1 and columns in UTF-8 bytes (as `ast`
    reports them); `error` is {line, message, hint} or None."""
    return {"version": VERSION, "label": label, "source": source, "first_line": first_line,
            "inputs": [{"name": i["name"], "kind": i["kind"], "detail": i.get("detail", "")}
                       for i in inputs],
            "outputs": [{"name": o["name"], "detail": o.get("detail", "")} for o in outputs],
            "error": ({"line": error.get("line"), "message": error.get("message", ""),
                       "hint": error.get("hint", "")} if error else None),
            "positions": {name: [list(span) for span in spans]
                          for name, spans in positions.items()}}


def hlo_bundle(title, sections, cost_rows, collectives=(),
               cost_title="XLA cost analysis") -> dict:
    """`sections`: (heading, text) pairs; `cost_rows`: (name, value) pairs of XLA's cost
    analysis (numbers, or null where XLA gave an infinity or NaN, which JSON cannot hold);
    `collectives`: the communication XLA inserted (collectives.collective_json's);
    `cost_title`: the cost table's heading (on the numpy backend: jxkernel's estimates)."""
    return {"version": VERSION, "title": title,
            "sections": [{"title": head, "text": text} for head, text in sections],
            "cost": [[name, _number(value)] for name, value in cost_rows],
            "cost_title": cost_title, "collectives": list(collectives)}


def compile_event_json(event, cell_id=None, execution_count=None) -> dict:
    """One compilation as the extension's panel and the log's bundle list it: the report's
    event (compile_report.event_json: what changed, and whose work it was) and the cell it
    ran in."""
    return {**event_json(event), "cell_id": cell_id, "execution_count": execution_count}


def compilations_bundle(events, title="") -> dict:
    return {"version": VERSION, "title": title,
            "events": [compile_event_json(e) for e in events]}


def _number(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value if math.isfinite(value) else None
    return str(value)
