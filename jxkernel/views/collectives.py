"""The communication view: the collectives XLA's partitioner inserted into a compiled
program, read from its optimized HLO text (`collectives`: what each device sends in, to which
device groups, for which source line) and shown as text, HTML and JSON (explain and %hlo).

    >>> c = collectives('''ENTRY %main (p: f32[2,4]) -> f32[2,4] {
    ...   %p = f32[2,4]{1,0} parameter(0)
    ...   ROOT %all-reduce = f32[2,4]{1,0} all-reduce(%p), replica_groups={{0,1},{2,3}}
    ... }''')
    >>> print("\\n".join(collectives_text(c)))
    communication: 1 collective(s) XLA inserted, 32 bytes sent in per device
      collective  operands  bytes/device  device groups  source
      all-reduce  f32[2,4]  32            {0,1} {2,3}    -
"""
from __future__ import annotations

import dataclasses
import html
import math
import re

from .hlo_text import parse_hlo, shape_bytes


# ------------------------------------------------------------------ reading
# What XLA's partitioner inserts to move data between devices ("-start" is the async form of
# the same op; its "-done" half moves nothing new, so it is not listed).
COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "ragged-all-to-all",
               "collective-permute", "collective-broadcast")
_GROUPS = re.compile(r"replica_groups=(mesh\[[^\]]*\]\s*\{[^}]*\}|\[[\d,]*\]<=\[[\d,]*\]"
                     r"(?:T\([\d,]*\))?|\{(?:\{[\d,]*\},?)*\})")
_PAIRS = re.compile(r"source_target_pairs=(\{(?:\{\d+,\d+\},?)*\})")
_ANY_GROUPS = re.compile(r"replica_groups=(.+?)(?:, \w+=|$)")     # a form not known here
_OP_NAME = re.compile(r'op_name="((?:[^"\\]|\\.)*)"')


@dataclasses.dataclass
class Collective:
    """One collective of an optimized, partitioned HLO module: what each device sends in."""
    name: str
    opcode: str                    # one of COLLECTIVES ("-start" dropped)
    operands: list                 # the operands' types, e.g. ['f32[2,4]']
    shape: str                     # the result's type
    bytes: int                     # the operands' bytes, per device
    replica_groups: str            # as XLA printed them ('' when none)
    groups: list | None            # the device groups spelled out, None if not understood
    source_file: str | None
    source_line: int | None
    text_line: int
    text: str


def collectives(text: str, before: str | None = None) -> list[Collective]:
    """The collectives in an HLO module's text, in program order. The partitioner gives
    those it makes only `op_name`, the instruction they serve; `before`, the module's HLO
    before optimization, has that instruction and its source line.

    >>> c = collectives('''ENTRY %main (p: f32[2,4]) -> f32[2,4] {
    ...   %p = f32[2,4]{1,0} parameter(0)
    ...   ROOT %all-reduce = f32[2,4]{1,0} all-reduce(%p), replica_groups=[2,2]<=[2,2]T(1,0)
    ... }''')[0]
    >>> c.opcode, c.operands, c.bytes, c.groups
    ('all-reduce', ['f32[2,4]'], 32, [[0, 2], [1, 3]])
    """
    instructions = parse_hlo(text)
    shapes = {(i.computation, i.name): i.shape for i in instructions}
    lines = {i.name: (i.source_file, i.source_line) for i in parse_hlo(before or "")}
    found = []
    for inst in instructions:
        opcode = inst.opcode.removesuffix("-start")
        if opcode not in COLLECTIVES:
            continue
        operands = [shapes[inst.computation, o] for o in inst.operands
                    if (inst.computation, o) in shapes]
        groups = _GROUPS.search(inst.text) or _PAIRS.search(inst.text) or \
            _ANY_GROUPS.search(inst.text)
        op_name = _OP_NAME.search(inst.text)
        file, line = (inst.source_file, inst.source_line) if inst.source_line is not None else \
            _line_of(op_name.group(1) if op_name else "", lines)
        found.append(Collective(
            inst.name, opcode, [_no_layout(s) for s in operands], _no_layout(inst.shape),
            sum(shape_bytes(s) for s in operands), groups.group(1) if groups else "",
            replica_groups(groups.group(1)) if groups else None, file, line, inst.text_line,
            inst.text))
    return found


def _line_of(op_name: str, lines: dict) -> tuple:
    """(file, line) of the instruction `op_name` names; inside a call (a shard_map body) it
    is a path, 'call.1/all-reduce.1', whose last part is the instruction's name."""
    return lines.get(op_name) or lines.get(op_name.rsplit("/", 1)[-1], (None, None))


def _no_layout(shape: str) -> str:
    """'f32[2,4]{1,0}' -> 'f32[2,4]' (the layout says nothing about the data moved)."""
    return re.sub(r"\{[^{}]*\}", "", shape)


def replica_groups(text: str) -> list | None:
    """XLA's device groups spelled out: '{{0,1},{2,3}}', the iota form '[2,2]<=[2,2]T(1,0)'
    and the mesh form "mesh['a'=2,'b'=2] {'a'}" all become lists of device numbers
    ('{}', every device in one group, becomes []); None for a form not known here.

    >>> replica_groups("mesh['axis_0'=2,'axis_1'=2] {'axis_0'}")
    [[0, 2], [1, 3]]
    """
    import numpy as np
    iota = re.fullmatch(r"\[([\d,]+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?", text)
    if iota:
        shape, dims, perm = (tuple(map(int, g.split(","))) if g else None for g in iota.groups())
        return np.arange(math.prod(dims)).reshape(dims).transpose(perm).reshape(shape).tolist()
    mesh = re.fullmatch(r"mesh\[([^\]]*)\]\s*\{([^}]*)\}", text)
    if mesh:
        axes = re.findall(r"'([^']*)'=(\d+)", mesh.group(1))
        names, sizes = [a for a, _ in axes], [int(n) for _, n in axes]
        chosen = re.findall(r"'([^']*)'", mesh.group(2))
        if not set(chosen) <= set(names):
            return None
        moved = ([names.index(a) for a in names if a not in chosen] +
                 [names.index(a) for a in chosen])
        ids = np.arange(math.prod(sizes)).reshape(sizes).transpose(moved)
        return ids.reshape(-1, math.prod(sizes[names.index(a)] for a in chosen)).tolist()
    if re.fullmatch(r"\{(\{[\d,]*\},?)*\}", text):
        return [[int(d) for d in g.split(",") if d]
                for g in re.findall(r"\{([\d,]*)\}", text[1:-1])]
    return None


# ------------------------------------------------------------------ showing
def collective_json(c, source: str | None = None) -> dict:
    """One `Collective` as the explain and hlo bundles list it;
    `source`: its line as the view labels it ('In[3]:5'), None when unknown."""
    return {"name": c.name, "opcode": c.opcode, "operands": c.operands, "shape": c.shape,
            "bytes": c.bytes, "replica_groups": c.replica_groups, "groups": c.groups,
            "source": source, "text_line": c.text_line}


def _groups_text(c) -> str:
    if c.groups is None:
        return c.replica_groups or "-"
    if not c.groups:
        return "all devices"
    if c.opcode == "collective-permute":
        return " ".join(f"{a}→{b}" for a, b in c.groups)
    return " ".join("{" + ",".join(map(str, g)) + "}" for g in c.groups)


def collective_rows(collectives, source_of=lambda c: None) -> list[tuple]:
    """(op, operands, bytes, groups, source) per collective, as text."""
    return [(c.opcode, ", ".join(c.operands) or "-", f"{c.bytes:,}", _groups_text(c),
             source_of(c) or "-") for c in collectives]


_HEAD = ("collective", "operands", "bytes/device", "device groups", "source")


def collectives_text(collectives, source_of=lambda c: None) -> list[str]:
    """The communication view as lines of text ([] when there is none)."""
    if not collectives:
        return []
    rows = [_HEAD] + collective_rows(collectives, source_of)
    widths = [max(len(r[i]) for r in rows) for i in range(len(_HEAD))]
    total = sum(c.bytes for c in collectives)
    return ([f"communication: {len(collectives)} collective(s) XLA inserted, "
             f"{total:,} bytes sent in per device"] +
            ["  " + "  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows])


def collectives_html(collectives, source_of=lambda c: None) -> str:
    """The communication view as a static HTML table ('' when there is none)."""
    if not collectives:
        return ""
    head = "".join(f"<th style='text-align:left'>{html.escape(h)}</th>" for h in _HEAD)
    body = "".join("<tr>" + "".join(f"<td style='font-family:monospace;padding:0 6px'>"
                                    f"{html.escape(v)}</td>" for v in row) + "</tr>"
                   for row in collective_rows(collectives, source_of))
    title = html.escape(collectives_text(collectives)[0])
    return (f"<details open class='jx-collectives'><summary>{title}</summary>"
            f"<table style='font-size:12px'><tr>{head}</tr>{body}</table></details>")
