"""See inside one call: f's source, its jaxpr, its StableHLO (as JAX prints it) and XLA's
optimized HLO, linked by source line, with per-line counts so the heavy lines stand out.

    >>> def f(x, w):
    ...     y = jnp.sin(x)
    ...     z = y @ w
    ...     return z.sum()
    >>> ex = explain(f, jnp.ones((4, 8)), jnp.ones((8, 3)))
    >>> [e.primitive for e in ex.equations_of(ex.first_line + 2)]      # z = y @ w
    ['dot_general']
    >>> [o.name for o in ex.stablehlo_ops_of(ex.first_line + 2)]
    ['stablehlo.dot_general']
    >>> ex.per_line[ex.first_line + 2].flops     # 2·4·8·3, from the HLO dot's shapes
    192

`explain(f, *args, **kwargs)` traces `f` as `jit(f)` would (a jitted f keeps its static
arguments; for a plain f, arguments that are not arrays or numbers are static), lowers it
with source locations on (`lower_module(..., locations=True)` writes `loc("file":line:0)`
on each op) and compiles it. The StableHLO shown is that module as jaxlib's MLIR printer
prints it, `Lowered.as_text()`'s text; each op's line is read from the same print with its
debug info (`as_text(debug_info=True)`; views/stablehlo_text.py). XLA keeps those locations as
`metadata={source_file=... source_line=...}` on the optimized HLO's instructions (checked with
jaxlib 0.10.2), which is how an HLO instruction maps back to a line. In a notebook,
`%explain f(x, w)`.

What an `Explanation` holds:
- `source_lines`: `SourceLine(id, file, number, text, in_function)`: f's source (read through
  linecache, so functions defined in IPython cells work), then any other line that made
  equations (a helper defined elsewhere), with `in_function=False`.
- `equations`: `Equation(index, primitive, text, line, file, line_id, depth, parent, flops,
  transcendentals, bytes)`, nested jaxprs' equations flattened after their parent (depth 1,
  2, ...); the counts are estimated from the jaxpr (core/jaxpr_cost.py), as often as the
  equation runs (a scan's body: its length), 0 for an equation holding others.
- `stablehlo_ops`: `StableHLOOp(index, name, text, text_line, line, file, line_id)`, one per
  op `stablehlo` shows (`text` is its line there, `text_line` that line's number; an op
  holding regions, a while or a case, is its first line … its closing one); ops inside a
  region without a line of their own take the line of the op that holds the region.
- `hlo_instructions`: `HloInstruction(index, computation, name, opcode, text, text_line,
  line, file, line_id, top_level, flops, transcendentals, bytes, estimated)`.
- `per_line`: `LineCounts(equations, stablehlo_ops, hlo_instructions, flops,
  transcendentals, bytes)` keyed by line number in f's file, or by `(file, line)` for a line
  elsewhere. Flops, transcendentals and bytes are *computed per optimized HLO instruction
  from its shapes* (views/hlo_text.py gives the rules, XLA's HloCostAnalysis's: dot
  2·M·N·K, elementwise one per element, bytes = a top-level instruction's operands plus
  result, a sliced operand only as far as it is read) and summed per line;
  they are estimates, shown beside XLA's own totals for the module (`xla_cost`).
  On the NumPy backend no XLA compiles: the jaxpr is the program, so `per_line` sums the
  equations' counts instead (`cost_from == "jaxpr"`), `optimized_hlo` is "" with no
  instructions, `xla_cost` is {}, and the StableHLO is what jxkernel would hand XLA.
- `stablehlo`, `optimized_hlo`, `jaxpr_text`: the three texts; `stablehlo` is the module as
  `Lowered.as_text()` shows it, and `stablehlo_title` says so ("StableHLO"). Without jaxlib
  (the NumPy backend in Pyodide) nothing prints MLIR: `stablehlo` is jxkernel's own text
  (generic form in places, with its `loc(...)`s) and `stablehlo_title` says that.
  `stablehlo_with_locations`: the module as lowered, each op's `loc("file":line:0)` on it.

Views: `repr()` is the text for terminal IPython (each source line with its counts, and
under it its equations, StableHLO ops and HLO instructions); `_repr_html_` static HTML
(escaped; each line, equation, op and instruction is an anchor, every item links to its
line and every line to its items, `:target` highlights: CSS only, no script); and
`_repr_mimebundle_` adds `application/vnd.jxkernel.explain+json`:

    version       1
    title         "f(x, w)"
    function      {"name", "file", "label" ("In[3]", "model.py"), "first_line"}
    lines         [{"id": "L0", "file", "label", "line" (int), "text", "in_function"}]
    equations     [{"index", "primitive", "text", "line_id" (or null), "depth",
                    "parent" (index or null)}]
    stablehlo     {"text": the module as shown, "ops": [{"index", "name", "text", "text_line"
                    (1-based line in "text"), "line_id"}]}
    hlo           {"text": the optimized HLO, "instructions": [{"index", "computation",
                    "name", "opcode", "text", "text_line", "line_id", "top_level",
                    "flops", "transcendentals", "bytes", "estimated"}]}
    per_line      [{"line_id", "equations", "stablehlo_ops", "hlo_instructions", "flops",
                    "transcendentals", "bytes"}]   (lines with something only)
    collectives   [{"name", "opcode", "operands" (types), "shape", "bytes" (the operands',
                    per device), "replica_groups" (as XLA printed them), "groups" (device
                    lists, or null), "source" ("In[3]:5" or null), "text_line", "line_id"}]:
                  the communication XLA's partitioner inserted (empty on one device)
    cost          {"method": how the per-line numbers were computed (text),
                   "estimated": {"flops", "transcendentals", "bytes"} (sums of ours),
                   "xla": {name: value} (XLA's cost analysis of the module; null for a
                   non-finite value), "not_estimated": [instruction names],
                   "unattributed": [indices in hlo's "instructions" with costs on no line]}

Every item's "line_id" names an entry of "lines" (null: no source line), so the extension
can highlight a line's items on click, and an item's line the other way round.
"""
from __future__ import annotations

import dataclasses
import html
import inspect
import itertools
import linecache
import math
import os
import re

from .collectives import collective_json, collectives, collectives_html, collectives_text
from .hlo_text import cost_text, parse_hlo
from . import stablehlo_text
from ..core.avals import ShapedArray, ShapeDtypeStruct
from ..core.clipped_text import clipped
from ..core.jaxpr_cost import NOT_ESTIMATED, body_runs, eqn_cost
from ..core.ir import ClosedJaxpr, Jaxpr, Names, pp_eqn, pp_toplevel
from ..xla.lowering import NeedsMesh
from .rich_view import RichView
from .jit_for_call import jit_for_call
from ..transforms.jit.stages import lower_jit
from ..transforms.jit.primitive import any_sharded
from ..tree_util import tree_leaves
from ..xla import client as _client
from ..xla import pipeline
from ..xla.array import Array
from ..xla.placement import call_device
from ..xla.portable import xla_computation
from .schema import mime_type

MIME = mime_type("ExplainBundle")
VERSION = 1
COST_METHOD = ("per optimized-HLO instruction, computed from its shapes (dot 2·M·N·K, "
               "elementwise 1 per element, transcendental ops apart, reduce one per "
               "reduced element; bytes: a top-level instruction's operands + result, a "
               "slice's operand only as far as it is read, an in-place update's result "
               "only as far as it is written), "
               "summed per source line: estimates, not XLA's per-module totals")
# Where no XLA compiles (the NumPy backend), the jaxpr is the program: counted per equation.
JAXPR_COST_METHOD = ("per jaxpr equation, computed from its shapes with XLA's HloCostAnalysis "
                     "conventions (dot 2·M·N·K, elementwise 1 per element, "
                     "transcendental ops apart, reductions n−1 per output; bytes: operands + "
                     "results, unfused; a scan's body times its length, each branch of a cond "
                     "in full), summed per source line: estimates. The numpy backend runs the "
                     "jaxpr: there is no optimized HLO and no XLA cost analysis here")
NO_HLO = "none (the numpy backend runs the jaxpr; XLA compiles nothing here)"
_ids = itertools.count()
_ONE_LINE = 10**6            # print each equation on one line
_HOLDER_WIDTH = 100


@dataclasses.dataclass(frozen=True)
class SourceLine:
    id: str
    file: str
    number: int
    text: str
    in_function: bool


@dataclasses.dataclass(frozen=True)
class Equation:
    index: int
    primitive: str
    text: str
    line: int | None
    file: str | None
    line_id: str | None
    depth: int
    parent: int | None
    flops: int = 0               # estimated from the jaxpr (core/jaxpr_cost.py); a holder's
    transcendentals: int = 0     # body counts at its own equations, so a holder counts 0
    bytes: int = 0


@dataclasses.dataclass(frozen=True)
class StableHLOOp:
    index: int
    name: str
    text: str
    text_line: int
    line: int | None
    file: str | None
    line_id: str | None


@dataclasses.dataclass(frozen=True)
class HloInstruction:
    index: int
    computation: str
    name: str
    opcode: str
    text: str
    text_line: int
    line: int | None
    file: str | None
    line_id: str | None
    top_level: bool
    flops: int
    transcendentals: int
    bytes: int
    estimated: bool


@dataclasses.dataclass
class LineCounts:
    equations: int = 0
    stablehlo_ops: int = 0
    hlo_instructions: int = 0
    flops: int = 0
    transcendentals: int = 0
    bytes: int = 0


# ------------------------------------------------------------------ building
def explain(f, *args, **kwargs) -> Explanation:
    """Trace, lower and compile `f(*args, **kwargs)` and link the four views by line.

    >>> explain(lambda x: jnp.sin(x) * 2.0, jnp.ones(3)).equations[0].primitive
    'sin'
    """
    return build_explanation(f, args, kwargs)


def build_explanation(f, args, kwargs, *, title=None, label_of=None) -> Explanation:
    """`explain` with a title and a labeller of files (`label_of(file)`: 'In[3]' or None)."""
    if not callable(f):
        raise TypeError(f"explain(f, *args): f={f!r} (a {type(f).__name__}) is not callable; "
                        f"pass the function and its arguments, e.g. explain(f, x)")
    # non-array arguments static, as %jaxpr treats them
    jitted, dyn_kwargs = jit_for_call(f, args, kwargs, lambda v: not _traceable(v))
    traced = jitted.trace(*args, **dyn_kwargs)
    title = title or _call_text(f, args, kwargs)
    device = _one_device(jitted, traced, args, dyn_kwargs)
    if _on_numpy(device, traced):            # the jaxpr runs: it has the costs
        module = _lower_with_locations(traced, device) if device is not None else \
            _partitioned_module(traced)
        return Explanation(f, traced.jaxpr, module.text, "", {}, title=title, label_of=label_of,
                           cost_from="jaxpr")
    text, loaded = _compile_with_locations(f, jitted, traced, device)
    try:
        cost = dict(loaded.cost_analysis() or {})
    except Exception:  # noqa: BLE001  some backends have no cost model
        cost = {}
    return Explanation(f, traced.jaxpr, text, loaded.get_hlo_text(), cost, title=title,
                       label_of=label_of)


def _one_device(jitted, traced, args, kwargs):
    """The device the call runs on, or None when it is sharded (arguments, in/out_shardings)."""
    if jitted._sharded or any_sharded(traced._leaves):
        return None
    return jitted._device or call_device(tree_leaves((args, kwargs)))


def _on_numpy(device, traced) -> bool:
    """Whether the call runs on the NumPy backend: on its `device`, or (sharded, `device`
    None) over a mesh of its devices."""
    if device is not None:
        return device.platform == "numpy"
    for leaf in traced._leaves:
        mesh = getattr(getattr(leaf, "sharding", None), "mesh", None)
        devices = getattr(mesh, "_flat_devices", None)
        if devices:
            return devices[0].platform == "numpy"
    return _client.default_backend() == "numpy"


def _partitioned_module(traced) -> pipeline.Module:
    """The module of a sharded call, lowered with source lines, as XLA's partitioner gets it
    (on the NumPy backend nothing partitions it, so explain lists no collectives there)."""
    # loads with the first mesh or sharded Array: `import jxkernel` needs neither
    from ..transforms.jit.sharded import stage_partitioning
    return stage_partitioning(traced, locations=True).module


def _compile_with_locations(f, jitted, traced, device) -> tuple:
    """(StableHLO text, jaxlib executable) lowered with source lines on `device`, or
    partitioned over the mesh when the call is sharded (device None; or a sharding
    constraint inside)."""
    if device is not None:
        try:
            module = _lower_with_locations(traced, device)
            return module.text, pipeline.compile_loaded(module)[0]
        except NeedsMesh as e:           # a sharding constraint inside: partitioned, as jit does
            jitted._sharded, jitted._constraint_mesh = True, e.mesh
    module = _partitioned_module(traced)
    return module.text, pipeline.compile_loaded(module)[0]


def _lower_with_locations(traced, device) -> pipeline.Module:
    """The module `traced.lower()` makes (its result names, arguments, dead code left out, as
    `Lowered.as_text()` shows it), each op with its source line."""
    return lower_jit(traced.jitted, traced.jaxpr, traced.in_tree, traced.out_tree, device,
                     traced.donated, None, True, traced.arg_names)


def _hlo_before_optimization(stablehlo: str) -> str:
    """The module as XLA first sees it, each instruction with its source line."""
    return xla_computation(stablehlo).as_hlo_module().to_string()


def _call_text(f, args, kwargs) -> str:
    """'f(f32[4,8], 2)': arrays by their type, other values by a short repr."""
    def one(x):
        if hasattr(x, "shape") and hasattr(x, "dtype"):
            return ShapedArray(tuple(x.shape), x.dtype).str_short(True)
        return clipped(repr(x), 30, "...")
    parts = [one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()]
    return f"{_name_of(f)}({', '.join(parts)})"


def _traceable(value) -> bool:
    leaves = tree_leaves(value)
    if callable(value) and not leaves:
        return False
    array_like = (Array, ShapeDtypeStruct, int, float, complex, bool)
    return all(isinstance(x, array_like) or hasattr(x, "__array__") for x in leaves)


def _name_of(f) -> str:
    return getattr(inspect.unwrap(f), "__name__", type(f).__name__)


def _function_source(f):
    """(file, first line, [lines]) of f's source via linecache (IPython cells included)."""
    code = getattr(inspect.unwrap(f), "__code__", None)
    if code is None:
        return None, None, []
    lines = linecache.getlines(code.co_filename)
    first = code.co_firstlineno
    if not lines or first > len(lines):
        return code.co_filename, first, []
    try:
        block = inspect.getblock(lines[first - 1:])
    except (SyntaxError, IndentationError, inspect.EndOfBlock):  # a lambda mid-expression
        block = lines[first - 1:first]
    return code.co_filename, first, [line.rstrip("\n") for line in block]


def default_label(file: str | None) -> str:
    """'In[3]' for IPython's `<ipython-input-3-…>`, else the file's base name."""
    if not file:
        return "?"
    m = re.match(r"<ipython-input-(\d+)-", file)
    return f"In[{m.group(1)}]" if m else os.path.basename(file)


class Explanation(RichView):
    """The four linked views of one call; see the module docstring for the fields."""
    MIME = MIME

    def __init__(self, f, closed: ClosedJaxpr, stablehlo: str, optimized_hlo: str,
                 xla_cost: dict, *, title: str, label_of=None, cost_from: str = "hlo"):
        # the module as JAX's Lowered.as_text() prints it (jaxlib's MLIR printer), each op's
        # line read from the same print with its locations; our own text without jaxlib
        shown = stablehlo_text.printed(stablehlo)
        self.title, self.stablehlo, self.optimized_hlo = title, shown.text, optimized_hlo
        self.stablehlo_title = stablehlo_text.title(shown.by_jaxlib)
        self.stablehlo_with_locations = stablehlo    # as lowered: each op's loc("file":line:0)
        self.xla_cost = xla_cost
        self.cost_from = cost_from       # "hlo": XLA's optimized HLO; "jaxpr": no XLA here
        self.cost_method = JAXPR_COST_METHOD if cost_from == "jaxpr" else COST_METHOD
        self.name = _name_of(f)
        self._label_of = label_of
        self.file, self.first_line, body = _function_source(f)
        self.source_lines: list[SourceLine] = [
            SourceLine(f"L{i}", self.file, self.first_line + i, text, True)
            for i, text in enumerate(body)]
        self._ids = {(s.file, s.number): s.id for s in self.source_lines}
        jaxpr = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
        names = Names()
        self.jaxpr_text = pp_toplevel(jaxpr, names=names)
        self.equations = [Equation(i, p, t, line, file, self._line_id(file, line), d, parent,
                                   *counts)
                          for i, (p, t, file, line, d, parent, counts)
                          in enumerate(_flat_equations(jaxpr, names))]
        self.stablehlo_ops = [StableHLOOp(i, n, t, tl, line, file, self._line_id(file, line))
                              for i, (n, t, tl, file, line) in enumerate(shown.ops)]
        self.hlo_instructions = [self._instruction(i) for i in parse_hlo(optimized_hlo)]
        self.collectives = collectives(optimized_hlo)
        if any(c.source_line is None for c in self.collectives):
            self.collectives = collectives(optimized_hlo, _hlo_before_optimization(stablehlo))
        self.collective_line_ids = [self._line_id(c.source_file, c.source_line)
                                    for c in self.collectives]
        self.per_line = self._per_line()
        if cost_from == "hlo":
            self.cost_method += loops_note(self) + branches_note(self)

    # ----------------------------------------------------------- lines and items
    def _line_id(self, file, line) -> str | None:
        if line is None:
            return None
        key = (file, line)
        if key not in self._ids:             # a line outside f (a helper): listed after f's
            text = linecache.getline(file, line).rstrip("\n") if file else ""
            self._ids[key] = f"L{len(self.source_lines)}"
            self.source_lines.append(SourceLine(self._ids[key], file, line, text, False))
        return self._ids[key]

    def _instruction(self, inst) -> HloInstruction:
        return HloInstruction(
            inst.index, inst.computation, inst.name, inst.opcode, inst.text, inst.text_line,
            inst.source_line, inst.source_file, self._line_id(inst.source_file, inst.source_line),
            inst.top_level, inst.flops, inst.transcendentals, inst.bytes, inst.estimated)

    def _key(self, source: SourceLine):
        return source.number if source.file == self.file else (source.file, source.number)

    def _per_line(self) -> dict:
        by_id = {s.id: LineCounts() for s in self.source_lines}
        for e in self.equations:
            if e.line_id:
                c = by_id[e.line_id]
                c.equations += 1
                if self.cost_from == "jaxpr":
                    c.flops += e.flops
                    c.transcendentals += e.transcendentals
                    c.bytes += e.bytes
        for op in self.stablehlo_ops:
            if op.line_id:
                by_id[op.line_id].stablehlo_ops += 1
        for inst in self.hlo_instructions:
            if inst.line_id and inst.opcode != "parameter":
                c = by_id[inst.line_id]
                c.hlo_instructions += 1
                c.flops += inst.flops
                c.transcendentals += inst.transcendentals
                c.bytes += inst.bytes
        return {self._key(s): by_id[s.id] for s in self.source_lines}

    def line(self, number: int, file: str | None = None) -> SourceLine:
        """The SourceLine of `number` (in f's file unless `file` is given)."""
        found = self._ids.get((file or self.file, number))
        if found is None:
            known = sorted(n for f, n in self._ids if f == (file or self.file))
            raise KeyError(f"line={number!r} of {file or self.file!r} is not in this "
                           f"explanation; its lines there are {known}")
        return self.source_lines[int(found[1:])]

    def equations_of(self, number: int, file: str | None = None) -> list[Equation]:
        line_id = self.line(number, file).id
        return [e for e in self.equations if e.line_id == line_id]

    def stablehlo_ops_of(self, number: int, file: str | None = None) -> list[StableHLOOp]:
        line_id = self.line(number, file).id
        return [o for o in self.stablehlo_ops if o.line_id == line_id]

    def hlo_instructions_of(self, number: int, file: str | None = None) -> list[HloInstruction]:
        line_id = self.line(number, file).id
        return [i for i in self.hlo_instructions if i.line_id == line_id]

    def collective_source(self, c) -> str | None:
        """'In[3]:5': where a collective came from, when XLA kept the line."""
        return f"{self.label(c.source_file)}:{c.source_line}" if c.source_line else None

    def label(self, file) -> str:
        found = self._label_of(file) if self._label_of and file else None
        return found or default_label(file)

    @property
    def _counted(self) -> list:
        return self.equations if self.cost_from == "jaxpr" else self.hlo_instructions

    @property
    def estimated_totals(self) -> dict:
        return {"flops": sum(i.flops for i in self._counted),
                "transcendentals": sum(i.transcendentals for i in self._counted),
                "bytes": sum(i.bytes for i in self._counted)}

    @property
    def unattributed(self) -> list[HloInstruction]:
        """Optimized-HLO instructions with costs but no source line: XLA dropped their metadata
        (its GPU compiler does for a reduce it fuses into a loop). Their costs are in the
        totals, on no line."""
        return [i for i in self.hlo_instructions
                if i.line_id is None and (i.flops or i.transcendentals)]

    @property
    def not_estimated(self) -> list[str]:
        if self.cost_from == "jaxpr":
            return sorted({e.primitive for e in self.equations if e.primitive in NOT_ESTIMATED})
        return [i.name for i in self.hlo_instructions if not i.estimated]

    # ----------------------------------------------------------- views
    def __repr__(self):
        return render_text(self)

    def _repr_html_(self):
        return render_html(self)

    def to_json(self) -> dict:
        return to_json(self)


# ------------------------------------------------------------------ the jaxpr, flattened
def _flat_equations(jaxpr: Jaxpr, names: Names, out=None, depth=0, parent=None,
                    times=1) -> list:
    """(primitive, text, file, line, depth, parent index, (flops, transcendentals, bytes)) of
    every equation, nested ones right after the equation holding them; a holder's text is its
    first printed line. Counts: estimated from the jaxpr, `times` as often as the equation runs
    (a scan's body: its length); a holder's are its body's, so it counts 0 itself."""
    out = [] if out is None else out
    for eqn in jaxpr.eqns:
        inner = list(_inner_jaxprs(eqn.params))
        text = pp_eqn(eqn, names, 0, width=_ONE_LINE)
        if inner and len(text) > _HOLDER_WIDTH:            # a jit, cond, scan: its body follows
            text = text[:_HOLDER_WIDTH] + " …"
        info = eqn.source_info
        runs = body_runs(eqn)
        cost = eqn_cost(eqn).times(times) if not inner or not runs else None
        out.append((str(eqn.primitive), text, info.file if info else None,
                    info.line if info else None, depth, parent,
                    (cost.flops, cost.transcendentals, cost.bytes) if cost else (0, 0, 0)))
        holder = len(out) - 1
        for sub in inner:
            _flat_equations(sub, names, out, depth + 1, holder, times * runs)
    return out


def _inner_jaxprs(params):
    for value in params.values():
        for v in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(v, ClosedJaxpr):
                yield v.jaxpr
            elif isinstance(v, Jaxpr):
                yield v


# ------------------------------------------------------------------ text
def _num(value: int) -> str:
    return "." if not value else f"{value:,}" if value < 10**6 else f"{value:.3g}"


def _items_under(ex, line_id) -> list[str]:
    eqns = [e for e in ex.equations if e.line_id == line_id]
    ops = [o.name for o in ex.stablehlo_ops if o.line_id == line_id]
    insts = [f"{i.name} ({i.opcode})" for i in ex.hlo_instructions
             if i.line_id == line_id and i.opcode != "parameter"]
    rows = [f"jaxpr      {'  ' * e.depth}{e.text.splitlines()[0]}" for e in eqns]
    if ops:
        rows.append("stablehlo  " + ", ".join(ops))
    if insts:
        rows.append("hlo        " + ", ".join(insts[:8]) + (" …" if len(insts) > 8 else ""))
    return rows


def render_text(ex: Explanation) -> str:
    """The terminal view: each line with its counts, then its equations, ops, instructions."""
    where = f"{ex.label(ex.file)}, line {ex.first_line}" if ex.file else "source unavailable"
    labels = {s.id: str(s.number) if s.in_function else f"{ex.label(s.file)}:{s.number}"
              for s in ex.source_lines}
    width = max([4, *map(len, labels.values())])
    out = [f"explain {ex.title}   ({where})",
           f"{'line':>{width}} {'eqns':>4} {'flops':>9} {'transc':>7} {'bytes':>9} │ source"]
    pad = " " * (width + 34) + "│   "
    for s in ex.source_lines:
        if not s.in_function and (s is ex.source_lines[0] or ex.source_lines[
                int(s.id[1:]) - 1].in_function):
            out.append(f"{'':>{width + 34}}│ (other lines that made operations)")
        c = ex.per_line[ex._key(s)]
        out.append(f"{labels[s.id]:>{width}} {_num(c.equations):>4} {_num(c.flops):>9} "
                   f"{_num(c.transcendentals):>7} {_num(c.bytes):>9} │ {s.text}")
        out += [pad + row for row in _items_under(ex, s.id)]
    out += _text_footer(ex)
    out += collectives_text(ex.collectives, ex.collective_source)
    return "\n".join(out)


def _text_footer(ex: Explanation) -> list[str]:
    unlinked = [o.name for o in ex.stablehlo_ops if o.line_id is None]
    rows = []
    if unlinked:
        rows.append(f"no source line: {len(unlinked)} StableHLO op(s) "
                    f"({', '.join(sorted(set(unlinked)))})")
    est = ex.estimated_totals
    xla = ", ".join(f"{k} {cost_text(ex.xla_cost[k])}"
                    for k in ("flops", "transcendentals", "bytes accessed") if k in ex.xla_cost)
    rows.append(f"costs: {ex.cost_method}.")
    if ex.cost_from == "jaxpr":
        xla = "none (no XLA on the numpy backend)"
        rows.append(f"optimized HLO: {NO_HLO}.")
    rows.append(f"  these estimates sum to flops {est['flops']:,}, transcendentals "
                f"{est['transcendentals']:,}, bytes {est['bytes']:,}; XLA's totals for the "
                f"module: {xla or 'none (no cost model on this backend)'}")
    if ex.unattributed:
        rows.append("  on no line (XLA's optimized HLO lost their source lines): " + ", ".join(
            f"{i.name} ({i.opcode}, {i.flops:,} flops"
            + (f", {i.transcendentals:,} transcendentals)" if i.transcendentals else ")")
            for i in ex.unattributed))
    if ex.not_estimated:
        rows.append(f"  not estimated (0): {', '.join(ex.not_estimated)}")
    return rows


def loops_note(ex: Explanation) -> str:
    """What the per-line counts and XLA's totals say of a loop, where the optimized HLO has
    one: its body counted once, as XLA's HloCostAnalysis counts a while (JAX 0.10.2's
    cost_analysis() of a jitted 100-step scan of `c * 0.99 + 1.0` over f32[1000]: 2,002 flops,
    one step's 2,000 and the counter's add and compare), with its iterations where XLA knows
    them (`known_trip_count`). '' without a loop.

        >>> loops_note(explain(jnp.sin, jnp.ones(3)))      # no loop: nothing to say
        ''
    """
    loops = [i for i in ex.hlo_instructions if i.opcode == "while"]
    if not loops:
        return ""
    said = []
    for inst in loops:
        where = _where(ex, inst, "a loop")
        trips = re.search(r'"known_trip_count":\{"n":"(\d+)"\}', inst.text)
        said.append(f"{where}: {int(trips.group(1)):,} iterations" if trips else
                    f"{where}: as many iterations as its condition allows")
    return (". A loop's body is counted once, here as in XLA's cost analysis, though it runs "
            f"once per iteration ({'; '.join(said)})")


def _where(ex: Explanation, inst, what: str) -> str:
    source = ex.source_lines[int(inst.line_id[1:])] if inst.line_id else None
    return f"{what} on no source line" if source is None else (
        f"line {source.number}" if source.in_function
        else f"{ex.label(source.file)}:{source.number}")


def _branch_count(text: str) -> int:
    listed = re.search(r"branch_computations=\{([^}]*)\}", text)
    return len(re.findall(r"[\w.\-]+", listed.group(1))) if listed else 2   # true/false


def branches_note(ex: Explanation) -> str:
    """What the per-line counts and XLA's totals say of a cond (an HLO `conditional`): every
    branch is counted in full, at its lines, so the sums above hold them all, though one
    runs; XLA's cost analysis counts, per total, the costliest branch alone (JAX 0.10.2's
    cost_analysis() of `lax.cond(p, jnp.sin, jnp.cos, x)` on f32[32,64]: 2,048
    transcendentals, one branch's; tests/data/explain_cost_cases.py). '' without a cond.

        >>> branches_note(explain(jnp.sin, jnp.ones(3)))     # no cond: nothing to say
        ''
    """
    conds = [i for i in ex.hlo_instructions if i.opcode == "conditional"]
    if not conds:
        return ""
    said = "; ".join(f"{_where(ex, i, 'a cond')}: {_branch_count(i.text)} branches"
                     for i in conds)
    return (". Each branch of a cond is counted in full, on its lines, though one runs; "
            f"XLA's totals count the costliest branch alone ({said})")


# ------------------------------------------------------------------ HTML (static, CSS only)
_CSS = ("#{p} a{{text-decoration:none}} #{p} :target{{background:#ffe08a;outline:1px solid "
        "#d9a400}} #{p} td,#{p} .it{{font-family:monospace;font-size:12px;white-space:pre;"
        "padding:0 6px}} #{p} .pane{{max-height:24em;overflow:auto;border:1px solid #ddd;"
        "margin:4px 0}} #{p} .num{{text-align:right;color:#555}}")


def render_html(ex: Explanation) -> str:
    """Static HTML: anchors link each item to its line and each line to its items."""
    p = f"jxe{next(_ids)}"
    top = max((c.flops + c.transcendentals for c in ex.per_line.values()), default=0) or 1
    rows = "".join(_line_row(ex, p, s, top) for s in ex.source_lines)
    head = ("<tr><th>line</th><th>eqns</th><th>flops</th><th>transc.</th><th>bytes</th>"
            "<th>source</th><th>items</th></tr>")
    panes = (_pane("jaxpr", p, "e", ex.equations, lambda e: "  " * e.depth + e.text)
             + _pane(ex.stablehlo_title, p, "s", ex.stablehlo_ops, lambda o: o.text)
             + _pane("optimized HLO (what XLA compiled)" if ex.optimized_hlo else
                     f"optimized HLO: {NO_HLO}", p, "h",
                     [i for i in ex.hlo_instructions if i.opcode != "parameter"],
                     lambda i: f"[{i.computation}] {i.text}"))
    foot = "".join(f"<div style='font-size:11px;color:#555'>{html.escape(r)}</div>"
                   for r in _text_footer(ex))
    return (f"<div id='{p}'><style>{_CSS.format(p=p)}{_link_css(ex, p)}</style>"
            f"<b>explain <code>{html.escape(ex.title)}</code></b> "
            f"<span style='color:#555'>{html.escape(ex.label(ex.file) if ex.file else '')}</span>"
            f"<div class='pane'><table>{head}{rows}</table></div>{panes}"
            f"{collectives_html(ex.collectives, ex.collective_source)}{foot}</div>")


def _link_css(ex, p) -> str:
    """A targeted line lights up its items, a targeted item its line (CSS :has, no script)."""
    hot = "{background:#fff2c4}"
    return "".join(f"#{p}:has(#{p}-{s.id}:target) .{p}-{s.id},"
                   f"#{p}:has(.{p}-{s.id}:target) #{p}-{s.id}{hot}" for s in ex.source_lines)


def _line_row(ex, p, s: SourceLine, top) -> str:
    c = ex.per_line[ex._key(s)]
    share = (c.flops + c.transcendentals) / top
    bar = (f"background:linear-gradient(90deg,rgba(230,120,0,.35) {share * 100:.0f}%,"
           f"transparent {share * 100:.0f}%)") if share else ""
    label = s.number if s.in_function else f"{ex.label(s.file)}:{s.number}"
    links = " ".join(f"<a href='#{p}-{k}{item.index}'>{k}{item.index}</a>"
                     for k, items in (("e", ex.equations), ("s", ex.stablehlo_ops),
                                      ("h", ex.hlo_instructions))
                     for item in items if item.line_id == s.id and
                     getattr(item, "opcode", "") != "parameter")
    cells = "".join(f"<td class='num'>{_num(v)}</td>" for v in
                    (c.equations, c.flops, c.transcendentals, c.bytes))
    return (f"<tr id='{p}-{s.id}'><td class='num'><a href='#{p}-{s.id}'>"
            f"{html.escape(str(label))}</a></td>{cells}"
            f"<td style='{bar}'>{html.escape(s.text)}</td><td>{links}</td></tr>")


def _pane(title, p, kind, items, text_of) -> str:
    rows = "".join(_pane_row(p, kind, it, text_of(it)) for it in items)
    return (f"<details open><summary>{html.escape(title)} ({len(items)})</summary>"
            f"<div class='pane'>{rows}</div></details>")


def _pane_row(p, kind, item, text) -> str:
    """An item anchored as `{p}-{kind}{index}`, classed by its line, linking to the line."""
    if item.line_id is None:
        return f"<div class='it' id='{p}-{kind}{item.index}'>  -  {html.escape(text)}</div>"
    return (f"<div class='it {p}-{item.line_id}' id='{p}-{kind}{item.index}'>"
            f"<a href='#{p}-{item.line_id}'>L{item.line}</a> {html.escape(text)}</div>")


# ------------------------------------------------------------------ JSON bundle
def to_json(ex: Explanation) -> dict:
    """The `application/vnd.jxkernel.explain+json` bundle (fields: the module docstring)."""
    return {"version": VERSION, "title": ex.title,
            "function": {"name": ex.name, "file": ex.file, "label": ex.label(ex.file),
                         "first_line": ex.first_line},
            "lines": [{"id": s.id, "file": s.file, "label": ex.label(s.file), "line": s.number,
                       "text": s.text, "in_function": s.in_function} for s in ex.source_lines],
            "equations": [{"index": e.index, "primitive": e.primitive, "text": e.text,
                           "line_id": e.line_id, "depth": e.depth, "parent": e.parent}
                          for e in ex.equations],
            "stablehlo": {"text": ex.stablehlo, "ops": [
                {"index": o.index, "name": o.name, "text": o.text, "text_line": o.text_line,
                 "line_id": o.line_id} for o in ex.stablehlo_ops]},
            "hlo": {"text": ex.optimized_hlo, "instructions": [
                {"index": i.index, "computation": i.computation, "name": i.name,
                 "opcode": i.opcode, "text": i.text, "text_line": i.text_line,
                 "line_id": i.line_id, "top_level": i.top_level, "flops": i.flops,
                 "transcendentals": i.transcendentals, "bytes": i.bytes,
                 "estimated": i.estimated} for i in ex.hlo_instructions]},
            "per_line": [{"line_id": s.id, **dataclasses.asdict(ex.per_line[ex._key(s)])}
                         for s in ex.source_lines
                         if any(dataclasses.astuple(ex.per_line[ex._key(s)]))],
            "collectives": [{**collective_json(c, ex.collective_source(c)), "line_id": line_id}
                            for c, line_id in zip(ex.collectives, ex.collective_line_ids)],
            "cost": {"method": ex.cost_method, "estimated": ex.estimated_totals,
                     "xla": {k: _json_number(v) for k, v in ex.xla_cost.items()},
                     "not_estimated": ex.not_estimated,
                     "unattributed": [i.index for i in ex.unattributed]}}


def _json_number(v):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v if math.isfinite(v) else None
    return str(v)
