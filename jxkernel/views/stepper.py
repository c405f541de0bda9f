"""The jaxpr stepper: run a function's jaxpr one equation at a time and look at every value.

    >>> s = step(lambda x: jnp.sqrt(jnp.log(x - 3.0)), np.array([1.0, 4.0, 5.0], np.float32))
    >>> s.next().position                       # `sub` has run
    1
    >>> s.first_nan().primitive                 # runs on; stops after the equation that made it
    'log'
    >>> s.summary("c").nan
    1

`step(f, *args, **kwargs)` traces `f` with `make_jaxpr` and returns a `Stepper`. Each step
evaluates one equation with the reference interpreter (`core/interpret.eval_jaxpr`, given a
one-equation jaxpr), so the values are the ones eager execution computes.

- `.equations` (the top-level `Eqn`s), `.position` (the index of the next one to run),
  `.current` (that equation, None at the end), `.done`.
- `.next(n=1)`, `.run()` (to the next breakpoint, or the end), `.restart()`.
- `.break_on(primitive=None, line=None)`: stop *before* each equation of that primitive,
  or where a source line starts (its first equation; an int, or a label such as
  "model.py:12" or "In[3]:2"); `.clear_breakpoints()`.
- `.first_nan()`: the first equation (in program order) whose outputs hold a NaN, running
  on until one does; a `NanFound` naming the equation, its outputs and the user's line
  (`.inside`/`.innermost`: where in a called body), or None when the whole program stays
  NaN-free. An input holding NaN is reported as such.
- `.step_into()`: a Stepper over the body the current equation calls (see below).
- `.values` (variable name -> value, computed so far) and `.summary(name)` (a `Stats`).

Sub-jaxprs are one step. A `jit`, `checkpoint`, custom-derivative, `cond`, `scan` or
`while` equation is evaluated whole (its primitive bound once, as `eval_jaxpr` does), and
its outputs get the same statistics as any other equation's. Call-like equations (`jit`,
`checkpoint`, `custom_jvp_call`, `custom_vjp_call`: one body run once on the operands)
can be entered: `.step_into()` returns a new Stepper over the body with the current
operands, and `first_nan()` descends into them by itself, so `found.innermost.source` is
the line inside the jitted helper that made the NaN. `first_nan()` enters the bodies of
`cond`, `scan` and `while` too, where their outputs hold a NaN: the branch taken, or the
first iteration whose outputs hold one, run again (views/loop_bodies.py; `.step` names it);
`.step_into()` does not (which branch, which iteration). Passing a `jit`-wrapped function steps through the jitted
body (its static arguments handled as `jit` handles them), not through one `jit` equation.

Statistics are NumPy's, on the host: min, max and mean over the *finite* elements (NaN
and infinities are counted apart), complex values by magnitude, booleans as 0/1; a
histogram of the finite elements in 8 equal bins between min and max.

Views (`_repr_mimebundle_`): text/plain (the jaxpr with a gutter: `▶` the next equation,
`●` a breakpoint, `!` the first NaN; then one line of statistics per variable with a
unicode sparkline), text/html (the same as a static table, CSS bars for the histograms,
everything escaped, no script), and `application/vnd.jxkernel.stepper+json`:

    {"version": 1, "name": str, "position": int, "n_equations": int, "done": bool,
     "head": "{ lambda ; a:f32[4]. let", "tail": "in (d,) }",
     "equations": [{"index", "primitive", "text" (printed, may span lines), "source"
                    (a label such as "In[3]:2", or null), "source_line" (its text or null),
                    "line" (int or null), "outvars" [names], "ran" bool, "current" bool,
                    "breakpoint" bool}],
     "variables": [{"name", "aval" ("f32[4]"), "shape" [ints], "dtype", "origin"
                    ("args[0]", "const", "eqn 2 (log)"), "defined_by" (equation index or
                    null), "numeric" bool, "min", "max", "mean" (null when no finite
                    element), "nan", "inf", "size", "magnitude" (true for complex),
                    "hist" [8 counts, or none without a finite element], "hist_range"
                    [lo, hi] or null}],
     "breakpoints": {"primitives": [str], "lines": [int or label]},
     "nan": null or {"index" (null for an input), "primitive", "vars" [{"name", "nan"}],
                     "source", "source_line", "input", "inside" (the same, or null),
                     "step" ("iteration 3", "branch 1": where `inside` is, or null)}}

Variables are named as `print(s.jaxpr)` names them; results nothing reads (`_`) are not
listed. To keep an argument static, close over it (`step(lambda x: f(x, 3), x)`) or pass
`jit(f, static_argnums=...)`.
"""
from __future__ import annotations

import dataclasses
import difflib
import importlib
import math
from typing import Any

import numpy as np

from ..core import dtypes, ir
from ..core.interpret import eval_jaxpr
from ..core.ir import jaxpr_params
from ..core.primitive import all_primitives
from .rich_view import RichView, esc
from . import loop_bodies, source
from ..transforms.jit import Jitted
from ..transforms.make_jaxpr import make_jaxpr
from ..tree_util import keystr, tree_flatten, tree_flatten_with_path
from .schema import mime_type

# The modules `import jxkernel` leaves to first use that define primitives: a name of theirs
# is a primitive's name even before the first use. (tests/core/test_registry.py checks that loading
# these registers every primitive jxkernel defines.)
LAZY_PRIMITIVE_MODULES = ("lax.linalg", "lax.convolution", "lax.windowed", "lax.special",
                          "lax.solves", "lax.rng", "lax.callbacks",
                          "transforms.custom_batching", "api.pmap", "api.remat", "api.shard_map",
                          "random", "export", "export._symbolic_lowering", "api.checkify",
                          "lax.composites", "lax.scaled", "lax.gpu_collectives",
                          "lax.ffi", "lax.eval_jaxpr", "api.state", "_jax._src.hijax",
                          "api.sparse", "api.sparse.linalg", "lax.inspect_sharding",
                          "lax.layout_constraint", "api.custom_partitioning",
                          "nn.block_scaled_dot", "lax.compute_on", "lax.shard_alike",
                          "api.sparse.cusparse", "transforms.call_primitive",
                          "lax.parallel.futures")


def load_every_primitive() -> None:
    """Register every primitive, loading the modules `import jxkernel` leaves to first use."""
    for module in LAZY_PRIMITIVE_MODULES:
        importlib.import_module(f"jxkernel.{module}")


MIME = mime_type("StepperBundle")
VERSION = 1
BINS = 8
_BLOCKS = "▁▂▃▄▅▆▇█"


# ------------------------------------------------------------------ statistics
@dataclasses.dataclass(frozen=True)
class Stats:
    """What one variable holds.

    >>> print(stats_of("a", np.array([1, 2, 2, 7]), "i64[4]", "args[0]"))
    a:i64[4] (args[0])  min 1  max 7  mean 3  nan 0  inf 0  |▄█     ▄|
    """
    name: str
    aval: str
    shape: tuple
    dtype: str
    origin: str
    numeric: bool = True
    size: int = 0
    min: float | int | None = None
    max: float | int | None = None
    mean: float | None = None
    nan: int = 0
    inf: int = 0
    magnitude: bool = False
    hist: tuple = ()
    hist_range: tuple | None = None
    defined_by: int | None = None       # the equation that computed it (None: an input)

    def sparkline(self) -> str:
        """The histogram as 8 block characters (a space for an empty bin): '█   ▁  ▄'."""
        top = max(self.hist, default=0)
        return "".join(" " if c == 0 else _BLOCKS[math.ceil(c * len(_BLOCKS) / top) - 1]
                       for c in self.hist) if top else ""

    def text(self) -> str:
        """'min 1  max 6  mean 4  nan 0  inf 0  ▁  █' (no names: see Stepper's table)."""
        if not self.numeric:
            return "(no numeric statistics for this dtype)"
        over = "|x| " if self.magnitude else ""
        parts = [f"{over}min {_num(self.min)}", f"max {_num(self.max)}",
                 f"mean {_num(self.mean)}", f"nan {self.nan}", f"inf {self.inf}"]
        spark = self.sparkline() if self.size > 1 else ""
        return "  ".join(parts) + (f"  |{spark}|" if spark else "")

    def __str__(self):
        return f"{self.name}:{self.aval} ({self.origin})  {self.text()}"

    def to_json(self) -> dict:
        return {"name": self.name, "aval": self.aval, "shape": list(self.shape),
                "dtype": self.dtype, "origin": self.origin, "defined_by": self.defined_by,
                "numeric": self.numeric,
                "size": self.size, "min": _json_num(self.min), "max": _json_num(self.max),
                "mean": _json_num(self.mean), "nan": self.nan, "inf": self.inf,
                "magnitude": self.magnitude, "hist": list(self.hist),
                "hist_range": [_json_num(v) for v in self.hist_range] if self.hist_range else None}


def _num(v) -> str:
    if v is None:
        return "-"
    return str(v) if isinstance(v, int) else f"{v:.6g}"


def _json_num(v):
    return v if v is None or isinstance(v, int) or math.isfinite(v) else None


def _host(value) -> np.ndarray | None:
    """`value` as a NumPy array of numbers, or None (PRNG key data and other opaque dtypes)."""
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001  an opaque dtype has no host view: no statistics
        return None
    # (by jxkernel's dtypes, not NumPy's kind: ml_dtypes' floats and int4 are 'V')
    numeric = any(test(arr.dtype) for test in (dtypes.is_bool, dtypes.is_int, dtypes.is_inexact))
    return arr if numeric else None


def stats_of(name: str, value, aval: str, origin: str, defined_by: int | None = None) -> Stats:
    """Statistics of one value; exact for integer data (NumPy in int64 and float64)."""
    arr = _host(value)
    shape = tuple(np.shape(value))
    dtype = str(arr.dtype) if arr is not None else aval
    base = dict(name=name, aval=aval, shape=shape, dtype=dtype, origin=origin,
                defined_by=defined_by)
    if arr is None:
        return Stats(**base, numeric=False, size=int(np.prod(shape, dtype=np.int64)))
    magnitude = dtypes.is_complex(arr.dtype)
    if dtypes.is_inexact(arr.dtype):
        nums = np.abs(arr) if magnitude else arr.astype(np.float64)
        nan, inf = int(np.isnan(arr).sum()), int(np.isinf(arr).sum())
        finite = nums[np.isfinite(nums)].astype(np.float64)
    else:
        nan = inf = 0
        # its own integer dtype: uint64 stays exact (int4 as int64: NumPy has no min of it)
        finite = arr.ravel() if arr.dtype.kind in "biu" else arr.ravel().astype(np.int64)
    return Stats(**base, size=int(arr.size), nan=nan, inf=inf, magnitude=magnitude,
                 **_moments(finite))


def _moments(finite: np.ndarray) -> dict:
    if finite.size == 0:
        return {}
    lo, hi = finite.min(), finite.max()
    as_float = finite.astype(np.float64)
    counts, edges = np.histogram(as_float, bins=BINS, range=(float(lo), float(hi)))
    as_py = int if finite.dtype.kind in "biu" else float
    return dict(min=as_py(lo), max=as_py(hi), mean=float(as_float.mean()),
                hist=tuple(int(c) for c in counts), hist_range=(float(edges[0]), float(edges[-1])))


@dataclasses.dataclass(frozen=True)
class NanFound:
    """Where a NaN first appeared: an equation (`index`), or an input (`index` None)."""
    index: int | None
    primitive: str | None
    vars: tuple                    # ((name, NaN count), ...)
    source: str                    # 'model.py:12', '' when unknown
    source_line: str               # that line's text
    input: str | None = None       # 'args[0]' when an input already held the NaN
    inside: NanFound | None = None  # where in a called body (a jit, ...) the NaN was made
    info: Any = None               # the equation's SourceInfo (file and line), None for an input
    step: str | None = None        # the cond's branch or the loop's iteration `inside` is in

    @property
    def innermost(self) -> NanFound:
        """The finding deepest inside called bodies: its `source` is the line that made it."""
        return self.inside.innermost if self.inside else self

    def __str__(self):
        found = ", ".join(f"{n} ({c} NaN)" for n, c in self.vars)
        if self.index is None:
            return f"NaN in the input {self.input}: {found}"
        where = f" at {self.source}" if self.source else ""
        code = f": {self.source_line}" if self.source_line else ""
        text = f"first NaN: equation {self.index} ({self.primitive}) made {found}{where}{code}"
        if self.inside:
            step = f" ({self.step})" if self.step else ""
            text += f"\n  inside {self.primitive}{step}: " + \
                str(self.inside).replace("\n", "\n  ")
        return text

    __repr__ = __str__

    def _repr_html_(self):
        return (f"<div style='font-family:monospace;color:#b00020;white-space:pre-wrap'>"
                f"{esc(self)}</div>")

    def to_json(self) -> dict:
        return {"index": self.index, "primitive": self.primitive,
                "vars": [{"name": n, "nan": c} for n, c in self.vars],
                "source": self.source or None, "source_line": self.source_line or None,
                "input": self.input, "inside": self.inside.to_json() if self.inside else None,
                "step": self.step}


# ------------------------------------------------------------------ the stepper
class Stepper(RichView):
    """A jaxpr being run equation by equation; see the module docstring."""
    MIME = MIME

    def __init__(self, closed: ir.ClosedJaxpr, inputs, input_names, name="f",
                 label=source.label, line_text=source.line, names: ir.Names | None = None):
        self.jaxpr, self.name = closed, name
        self._label, self._line_text = label, line_text
        self._inputs = list(zip(closed.jaxpr.constvars, closed.consts,
                                ["const"] * len(closed.consts)))
        self._inputs += list(zip(closed.jaxpr.invars, inputs, input_names))
        # the names print(jaxpr) shows; `names`: a body's, as its parent's print names them
        # where it is nested (first_nan's finding inside a scan is shown under the parent)
        self.names = ir.Names() if names is None else names
        ir.pp_toplevel(closed.jaxpr, names=self.names)
        self.names.shared = {}                              # print nested jaxprs in place
        self._break_prims: list = []
        self._break_lines: list = []
        self._nan: NanFound | None = None
        self.restart()

    # -------------------------------------------------------------- state
    equations = property(lambda self: list(self.jaxpr.jaxpr.eqns))
    done = property(lambda self: self.position == len(self.jaxpr.jaxpr.eqns))
    current = property(lambda self: None if self.done else self.jaxpr.jaxpr.eqns[self.position])

    def restart(self) -> Stepper:
        """Back to the start: only the inputs are known."""
        self.position = 0
        self._env = {v: x for v, x, _ in self._inputs}
        self._origin = {v: (origin, None) for v, _, origin in self._inputs}
        self._stats: dict = {}
        self._nan = None                  # found among values that are gone now
        return self

    @property
    def values(self) -> dict:
        """Variable name -> value, for the inputs and every result computed so far."""
        return {self.names(v): x for v, x in self._env.items() if self._listed(v)}

    def _listed(self, v) -> bool:
        return not isinstance(v, ir.DropVar) and self.names(v) != "_"

    def summary(self, var) -> Stats:
        """Statistics of a variable (its printed name, or the `Var`) computed so far."""
        v = self._var(var)
        if v not in self._stats:
            value = self._env[v]
            if not hasattr(value, "dtype"):           # a Python scalar: as the program types it
                value = np.asarray(value, v.aval.dtype)
            self._stats[v] = stats_of(self.names(v), value, v.aval.str_short(True),
                                      *self._origin[v])
        return self._stats[v]

    def _var(self, var) -> ir.Var:
        if isinstance(var, ir.Var) and var in self._env:
            return var
        found = [v for v in self._env if self._listed(v) and self.names(v) == var]
        if found:
            return found[0]
        known = [self.names(v) for v in self._env if self._listed(v)]
        if any(self.names(v) == var for e in self.equations for v in e.outvars):
            raise KeyError(f"summary: variable {var!r} is not computed yet (position "
                           f"{self.position}); step on with .next() or .run(). Known so far: "
                           f"{', '.join(known)}")
        raise KeyError(f"summary: {self.name}'s jaxpr has no variable {var!r}; its variables "
                       f"so far: {', '.join(known)} (names as print(stepper.jaxpr) shows them)")

    # -------------------------------------------------------------- moving
    def next(self, n: int = 1) -> Stepper:
        """Run the next `n` equations."""
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ValueError(f"next: n={n!r} must be a positive int (how many equations to run)")
        left = len(self.equations) - self.position
        if n > left:
            raise IndexError(self._past_end(f"next(n={n})", left))
        for _ in range(n):
            self._run_one()
        return self

    def run(self) -> Stepper:
        """Run to the next breakpoint (the current equation runs even if it is one) or the end."""
        if self.done:
            raise IndexError(self._past_end("run()", 0))
        self._run_one()
        while not self.done and not self._is_breakpoint(self.position):
            self._run_one()
        return self

    def first_nan(self) -> NanFound | None:
        """The first NaN in program order: in the inputs, in what has run, or running on
        until an equation makes one (the stepper then stands just after it). None if the
        program runs to its end without one."""
        found = self._nan_in_inputs() or self._nan_in_run_equations()
        while found is None and not self.done:
            self._run_one()
            found = self._nan_made_by(self.position - 1)
        self._nan = found
        return found

    def _past_end(self, what: str, left: int) -> str:
        total = len(self.equations)
        if total == 0:
            return f"{what}: {self.name}'s jaxpr has no equations to run (it returns its inputs)"
        return (f"{what}: only {left} of {self.name}'s {total} equations are left to run "
                f"(position {self.position}); call .restart() to step again from the start")

    def _run_one(self) -> None:
        eqn = self.current
        ins = list(dict.fromkeys(v for v in eqn.invars if isinstance(v, ir.Var)))
        one = ir.Jaxpr([], ins, eqn.outvars, [eqn])          # one equation: the interpreter's own
        outs = eval_jaxpr(one, [], *[self._env[v] for v in ins])
        for v, x in zip(eqn.outvars, outs):
            self._env[v] = x
            self._origin[v] = (f"eqn {self.position} ({eqn.primitive})", self.position)
        self.position += 1

    # -------------------------------------------------------------- NaN
    def _nan_in_inputs(self) -> NanFound | None:
        for v, _, origin in self._inputs:
            nan = self.summary(v).nan
            if nan:
                return NanFound(None, None, ((self.names(v), nan),), "", "", origin)
        return None

    def _nan_in_run_equations(self) -> NanFound | None:
        return next(filter(None, map(self._nan_made_by, range(self.position))), None)

    def _nan_made_by(self, index: int) -> NanFound | None:
        eqn = self.equations[index]
        counts = tuple((self.names(v), self.summary(v).nan) for v in eqn.outvars if self._listed(v))
        counts = tuple((n, c) for n, c in counts if c)
        if not counts:
            return None
        info = eqn.source_info
        # (the bodies' variables named as this jaxpr's print names them, nested in place)
        step, inside = None, \
            self._enter(index, self.names).first_nan() if _called(eqn) else None
        entered = None if _called(eqn) else loop_bodies.nan_step(eqn, self._operands(eqn))
        if entered is not None:         # a cond's branch, a loop's iteration: run again inside
            step, body, operands = entered
            inside = Stepper(body, operands, [f"{self.name}'s {step} input {i}"
                                              for i in range(len(operands))],
                             f"{self.name}/{index} {eqn.primitive} {step}", self._label,
                             self._line_text, self.names).first_nan()
        return NanFound(index, str(eqn.primitive), counts, self._label(info),
                        self._line_text(info), inside=inside, info=info,
                        step=step if inside is not None else None)

    def _operands(self, eqn) -> list:
        return [a.val if isinstance(a, ir.Literal) else self._env[a] for a in eqn.invars]

    # -------------------------------------------------------------- called bodies
    def step_into(self) -> Stepper:
        """A new Stepper over the body the current equation calls (a `jit`, `checkpoint` or
        custom-derivative call), on the same operands. This stepper stays where it is."""
        if self.done:
            raise IndexError(self._past_end("step_into()", 0))
        if _called(self.current) is None:
            raise ValueError(
                f"step_into: equation {self.position} ({self.current.primitive}) calls no "
                f"function body; only {', '.join(sorted(_CALLS))} can be entered (cond, scan "
                "and while run as one step here; first_nan() enters the branch or iteration "
                "that made a NaN)")
        return self._enter(self.position)

    def _enter(self, index: int, names: ir.Names | None = None) -> Stepper:
        eqn = self.equations[index]
        operands = self._operands(eqn)
        inputs = [f"{self.name}'s {self.names(a)}" for a in eqn.invars]
        return Stepper(_called(eqn), operands, inputs, f"{self.name}/{index} {eqn.primitive}",
                       self._label, self._line_text, names)

    # -------------------------------------------------------------- breakpoints
    def break_on(self, primitive=None, line=None) -> Stepper:
        """Stop before equations of `primitive` (a name or a Primitive) and/or made by `line`
        (an int, or a label such as 'model.py:12' / 'In[3]:2')."""
        if primitive is None and line is None:
            raise ValueError("break_on: give primitive= (a name such as 'log') or line= "
                             "(a source line number such as 12)")
        if primitive is not None:
            self._break_prims.append(self._check_primitive(primitive))
        if line is not None:
            self._break_lines.append(self._check_line(line))
        return self

    def clear_breakpoints(self) -> Stepper:
        self._break_prims, self._break_lines = [], []
        return self

    def _check_primitive(self, primitive) -> str:
        name = getattr(primitive, "name", primitive)
        if not isinstance(name, str):
            raise TypeError(f"break_on: primitive={primitive!r} ({type(primitive).__name__}) "
                            "must be a primitive's name, such as 'log', or a Primitive")
        present = list(dict.fromkeys(str(e.primitive) for e in self.equations))
        if name in present:
            return name
        if name not in all_primitives:
            load_every_primitive()
        if name not in all_primitives:
            close = difflib.get_close_matches(name, list(all_primitives), n=3)
            hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
            raise ValueError(f"break_on: primitive={name!r} is not a primitive's name{hint}; "
                             f"{self.name}'s equations are: {', '.join(present)}")
        raise ValueError(f"break_on: {self.name}'s jaxpr has no {name!r} equation, so it "
                         f"would never stop; its primitives are: {', '.join(present)}")

    def _check_line(self, line):
        if isinstance(line, bool) or not isinstance(line, (int, str)):
            raise TypeError(f"break_on: line={line!r} ({type(line).__name__}) must be a line "
                            "number (int) or a label such as 'model.py:12'")
        if any(self._on_line(e, line) for e in self.equations):
            return line
        lines = sorted({self._label(e.source_info) for e in self.equations if e.source_info},
                       key=lambda s: (s.rpartition(":")[0], int(s.rpartition(":")[2] or 0)))
        raise ValueError(f"break_on: line={line!r} made none of {self.name}'s equations, so it "
                         f"would never stop; lines with equations: {', '.join(lines) or 'none'}")

    def _on_line(self, eqn, line) -> bool:
        info = eqn.source_info
        if info is None:
            return False
        return info.line == line if isinstance(line, int) else self._label(info) == line

    def _is_breakpoint(self, index: int) -> bool:
        """A primitive breakpoint stops at each of its equations; a line breakpoint where the
        line starts (its first equation of a run of them), as a debugger stops once a line."""
        eqns = self.jaxpr.jaxpr.eqns
        eqn, before = eqns[index], eqns[index - 1] if index else None
        return str(eqn.primitive) in self._break_prims or any(
            self._on_line(eqn, line) and not (before and self._on_line(before, line))
            for line in self._break_lines)

    # -------------------------------------------------------------- views
    def variables(self) -> list[Stats]:
        """Statistics of every variable known so far: inputs first, then in program order."""
        return [self.summary(v) for v in self._env if self._listed(v)]

    def equation_rows(self) -> list[dict]:
        """One dict per equation, as the JSON bundle's "equations" lists them."""
        rows = []
        for i, e in enumerate(self.equations):
            info = e.source_info
            rows.append({"index": i, "primitive": str(e.primitive),
                         "text": ir.pp_eqn(e, self.names, 4).rstrip(),
                         "source": self._label(info) or None,
                         "source_line": self._line_text(info) or None,
                         "line": info.line if info else None,
                         "outvars": [self.names(v) for v in e.outvars],
                         "ran": i < self.position, "current": i == self.position,
                         "breakpoint": self._is_breakpoint(i)})
        return rows

    def head_tail(self) -> tuple[str, str]:
        j = self.jaxpr.jaxpr
        consts = " ".join(ir.pp_binder(v, self.names) for v in j.constvars)
        ins = " ".join(ir.pp_binder(v, self.names) for v in j.invars)
        outs = ", ".join(self.names(v) for v in j.outvars)
        return (f"{{ lambda {consts}; {ins}. let",
                f"in ({outs},) }}" if len(j.outvars) == 1 else f"in ({outs}) }}")

    def status(self) -> str:
        total = len(self.equations)
        state = f"{self.position} of {total} equations run"
        if not self.done:
            e, label = self.current, self._label(self.current.source_info)
            state += f" · next: {self.position} {e.primitive}" + (f" ({label})" if label else "")
        points = self._break_prims + [f"line {x}" for x in self._break_lines]
        if points:
            state += f" · breakpoints: {', '.join(map(str, points))}"
        return f"step({self.name}): {state}"

    def to_json(self) -> dict:
        head, tail = self.head_tail()
        return {"version": VERSION, "name": self.name, "position": self.position,
                "n_equations": len(self.equations), "done": self.done,
                "head": head, "tail": tail, "equations": self.equation_rows(),
                "variables": [s.to_json() for s in self.variables()],
                "breakpoints": {"primitives": list(self._break_prims),
                                "lines": list(self._break_lines)},
                "nan": self._nan.to_json() if self._nan else None}

    def text(self) -> str:
        return stepper_text(self)

    def html(self) -> str:
        return stepper_html(self)

    __repr__ = text

    def _repr_html_(self):
        return self.html()



# Primitives whose equation runs one jaxpr on its operands, as a function call does.
_CALLS = frozenset({"jit", "remat2", "custom_jvp_call", "custom_vjp_call"})


def _called(eqn) -> ir.ClosedJaxpr | None:
    """The body a call-like equation runs, or None (cond and scan bodies are no calls)."""
    inner = jaxpr_params(eqn.params)
    if str(eqn.primitive) not in _CALLS or len(inner) != 1:
        return None
    body = inner[0]
    if isinstance(body, ir.Jaxpr):
        if body.constvars:
            return None
        body = ir.ClosedJaxpr(body, [])
    same_arity = len(body.jaxpr.invars) == len(eqn.invars) and \
        len(body.jaxpr.outvars) == len(eqn.outvars)
    return body if same_arity else None


# ------------------------------------------------------------------ entry point
def step(f, *args, **kwargs) -> Stepper:
    """A `Stepper` over `f`'s jaxpr for these arguments, before its first equation. Its
    lines are labelled as the views label them ('model.py:12'; in a notebook, once the
    notebook layer is loaded, 'In[3]:2': views/source.py).

    >>> [str(e.primitive) for e in step(lambda x: x * 2 + 1, 3).equations]
    ['mul', 'add']
    """
    return make_stepper(f, args, kwargs)


def make_stepper(f, args, kwargs, label=source.label, line_text=source.line) -> Stepper:
    """`step` with the source labels given."""
    if not callable(f):
        raise TypeError(f"step: f={f!r} ({type(f).__name__}) is not callable; pass the "
                        "function, then its arguments: step(f, x)")
    name = getattr(f, "__name__", type(f).__name__)
    if isinstance(f, Jitted):
        traced = f.trace(*args, **kwargs)     # jit's own split of static and traced arguments
        leaves = traced._leaves
        return Stepper(traced.jaxpr, leaves, [f"input {i}" for i in range(len(leaves))],
                       name, label, line_text)
    closed = make_jaxpr(f)(*args, **kwargs)
    leaves, _ = tree_flatten((tuple(args), kwargs))
    return Stepper(closed, leaves, _input_names(args, kwargs), name, label, line_text)


def _input_names(args, kwargs) -> list[str]:
    """'args[0]', "params['w']": the paths make_jaxpr gives the flattened inputs."""
    names = [f"args[{i}]{keystr(p)}" for i, a in enumerate(args)
             for p, _ in tree_flatten_with_path(a)[0]]
    return names + [f"{k}{keystr(p)}" for k in sorted(kwargs)
                    for p, _ in tree_flatten_with_path(kwargs[k])[0]]


# ------------------------------------------------------------------ text and HTML
def _gutter(row: dict, nan_index) -> str:
    mark = "!" if row["index"] == nan_index else ("▶" if row["current"] else " ")
    return mark + ("●" if row["breakpoint"] else " ") + " "


def _eqn_lines(row: dict, nan_index) -> list[str]:
    text = "    " + row["text"] + (f"  # {row['source']}" if row["source"] else "")
    first, *rest = text.split("\n")
    return [_gutter(row, nan_index) + first] + ["   " + line for line in rest]


def stepper_text(s: Stepper) -> str:
    """The terminal view: status, the jaxpr with its gutter, the first NaN, the variables."""
    nan_index = s._nan.index if s._nan else None
    head, tail = s.head_tail()
    lines = [s.status(), "   " + head]
    for row in s.equation_rows():
        lines += _eqn_lines(row, nan_index)
    lines.append("     " + tail)
    if s._nan:
        lines.append(str(s._nan))
    lines.append("variables:")
    lines += _variable_lines(s.variables())
    return "\n".join(lines)


def _variable_lines(stats: list[Stats]) -> list[str]:
    typed = [f"{st.name}:{st.aval}" for st in stats]
    w1 = max(map(len, typed), default=0)
    w2 = max((len(st.origin) for st in stats), default=0)
    return [f"  {t:<{w1}}  {st.origin:<{w2}}  {st.text()}" for t, st in zip(typed, stats)]


_ROW_COLOR = {"current": "var(--jp-brand-color3, #dbe9f8)",
              "nan": "var(--jp-error-color3, #fbe3e4)"}
_DIM = "color:var(--jp-content-font-color2, #777)"


def _html_row(row: dict, nan_index) -> str:
    kind = "nan" if row["index"] == nan_index else ("current" if row["current"] else "")
    color = f" style='background:{_ROW_COLOR[kind]}'" if kind else ""
    ran = "" if row["ran"] or row["current"] else f" style='{_DIM}'"
    source = esc(row["source"] or "")
    title = f" title='{esc(row['source_line'])}'" if row["source_line"] else ""
    return (f"<tr{color}><td>{esc(_gutter(row, nan_index).strip())}</td>"
            f"<td{ran}><pre style='margin:0'>{esc(row['text'])}</pre></td>"
            f"<td style='{_DIM}'{title}>{source}</td></tr>")


def _bars(st: Stats) -> str:
    top = max(st.hist, default=0)
    if not top or st.size <= 1:
        return ""
    bars = "".join(f"<span style='display:inline-block;width:5px;"
                   f"height:{max(1, round(16 * c / top)) if c else 0}px;"
                   "margin-right:1px;background:var(--jp-brand-color1, #1976d2);"
                   "vertical-align:bottom'></span>" for c in st.hist)
    lo, hi = st.hist_range
    return (f"<span title='{esc(f'{lo:.6g} .. {hi:.6g}')}' "
            f"style='display:inline-block;height:16px'>{bars}</span>")


def _html_variable(st: Stats) -> str:
    if not st.numeric:
        cells = "<td colspan='6'>(no numeric statistics for this dtype)</td>"
    else:
        cells = "".join(f"<td>{esc(_num(v))}</td>" for v in (st.min, st.max, st.mean)) + \
            f"<td>{st.nan}</td><td>{st.inf}</td><td>{_bars(st)}</td>"
    alert = " style='color:var(--jp-error-color1, #b00020)'" if st.nan or st.inf else ""
    return (f"<tr{alert}><td>{esc(st.name)}</td><td>{esc(st.aval)}</td>"
            f"<td style='{_DIM}'>{esc(st.origin)}</td>{cells}</tr>")


def stepper_html(s: Stepper) -> str:
    """The static view: tables and CSS bars, escaped, readable without any script."""
    nan_index = s._nan.index if s._nan else None
    head, tail = s.head_tail()
    pre = "<pre style='margin:0'>{}</pre>"
    rows = "".join(_html_row(r, nan_index) for r in s.equation_rows())
    program = (f"<table style='border-collapse:collapse'><tr><td></td><td>{pre.format(esc(head))}"
               f"</td><td></td></tr>{rows}<tr><td></td><td>{pre.format(esc('  ' + tail))}</td>"
               "<td></td></tr></table>")
    nan = (f"<div style='color:var(--jp-error-color1, #b00020);white-space:pre-wrap'>"
           f"{esc(s._nan)}</div>" if s._nan else "")
    heads = "".join(f"<th style='text-align:left'>{h}</th>" for h in
                    ("var", "type", "from", "min", "max", "mean", "NaN", "Inf", "histogram"))
    table = f"<table><tr>{heads}</tr>{''.join(map(_html_variable, s.variables()))}</table>"
    return (f"<div class='jx-stepper' style='font-family:monospace;font-size:90%'>"
            f"<div style='font-weight:bold'>{esc(s.status())}</div>{program}{nan}{table}</div>")
