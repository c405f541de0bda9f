"""The note under a cell whose line gave jax.random.categorical probabilities where it takes
logits: `categorical(key, p)` of p = [0.1, 0.2, 0.7] draws index i with probability
softmax(p)[i], [0.28, 0.31, 0.41], not p[i]. NumPy's `choice(p=...)` and PyTorch's
`multinomial` take probabilities, so a learner writes it so, and JAX, drawing from the
other distribution, says nothing. The note gives both distributions and the line with
jnp.log(p) (softmax(log p) is p), or jax.random.choice's p=.

    jax.random.categorical(key, p)     # ⚠ categorical was given probabilities ...
                                       #   jax.random.categorical(key, jnp.log(p))
"""
from __future__ import annotations

import ast
import linecache

import numpy as np

from ...random import discrete
from ...views.source import is_user_file
from ...views.source_edits import parse_file, replaced, segment
from ..display import Note, Site, more_lines, source_label

DOCS = "https://docs.jax.dev/en/latest/_autosummary/jax.random.categorical.html"


def install() -> None:
    """Have the probabilities given to categorical recorded, for the note: at the extension's
    load."""
    discrete.record_probability_sites = True


def uninstall() -> None:
    discrete.record_probability_sites = False


def clear() -> None:
    """Forget the calls recorded so far: at a cell's start."""
    discrete.probability_sites.clear()


def cell_note(told: set | None = None) -> Note | None:
    """The note of the cell that just ran, or None: no line of the user's gave categorical
    probabilities, or only lines told of before (`told`: (file, line), kept by the
    extension)."""
    sites = [s for s in discrete.probability_sites if is_user_file(s[0])]
    discrete.probability_sites.clear()
    found = {}
    for file, line, row in sites:
        if (file, line) not in found and (told is None or (file, line) not in told):
            found[(file, line)] = row
    if told is not None:
        told.update(found)
    if not found:
        return None
    (file, line), row = next(iter(found.items()))
    drawn = np.exp(np.asarray(row)) / np.exp(np.asarray(row)).sum()
    shown = _shown(row)
    fixed = _with_log(file, line)
    fix = (f"\n  {fixed}    # softmax(log p) is p" if fixed else
           "\n  jax.random.categorical(key, jnp.log(p))    # softmax(log p) is p")
    return Note(
        f"⚠ jax.random.categorical was given probabilities {shown} where it takes logits (at "
        f"{source_label(Site(file, line))}){more_lines(list(found)[1:])}",
        body=(f"categorical(key, logits) draws index i with probability softmax(logits)[i], "
              f"exp(logits[i]) / sum(exp(logits)): given {shown} it draws with "
              f"{_shown(drawn)}, not the probabilities themselves, and JAX says nothing "
              f"({DOCS}; NumPy's choice(p=...) and PyTorch's multinomial take probabilities). "
              f"Give it their logarithms:" + fix +
              "\nor draw with the probabilities as they are: jax.random.choice(key, len(p), "
              "shape, p=p)."),
        kind="info", details=True)


def _shown(row) -> str:
    """A row of probabilities, rounded: `[0.1, 0.2, 0.7]`; its first 6 where it is long."""
    values = [f"{v:.2f}".rstrip("0").rstrip(".") if v else "0" for v in row[:6]]
    return "[" + ", ".join(values) + (", ...]" if len(row) > 6 else "]")


def _with_log(file: str, line: int) -> str | None:
    """The user's line with categorical's logits wrapped in jnp.log; None where the call is
    not on that one line."""
    tree = parse_file(file)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and
             ast.unparse(n.func).endswith("categorical") and len(n.args) >= 2 and
             n.lineno == n.end_lineno == line] if tree is not None else []
    if len(calls) != 1:
        return None
    source, logits = "".join(linecache.getlines(file)), calls[0].args[1]
    edited = replaced(source, [(logits, f"jnp.log({segment(source, logits)})")])
    return edited.splitlines()[line - 1].strip()
