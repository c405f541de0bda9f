"""Two jaxprs side by side, aligned: what a transformation added, removed and changed.

    >>> f = lambda x: jnp.sin(x) * 2.0
    >>> from jxkernel import grad, make_jaxpr
    >>> d = jaxpr_diff(make_jaxpr(f)(1.0), make_jaxpr(grad(f))(1.0), "f(x)", "grad(f)(x)")
    >>> [(r.kind, r.primitive) for r in d.rows if r.kind != "same"]
    [('added', 'cos'), ('added', 'mul'), ('added', 'mul')]

`%jaxpr --diff f(x) grad(f)(x)` shows it in the notebook. Each side is printed as the core
prints it (its own variable names), and equations are aligned by a key without names:
primitive, params (nested jaxprs printed with fresh names) and the types of operands and
results (a literal's value counts). difflib.SequenceMatcher aligns the keys; inside a
replaced stretch, equations with the same primitive are paired as "changed", the rest are
"removed" (left only) or "added" (right only). The first and last rows are the jaxprs'
signatures (`{ lambda ; a:f32[]. let` and `in (b,) }`), so vmap's new shapes show too.

The view: text (unified-diff marks: two spaces same, `-` removed, `+` added, `~` changed,
with `→` before the right side of a change), static HTML (a side-by-side table, escaped,
coloured inline), and the MIME bundle `application/vnd.jxkernel.jaxprdiff+json`:

    version   1
    left      {"title": "f(x)", "text": the left jaxpr as printed}
    right     {"title": "grad(f)(x)", "text": ...}
    rows      [{"kind": "same" | "added" | "removed" | "changed", "primitive": name or null
              (null for the signature rows), "left": text or null, "right": text or null,
              "left_index" / "right_index": the equation's index in its jaxpr (null for the
              signature rows and the side a row lacks)}], in order
    counts    {"same": n, "added": n, "removed": n, "changed": n} over the rows: the
              equations and the two signature rows (`{ lambda ; a:f32[3]. let`, `in (b,) }`),
              so that a changed signature is counted beside the row it marks
"""
from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass

from ..core import ir
from .rich_view import RichView, esc
from .schema import mime_type

MIME = mime_type("JaxprDiffBundle")
VERSION = 1
KINDS = ("same", "added", "removed", "changed")
_MARK = {"same": " ", "added": "+", "removed": "-", "changed": "~"}
_COLOR = {"added": "rgba(40, 160, 60, 0.18)", "removed": "rgba(200, 40, 40, 0.18)",
          "changed": "rgba(220, 160, 0, 0.22)", "same": "transparent"}


@dataclass(frozen=True)
class Row:
    """One aligned line: an equation (or a signature line) on the left, the right, or both."""
    kind: str
    left: str | None
    right: str | None
    primitive: str | None = None
    left_index: int | None = None
    right_index: int | None = None


class JaxprDiff(RichView):
    """Two (closed) jaxprs aligned; `rows` in order, `counts` per kind (every row)."""
    MIME = MIME

    def __init__(self, left, right, left_title: str = "left", right_title: str = "right"):
        self.left_title, self.right_title = left_title, right_title
        self.left, self.right = _Side(left), _Side(right)
        self.rows = _align(self.left, self.right)
        self.counts = {k: sum(r.kind == k for r in self.rows) for k in KINDS}

    @property
    def changes(self) -> list:
        return [r for r in self.rows if r.kind != "same"]

    def to_json(self) -> dict:
        return {"version": VERSION,
                "left": {"title": self.left_title, "text": self.left.text},
                "right": {"title": self.right_title, "text": self.right.text},
                "rows": [{"kind": r.kind, "primitive": r.primitive, "left": r.left,
                          "right": r.right, "left_index": r.left_index,
                          "right_index": r.right_index} for r in self.rows],
                "counts": dict(self.counts)}

    def summary(self) -> str:
        if not self.changes:
            return "no differences"
        said = ", ".join(f"{self.counts[k]} {k}" for k in ("added", "removed", "changed")
                         if self.counts[k])
        return said + (" (the signature only)" if all(r.primitive is None
                                                      for r in self.changes) else "")

    def __repr__(self):
        return render_text(self)

    def _repr_html_(self):
        return render_html(self)



def jaxpr_diff(left, right, left_title: str = "left", right_title: str = "right") -> JaxprDiff:
    """The aligned difference of two jaxprs (ClosedJaxpr or Jaxpr), e.g. f's against grad(f)'s.
    Anything else is refused, naming what was given."""
    for name, value in (("left", left), ("right", right)):
        if not isinstance(value, (ir.ClosedJaxpr, ir.Jaxpr)):
            raise TypeError(f"jaxpr_diff: {name} must be a jaxpr (make_jaxpr(f)(x) or "
                            f"jit(f).trace(x).jaxpr); got {type(value).__name__}: "
                            f"{str(value)[:60]!r}")
    return JaxprDiff(left, right, left_title, right_title)


USAGE = ("%jaxpr --diff EXPR1 EXPR2, e.g. %jaxpr --diff f(x) grad(f)(x) (or with a comma: "
         "%jaxpr --diff f(x), vmap(f)(xs))")


def split_expressions(text: str) -> tuple:
    """The two expressions of `%jaxpr --diff`'s line: `A, B` (a two-element tuple), else the
    one split at a space where both halves are expressions. ValueError saying what to write
    when there are not exactly two.

        >>> split_expressions("f(x) grad(f)(x)"), split_expressions("x * 2, x + y")
        (('f(x)', 'grad(f)(x)'), ('x * 2', 'x + y'))
    """
    text = text.strip()
    if not text:
        raise ValueError(f"no expressions given; write {USAGE}")
    pair = _as_pair(text)
    if pair is not None:
        return pair
    splits = [(text[:i].strip(), text[i:].strip()) for i, ch in enumerate(text)
              if ch.isspace() and _parses(text[:i]) and _parses(text[i:])]
    splits = list(dict.fromkeys(splits))
    if len(splits) == 1:
        return splits[0]
    if len(splits) > 1:
        options = "; ".join(f"{a!r} and {b!r}" for a, b in splits[:3])
        raise ValueError(f"{text!r} splits into two expressions in several ways ({options}); "
                         f"separate them with a comma: %jaxpr --diff A, B")
    why = "one expression" if _parses(text) else "not two Python expressions"
    raise ValueError(f"{text!r} is {why}; write {USAGE}")


def _parses(text: str) -> bool:
    try:
        ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return False
    return bool(text.strip())


def _as_pair(text):
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    parenthesized = isinstance(tree, ast.Tuple) and tree.elts and \
        tree.elts[0].col_offset > tree.col_offset               # `(a, b)` is one expression
    if isinstance(tree, ast.Tuple) and len(tree.elts) == 2 and not parenthesized and \
            not any(isinstance(e, ast.Starred) for e in tree.elts):
        return tuple(ast.get_source_segment(text, e) for e in tree.elts)
    return None


# ------------------------------------------------------------------ one side
class _Side:
    """A jaxpr printed once (so every text uses the names print(jaxpr) gives), with the
    name-free key of each equation."""

    def __init__(self, jaxpr):
        self.jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ir.ClosedJaxpr) else jaxpr
        names = ir.Names()
        self.text = ir.pp_toplevel(self.jaxpr, names=names)
        self.eqns = [ir.pp_eqn(e, names, 0, width=10_000) for e in self.jaxpr.eqns]
        self.keys = [_key(e) for e in self.jaxpr.eqns]
        self.head, self.tail = _signature(self.jaxpr, names)
        self.head_key = " ".join(v.aval.str_short(True) for v in self.jaxpr.invars) + " | " + \
            " ".join(v.aval.str_short(True) for v in self.jaxpr.constvars)
        self.tail_key = " ".join(_atom_type(v) for v in self.jaxpr.outvars)


def _signature(jaxpr, names) -> tuple:
    consts = " ".join(ir.pp_binder(v, names) for v in jaxpr.constvars)
    ins = " ".join(ir.pp_binder(v, names) for v in jaxpr.invars)
    outs = ", ".join(names(v) for v in jaxpr.outvars)
    comma = "," if len(jaxpr.outvars) == 1 else ""
    return f"{{ lambda {consts}; {ins}. let", f"in ({outs}{comma}) }}"


def _atom_type(atom) -> str:
    if isinstance(atom, ir.Literal):
        return ir.pp_literal(atom)                 # a literal's value is part of the program
    return atom.aval.str_short(True)


def _key(eqn) -> tuple:
    """What an equation is, without its variable names."""
    params = ir.pp_eqn(ir.Eqn([], [], eqn.primitive, eqn.params), ir.Names(), 0, width=10_000)
    return (str(eqn.primitive), params, tuple(_atom_type(a) for a in eqn.invars),
            tuple(v.aval.str_short(True) for v in eqn.outvars))


# ------------------------------------------------------------------ aligning
def _align(left: _Side, right: _Side) -> list:
    rows = [_signature_row(left.head, right.head, left.head_key == right.head_key)]
    matcher = difflib.SequenceMatcher(None, left.keys, right.keys, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows += [Row("same", left.eqns[i], right.eqns[j], left.keys[i][0], i, j)
                     for i, j in zip(range(i1, i2), range(j1, j2))]
        else:
            rows += _pair_by_primitive(left, right, range(i1, i2), range(j1, j2))
    if left.tail_key == right.tail_key:
        rows.append(_signature_row(left.tail, right.tail, True))
    else:                         # `in (c,) }` has no types: say which changed
        rows.append(_signature_row(f"{left.tail}  # {left.tail_key}",
                                   f"{right.tail}  # {right.tail_key}", False))
    return rows


def _signature_row(left_text, right_text, same: bool) -> Row:
    return Row("same" if same else "changed", left_text, right_text)


def _pair_by_primitive(left, right, lefts, rights) -> list:
    """A replaced stretch: equations of the same primitive, in order, are one changed row."""
    lp = [left.keys[i][0] for i in lefts]
    rp = [right.keys[j][0] for j in rights]
    rows = []
    for op, a1, a2, b1, b2 in difflib.SequenceMatcher(None, lp, rp, autojunk=False).get_opcodes():
        if op == "equal":
            rows += [Row("changed", left.eqns[lefts[a]], right.eqns[rights[b]], lp[a],
                         lefts[a], rights[b]) for a, b in zip(range(a1, a2), range(b1, b2))]
            continue
        rows += [Row("removed", left.eqns[lefts[a]], None, lp[a], lefts[a], None)
                 for a in range(a1, a2)]
        rows += [Row("added", None, right.eqns[rights[b]], rp[b], None, rights[b])
                 for b in range(b1, b2)]
    return rows


# ------------------------------------------------------------------ rendering
def render_text(diff: JaxprDiff) -> str:
    """Unified-diff style: `-` left only, `+` right only, `~` changed (then `→` right). Rows
    alike in both are written as the right program has them: its variable names differ from
    the left's, and the `+` rows only read sensibly among the right program's own lines."""
    lines = [f"--- {diff.left_title}", f"+++ {diff.right_title}   ({diff.summary()})"]
    for row in diff.rows:
        mark = _MARK[row.kind]
        if row.kind == "changed":
            lines.append(f"~ {row.left}")
            lines.append(f"→ {row.right}")
        else:
            lines.append(f"{mark} {row.left if row.kind == 'removed' else row.right}")
    return "\n".join(lines)


def render_html(diff: JaxprDiff) -> str:
    """A side-by-side table (static HTML, coloured inline; every text escaped)."""
    head = (f"<tr><th></th><th style='text-align:left'>{esc(diff.left_title)}</th>"
            f"<th style='text-align:left'>{esc(diff.right_title)}</th></tr>")
    body = "".join(
        f"<tr class='jx-diff-{row.kind}' style='background:{_COLOR[row.kind]}'>"
        f"<td style='padding:0 4px'>{esc(_MARK[row.kind])}</td>"
        f"<td style='padding:0 8px;white-space:pre'>{esc(row.left or '')}</td>"
        f"<td style='padding:0 8px;white-space:pre'>{esc(row.right or '')}</td></tr>"
        for row in diff.rows)
    return (f"<div class='jx-jaxpr-diff'><div style='font-weight:bold'>jaxpr diff: "
            f"{esc(diff.summary())}</div><table style='font-family:monospace;font-size:90%;"
            f"border-collapse:collapse'>{head}{body}</table></div>")
