"""The card for checkify.check given a Python number to format (JAX's TypeError "Formatting
arguments to checkify.check need to be PyTrees of arrays, but got 100 of type <class 'int'>"):
the checkify guide's first example passes `i=i`, and works jitted, where `i` is traced into an
array; called checkified but not jitted, with a Python int, it fails. The check's own line is
written back with that argument made an array of its dtype (`jnp.asarray(i)` alone would
print JAX's `TypedInt(-1, dtype=int32)` in the message, not -1)."""
from __future__ import annotations

import ast
import re

from ..source_edits import replaced
from .card import ErrorCard
from .reading import _user_frame
from .rewrites import _called, _parse_line, _pattern

_FORMAT_ARGS = re.compile(r"^Formatting arguments to checkify\.check need to be PyTrees of "
                          r"arrays, but got (.*) of type <class '(\w+)'>\.$")
# a Python number's array dtype as JAX gives it (x64 off)
_DTYPES = {"bool": "jnp.bool_", "int": "jnp.int32", "float": "jnp.float32"}
_DOCS = "https://docs.jax.dev/en/latest/debugging/checkify_guide.html"


def _is_check_format_args(e) -> bool:
    return isinstance(e, TypeError) and _FORMAT_ARGS.match(str(e)) is not None


def _as_arrays(where, frame) -> str | None:
    """The user's check line with each format argument that names a Python number wrapped
    in jnp.asarray(name, its dtype), the rest as typed; None where the line holds no such
    check call."""
    tree = _parse_line(where)
    names = {} if frame is None else {**frame.f_globals, **frame.f_locals}
    spans = []          # (start, end) byte offsets in the line, and the text there instead
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)) if tree else ():
        if _called(call) != "check" or len(call.args) < 2:
            continue
        formatted = [*call.args[2:], *(kw.value for kw in call.keywords if kw.arg != "debug")]
        for node in formatted:
            value = names.get(node.id) if isinstance(node, ast.Name) else None
            dtype = _DTYPES.get(type(value).__name__)
            if dtype is not None and node.lineno == node.end_lineno == 1:
                spans.append((node, f"jnp.asarray({node.id}, {dtype})"))
    if not spans:
        return None
    return replaced(where["code"], spans)


def _check_format_args_card(exc, where, called_from) -> ErrorCard:
    value, kind = _FORMAT_ARGS.match(str(exc)).groups()
    rewrite = _as_arrays(where, _user_frame(exc))
    if rewrite is None and kind in _DTYPES:
        rewrite = _pattern(f"checkify.check(pred, msg, x=jnp.asarray(x, {_DTYPES[kind]}))"
                           f"    # x: the argument that was {value}")
    elif rewrite is None:       # no number: text goes into the message itself
        rewrite = _pattern(f"checkify.check(pred, f\"... {{x}} ...\")    # x: the argument "
                           f"that was {value}, written into the message")
    else:
        rewrite += "    # the number as an array: checkify carries it to the message"
    return ErrorCard(
        "check-format-args", f"checkify.check was given a Python {kind} to format ({value})",
        why=("checkify.check carries the values its message formats as arrays, through "
             "checkify and jit, to where the check fails; a Python number or string is "
             "none. Under jax.jit the same call works: jit traces the argument into an "
             "array."),
        fix=("Make the formatted value an array where the check takes it, of its dtype "
             "(jnp.asarray(i, jnp.int32)), or call the checkified function with an array."),
        rewrite=rewrite, docs=_DOCS)
