"""IPython's rich display for jxkernel's types: a jaxpr as the viewer, an Array as its HTML
with a one-line summary of its values.

Everything user-controlled that reaches HTML goes through `esc`.
"""
from __future__ import annotations

from ..core import dtypes
from ..core.ir import ClosedJaxpr, Jaxpr
from ..views.rich_view import esc
from ..xla.array import Array


def _jaxpr_bundle(obj, include=None, exclude=None):
    # anywidget and the views load with the first display that needs them: %load_ext stays quick
    from .widgets.jaxpr_viewer import JaxprViewer
    return JaxprViewer(obj)._repr_mimebundle_(include=include, exclude=exclude)


def array_html(x: Array) -> str:
    """The core's HTML view of an Array plus, for float arrays, a one-line summary."""
    base = x._repr_html_()
    # (jxkernel's dtypes, not NumPy's kind: bfloat16's and the float8s' is 'V')
    if x.size <= 1 or not dtypes.is_inexact(x.dtype) or x.is_deleted():
        return base
    import numpy as np
    v = np.asarray(x)
    if dtypes.is_complex(v.dtype):
        v = np.abs(v)
    elif v.dtype.itemsize < 2 or v.dtype in dtypes.BFLOAT16_DTYPES:
        v = v.astype(np.float32)        # (ml_dtypes' own: NumPy's nanmin has no loop of them)
    with np.errstate(all="ignore"):
        stats = (f"min {np.nanmin(v):.4g} · max {np.nanmax(v):.4g} · mean {np.nanmean(v):.4g}"
                 + (f" · {int(np.isnan(v).sum())} NaN" if np.isnan(v).any() else ""))
    summary = f"<span style='color:var(--jp-content-font-color2, #777);font-size:85%'>{esc(stats)}</span></div>"
    return base.replace("</div>", summary, 1) \
        if base.endswith("</div>") else base


def array_text(x: Array, p, cycle) -> None:
    """An Array's plain text: its repr; a deleted one's repr raises JAX's RuntimeError, which
    IPython's display printed as a traceback through jxkernel's files (xla/array.py) under
    the view: here the error's text alone, the view (array_html) saying the same."""
    try:
        text = repr(x)
    except RuntimeError as e:
        if not x.is_deleted():
            raise
        text = str(e)
    with p.group():        # as IPython prints a repr of several lines (its _repr_pprint)
        for i, line in enumerate(text.splitlines()):
            if i:
                p.break_()
            p.text(line)


def register_formatters(shell) -> list:
    """Rich displays for jaxprs (the viewer) and Arrays; returns what to undo on unload."""
    formatters = shell.display_formatter
    undo = []
    mimebundle = formatters.mimebundle_formatter
    for cls in (ClosedJaxpr, Jaxpr):
        undo.append((mimebundle, cls, mimebundle.for_type(cls, _jaxpr_bundle)))
    html_f = formatters.formatters["text/html"]
    undo.append((html_f, Array, html_f.for_type(Array, array_html)))
    text_f = formatters.formatters["text/plain"]
    undo.append((text_f, Array, text_f.for_type(Array, array_text)))
    return undo


def unregister_formatters(undo: list) -> None:
    for formatter, cls, old in undo:
        formatter.pop(cls, None)
        if old is not None:
            formatter.for_type(cls, old)
