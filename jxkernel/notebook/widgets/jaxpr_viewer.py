"""The jaxpr viewer: equations with types and source lines, nested jaxprs collapsible,
a variable's definition and uses highlighted, counts per primitive, and the StableHLO.

    >>> v = JaxprViewer(jxkernel.make_jaxpr(f)(x))
    >>> v.def_use["1"]              # variable 1: its defining equation and its users
    {'name': 'b', 'def': '0', 'uses': ['1']}
    >>> v.view = "stablehlo"; v.stablehlo[:12]     # lowered on first use
    'module @jit_'

Names are given exactly as the printed jaxpr gives them (we print first, with the
core's printer, then read the names it chose), so the viewer and `print(jaxpr)`
agree; which variable a name means is jaxpr_json.VarIds' ids. Python renders the HTML
(escaping every name, param and source line) and the def/use table; the front-end script
only toggles classes and syncs `selected` and `view`.
"""
from __future__ import annotations

import pathlib
from collections import Counter

import anywidget
import traitlets

from ...core import ir
from ...core.primitive import jaxpr_params
from .. import jaxpr_json
from ..display import esc, source_label
from ._fallback import TextFallback

_HERE = pathlib.Path(__file__).parent


# ------------------------------------------------------------------ the jaxpr as data
def describe(jaxpr) -> tuple[dict, str]:
    """(a JSON-able tree of the jaxpr, its printed text with source lines)."""
    closed = jaxpr if isinstance(jaxpr, ir.ClosedJaxpr) else None
    jaxpr = closed.jaxpr if closed is not None else jaxpr
    names = ir.Names()
    text = ir.pp_jaxpr(jaxpr, names, 0, True)       # names everything, nested jaxprs too
    data = _jaxpr_data(jaxpr, jaxpr_json.VarIds(names), "")
    for info in _source_infos(jaxpr):                # "# /tmp/x/123.py:2 (f)" -> "# In[3]:2 (f)"
        label = source_label(info)
        text = text.replace(f"  # {info}", f"  # {label} ({info.function})" if label else "")
    return data, text


def _source_infos(jaxpr) -> set:
    found = set()
    for e in jaxpr.eqns:
        if e.source_info is not None:
            found.add(e.source_info)
        for sub in jaxpr_params(e.params):
            found |= _source_infos(sub.jaxpr if isinstance(sub, ir.ClosedJaxpr) else sub)
    return found


def _binder(v, ids, scope):
    return [ids.names(v), v.aval.str_short(), ids.define(scope, v)]


def _atom(a, ids, scope):
    return [ids.names(a), ids.use(scope, a)]


def _jaxpr_data(jaxpr, ids, prefix) -> dict:
    scope: dict = {}                         # this block's variables -> their ids
    consts = [_binder(v, ids, scope) for v in jaxpr.constvars]
    invars = [_binder(v, ids, scope) for v in jaxpr.invars]
    eqns = [_eqn_data(e, ids, scope, f"{prefix}{i}") for i, e in enumerate(jaxpr.eqns)]
    return {"id": prefix, "consts": consts, "invars": invars,
            "outvars": [_atom(v, ids, scope) for v in jaxpr.outvars], "eqns": eqns}


def _eqn_data(eqn, ids, scope, eid) -> dict:
    names = ids.names
    printer = ir.param_printers.get(eqn.primitive)
    items = printer(eqn.params) if printer else sorted(eqn.params.items())
    params, children = [], []
    for key, value in items:
        if isinstance(value, (ir.Jaxpr, ir.ClosedJaxpr)):
            children.append((key, value))
        elif isinstance(value, tuple) and value and \
                all(isinstance(v, (ir.Jaxpr, ir.ClosedJaxpr)) for v in value):
            children.extend((f"{key}[{i}]", v) for i, v in enumerate(value))
        else:
            params.append(f"{key}={ir.pp_param(value, names, 0, 10_000)}")
    kids = []
    for j, (label, sub) in enumerate(children):
        sub = sub.jaxpr if isinstance(sub, ir.ClosedJaxpr) else sub
        kids.append({"label": label, "jaxpr": _jaxpr_data(sub, ids, f"{eid}.{j}.")})
    info = eqn.source_info
    ins = [_atom(v, ids, scope) for v in eqn.invars]          # read before the outputs bind
    return {"id": eid, "prim": str(eqn.primitive),
            "outs": [_binder(v, ids, scope) for v in eqn.outvars],
            "ins": ins,
            "params": " ".join(params), "children": kids,
            "source": source_label(info), "line": info.line if info else None}


def count_primitives(jaxpr) -> dict:
    """Equations per primitive, nested jaxprs included, most frequent first."""
    counts: Counter = Counter()

    def walk(j):
        for e in j.eqns:
            counts[str(e.primitive)] += 1
            for sub in jaxpr_params(e.params):
                walk(sub.jaxpr if isinstance(sub, ir.ClosedJaxpr) else sub)
    walk(jaxpr.jaxpr if isinstance(jaxpr, ir.ClosedJaxpr) else jaxpr)
    return dict(counts.most_common())


def def_use(data: dict) -> dict:
    """Each variable's id (as a string, a JSON key) -> its name, the site defining it and the
    sites using it: equation ids ('0', '3.1.0'), or a jaxpr's inputs ('in', '3.1.in') and
    outputs ('out', '3.1.out')."""
    table: dict = {}

    def define(binders, site):
        for name, _, vid in binders:
            if vid is not None:
                table[str(vid)] = {"name": name, "def": site, "uses": []}

    def use(atoms, site):
        for _, vid in atoms:
            if vid is not None and site not in table[str(vid)]["uses"]:
                table[str(vid)]["uses"].append(site)

    def walk(j):
        define(j["consts"] + j["invars"], j["id"] + "in")
        for e in j["eqns"]:
            use(e["ins"], e["id"])
            define(e["outs"], e["id"])
            for kid in e["children"]:
                walk(kid["jaxpr"])
        use(j["outvars"], j["id"] + "out")
    walk(data)
    return table


# ------------------------------------------------------------------ HTML (static and widget)
def _var(name: str, vid: int | None) -> str:
    if vid is None:                                  # literals and unused results
        return f"<span class='jx-lit'>{esc(name)}</span>"
    return f"<span class='jx-var' data-var='{vid}'>{esc(name)}</span>"


def _binders(bs) -> str:
    return " ".join(f"{_var(n, vid)}<span class='jx-type'>:{esc(t)}</span>" for n, t, vid in bs)


def jaxpr_html(data: dict, depth: int = 0) -> str:
    head = (f"<div class='jx-head'>{{ lambda {_binders(data['consts'])}; "
            f"{_binders(data['invars'])}. let</div>")
    rows = []
    for e in data["eqns"]:
        params = f"<span class='jx-params'>[{esc(e['params'])}]</span>" if e["params"] else ""
        src = f"<span class='jx-src'>{esc(e['source'])}</span>" if e["source"] else ""
        line = (f"<div class='jx-eqn' data-eqn='{esc(e['id'])}'>{_binders(e['outs'])} = "
                f"<span class='jx-prim'>{esc(e['prim'])}</span>{params} "
                f"{' '.join(_var(n, vid) for n, vid in e['ins'])}{src}</div>")
        kids = "".join(
            f"<details class='jx-sub'{' open' if depth < 1 else ''}><summary>{esc(k['label'])}"
            f" <span class='jx-count'>({_plural(_size(k['jaxpr']), 'equation')})</span></summary>"
            f"{jaxpr_html(k['jaxpr'], depth + 1)}</details>" for k in e["children"])
        rows.append(line + kids)
    outs = ", ".join(_var(n, vid) for n, vid in data["outvars"])
    comma = "," if len(data["outvars"]) == 1 else ""
    return (f"<div class='jx-jaxpr'>{head}<div class='jx-body'>{''.join(rows)}</div>"
            f"<div class='jx-head'>in ({outs}{comma}) }}</div></div>")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _size(data) -> int:
    return sum(1 + sum(_size(k["jaxpr"]) for k in e["children"]) for e in data["eqns"])


def counts_html(counts: dict) -> str:
    cells = "".join(f"<tr><td>{esc(p)}</td><td>{n}</td></tr>" for p, n in counts.items())
    return f"<table class='jx-counts'><tr><th>primitive</th><th>#</th></tr>{cells}</table>"


_STATIC_CSS = (_HERE / "jaxpr_viewer.css").read_text()


# ------------------------------------------------------------------ the widget
class JaxprViewer(TextFallback, anywidget.AnyWidget):
    """A jaxpr, explorable. `selected` is a variable's id (a key of `def_use`); `view` is
    'jaxpr' or 'stablehlo'."""
    _esm = _HERE / "jaxpr_viewer.js"
    _css = _HERE / "jaxpr_viewer.css"

    title = traitlets.Unicode("").tag(sync=True)
    body_html = traitlets.Unicode("").tag(sync=True)
    counts = traitlets.Dict().tag(sync=True)
    text = traitlets.Unicode("")                         # printed, with source lines (Python's)
    def_use = traitlets.Dict().tag(sync=True)             # def_use(data), read by the script
    selected = traitlets.Unicode("").tag(sync=True)
    view = traitlets.Enum(["jaxpr", "stablehlo"], "jaxpr").tag(sync=True)
    stablehlo = traitlets.Unicode("").tag(sync=True)

    def __init__(self, jaxpr, *, title: str = "", stablehlo=None, name: str = "jaxpr", **kw):
        """`stablehlo`: the text, or a function returning it (called when first shown)."""
        data, text = describe(jaxpr)
        self.jaxpr, self.data, self.name = jaxpr, data, name
        self._hlo_source = stablehlo if stablehlo is not None else \
            (lambda: lower_to_stablehlo(jaxpr, name))
        super().__init__(title=title, body_html=jaxpr_html(data), text=text,
                         counts=count_primitives(jaxpr), def_use=def_use(data), **kw)
        if self.view == "stablehlo":
            self._load_hlo()

    @traitlets.observe("view")
    def _on_view(self, change):
        if change["new"] == "stablehlo":
            self._load_hlo()

    def _load_hlo(self):
        if not self.stablehlo:
            source = self._hlo_source
            try:
                self.stablehlo = source() if callable(source) else str(source)
            except Exception as e:  # noqa: BLE001  shown in place of the text
                self.stablehlo = f"(lowering to StableHLO failed: {type(e).__name__}: {e})"

    def _repr_mimebundle_(self, **kwargs):
        """The widget, its text and HTML fallbacks, and the jaxpr as JSON for the JupyterLab
        extension (kept in a saved notebook)."""
        data, meta = super()._repr_mimebundle_(**kwargs)
        data[jaxpr_json.MIME] = jaxpr_json.jaxpr_bundle(self.jaxpr, self.title or self.name)
        return data, meta

    # fallbacks
    def text_repr(self) -> str:
        head = f"{self.title}\n" if self.title else ""
        counts = ", ".join(f"{p} {n}" for p, n in self.counts.items())
        return f"{head}{self.text}\nequations per primitive: {counts or 'none'}"

    def html_repr(self) -> str:
        title = f"<div class='jx-title'>{esc(self.title)}</div>" if self.title else ""
        return (f"<style>{_STATIC_CSS}</style><div class='jx-viewer'>{title}"
                f"<div class='jx-main'>{self.body_html}{counts_html(self.counts)}</div></div>")


def lower_to_stablehlo(jaxpr, name: str = "jaxpr", platform: str | None = None) -> str:
    """The StableHLO module we would compile for a (closed) jaxpr."""
    from ...xla import client
    from ...xla.lowering import lower_module
    jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ir.ClosedJaxpr) else jaxpr
    text, _ = lower_module(jaxpr, name=name, platform=platform or client.default_backend())
    return text
