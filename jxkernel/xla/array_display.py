"""How an `Array` shows itself: its repr in JAX's layout (so printed output matches JAX's),
its str, its HTML for a notebook, and, for an Array over a mesh, the notebook's view of which
device holds which block. array.py's class takes these functions as its methods.

    >>> array_repr(jax.device_put(np.arange(3.0)))
    'Array([0., 1., 2.], dtype=float32)'

The sharded view lives above this layer (views/sharding_view.py): the package root registers
it with `install_array_display`, as core reaches xla through install_eval_hook. Unset, a
sharded Array shows its text alone.
"""
from __future__ import annotations

import numpy as np

from .deleted import deleted_error

sharded_view = None     # show(x) -> MIME bundle, registered by the package root


def install_array_display(show) -> None:
    """`show(x) -> MIME bundle` for a sharded Array's `_repr_mimebundle_`."""
    global sharded_view
    sharded_view = show


def array_repr(x) -> str:
    # JAX's layout exactly (jax/_src/array.py), so printed output matches JAX's; a deleted
    # Array's repr raises JAX's RuntimeError (its view in a notebook says why instead)
    x._check_alive()
    prefix = "Array("
    weak = ", weak_type=True" if x.weak_type else ""
    if _unreduced(x):        # (a sum of per-device summands: no one value to print, as JAX)
        return f"{prefix}shape={x.shape}, dtype={x.dtype.name}{weak}, sharding={x._sharding!r})"
    dtype_text = f"dtype={x.dtype.name}{weak})"
    line_width = np.get_printoptions()["linewidth"]
    if x.size == 0:
        body = f"[], shape={x.shape}"
    else:
        body = np.array2string(x._value, prefix=prefix, suffix=",", separator=", ",
                               max_line_width=line_width)
    last_line = len(body) - body.rfind("\n") + 1
    sep = " " * len(prefix) if last_line + len(dtype_text) + 1 > line_width else " "
    return f"{prefix}{body},{sep}{dtype_text}"


def array_str(x) -> str:
    return array_repr(x) if _unreduced(x) else str(x._value)


def _unreduced(x) -> bool:
    """Whether `x` is typed unreduced over some mesh axes (each device holds a summand)."""
    return x._sharding is not None and bool(x._sharding.spec.unreduced)


def array_html(x) -> str:
    """A header (type, dtype, devices) over the value, or over why it is gone if deleted."""
    import html
    device = ", ".join(str(d) for d in sorted(x.devices(), key=lambda d: d.id))
    head = (f"<b>Array</b> <code>{x.aval.str_short(True)}</code> "
            f"<span style='color:#666'>{x.dtype.name}"
            f"{' (weak)' if x.weak_type else ''} on {html.escape(device)}</span>")
    if x._buf.is_deleted():
        why = html.escape(str(deleted_error(x.aval, x._buf)))
        return f"<div>{head}<br><i>{why}</i></div>"
    if _unreduced(x):
        return f"<div>{head}<br><code>{html.escape(array_repr(x))}</code></div>"
    with np.printoptions(threshold=200, edgeitems=3, linewidth=100):
        body = html.escape(np.array2string(x._value, separator=", "))
    return f"<div>{head}<pre style='margin:2px 0'>{body}</pre></div>"


def repr_mimebundle(x):
    """Over a mesh, in a notebook: the value, then which device holds which block (the
    view the package root registers: install_array_display). Without a mesh there is no
    such method (AttributeError), so IPython shows `_repr_html_` and the repr as always."""
    if x._sharding is None:
        raise AttributeError("_repr_mimebundle_")
    return x._sharded_bundle


def sharded_bundle(x, include=None, exclude=None) -> dict:
    if x._buf.is_deleted() or sharded_view is None:
        return {"text/html": x._repr_html_()} if x._buf.is_deleted() else \
            {"text/plain": repr(x)}
    return sharded_view(x)     # the view (views/sharding_view.py), registered
