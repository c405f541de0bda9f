"""What a card reads from the exception: the user's lines in its traceback and where the
offending value came from (the core's provenance); static_fixes.py writes the static_argnames
fix from them."""
from __future__ import annotations

import linecache
import os
import re
import traceback

from ...core.source_info import JaxStackTraceBeforeTransformation, installed_package
from ..source import cell_name, is_user_file, label as source_label
from .magics import as_typed


def _first_line(exc) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def _learners_frames(exc) -> list:
    """The user's frames of `exc`'s traceback, outermost first, leaving out an installed
    library's (site-packages: Flax's nnx.Linear, Optax's losses) where any other is left: a
    card's "your line" is the learner's call of the layer, `self.l1(x)`, not the line in
    Flax's linear.py that called dot_general (Flax registers nnx's files with no exclusion,
    so JAX's source_info would name that one)."""
    frames = [(frame, line) for frame, line in traceback.walk_tb(exc.__traceback__)
              if is_user_file(frame.f_code.co_filename)]
    own = [f for f in frames if not _installed(f[0].f_code.co_filename)]
    return own or frames


def traceback_frames(exc) -> list:
    """The frames of `exc`'s traceback, outermost first."""
    return [frame for frame, _ in traceback.walk_tb(exc.__traceback__)]


def _installed(filename: str) -> bool:
    """Whether `filename` is an installed package's (under site-packages or dist-packages).

        >>> _installed("/venv/lib/python3.11/site-packages/flax/nnx/nn/linear.py")
        True
    """
    return any(part in ("site-packages", "dist-packages")
               for part in os.path.normpath(filename).split(os.sep))


def _user_lines(exc) -> tuple:
    """(innermost user line, outermost user line if another) of `exc`'s traceback."""
    frames = [_location(f.f_code.co_filename, line, f.f_code.co_name)
              for f, line in _learners_frames(exc)]
    if not frames:
        return None, None
    inner, outer = frames[-1], frames[0]
    same_line = (outer["_path"], outer["line"]) == (inner["_path"], inner["line"])
    return inner, (None if same_line else outer)


def _operation_lines(exc) -> tuple:
    """(the learner's line of the operation `exc` was raised for, the learner's call that
    staged it if another) where `exc`'s cause is a JaxStackTraceBeforeTransformation (as JAX
    gives an error raised for an equation: checkify.check staged without checkify, raised as
    jit compiles, names the check's line there); `_user_lines(exc)` otherwise."""
    lines = _user_lines(exc)
    cause = exc.__cause__
    while cause is not None and not isinstance(cause, JaxStackTraceBeforeTransformation):
        cause = cause.__cause__
    frames = [] if cause is None else _learners_frames(cause)
    if not frames:
        return lines
    frame, line = frames[-1]
    operation, call = _location(frame.f_code.co_filename, line, frame.f_code.co_name), lines[0]
    same = call is not None and (call["_path"], call["line"]) == (operation["_path"], line)
    return operation, (None if same else call)


def _user_frame(exc):
    """The innermost of the user's frames in `exc`'s traceback (its names' values: a card
    reads an array's shape there, never calling the user's code), or None."""
    frames = _learners_frames(exc)
    return frames[-1][0] if frames else None


# `lax.` where nothing before it (`jax.lax.cond` is left as it is)
_LAX = re.compile(r"(?<![\w.])lax\.")


def spelled_for(code: str, frame) -> str:
    """`code` (a card's rewrite) pasteable where the user's line is: `lax.cond(...)` written
    `jax.lax.cond(...)` where the user's names (`frame`'s globals and locals) hold `jax` but
    no `lax` (a learner who typed `import jax, jax.numpy as jnp` has no `lax`, and the
    pasted `lax.cond` raised NameError), led by `from jax import lax` where neither is bound.

        >>> spelled_for("return lax.cond(c, f, g)  # jax.lax.cond", None)
        'return lax.cond(c, f, g)  # jax.lax.cond'
    """
    if frame is None or not _LAX.search(code):
        return code
    names = {**frame.f_globals, **frame.f_locals}
    if "lax" in names:
        return code
    if "jax" in names:
        return _LAX.sub("jax.lax.", code)
    # (at the code's indentation: pasted into a function's body, an import at the margin
    # ended the body)
    return code[:len(code) - len(code.lstrip())] + "from jax import lax\n" + code


def _location(filename, line, function) -> dict:
    return {"file": cell_name(filename) or os.path.basename(filename), "line": line,
            "function": function, "code": as_typed(linecache.getline(filename, line).strip()),
            "_path": filename}


def _public(location):
    return None if location is None else {k: v for k, v in location.items() if k != "_path"}


def _origin(exc) -> dict | None:
    """The core's provenance of the offending tracer, in JSON-able form."""
    found = getattr(exc, "provenance", None)
    if not found:
        return None
    # each step's package where an installed library's line made it (Flax's linear.py: the
    # card folds those into one line per package, compile_record.whose's rule for files)
    steps = [{"primitive": prim, "where": _step_label(info),
              "code": (linecache.getline(info.file, info.line).strip() or None) if info else None,
              "type": out_type, "package": installed_package(info.file) if info else None}
             for prim, info, out_type in found["steps"]]
    return {"function": found["function"], "transformation": found["transformation"],
            "argument": found["argument"], "arguments": list(found["arguments"]),
            "input_index": found.get("input_index"), "input_type": found["input_type"],
            "input_kind": found.get("input_kind"), "value_type": found["value_type"],
            "traced_also_by": found.get("traced_also_by"), "steps": steps}


def _step_label(info) -> str | None:
    """Where an operation was: 'In[3], line 2' for a cell (as the card's other lines say it),
    'file.py:12' for a file, None without a (useful) source line."""
    label = source_label(info)
    cell = cell_name(info.file) if label else None
    return f"{cell}, line {info.line}" if cell else (label or None)
