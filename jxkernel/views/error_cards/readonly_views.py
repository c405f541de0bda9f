"""The card for writing into a NumPy view of a JAX array: `a = np.asarray(x)` (or
`jax.device_get(x)`) shares the array's memory without a copy, read-only since JAX's arrays
never change, so `a[0] = 1` raises NumPy's "assignment destination is read-only" (JAX 0.10.2
the same: tests/data/learner_mistakes_cases.py's numpy_view_written)."""
from __future__ import annotations

import ast

import numpy as np

from ...core.basearray import Array
from ...xla.numpy_device import holds_value
from .card import ErrorCard
from .reading import _location, _user_frame
from .rewrites import _parse_line

_READ_ONLY = ("assignment destination is read-only", "output array is read-only")


def _is_readonly_view(e) -> bool:
    return isinstance(e, ValueError) and str(e) in _READ_ONLY and \
        _written(e) is not None


def _written(e):
    """The name, on the user's line, of the NumPy view of a JAX array written (None if the
    line names none: a read-only array of NumPy's own, np.broadcast_to's, is no JAX view)."""
    frame = _user_frame(e)
    if frame is None:
        return None
    tree = _parse_line(_location(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
    if tree is None:
        return None
    names = {**frame.f_globals, **frame.f_locals}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and _views_a_jax_array(names.get(node.id)):
            return node.id
    return None


def _views_a_jax_array(value) -> bool:
    """A read-only NumPy array whose memory is a JAX array's (its base, through views of
    it, is the buffer a JAX array exported).

        >>> import jxkernel.numpy as jnp
        >>> _views_a_jax_array(np.asarray(jnp.ones(3))[1:]), _views_a_jax_array(np.ones(3))
        (True, False)
    """
    if not isinstance(value, np.ndarray) or value.flags.writeable:
        return False
    root, base = value, value
    while isinstance(base, np.ndarray):
        root, base = base, base.base
    owner = getattr(base, "obj", base)          # (a memoryview's exporter)
    # jxkernel's Array (np.asarray), or the runtime's buffer under it (jax.device_get), or
    # the NumPy backend's own value (JupyterLite: no copy there either)
    return isinstance(owner, Array) or type(owner).__module__.startswith("jaxlib.") or \
        holds_value(root)


def _readonly_view_card(exc, where, called_from) -> ErrorCard:
    name = _written(exc)
    numpy = _numpy_name(_user_frame(exc))
    line = (where or {}).get("code") or f"{name}[...] = ..."
    return ErrorCard(
        "readonly-view", f"{name} is a NumPy view of a JAX array, which cannot be written",
        why=(f"np.asarray(x) of a JAX array (jax.device_get(x) too) gives a NumPy array that "
             f"shares the JAX array's memory, without a copy, and JAX arrays never change: so "
             f"that view, {name}, is read-only."),
        fix=(f"Write into a copy: {numpy}.array(x) makes a writable NumPy array of a JAX array "
             f"({name}.copy() of the view too). Or stay in JAX, where an update makes a new "
             f"array: x = x.at[i].set(v)."),
        rewrite=(f"{name} = {name}.copy()    # a writable copy (the view was read-only)\n"
                 f"{line}"),
        docs="https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
             "#in-place-updates")


def _numpy_name(frame) -> str:
    """The name the user's code has NumPy under (`np`, `onp`), "np" where none."""
    names = {} if frame is None else {**frame.f_globals, **frame.f_locals}
    return next((n for n, v in names.items() if v is np and not n.startswith("_")), "np")
