"""The workshop's notebooks (demos/, demos/solutions/) run cell by cell outside a kernel, with
real JAX 0.10.2 (reference/make_demos_reference.py, under .venv-jax) or with jxkernel
(tests/notebook/test_demos_against_jax.py), each notebook in one namespace, the same way.

Run as a script: `python demos_cells.py jax|jxkernel NAME...` prints {path: [record per code
cell]} as JSON (NAME: a notebook's file name; its learners' and solutions' versions both run).
It imports neither library itself: the cells do.

What is changed in a cell, and nothing else (`neutralised`):
- `import jxkernel as jax`, `import jxkernel.numpy as jnp`, `from jxkernel[.mod] import ...`:
  with JAX, `jax` for `jxkernel` (`jxkernel.core.ir`/`.core.primitive`'s Literal and Primitive
  are JAX's `jax.extend.core`'s; the primitive rule tables are jxkernel's own: a cell using
  them is skipped).
- The setup cell (tag `setup`: installs jxkernel, `%load_ext jxkernel`) becomes its
  `jxkernel.config.update(...)` lines alone (09's four CPU devices).
- Line magics: `%jaxpr CALL` (no options) becomes `jax.make_jaxpr(F)(ARGS)` (it traces as
  %jaxpr does); every other line magic (%jxtraced, %jxcompiles, %timeit, %hlo, %explain,
  %jxmemory, %jxbackend, %jaxpr --diff) becomes `pass`: they are jxkernel's views.
- A `%%jit [--static NAMES]` cell becomes a function of the names it reads before assigning
  that hold arrays or Python numbers (the names after --static: static_argnames), jitted
  once per cell text (a rerun of the same text reuses it, as %%jit's cache does), returning
  the names it assigns (written back) and its last expression.
- The workshop's helpers: `check(id, answer)` returns the answer when it is not callable
  (else None), `hint`/`solution` return None, `data_path` names the file jxkernel ships.
- jxkernel's views (`no_recompile`, `step`, `show_sharding`, imported from
  jxkernel.notebook): their import lines are dropped and a cell that uses one is skipped.
- plotly (`go`) and `display` are a stand-in that accepts every call (no figure is drawn).

Each record: {"index", "skipped" (why, or null), "stdout", "error" ([class name, first line of
the message] or null), "value" (the last expression described: `describe`), "logs"
({"compiling": [names], "tracing": n, "cache_misses": n}: the WARNING lines of
jax_log_compiles and jax_explain_cache_misses, both on)}. A markdown cell's ```python example
runs too, as a cell of its own ("markdown": true).
"""
import ast
import contextlib
import io
import json
import logging
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEMOS = os.path.join(ROOT, "demos")
DATA = os.path.join(ROOT, "jxkernel", "notebook", "workshop", "data")

VIEWS = ("no_recompile", "step", "show_sharding")               # jxkernel.notebook's views
RULE_TABLES = ("abstract_eval_rules", "lowering_rules", "numpy_rules", "jvp_rules",
               "batching_rules")
SEPARATE_PROCESS = ("09_parallelism.ipynb",)     # four CPU devices, set before the backend


def notebook_paths(name: str) -> list:
    """The learners' version and, where there is one, the solutions' (relative to demos/)."""
    return [p for p in (name, os.path.join("solutions", name))
            if os.path.exists(os.path.join(DEMOS, p))]


def code_cells(path: str) -> list:
    """[(index, source, tags, markdown?)] of the notebook at demos/`path`: its code cells and
    its markdown cells' ```python examples."""
    with open(os.path.join(DEMOS, path)) as f:
        nb = json.load(f)
    cells = []
    for i, cell in enumerate(nb["cells"]):
        source = "".join(cell["source"])
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "code":
            cells.append((i, source, tags, False))
        elif cell["cell_type"] == "markdown":
            for example in re.findall(r"```python\n(.*?)```", source, re.S):
                cells.append((i, example, tags, True))
    return cells


# ------------------------------------------------------------------ neutralising
class StandIn:
    """plotly's figures and display: every attribute, call and item is another stand-in."""
    def __getattr__(self, name):
        return StandIn()

    def __call__(self, *args, **kwargs):
        return StandIn()

    def __getitem__(self, key):
        return StandIn()

    def __iadd__(self, other):
        return self

    def __setattr__(self, name, value):
        pass

    def __iter__(self):
        return iter(())

    def __repr__(self):
        return "<stand-in>"


def workshop_helpers() -> dict:
    def check(id, answer=None, *args, **kwargs):
        return None if callable(answer) else answer

    return {"check": check, "hint": lambda *a, **k: None, "solution": lambda *a, **k: None,
            "data_path": lambda name: os.path.join(DATA, name), "go": StandIn(),
            "display": lambda *a, **k: None}


def _import_line(line: str, library: str) -> str | None:
    """An import line as `library` runs it; None: dropped (the workshop's, the views')."""
    stripped = line.strip()
    if re.match(r"from jxkernel\.notebook\.workshop import", stripped) or \
            re.match(r"import plotly", stripped):
        return ""                                    # workshop_helpers() gives these names
    if re.match(r"from jxkernel\.notebook import", stripped):
        return ""                                    # the views: their cells are skipped
    if library == "jxkernel":
        return line
    if stripped.startswith("from jxkernel.core.ir import"):
        return line.replace("jxkernel.core.ir", "jax.extend.core")
    if stripped.startswith("from jxkernel.core.primitive import"):
        return "from jax.extend.core import Primitive"
    line = re.sub(r"^(\s*)import jxkernel as jax\b", r"\1import jax", line)
    line = re.sub(r"^(\s*)import jxkernel\.(\w+) as", r"\1import jax.\2 as", line)
    return re.sub(r"^(\s*)from jxkernel(\.|\s)", r"\1from jax\2", line)


def _jaxpr_magic(rest: str) -> str:
    """`%jaxpr F(ARGS)` as `jax.make_jaxpr(F)(ARGS)` (F: all before the last call's '('), or
    `F.trace(ARGS).jaxpr` where F is a `jax.jit(...)` (its static arguments stay static)."""
    tree = ast.parse(rest, mode="eval").body
    assert isinstance(tree, ast.Call), rest
    callee = ast.get_source_segment(rest, tree.func)
    args = rest[len(callee):]
    if callee.startswith("jax.jit("):
        return f"{callee}.trace{args}.jaxpr"
    return f"jax.make_jaxpr({callee}){args}"


def assigned(source: str) -> set:
    """The names a cell's top-level statements assign or define."""
    try:
        tree = ast.parse("\n".join(line for line in source.splitlines()
                                   if not line.startswith("%")))
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        for target in getattr(node, "targets", []):
            names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def neutralised(source: str, tags, library: str, dropped: set):
    """(source to run, None) or (None, why the cell is skipped); `dropped`: the views
    imported so far in the notebook (their import lines dropped), updated."""
    if "setup" in tags:
        kept = [line for line in source.splitlines() if line.startswith("jxkernel.config.update(")]
        if library == "jax":
            kept = [line.replace("jxkernel.config", "jax.config") for line in kept]
        return "\n".join([f"import {'jax' if library == 'jax' else 'jxkernel'}"] + kept), None
    imported = set()
    for line in source.splitlines():
        m = re.match(r"from jxkernel\.notebook import (.*)", line.strip())
        if m:
            imported |= {n.strip() for n in m.group(1).split(",")} & set(VIEWS)
    dropped |= imported
    body = "\n".join(line for line in source.splitlines() if "import" not in line)
    used = {v for v in dropped if re.search(rf"\b{v}\(", body)}
    if used:
        return None, "uses jxkernel's view " + ", ".join(sorted(used))
    if any(re.search(rf"\b{t}\[", source) for t in RULE_TABLES):
        return None, "registers a primitive's rules in jxkernel's tables"
    if source.startswith("%%"):
        return _jit_cell(source), None
    lines, continued = [], False
    for line in source.splitlines():
        if continued:                  # an import's parenthesised names, made one line above
            continued = ")" not in line
            continue
        if line.lstrip().startswith(("import ", "from ")):
            made = _import_line(line, library)
            continued = made != line and "(" in line and ")" not in line
            line = made
        elif line.startswith("%"):
            magic, _, rest = line[1:].partition(" ")
            line = _jaxpr_magic(rest.strip()) if magic == "jaxpr" and \
                not rest.lstrip().startswith("-") else "pass"
        lines.append(line)
    return "\n".join(lines), None


def _jit_cell(source: str) -> str:
    header, _, body = source.partition("\n")
    static = []
    words = header.split()
    assert words[0] == "%%jit", header
    if "--static" in words:
        static = words[words.index("--static") + 1].split(",")
    return f"__jit_cell__({body!r}, {static!r})"


def _reads_before_writes(tree) -> tuple:
    """(names read before assigned, names assigned) of a cell, in source order."""
    reads, writes = [], []
    nodes = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Name)),
                   key=lambda n: (n.lineno, n.col_offset))
    lambdas = {a.arg for n in ast.walk(tree) if isinstance(n, ast.Lambda)
               for a in n.args.args}
    for n in nodes:
        if isinstance(n.ctx, ast.Load):
            if n.id not in writes and n.id not in reads and n.id not in lambdas:
                reads.append(n.id)
        elif n.id not in writes:
            writes.append(n.id)
    return reads, writes


def jit_cell_runner(ns: dict):
    """__jit_cell__(body, static) for a namespace: %%jit's cell as a jitted function."""
    import numpy as np
    jitted = {}

    def array_like(value):
        return isinstance(value, (bool, int, float, complex, np.ndarray, np.generic)) or \
            hasattr(value, "aval")

    def run(body, static):
        tree = ast.parse(body)
        reads, writes = _reads_before_writes(tree)
        params = [n for n in reads if n in ns and (n in static or array_like(ns[n]))]
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.get_source_segment(body, tree.body[-1])
            body_lines = body.splitlines()[:tree.body[-1].lineno - 1]
        else:
            body_lines = body.splitlines()
        outs = [w for w in writes]
        source = (f"def cell({', '.join(params)}):\n" +
                  "".join(f"    {line}\n" for line in body_lines) +
                  f"    return ({', '.join(outs)}{',' if outs else ''}), ({last or 'None'})\n")
        key = (body, tuple(static))
        if key not in jitted:
            local = {}
            exec(compile(source, "<%%jit cell>", "exec"), ns, local)
            jitted[key] = ns["jax"].jit(local["cell"], static_argnames=tuple(static))
        written, value = jitted[key](**{p: ns[p] for p in params})
        ns.update(zip(outs, written))
        return value

    return run


# ------------------------------------------------------------------ running and recording
class _Logged(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def summarised(messages) -> dict:
    compiling = [m.split(" with global shapes")[0].split(" for ")[0].split(" because ")[0]
                 for m in messages if m.startswith("Compiling ")]
    return {"compiling": compiling,
            "tracing": sum(m.startswith("Finished tracing") for m in messages),
            "cache_misses": sum("TRACING CACHE MISS" in m for m in messages)}


def describe(value, depth=0):
    """A value as JSON: arrays by shape, dtype and values; containers by their items."""
    import numpy as np
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, StandIn):
        return repr(value)
    if isinstance(value, float):
        return {"float": value}
    if isinstance(value, (tuple, list)) and depth < 4:
        return {type(value).__name__: [describe(v, depth + 1) for v in value]}
    if isinstance(value, dict) and depth < 4:
        return {"dict": {str(k): describe(v, depth + 1) for k, v in value.items()}}
    if hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, type):
        try:
            data = np.asarray(value)
        except Exception as e:               # noqa: BLE001  (a key array, a deleted array)
            return {"shape": list(value.shape), "dtype": str(value.dtype),
                    "unreadable": type(e).__name__}
        if data.dtype.kind == "c":
            values = [[z.real, z.imag] for z in data.ravel().tolist()]
        else:
            values = data.ravel().tolist()
        return {"shape": list(data.shape), "dtype": str(value.dtype), "values": values}
    return {"repr": repr(value)}


def run_notebook(path: str, library: str) -> list:
    ns = {"__name__": "__main__", **workshop_helpers()}
    ns["__jit_cell__"] = jit_cell_runner(ns)
    records, dropped, unmade = [], set(), set()
    for index, source, tags, markdown in code_cells(path):
        code, skipped = neutralised(source, tags, library, dropped)
        if code is not None and unmade & set(re.findall(r"\b\w+\b", code)) - assigned(code):
            code, skipped = None, "uses " + ", ".join(sorted(unmade & set(
                re.findall(r"\b\w+\b", code)))) + " of a skipped cell"
        if code is None:
            unmade |= assigned(source)
        else:
            unmade -= assigned(code)
        record = {"index": index, "markdown": markdown, "skipped": skipped, "stdout": "",
                  "error": None, "value": None, "logs": None}
        records.append(record)
        if code is None:
            continue
        logged, out = _Logged(), io.StringIO()
        logging.getLogger().addHandler(logged)
        try:
            with contextlib.redirect_stdout(out):
                value = _exec_cell(code, ns)
            record["value"] = describe(value)
        except Exception as e:                # noqa: BLE001  the cell's error is its answer
            record["error"] = [type(e).__name__, (str(e).splitlines() or [""])[0]]
        finally:
            logging.getLogger().removeHandler(logged)
        record["stdout"] = out.getvalue()
        record["logs"] = summarised(logged.messages)
        if "setup" in tags:                   # logging on from here, as both libraries log
            ns["jax" if "jax" in ns else "jxkernel"].config.update("jax_log_compiles", True)
            ns["jax" if "jax" in ns else "jxkernel"].config.update(
                "jax_explain_cache_misses", True)
    return records


def _exec_cell(code: str, ns: dict):
    """Run a cell as a kernel does: its last expression's value returned."""
    tree = ast.parse(code)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<cell>", "exec"), ns)
    return None if last is None else eval(compile(last, "<cell>", "eval"), ns)


def main(argv) -> None:
    library, names = argv[0], argv[1:]
    logging.getLogger().setLevel(logging.WARNING)
    answers = {path: run_notebook(path, library) for name in names
               for path in notebook_paths(name)}
    sys.stdout.write(json.dumps(answers))


if __name__ == "__main__":
    main(sys.argv[1:])
