"""A `%%jit` cell compiled as a function: inputs in, outputs out, errors at cell lines.

    program = CellProgram(info, label="cell[3]", filename=..., user_ns=ns,
                          params=["x", "n"], kinds={"x": "traced", "n": "static"})
    outputs = program.run(ns)        # {"y": Array, ...}; `program.events` says if it compiled

The jitted function takes the inputs positionally (static ones by position), so
jit's cache key is the cell's signature: a rerun with the same types hits it.
Values that are not arrays (functions defined in the cell, strings, ...) come
back inside the output's tree structure (`cell.Static`), so a cached run
returns them without tracing again, as JAX returns static outputs.
"""
from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import warnings

from .. import numpy as jx_numpy
from ..core import compile_record
from ..core import errors as jx_errors
from ..core.avals import get_aval
from ..transforms.jit import jit
from ..tree_util import keystr, tree_flatten_with_path, tree_map
from ..views.source import is_user_file
from .cell import LAST, STATIC, Static, TRACED, build, is_array_like
from .display import cell_name, short_repr


class CellProgram:
    """One cell source with one choice of inputs/options, jitted."""

    def __init__(self, info, *, label, filename, user_ns, params, kinds, donate=(),
                 backend=None, device=None):
        self.info, self.label, self.filename = info, label, filename
        self.visible = info.source           # the cell as the notebook shows it
        self.params, self.kinds = list(params), dict(kinds)
        fn = build(info, self.params, _identifier(label), filename, user_ns)
        fn.__qualname__ = fn.__name__ = label
        fn.__code__ = fn.__code__.replace(co_name=label, co_qualname=label)   # tracebacks, jaxprs
        self.fn = fn
        self.traced_now = False
        self.printed = ""
        self.events: list = []
        static_argnums = [i for i, p in enumerate(self.params) if self.kinds[p] == STATIC]
        donate_argnums = [i for i, p in enumerate(self.params) if p in donate]
        with warnings.catch_warnings():
            # the magic's --backend, the user's choice of where the cell runs: not the jit
            # argument JAX deprecates (its DeprecationWarning would name this file)
            warnings.simplefilter("ignore", DeprecationWarning)
            self.jitted = jit(self._traceable(), static_argnums=static_argnums,
                              donate_argnums=donate_argnums, backend=backend, device=device)

    def _traceable(self):
        fn, outputs = self.fn, self.info.outputs + [LAST]

        @functools.wraps(fn)
        def cell(*args):
            self.traced_now = True
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):      # print() runs only now: show it
                try:
                    scope = fn(*args)
                finally:
                    self.printed += buffer.getvalue()
            return {k: tree_map(_box, scope[k]) for k in outputs if k in scope}
        return cell

    # ------------------------------------------------------------ running
    def arguments(self, user_ns) -> list:
        return [user_ns[p] for p in self.params]

    def run(self, user_ns) -> dict:
        """Call the jitted cell on the namespace's values; returns outputs (and LAST)."""
        self.traced_now, self.printed, self.events = False, "", []
        mine = self.jitted
        unsubscribe = compile_record.subscribe(lambda e: e.key is mine and self.events.append(e))
        try:
            result = self.jitted(*self.arguments(user_ns))
        except Exception as e:  # noqa: BLE001  re-raised as a CellError pointing at the line
            raise CellError.from_exception(e, label=self.label, filename=self.filename,
                                           params=self.params, user_ns=user_ns) from e
        finally:
            unsubscribe()
        return {k: v if is_array_like(v) else tree_map(_unbox, v, is_leaf=_is_static)
                for k, v in result.items()}

    def trace(self, args):
        """`jit(...).trace` of the cell at these arguments, prints discarded."""
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                return self.jitted.trace(*args)
        except Exception as e:  # noqa: BLE001
            raise CellError.from_exception(e, label=self.label, filename=self.filename,
                                           params=self.params,
                                           user_ns=dict(zip(self.params, args))) from e

    # ------------------------------------------------------------ describing
    def describe_inputs(self, user_ns) -> list:
        """[{name, kind, detail}] for the traced-vs-static view."""
        rows = []
        for name in self.params:
            value = user_ns.get(name)
            kind = self.kinds[name]
            rows.append({"name": name, "kind": kind,
                         "detail": describe_traced(value) if kind == TRACED else short_repr(value)})
        return rows


def _identifier(label: str) -> str:
    return "_jx_" + re.sub(r"\W", "_", label)


def _box(leaf):
    return leaf if is_array_like(leaf) else Static(leaf)


def _is_static(leaf) -> bool:
    return isinstance(leaf, Static)


def _unbox(leaf):
    return leaf.value if isinstance(leaf, Static) else leaf


def aval_text(x) -> str:
    try:
        aval = get_aval(x)
    except TypeError:
        return type(x).__name__
    text = aval.str_short(True) + (" weak" if aval.weak_type else "")
    if type(x) in (bool, int, float, complex):
        text += f" (Python {type(x).__name__})"
    return text


def describe_traced(value) -> str:
    """'f32[3]', or for a pytree "params['w']: f32[3,3], params['b']: f32[3]" (abridged)."""
    leaves, _ = tree_flatten_with_path(value)
    if len(leaves) == 1 and not leaves[0][0]:
        return aval_text(leaves[0][1])
    parts = [f"{keystr(p)}: {aval_text(x)}" for p, x in leaves[:6]]
    more = f", … ({len(leaves)} leaves)" if len(leaves) > 6 else ""
    return f"{type(value).__name__} {{{', '.join(parts)}{more}}}"


def describe_output(value) -> str:
    leaves, _ = tree_flatten_with_path(value)
    if len(leaves) == 1 and not leaves[0][0]:
        return aval_text(leaves[0][1]) if is_array_like(leaves[0][1]) else type(value).__name__
    return describe_traced(value) if leaves else type(value).__name__


# ------------------------------------------------------------------ errors at cell lines
_TRACER_ERRORS = (jx_errors.ConcretizationTypeError, jx_errors.TracerIntegerConversionError,
                  jx_errors.TracerArrayConversionError)


def cell_static_fix(names) -> str:
    return f"`%%jit --static {','.join(names)}`"


class CellError(Exception):
    """An error raised while tracing, compiling or running a `%%jit` cell, told at the
    cell's line with what to do. The original exception is `__cause__` (and `.original`)."""

    def __init__(self, message: str, *, original, label, line=None, where=None, hint="",
                 code="", filename=None):
        super().__init__(message)
        self.original, self.label, self.line, self.where = original, label, line, where
        self.hint, self.code, self.filename = hint, code, filename

    @classmethod
    def from_exception(cls, e: Exception, *, label, filename, params=(), user_ns=None,
                       static_fix=cell_static_fix) -> CellError:
        """Wrap `e`, raised while running the code of `filename` (a cell, named `label`);
        `params` are the names of the traced code's inputs, their values in `user_ns`."""
        frames = _user_frames(e.__traceback__, filename)
        line, where, code = None, None, ""
        if frames:
            code = frames[-1][3]
            mine = [n for f, n, _, _ in frames if f == filename]
            line = mine[-1] if mine else None      # the cell's line (or the call made there)
            where = [f"{label}, line {n}" if f == filename else
                     f"{cell_name(f) or os.path.basename(f)}, line {n}, in {fn}"
                     for f, n, fn, _ in frames]
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return cls(f"{type(e).__name__}: {first}", original=e, label=label, line=line,
                   where=where, hint=_hint(e, list(params), user_ns or {}, static_fix),
                   code=code, filename=filename)

    def full_message(self) -> str:
        """Everything the original said (its first line is in `str(self)`)."""
        return str(self.original)

    def _render_traceback_(self):
        """IPython shows this instead of a traceback through jxkernel's internals."""
        red, bold, reset = "\x1b[31m", "\x1b[1m", "\x1b[0m"
        place = " -> ".join(self.where) if self.where else self.label
        lines = [f"{red}{bold}{type(self.original).__name__}{reset} in {place}"
                 + (f": {self.code}" if self.code else "")]
        said = str(self.original).strip()
        if self.filename:
            said = said.replace(self.filename, cell_name(self.filename) or self.label)
        # other cells it names (where a function was defined): '<ipython-input-4-…>' -> 'In[4]'
        said = re.sub(r"<ipython-input-\d+-[0-9a-f]+>",
                      lambda m: cell_name(m.group(0)) or m.group(0), said)
        lines += ["  " + s for s in said.splitlines()
                  if not s.startswith(("To fix it:", "See https://"))][:8]
        if self.hint:
            lines += [f"{bold}What to do:{reset} {self.hint}"]
        return lines


def _user_frames(tb, cell_file) -> list:
    """(file, line, function, text) of the traceback's frames in user code (notebook cells,
    the user's modules), outermost first."""
    import linecache
    found = []
    while tb is not None:
        code = tb.tb_frame.f_code
        name = code.co_filename
        if name == cell_file or is_user_file(name):
            found.append((code.co_filename, tb.tb_lineno, code.co_name,
                          linecache.getline(code.co_filename, tb.tb_lineno).strip()))
        tb = tb.tb_next
    return found


def _base(name: str) -> str:
    """The argument a traced leaf belongs to: "params['w']" -> 'params', 'x.a' -> 'x'."""
    return re.split(r"[\[.]", name, maxsplit=1)[0]


def _numpy_spelled(user_ns: dict) -> str:
    """jxkernel's numpy as the learner's names spell it: `jax.numpy` where `jax` is jxkernel
    (`import jxkernel as jax`, or install_as_jax's alias, whose `numpy` is jxkernel's), or
    where nothing names jxkernel (the error card's word); `jxkernel.numpy` only where the
    learner typed `import jxkernel` and `jax` is not it.

        >>> _numpy_spelled({"jxkernel": jxkernel})
        'jxkernel.numpy'
    """
    ours = [n for n in ("jax", "jxkernel") if getattr(user_ns.get(n), "numpy", None) is jx_numpy]
    return f"{ours[0] if ours else 'jax'}.numpy"


def _hint(e, params: list, user_ns: dict, static_fix=cell_static_fix) -> str:
    """What to do about a tracer error, given the traced inputs the value depends on (the
    core names them: `e.arg_names`, e.g. ["n", "params['w']"]). `static_fix(names)` says how
    to make inputs static where this error was made (a %%jit option, jit's static_argnames)."""
    if isinstance(e, jx_errors.TracerArrayConversionError):
        return (f"NumPy functions cannot run on traced values: use {_numpy_spelled(user_ns)} "
                f"(jnp) on them instead.")
    if not isinstance(e, _TRACER_ERRORS):
        return ""
    names = list(getattr(e, "arg_names", None) or ())
    inputs = list(dict.fromkeys(_base(n) for n in names if _base(n) in params))
    others = [n for n in names if _base(n) not in params]
    scalars = [n for n in inputs if type(user_ns.get(n)) in (bool, int, float, complex, str)]
    arrays = [n for n in inputs if n not in scalars] + others
    branch = ("its value is unknown while tracing, so branch with `lax.cond(pred, true_fn, "
              "false_fn, ...)` or `jnp.where(pred, a, b)` (loops: `lax.fori_loop` / "
              "`lax.while_loop`) instead of Python `if`/`while`")
    parts = []
    if scalars:
        parts.append(f"make {' and '.join(scalars)} static, so Python sees its value: "
                     f"{static_fix(scalars)} (each new value compiles anew)")
    if arrays:
        parts.append(f"{', '.join(arrays)} {'is' if len(arrays) == 1 else 'are'} traced: {branch}"
                     + ("" if inputs else "; or make it a static argument (static_argnums / "
                        "static_argnames of jit)"))
    if not names:
        parts.append(f"the value comes from traced operations: {branch}")
    return "; or ".join(parts) + "."


def error_view_data(err: CellError) -> dict:
    """What the traced-vs-static view shows for a failed cell."""
    return {"line": err.line, "message": str(err), "hint": err.hint and "What to do: " + err.hint}

