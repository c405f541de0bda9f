"""Traced vs static: a cell's (or function's) source with every input marked traced (with
its type) or static (with its value), the outputs listed, and the line where tracing failed.
Lines are numbered from `first_line` (a function's line in its cell or file); `positions`
and the error's line count from 1, the first line shown.

    >>> view = CellView("y = x * n", "In[3]",
    ...                 inputs=[dict(name="x", kind="traced", detail="f32[3]"),
    ...                         dict(name="n", kind="static", detail="3")])
"""
from __future__ import annotations

import pathlib

import anywidget
import traitlets

from ...views.rich_view import esc
from ...views.views_json import traced_bundle
from ..protocol import mime_type
from ._fallback import TextFallback

_HERE = pathlib.Path(__file__).parent
_KIND_HELP = {
    "traced": "traced: an abstract value (shape and dtype only) while tracing",
    "static": "static: a Python value baked into the compiled code; a new value recompiles",
    "global": "global: looked up (a module), not an argument",
}


def _marked_line(text: str, marks: list, kinds: dict, details: dict) -> str:
    """One source line as HTML, input names wrapped in spans. `marks` are (col, end) in
    UTF-8 bytes, as `ast` reports them."""
    raw = text.encode()
    out, pos = [], 0
    for col, end, name in sorted(marks):
        if col < pos:
            continue
        kind = kinds[name]
        out.append(esc(raw[pos:col].decode(errors="replace")))
        tip = f"{name}: {kind} {details.get(name, '')}".strip()
        out.append(f"<span class='jx-{kind}' data-name='{esc(name)}' title='{esc(tip)}'>"
                   f"{esc(raw[col:end].decode(errors='replace'))}</span>")
        pos = end
    out.append(esc(raw[pos:].decode(errors="replace")))
    return "".join(out)


def cell_html(label, source, inputs, outputs, error, positions, first_line=1) -> str:
    kinds = {i["name"]: i["kind"] for i in inputs}
    details = {i["name"]: i.get("detail", "") for i in inputs}
    by_line: dict = {}
    for name in kinds:
        for line, col, end in positions.get(name, ()):
            by_line.setdefault(line, []).append((col, end, name))
    rows = []
    for n, text in enumerate(source.splitlines(), 1):
        bad = error and error.get("line") == n
        rows.append(f"<div class='jx-line{' jx-bad' if bad else ''}'>"
                    f"<span class='jx-ln'>{n + first_line - 1}</span>"
                    f"{_marked_line(text, by_line.get(n, []), kinds, details)}</div>")
        if bad:
            rows.append(f"<div class='jx-errmsg'>{esc(error.get('message', ''))}"
                        f"<div class='jx-hint'>{esc(error.get('hint', ''))}</div></div>")
    legend = "".join(
        f"<tr><td><span class='jx-{esc(i['kind'])}'>{esc(i['name'])}</span></td>"
        f"<td title='{esc(_KIND_HELP.get(i['kind'], ''))}'>{esc(i['kind'])}</td>"
        f"<td>{esc(i.get('detail', ''))}</td></tr>" for i in inputs)
    outs = ", ".join(f"<b>{esc(o['name'])}</b>"
                     f"{(': ' + esc(o['detail'])) if o.get('detail') else ''}"
                     for o in outputs) or "<i>none</i>"
    err = "" if not error or error.get("line") else \
        f"<div class='jx-errmsg'>{esc(error.get('message', ''))}<div class='jx-hint'>" \
        f"{esc(error.get('hint', ''))}</div></div>"
    return (f"<div class='jx-cellview'><div class='jx-title'>{esc(label)}: traced vs static</div>"
            f"<div class='jx-src'>{''.join(rows)}</div>{err}"
            f"<table class='jx-legend'><tr><th>input</th><th>kind</th><th>type / value</th></tr>"
            f"{legend}</table><div class='jx-outs'>outputs: {outs}</div></div>")


def cell_text(label, source, inputs, outputs, error, first_line=1) -> str:
    lines = [f"{label}: traced vs static"]
    for i in inputs:
        detail = f": {i['detail']}" if i.get("detail") else ""
        lines.append(f"  {i['kind']:<7} {i['name']}{detail}")
    outs = ", ".join(o["name"] + (f": {o['detail']}" if o.get("detail") else "") for o in outputs)
    lines.append(f"  outputs: {outs or 'none'}")
    for n, text in enumerate(source.splitlines(), 1):
        bad = error and error.get("line") == n
        lines.append(f"{'>>' if bad else '  '}{n + first_line - 1:3d} | {text}")
        if bad:
            lines += ["        " + m for m in (error.get("message", "") + "\n" +
                                               error.get("hint", "")).strip().splitlines()]
    if error and not error.get("line"):
        lines.append((error.get("message", "") + "\n" + error.get("hint", "")).strip())
    return "\n".join(lines)


_STATIC_CSS = (_HERE / "cell_view.css").read_text()


class CellView(TextFallback, anywidget.AnyWidget):
    """The cell's source, coloured by what tracing saw. Hovering a name highlights it."""
    _esm = _HERE / "cell_view.js"
    _css = _HERE / "cell_view.css"

    # Python's side: the script reads only body_html, re-rendered when one of these changes
    label = traitlets.Unicode("")
    source = traitlets.Unicode("")
    inputs = traitlets.List()       # [{name, kind, detail}]
    outputs = traitlets.List()      # [{name, detail}]
    error = traitlets.Dict()        # {line, message, hint} or {}
    first_line = traitlets.Int(1)
    body_html = traitlets.Unicode("").tag(sync=True)

    def __init__(self, source: str, label: str = "cell", *, inputs=(), outputs=(), error=None,
                 positions=None, first_line=1, **kw):
        self._positions = positions or {}
        super().__init__(source=source, label=label, inputs=list(inputs), outputs=list(outputs),
                         error=dict(error or {}), first_line=first_line, **kw)
        self._render()

    @traitlets.observe("inputs", "outputs", "error", "source", "label", "first_line")
    def _render(self, change=None):
        self.body_html = cell_html(self.label, self.source, self.inputs, self.outputs,
                                   self.error, self._positions, self.first_line)

    def kind(self, name: str) -> str | None:
        return next((i["kind"] for i in self.inputs if i["name"] == name), None)

    def text_repr(self) -> str:
        return cell_text(self.label, self.source, self.inputs, self.outputs, self.error,
                         self.first_line)

    def html_repr(self) -> str:
        return f"<style>{_STATIC_CSS}</style>{self.body_html}"

    def _repr_mimebundle_(self, **kwargs):
        data, meta = super()._repr_mimebundle_(**kwargs)
        data[mime_type("TracedBundle")] = traced_bundle(self.label, self.source, self.inputs, self.outputs,
                                          self.error or None, self._positions, self.first_line)
        return data, meta
