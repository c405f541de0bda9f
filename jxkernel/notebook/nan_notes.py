"""The note under a cell whose line computed a gradient holding NaN where the function's value
is finite. `jnp.where(x > 0, jnp.sqrt(x), 0.)` at 0 is 0., and its gradient NaN, in JAX as
here, and JAX says nothing: the branch where does not take still gets a cotangent, zero, and
zero times sqrt's infinite derivative at 0 is NaN (JAX's FAQ, "gradients contain NaN where
using where"). The note names the line that first made the NaN, found by stepping the
gradient's program (views/stepper.py), and where that line is such a where, writes it with a
second where inside the branch.

    def f(x):
        return jnp.where(x > 0, jnp.sqrt(x), 0.)
    jax.grad(f)(0.)     # ⚠ the gradient holds NaN, though f's value is finite ...
"""
from __future__ import annotations

import ast
import collections
import contextlib
import io
import linecache

import numpy as np

from ..core import compile_record, dtypes
from ..core.ir import all_equations
from ..core.source_info import OutsideSourceInfo
from ..transforms.ad import reverse
from ..tree_util import tree_flatten
from ..xla.array import Array
from ..views.source import is_user_file
from ..views.source_edits import parse_file, replaced, segment
from ..views.stepper import make_stepper
from .display import Note, Site, source_label

FAQ = "https://docs.jax.dev/en/latest/faq.html#gradients-contain-nan-where-using-where"
# the most elements of a gradient looked at for NaN (a copy to the host), and the most
# equations stepped to find the first one: past these the cell gets no note, rather than wait
LOOKED_AT = 1 << 22
STEPPED = 2000
# a gradient call is looked at as it is recorded, to keep a loop's first NaN step, where all
# it holds is no larger than this (a copy to the host, and a wait, on each such call)
SMALL = 1 << 14
# programs that call back into Python are not stepped: a print or a breakpoint would run again
CALLBACKS = frozenset({"debug_callback", "debug_print", "pure_callback", "io_callback"})
# functions whose derivative is infinite or NaN at the edge of or outside their domain, and
# a value inside it to put there instead (the second where's)
UNSAFE = {"sqrt": "1.0", "rsqrt": "1.0", "log": "1.0", "log2": "1.0", "log10": "1.0",
          "log1p": "1.0", "reciprocal": "1.0", "power": "1.0", "arcsin": "0.0",
          "arccos": "0.0", "arctanh": "0.0", "arccosh": "2.0"}
# reductions whose own derivative is NaN at some inputs (a norm's or a std's at 0: 0 / 0):
# an operand holding one is not made safe by a where around it, as the zero cotangent still
# meets that derivative; nor by a where inside it, which would change the reduction's value
UNGUARDED = frozenset({"norm", "std", "nanstd"})
_INSTALLED: list = []


class NanGradientWatch:
    """Looks at the gradients the user's lines computed outside jit in a cell (the record
    transforms/ad/reverse.py keeps while a watch is installed) for NaN, at the cell's end."""

    def install(self) -> None:
        """Start the record: at the extension's load (a watch made apart records nothing)."""
        if self not in _INSTALLED:
            _INSTALLED.append(self)
            if reverse.grad_calls is None:
                reverse.grad_calls = _Calls()

    def uninstall(self) -> None:
        if self in _INSTALLED:
            _INSTALLED.remove(self)
            if not _INSTALLED:
                reverse.grad_calls = None

    def cell_started(self) -> None:
        if reverse.grad_calls is not None:
            reverse.grad_calls.clear()

    def cell_finished(self, told: set | None = None) -> Note | None:
        """The note of the cell that just ran, or None: no gradient of the user's holding NaN
        where the value is finite, or only ones made at lines told of before (`told`: the
        (file, line) that first made the NaN, or where that is not found the line that asked
        for the gradient, kept by the loaded extension)."""
        recorded = reverse.grad_calls
        calls = [] if recorded is None else [recorded.first] * (recorded.first is not None) + \
            list(recorded)
        if recorded is not None:
            recorded.clear()
        stepped = set()
        for vg, args, kwargs, out, g, asked in calls:
            if vg in stepped or not _nan_where_finite(out, g, (args, kwargs)):
                continue
            stepped.add(vg)             # (a loop's calls: the first one's NaN tells)
            found = _first_nan(vg, args, kwargs)
            key = (found.info.file, found.info.line) if found is not None else asked
            if told is not None and key in told:
                continue
            if told is not None:
                told.add(key)
            return _note(vg, asked, found)
        return None


class _Calls(collections.deque):
    """The record transforms/ad/reverse.py appends to: the cell's last gradients, and the
    first found holding NaN where its value and inputs hold none, looked at as it is recorded
    where it is small. A loop's steps after that one (a training loop's, its parameters NaN
    from then on) hold NaN in their inputs, and are not told: the first is the one to step."""

    def __init__(self):
        super().__init__(maxlen=4)
        self.first = None

    def append(self, call) -> None:
        super().append(call)
        _, args, kwargs, out, g, _ = call
        try:
            if self.first is None and _size((args, kwargs, out, g)) <= SMALL and \
                    _nan_where_finite(out, g, (args, kwargs)):
                self.first = call
        except Exception:  # noqa: BLE001  (looking must never fail the user's grad call;
            pass           # the cell's end looks again, and tells a failure there)

    def clear(self) -> None:
        super().clear()
        self.first = None


def _nan_where_finite(out, g, given) -> bool:
    """Whether the gradient `g` holds NaN where the value `out` is finite and the inputs hold
    no NaN (each looked at: not too large)."""
    return bool(_holds(np.isnan, g)) and _holds(_not_finite, out) is False and \
        _holds(np.isnan, given) is False


def _size(tree) -> int:
    return sum(int(np.size(x)) for x in tree_flatten(tree)[0] if _is_float(x))


def _holds(test, tree) -> bool | None:
    """Whether `test` (np.isnan, _not_finite) holds for an element of a float leaf of `tree`;
    None where the leaves are too large to look at."""
    if _size(tree) > LOOKED_AT:
        return None
    leaves = [x for x in tree_flatten(tree)[0] if _is_float(x)]
    return any(bool(test(np.asarray(x)).any()) for x in leaves)


def _not_finite(x):
    return ~np.isfinite(x)


def _is_float(x) -> bool:
    """Whether `x` is a float or complex number or array of a kind looked at (jxkernel's
    Array, NumPy's): another object with a dtype (a library's) may not convert."""
    if isinstance(x, (float, complex)):
        return True
    if not isinstance(x, (Array, np.ndarray, np.generic)):
        return False
    try:
        return dtypes.is_inexact(x.dtype)
    except TypeError:           # (a dtype of no number: a key's)
        return False


def _first_nan(vg, args, kwargs):
    """Where the gradient's program first makes a NaN (a views.stepper NanFound, the innermost
    at a line of the user's), or None where it was not stepped (too long, calling back into
    Python) or tracing it again failed. Tracing runs the user's Python again: its prints are
    dropped, its compiles not logged."""
    try:
        with compile_record.unlogged(), contextlib.redirect_stdout(io.StringIO()):
            stepper = make_stepper(vg, args, kwargs)
            names = [e.primitive.name for e in all_equations(stepper.equations)]
            if len(names) > STEPPED or CALLBACKS.intersection(names):
                return None
            found = stepper.first_nan()
    except Exception:  # noqa: BLE001  (the note is help: no note rather than a second error)
        return None
    # the deepest finding at a line of the user's: one inside jxkernel's own functions (a
    # norm's body) names jxkernel's line, or none of the user's (_made_by_the_user)
    user = None
    while found is not None:
        if _made_by_the_user(found.info):
            user = found
        found = found.inside
    return user


def _made_by_the_user(info) -> bool:
    """Whether an equation's SourceInfo is a line of the user's that made it. Not an
    OutsideSourceInfo: jxkernel's own body (jnp.linalg.norm's jit) names the line that called
    it when it was first traced, and a body traced once serves later calls: that line can be
    another cell's (grad of a norm in In[2], then in In[4]: In[2]'s line)."""
    return info is not None and not isinstance(info, OutsideSourceInfo) and \
        is_user_file(info.file)


def _note(vg, asked, found) -> Note:
    name = getattr(vg, "__name__", "the function")
    head = f"⚠ the gradient holds NaN, though {name}'s value is finite (at " \
        f"{source_label(Site(*asked))})"
    if found is None:
        return Note(head, body=_GENERIC.format(faq=FAQ) + " jxkernel.views.stepper.step("
                    "jax.grad(f), x).first_nan() finds the equation.", kind="info",
                    details=True)
    at = source_label(Site(found.info.file, found.info.line))
    fix = where_fix(found.info.file, found.info.line)
    if fix is None:
        return Note(f"{head}: first made at {at}, differentiating that line",
                    body=_GENERIC.format(faq=FAQ), kind="info", details=True)
    where, function, operand, rewritten = fix
    return Note(
        f"{head}: the {where} at {at} passed it back from the branch it did not take",
        body=(f"{where}(c, a, b) takes each value from a or b, but its gradient flows into "
              "both: the branch not taken gets a zero cotangent, and zero times that branch's "
              f"derivative is NaN where the derivative is infinite or NaN ({function}'s, with "
              f"{operand} at the edge of its domain or outside it), in JAX as here ({FAQ}). "
              "Keep those values out of the branch with a second where inside it; where the "
              "branch is taken nothing changes:\n" +
              "\n".join("  " + line for line in rewritten.splitlines())),
        kind="info", details=True)


_GENERIC = ("A derivative that is infinite or NaN at these inputs (sqrt's or a norm's at 0, "
            "log's at 0, x / y's at y = 0) times zero or another infinity is NaN, though the "
            "function's value is finite; JAX gives the same NaN ({faq}). Where that value "
            "feeds a jnp.where branch these inputs do not take, keep them out of it with a "
            "second where before it (jnp.sqrt(jnp.where(x > 0, x, 1.0))); elsewhere keep the "
            "input off that point (an epsilon: jnp.sqrt(x + 1e-12)). "
            "jax.config.update('jax_debug_nans', True) raises at the operation that makes "
            "the first NaN.")


def where_fix(file: str, line: int):
    """(the where's text, the unsafe function's name, its operand's text, the statement at
    `line` rewritten with a second where around that operand) where the statement holds one
    `where(c, a, b)` whose branches hold one call of a function in UNSAFE (or a division, a
    power), and whose operand holds no reduction in UNGUARDED; else None.

        >>> import linecache; linecache.cache["<w>"] = (0, None, ["y = jnp.where(x > 0, "
        ...     "jnp.sqrt(x), 0.)\\n"], "<w>")
        >>> where_fix("<w>", 1)[3]
        'y = jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.)'
    """
    tree = parse_file(file)
    statements = [s for s in ast.walk(tree) if isinstance(s, _SIMPLE) and
                  s.lineno <= line <= s.end_lineno] if tree is not None else []
    if not statements:
        return None
    statement = max(statements, key=lambda s: s.lineno)
    wheres = [c for c in ast.walk(statement) if isinstance(c, ast.Call) and
              _last_name(c.func) == "where" and len(c.args) == 3 and not c.keywords]
    if len(wheres) != 1:
        return None
    where = wheres[0]
    found = [(taken, unsafe) for taken, branch in ((True, where.args[1]), (False, where.args[2]))
             for unsafe in map(_unsafe, ast.walk(branch)) if unsafe is not None]
    if len(found) != 1 or any(_last_name(c.func) in UNGUARDED for c in ast.walk(found[0][1][1])
                              if isinstance(c, ast.Call)):
        return None
    source = "".join(linecache.getlines(file))
    taken, (function, operand, safe) = found[0]
    func, cond, x = (segment(source, n) for n in (where.func, where.args[0], operand))
    if "\n" in cond:       # (a condition over lines, written again inside: on one line)
        cond = ast.unparse(where.args[0])
    inner = f"{func}({cond}, {x}, {safe})" if taken else f"{func}({cond}, {safe}, {x})"
    # the statement's lines, and those the inner where adds: a condition over lines gave
    # the statement's first lines alone, cut in the middle of the where
    end = statement.end_lineno + inner.count("\n") - x.count("\n")
    lines = replaced(source, [(operand, inner)]).splitlines()[statement.lineno - 1:end]
    indent = len(lines[0]) - len(lines[0].lstrip())
    return func, function, x, "\n".join(text[indent:] for text in lines)


_SIMPLE = (ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)


def _last_name(node) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) else \
        node.id if isinstance(node, ast.Name) else None


def _unsafe(node):
    """(the function's name, the operand whose values must stay in its domain, a value that
    is) for a call of a function in UNSAFE, a division or a fractional power; else None."""
    if isinstance(node, ast.Call) and node.args and _last_name(node.func) in UNSAFE:
        operand, name = node.args[0], _last_name(node.func)
    elif isinstance(node, ast.Call) and len(node.args) == 2 and \
            _last_name(node.func) in ("divide", "true_divide"):
        operand, name = node.args[1], "division"
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        operand, name = node.right, "division"
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and not (
            isinstance(node.right, ast.Constant) and isinstance(node.right.value, int) and
            node.right.value >= 1):
        operand, name = node.left, "power"
    else:
        return None
    if isinstance(operand, ast.Constant):
        return None
    return name, operand, UNSAFE.get(name, "1.0")
