"""StableHLO text, read back: the module as a learner sees it from JAX (`Lowered.as_text()`,
MLIR's printer: `%0 = stablehlo.sine %arg0 : tensor<3xf32>`, `%cst` constants), each op with
the source line it came from. What jxkernel.explain's StableHLO pane and %hlo show.

    >>> module = '''module @jit_f {
    ...   func.func public @main(%arg0: tensor<3xf32> loc(unknown)) -> tensor<3xf32> {
    ...     %0 = "stablehlo.sine"(%arg0) : (tensor<3xf32>) -> tensor<3xf32> loc("f.py":5:0)
    ...     return %0 : tensor<3xf32> loc(unknown)
    ...   }
    ... }'''                             # our text, lowered with locations=True
    >>> shown = printed(module)
    >>> shown.text.splitlines()[2]        # as Lowered.as_text() shows it
    '    %0 = stablehlo.sine %arg0 : tensor<3xf32>'
    >>> shown.ops[0]                      # (name, text, line in shown.text, file, line)
    ('stablehlo.sine', '%0 = stablehlo.sine %arg0 : tensor<3xf32>', 3, 'f.py', 5)

How an op gets its line: the module is printed twice by jaxlib's MLIR printer, once as
`as_text()` prints it and once with its debug info (`as_text(debug_info=True)`: each op ends
with `loc(#loc3)`, and `#loc3 = loc("f.py":5:0)` is defined after the module; JAX's own
locations nest, `loc("jit(f)/sin"(#loc11))`, `#loc11 = loc(callsite(#loc7 at #loc8))`, and
the first file:line found, depth first, is the innermost frame: the user's line). The two
prints differ only by the locations, line for line, so an op's text is the line `as_text()`
shows. An op holding regions (a while, a case, a reducer MLIR cannot print in short) has its
location on its closing line; the ops in its regions that have none take its line.

Without jaxlib (the NumPy backend in Pyodide) nothing prints MLIR: `printed` gives jxkernel's
own text (generic form in places, `loc(...)` on each op), read by `emitted_ops`, and
`by_jaxlib` False, so the views say which text they show (`title`).
"""
from __future__ import annotations

import dataclasses
import re

from ..xla import client as _client
from ..xla import portable

# an op at the start of a line: `%0 = stablehlo.sine`, `%3:2 = stablehlo.while(`,
# `%8 = "stablehlo.case"(`, `stablehlo.return`, and the func dialect's ops, which MLIR prints
# without their dialect inside a func.func (`return`, `%0 = call @f(...)`)
_PRINTED_OP = re.compile(r'^(?:%[\w#:.$-]+(?:, %[\w#:.$-]+)* = )?"?(?:([a-z_]\w*\.[\w.]+)|'
                         r'(return|call|call_indirect|constant)\b)"?')
_ALIAS = re.compile(r"^#(loc\d*) = (loc\(.*\))\s*$")
_FILE_LINE = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):\d+')
_REFERENCE = re.compile(r"#(loc\d*)\b")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


@dataclasses.dataclass(frozen=True)
class Printed:
    """A module as shown: its text, its ops (name, text, 1-based line in `text`, file, line),
    and whether jaxlib printed it (as JAX does) or it is jxkernel's own text."""
    text: str
    ops: list
    by_jaxlib: bool


def title(by_jaxlib: bool) -> str:
    """A StableHLO pane's title: what the text is."""
    return ("StableHLO" if by_jaxlib else
            "StableHLO (jxkernel's own text: no jaxlib here to print it as JAX does)")


def printed(module: str) -> Printed:
    """`module` (our emitted text, with `loc(...)` where the lowering wrote them) as MLIR
    prints it, each op with its source line; without jaxlib, our own text as it is."""
    if _client.xc is None:
        return Printed(module, emitted_ops(module), False)
    plain = portable.printed_text(module)
    return Printed(plain, printed_ops(plain, portable.printed_text(module, debug_info=True)),
                   True)


def printed_ops(plain: str, debug: str) -> list:
    """(name, text, text line, file, line) of each op of `plain` (MLIR's print of a module),
    its line read from `debug` (the same print with `enable_debug_info`)."""
    aliases, lines = {}, []
    for raw in debug.splitlines():
        alias = _ALIAS.match(raw)
        if alias:
            aliases[alias.group(1)] = alias.group(2)
        else:
            lines.append(raw)
    shown = plain.splitlines()
    if len(shown) != len(lines):     # never seen: then the debug print's lines, cleaned
        shown = [_without_locations(line) for line in lines]
    ops, open_ops = [], []       # open_ops: indices of the ops whose regions are open (or None)
    for number, (raw, text) in enumerate(zip(lines, shown), 1):
        body, loc = _trailing_location(raw.strip())
        text = text.strip()
        where = _source_of(loc, aliases) if loc is not None else (None, None)
        if body.startswith("}"):
            if loc is None:               # `} do {`, `}, {`: between two regions of one op
                continue
            start = open_ops.pop() if open_ops else None
            if start is None:             # a func.func or the module closes
                continue
            name, head, first, _, _ = ops[start]
            ops[start] = (name, head if text == "}" else f"{head} … {text}", first) + where
            ops[start + 1:] = [o if o[4] is not None else o[:3] + where for o in ops[start + 1:]]
            continue
        if body.startswith(("module", "func.func")):
            open_ops.append(None)
            continue
        op = _PRINTED_OP.match(body)
        if op is None:                    # `cond {`, `reducer(...) {`, `^bb0(...):`
            continue
        ops.append((op.group(1) or f"func.{op.group(2)}", text, number) + where)
        if loc is None:                   # its location comes where its regions close
            open_ops.append(len(ops) - 1)
    return ops


def _trailing_location(line: str) -> tuple:
    """(the line without its trailing ` loc(...)`, what is inside the loc(...) or None)."""
    if not line.endswith(")"):
        return line, None
    start = line.rfind(" loc(")
    while start >= 0:
        inside = line[start + 5:-1]
        if _balanced(inside):
            return line[:start], inside
        start = line.rfind(" loc(", 0, start)
    return line, None


def _balanced(text: str) -> bool:
    depth = 0
    for c in _STRING.sub('""', text):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


def _without_locations(line: str) -> str:
    """The line with every ` loc(...)` taken out (a block argument's, an op's)."""
    out, rest = "", line
    while (start := rest.find(" loc(")) >= 0:
        end = start + 5
        depth = 1
        while end < len(rest) and depth:
            if rest[end] == '"':
                m = _STRING.match(rest, end)
                end = m.end() if m else len(rest)
                continue
            depth += {"(": 1, ")": -1}.get(rest[end], 0)
            end += 1
        out, rest = out + rest[:start], rest[end:]
    return out + rest


def _source_of(loc: str, aliases: dict, seen=()) -> tuple:
    """(file, line) of a location: its first file:line, following `#locN` references depth
    first (a call site's callee first: the innermost frame), or (None, None)."""
    first = _FILE_LINE.search(loc)
    refs = [(m.start(), m.group(1)) for m in _REFERENCE.finditer(_STRING.sub(
        lambda s: " " * len(s.group(0)), loc))]
    for at, ref in refs:
        if first is not None and first.start() < at:
            break
        if ref in aliases and ref not in seen:
            found = _source_of(aliases[ref][4:-1], aliases, seen + (ref,))
            if found[0] is not None:
                return found
    if first is not None:
        return re.sub(r"\\(.)", r"\1", first.group(1)), int(first.group(2))
    return None, None


# ------------------------------------------------------------------ our own text (no jaxlib)
# an op's location in our text: the user's line (`loc("file":3:0)`), or none (`loc(unknown)`)
_LOC = re.compile(r'\s*loc\((?:"((?:[^"\\]|\\.)*)":(\d+):\d+|unknown)\)\s*$')
_OP = re.compile(r'^(?:%[\w#:]+ = )?"?([a-z_]+\.[\w.]+|return)"?')


def emitted_ops(text: str) -> list:
    """(op name, text, text line, file, line) of each op in our module's text. An op holding
    regions is written over several lines and its `loc` comes on the closing one: it and the
    ops in its regions without a location of their own get that line."""
    ops, open_ops = [], []            # open_ops: indices of ops whose regions are open
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        loc = _LOC.search(line)
        body = line[:loc.start()] if loc else line
        where = (re.sub(r"\\(.)", r"\1", loc.group(1)), int(loc.group(2))) \
            if loc and loc.group(1) is not None else (None, None)
        if line.startswith("})") and open_ops:
            start = open_ops.pop()
            name, head, first, _, _ = ops[start]
            ops[start] = (name, f"{head} … {body}", first) + where
            if loc:
                ops[start + 1:] = [o if o[4] is not None else o[:3] + where
                                   for o in ops[start + 1:]]
            continue
        op = _OP.match(body)
        if op is None or body.startswith(("func.func", "module")):
            continue
        ops.append((op.group(1), body, number) + where)
        if body.endswith("({"):
            open_ops.append(len(ops) - 1)
    return ops
