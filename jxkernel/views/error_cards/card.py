"""The error card: what it holds (`ErrorCard`, its JSON bundle `MIME`) and how it shows, as
plain text (a terminal, a script) and as static HTML (a notebook, nbconvert's export)."""
from __future__ import annotations

from dataclasses import dataclass

from ..rich_view import RichView, esc
from ..schema import mime_type

MIME = mime_type("ErrorBundle")
VERSION = 1
_DOCS = "https://docs.jax.dev/en/latest/errors.html#jax.errors."
_MAX_STEPS = 8


@dataclass
class ErrorCard(RichView):
    """What the error card shows; the package's docstring (error_cards/__init__.py) says
    each field."""
    MIME = MIME
    kind: str
    title: str
    why: str
    fix: str
    rewrite: str
    where: dict | None = None
    called_from: dict | None = None
    origin: dict | None = None
    docs: str | None = None
    error: str = ""               # the exception's class name and first line: card_for
    message: str = ""             # fills them in, the same for every kind
    traceback: str | None = None  # the filtered traceback with the whole message, as text:
    #                               the exception handler (tracebacks.py) fills it in

    def to_json(self) -> dict:
        return {"version": VERSION, "kind": self.kind, "error": self.error, "title": self.title,
                "message": self.message, "where": self.where, "called_from": self.called_from,
                "origin": self.origin, "why": self.why, "fix": self.fix,
                "rewrite": self.rewrite, "docs": self.docs, "traceback": self.traceback}

    def __repr__(self):
        return render_text(self)

    def _repr_html_(self):
        return render_html(self)


# ------------------------------------------------------------------ rendering
def _place(location) -> str:
    return f"{location['file']}, line {location['line']}, in {location['function']}"


def origin_lines(card) -> list:
    """The origin as text lines: the input, then each operation to the value."""
    origin = card.origin or {}
    if card.kind == "vmap-sizes":
        return [f"{a['name']}: {a['type']}, mapped along axis {a['axis']} (size {a['size']})"
                for a in origin["arguments"]]
    if card.kind == "scan-lengths" and origin:     # xs a number: no leaves to list
        return [f"{a['name']}: {a['type']}, {a['size']} steps along axis 0"
                for a in origin["arguments"]]
    if card.kind == "loop-carry":
        return [f"{origin['body']}: carry{origin['path'] or ''} came in as "
                f"{origin['input_type']}, left as {origin['output_type']}"]
    if card.kind == "branch-types":
        return [f"{name} ({fun}) returns {type_}" for name, fun, type_ in origin["branches"]]
    if card.kind == "unhashable-static":
        return [f"static argument {origin['argument']} of {origin['function']}: "
                f"{origin['value_type']} {origin['value']}"]
    steps = origin.get("steps") or []
    if not origin.get("input_type") and steps:      # made from constants (JAX: "This value
        lines = [f"no argument: made from constants by jnp operations in "   # became a tracer")
                 f"{origin['function']}, traced for {origin['transformation']}"]
    elif not origin.get("input_type"):
        return []
    else:
        which = f"argument {origin['argument']}" if origin.get("argument") else \
            f"input {origin['input_index']}"
        lines = [f"{which}: {origin['input_type']} of {origin['function']}, "
                 f"traced for {origin['transformation']}"]
    shown = folded_steps(steps)
    if len(shown) > _MAX_STEPS:
        hidden = sum(len(run) for run in shown[:-_MAX_STEPS])
        lines.append(f"  … {hidden} operations")
    for run in shown[-_MAX_STEPS:]:
        s = run[0]
        if s.get("package"):
            lines.append(f"  … {len(run)} step{'s' if len(run) > 1 else ''} inside "
                         f"{s['package']}")
        else:
            lines.append(f"  → {s['primitive']} → {s['type']}" + (
                f"   ({s['where']}: {s['code']})" if s["where"] and s["code"] else ""))
    return lines


def folded_steps(steps) -> list:
    """The origin's steps as the card lists them: each of the learner's (or jxkernel's) alone,
    and each run of steps made by one installed library's lines (a step's `package`) as one:
    learner11's card listed ~25 steps through Flax's and Optax's files around their own two.

        >>> [len(run) for run in folded_steps([{"package": "flax"}, {"package": "flax"},
        ...                                    {"package": None}, {"package": "optax"}])]
        [2, 1, 1]
    """
    runs: list = []
    for s in steps:
        package = s.get("package")
        if package and runs and runs[-1][0].get("package") == package:
            runs[-1].append(s)
        else:
            runs.append([s])
    return runs


def render_text(card: ErrorCard) -> str:
    """The card as plain text (terminal IPython, scripts)."""
    lines = [f"{card.error}: {card.title}"] + ([f"  {card.message}"] if card.message else [])
    if card.where:
        lines.append(f"  at {_place(card.where)}:  {card.where['code']}")
    if card.called_from:
        lines.append(f"  called from {_place(card.called_from)}:  {card.called_from['code']}")
    found = origin_lines(card)
    if found:
        lines += ["  where it came from:"] + ["    " + s for s in found]
    lines += [f"  why: {card.why}", f"  fix: {card.fix}"]
    if card.rewrite:        # (a card whose fix is in words alone: no "try:" over nothing)
        lines += ["  try:"] + ["    " + s for s in card.rewrite.splitlines()]
    if card.docs:
        lines.append(f"  see {card.docs}")
    if card.traceback:                  # no folding in text: IPython's %tb prints it whole
        lines.append("  (%tb shows the whole traceback)")
    return "\n".join(lines)


_BOX = ("border-left:4px solid var(--jp-error-color1, #b00020);padding:6px 10px;margin:4px 0;"
        "background:var(--jp-layout-color2, #f7f7f7);font-family:var(--jp-ui-font-family, "
        "sans-serif);font-size:90%")
_CODE = ("background:var(--jp-layout-color0, #fff);border:1px solid var(--jp-border-color2, "
         "#ddd);padding:4px 6px;margin:2px 0;white-space:pre;overflow-x:auto")


def render_html(card: ErrorCard) -> str:
    """The card as static HTML (no script needed: works in nbconvert's export); every text
    from the user's code or the error is escaped."""
    parts = [f"<div class='jx-error-card jx-error-{esc(card.kind)}' style='{_BOX}'>",
             f"<div style='font-weight:bold'>{esc(card.error)}: {esc(card.title)}</div>",
             f"<div class='jx-error-message'>{esc(card.message)}</div>"]
    for label, location in (("at", card.where), ("called from", card.called_from)):
        if location:
            parts.append(f"<div>{label} <b>{esc(_place(location))}</b>: "
                         f"<code>{esc(location['code'])}</code></div>")
    found = origin_lines(card)
    if found:
        items = "".join(f"<li><code>{esc(s.strip())}</code></li>" for s in found)
        parts.append(f"<div>where it came from:<ul style='margin:2px 0'>{items}</ul></div>")
    parts += [f"<div><b>why</b>: {esc(card.why)}</div>",
              f"<div><b>fix</b>: {esc(card.fix)}</div>"]
    if card.rewrite:        # (as the lab extension's view: no empty code box)
        parts.append(f"<pre class='jx-rewrite' style='{_CODE}'>{esc(card.rewrite)}</pre>")
    if card.docs:
        parts.append(f"<div><a href='{esc(card.docs)}' target='_blank'>{esc(card.docs)}</a></div>")
    if card.traceback:
        parts.append(f"<details class='jx-error-traceback'><summary>traceback and the whole "
                     f"message</summary><pre style='{_CODE}'>{esc(card.traceback)}</pre>"
                     f"</details>")
    return "".join(parts) + "</div>"
