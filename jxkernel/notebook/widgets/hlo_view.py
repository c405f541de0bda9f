"""What XLA got and what it made of it: the StableHLO (as JAX's `Lowered.as_text()` prints it),
XLA's optimized HLO, its cost analysis.
On the NumPy backend no XLA compiles: the view says there is no optimized HLO (no_hlo()) and
shows the cost estimate counted on the jaxpr (core/jaxpr_cost.py) under its own title.

    >>> view = HloView("f(x)", jxkernel.jit(lambda x: x * 2.0 + 1.0).lower(1.0))
    >>> view.cost["flops"], view.stablehlo[:12]
    (2.0, 'module @jit_')
"""
from __future__ import annotations

from ...views.collectives import collective_json, collectives, collectives_html, collectives_text
from ...views.hlo_text import cost_text
from ...views.stablehlo_text import title as stablehlo_title
from ...xla import client
from ...views.rich_view import esc
from ...views.views_json import hlo_bundle
from ..protocol import mime_type

# The cost-analysis keys worth a row; XLA adds per-operand ones ("bytes accessed0{}", ...).
_MAIN_COSTS = ("flops", "transcendentals", "bytes accessed", "optimal_seconds")


def no_hlo() -> str:
    """The optimized-HLO section on the NumPy backend: no XLA compiles there (its
    cost_analysis() is jxkernel's estimate from the jaxpr, core/jaxpr_cost.py), and what gives
    XLA's here (the advice depends on JAX_PLATFORMS and on jaxlib importing)."""
    return ("none: the numpy backend runs the jaxpr (%jaxpr shows it); XLA compiles nothing "
            f"here. For XLA's optimized HLO: {client.how_to_get_xla()}.")


class HloView:
    """A lowered computation shown three ways; the compile runs when the view is made."""

    def __init__(self, title: str, lowered, *, stablehlo: bool = True, optimized: bool = True):
        self.title = title
        # MLIR's print through jaxlib, as JAX's; without jaxlib (Pyodide) our own text
        self.stablehlo = lowered.as_text()
        self.stablehlo_title = stablehlo_title(client.xc is not None)
        self.show_stablehlo, self.show_optimized = stablehlo, optimized
        compiled = lowered.compile() if optimized else None
        self.without_xla = lowered.device.platform == "numpy"
        self.optimized = ("" if compiled is None else no_hlo() if self.without_xla
                          else compiled.as_text())
        self.collectives = collectives(self.optimized)     # a partitioned program's communication
        try:
            self.cost = dict(compiled.cost_analysis() or {}) if compiled is not None else {}
        except Exception:  # noqa: BLE001  some backends have no cost model
            self.cost = {}

    def cost_rows(self) -> list:
        main = [(k, self.cost[k]) for k in _MAIN_COSTS if k in self.cost]
        rest = sorted((k, v) for k, v in self.cost.items() if k not in _MAIN_COSTS)
        return main + rest

    def _cost_title(self) -> str:
        return ("cost estimate (from the jaxpr: no XLA on the numpy backend)"
                if self.without_xla else "XLA cost analysis")

    def _sections(self):
        if self.show_stablehlo:
            yield self.stablehlo_title, self.stablehlo
        if self.show_optimized:
            # on the NumPy backend nothing is compiled: the title says so before it is opened
            yield ("optimized HLO: none on the numpy backend" if self.without_xla
                   else "optimized HLO (what XLA compiled)"), self.optimized

    def __repr__(self):
        parts = [f"HLO of {self.title}"]
        for head, text in self._sections():
            parts += [f"--- {head} ---", text.rstrip()]
        if self.cost:
            parts.append(f"--- {self._cost_title()} ---")
            parts += [f"{k}: {cost_text(v)}" for k, v in self.cost_rows()]
        return "\n".join(parts + collectives_text(self.collectives))

    def _repr_mimebundle_(self, include=None, exclude=None):
        pre = "style='max-height:30em;overflow:auto;font-size:11px;margin:2px 0'"
        blocks = "".join(f"<details{' open' if i == 0 else ''}><summary>{esc(h)}</summary>"
                         f"<pre {pre}>{esc(t)}</pre></details>"
                         for i, (h, t) in enumerate(self._sections()))
        rows = "".join(f"<tr><td>{esc(k)}</td>"
                       f"<td style='text-align:right'>{esc(cost_text(v))}</td></tr>"
                       for k, v in self.cost_rows() if k in _MAIN_COSTS)
        cost = (f"<table style='font-size:12px'><tr><th colspan=2>{esc(self._cost_title())}"
                f"</th></tr>{rows}</table>") if rows else ""
        return {"text/plain": repr(self),
                "text/html": f"<div><b>HLO of <code>{esc(self.title)}</code></b>{cost}"
                             f"{collectives_html(self.collectives)}{blocks}</div>",
                mime_type("HloBundle"): hlo_bundle(self.title, list(self._sections()), self.cost_rows(),
                                     [collective_json(c) for c in self.collectives],
                                     self._cost_title())}

