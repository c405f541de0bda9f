"""The jaxpr viewer: equations with types and source lines, nested jaxprs collapsible,
a variable's definition and uses highlighted, counts per primitive, and the StableHLO.

    >>> v = JaxprViewer(jxkernel.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0))
    >>> v.def_use["1"]              # variable 1: its defining equation and its users
    {'name': 'b', 'def': '0', 'uses': ['1']}
    >>> v.view = "stablehlo"; v.stablehlo[:12]     # lowered on first use
    'module @jit_'

The widget renders the structure the JupyterLab extension reads (jaxpr_json.jaxpr_to_json:
names as `print(jaxpr)` gives them, every param, an id per variable), so the two views agree.
Python renders the HTML (escaping every name, param and source line) and the def/use table;
the front-end script only toggles classes and syncs `selected` and `view`.
"""
from __future__ import annotations

import pathlib
from collections import Counter

import anywidget
import traitlets

from ...core import ir
from ...core.ir import all_equations
from ...transforms.jit.captured_constants import embedded
from ...xla import client
from ...xla.lowering import lower_module
from ...xla.portable import printed_text
from ...views import jaxpr_json
from ...views.rich_view import esc
from ..display import source_label
from ..protocol import mime_type
from ...views.jaxpr_json import open_jaxpr
from ._fallback import TextFallback

_HERE = pathlib.Path(__file__).parent


# ------------------------------------------------------------------ the jaxpr as data
def describe(jaxpr) -> tuple[dict, str]:
    """(the jaxpr as jaxpr_json structures it, its printed text with source lines)."""
    names = ir.Names()
    text = ir.pp_toplevel(open_jaxpr(jaxpr), source_info=_cell_line, names=names)   # names all
    return jaxpr_json.jaxpr_to_json(jaxpr, names), text


def _cell_line(info) -> str:
    """An equation's source as the notebook says it ("In[3]:2 (f)"; nothing for our own)."""
    label = source_label(info)
    return f"{label} ({info.function})" if label else ""


def count_primitives(jaxpr) -> dict:
    """Equations per primitive, nested jaxprs included, most frequent first."""
    counts = Counter(str(e.primitive) for e in all_equations(open_jaxpr(jaxpr).eqns))
    return dict(counts.most_common())


def _subs(eqn: dict) -> list:
    """An equation's sub-jaxprs, labelled by their param: 'jaxpr', 'branches[1]'."""
    subs = []
    for key, value in eqn["params"].items():
        if isinstance(value, dict):
            subs.append((key, value))
        elif isinstance(value, list):                        # cond's branches
            subs.extend((f"{key}[{i}]", v) for i, v in enumerate(value))
    return subs


def _sites(block: dict, prefix: str):
    """Each equation of a block with its site id ('3', '3.1.0') and its sub-jaxprs as
    (label, block, their prefix): the ids `def_use` names and the HTML's `data-eqn` carries."""
    for i, eqn in enumerate(block["eqns"]):
        site = f"{prefix}{i}"
        yield site, eqn, [(label, sub, f"{site}.{j}.") for j, (label, sub) in enumerate(_subs(eqn))]


def def_use(block: dict) -> dict:
    """Each variable's id (as a string, a JSON key) -> its name, the site defining it and the
    sites using it: equation ids ('0', '3.1.0'), or a jaxpr's inputs ('in', '3.1.in') and
    outputs ('out', '3.1.out')."""
    table: dict = {}

    def define(binders, site):
        for v in binders:
            if "id" in v:
                table[str(v["id"])] = {"name": v["name"], "def": site, "uses": []}

    def use(atoms, site):
        for a in atoms:
            if "id" in a and site not in table[str(a["id"])]["uses"]:
                table[str(a["id"])]["uses"].append(site)

    def walk(block, prefix):
        define(block["constvars"] + block["invars"], prefix + "in")
        for site, eqn, subs in _sites(block, prefix):
            use(eqn["invars"], site)
            define(eqn["outvars"], site)
            for _, sub, sub_prefix in subs:
                walk(sub, sub_prefix)
        use(block["outvars"], prefix + "out")
    walk(block, "")
    return table


# ------------------------------------------------------------------ HTML (static and widget)
def _atom(a: dict) -> str:
    text = esc(a["name"] if "name" in a else f"{a['literal']}:{a['aval']}")   # as printed
    if "id" not in a:                                # literals and unused results
        return f"<span class='jx-lit'>{text}</span>"
    return f"<span class='jx-var' data-var='{a['id']}'>{text}</span>"


def _binders(vs: list) -> str:
    return " ".join(f"{_atom(v)}<span class='jx-type'>:{esc(v['aval'])}</span>" for v in vs)


def _params(eqn: dict) -> str:
    shown = " ".join(f"{k}={v}" for k, v in eqn["params"].items() if isinstance(v, str))
    return f"<span class='jx-params'>[{esc(shown)}]</span>" if shown else ""


def jaxpr_html(block: dict, depth: int = 0, prefix: str = "") -> str:
    """A structured jaxpr (jaxpr_json's) as HTML, sub-jaxprs in <details>, everything escaped."""
    head = (f"<div class='jx-head'>{{ lambda {_binders(block['constvars'])}; "
            f"{_binders(block['invars'])}. let</div>")
    rows = []
    for site, e, subs in _sites(block, prefix):
        src = f"<span class='jx-src'>{esc(e['source'])}</span>" if e["source"] else ""
        line = (f"<div class='jx-eqn' data-eqn='{esc(site)}'>{_binders(e['outvars'])} = "
                f"<span class='jx-prim'>{esc(e['primitive'])}</span>{_params(e)} "
                f"{' '.join(_atom(a) for a in e['invars'])}{src}</div>")
        kids = "".join(
            f"<details class='jx-sub'{' open' if depth < 1 else ''}><summary>{esc(label)}"
            f" <span class='jx-count'>({_plural(_size(sub), 'equation')})</span></summary>"
            f"{jaxpr_html(sub, depth + 1, at)}</details>" for label, sub, at in subs)
        rows.append(line + kids)
    outs = ", ".join(_atom(a) for a in block["outvars"])
    comma = "," if len(block["outvars"]) == 1 else ""
    return (f"<div class='jx-jaxpr'>{head}<div class='jx-body'>{''.join(rows)}</div>"
            f"<div class='jx-head'>in ({outs}{comma}) }}</div></div>")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _size(block) -> int:
    return sum(1 + sum(_size(sub) for _, sub in _subs(e)) for e in block["eqns"])


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
        data[mime_type("JaxprBundle")] = jaxpr_json.jaxpr_bundle(self.jaxpr, self.title or self.name)
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
    """The StableHLO module we would compile for a (closed) jaxpr, as MLIR prints it (as
    `Lowered.as_text()` shows a module): its consts written in as jit writes them (JAX's
    stablehlo.constants; a Ref, a key array, one over 1 MiB stay arguments of main)."""
    platform = platform or client.default_backend()
    inner, embed = open_jaxpr(jaxpr), {}
    if isinstance(jaxpr, ir.ClosedJaxpr):
        embed = {inner.constvars[i]: c for i, c in embedded(jaxpr).items()}
        inner = ir.Jaxpr([v for v in inner.constvars if v not in embed], inner.invars,
                         inner.outvars, inner.eqns)
    text, _ = lower_module(inner, name=name, platform=platform, embedded=embed)
    return printed_text(text)
