"""The note under a cell whose line computed a gradient holding NaN where the function's value is
finite, or whose function's value is NaN though its inputs hold none (a loss gone NaN: the
operation that first made it, found by stepping, below). `jnp.where(x > 0, jnp.sqrt(x), 0.)` at
0 is 0., and its gradient NaN, in JAX as here, and JAX says nothing: the branch where does not
take still gets a cotangent, zero, and zero times sqrt's infinite derivative at 0 is NaN (JAX's
FAQ, "gradients contain NaN where using where"). The note names the line that first made the
NaN, found by stepping the gradient's program (views/stepper.py), and where that line is such a
where, writes it with a second where inside the branch. A gradient taken under an eager vmap is
told with the examples whose gradient holds NaN; one taken inside a jitted function, where that
function's result holds NaN, with the function (gradient_calls.py finds the values it took
inside).

    def f(x):
        return jnp.where(x > 0, jnp.sqrt(x), 0.)
    jax.grad(f)(0.)     # ⚠ the gradient holds NaN, though f's value is finite ...
"""
from __future__ import annotations

import ast
import contextlib
import io
import linecache

import numpy as np

from ...core import compile_record
from ...core.ir import all_equations
from ...core.source_info import OutsideSourceInfo, installed_package, is_jxkernel_file
from ...transforms.ad import reverse
from ...views.source import is_user_file
from ...views.source_edits import parse_file, replaced, segment
from ...views.stepper import Stepper, make_stepper
from ...views.error_cards.nans import _DOMAINS
from ..display import Note, Site, source_label
from .gradient_calls import CALLBACKS, GradientCalls, _holds, nan_where_finite, value_nan

FAQ = "https://docs.jax.dev/en/latest/faq.html#gradients-contain-nan-where-using-where"
# the most equations stepped to find the first NaN: past these the note names no line, rather
# than wait
STEPPED = 2000
# the most examples of a vmapped batch a note names
NAMED = 5
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
    """Looks at the gradients the user's lines computed in a cell (the record
    transforms/ad/reverse.py keeps while a watch is installed, gradient_calls.py's) for NaN,
    at the cell's end."""

    def install(self) -> None:
        """Start the record: at the extension's load (a watch made apart records nothing)."""
        if self not in _INSTALLED:
            _INSTALLED.append(self)
            if reverse.grad_calls is None:
                reverse.grad_calls = GradientCalls()

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
        where the value is finite, nor a value NaN from inputs holding none, nor a jitted
        call given NaN made by one let by unlooked at; or only ones made at lines told of
        before (`told`: the (file, line) that first made the NaN, or where that is not found
        the line that asked for the gradient, or the call given NaN, kept by the loaded
        extension)."""
        recorded = reverse.grad_calls
        calls = [] if recorded is None else [recorded.first] * (recorded.first is not None) + \
            list(recorded)
        missed = None if recorded is None else recorded.missed
        if recorded is not None:
            recorded.clear()
        stepped = set()
        for call in calls:
            try:
                gradients = call.gradients()      # (a jitted call's: its program run again)
            except Exception:  # noqa: BLE001  (the note is help: no note rather than an error)
                continue
            for d in gradients:
                given = (d.args, d.kwargs)
                finite = nan_where_finite(d.out, d.g, given)
                if d.vg in stepped or not (finite or value_nan(d.out, given)):
                    continue
                stepped.add(d.vg)             # (a loop's calls: the first one's NaN tells)
                found = _first_nan(d.vg, d.args, d.kwargs)
                whole = found is None and d.program is not None
                if whole:               # (vg not traced again: the jitted call's program)
                    found = _first_nan_in_program(*d.program)
                asked = _asked(d)
                key = (found.info.file, found.info.line) if found is not None else asked
                if told is not None and key in told:
                    continue
                if told is not None:
                    told.add(key)
                return _note(d, asked, found, whole and found is not None) if finite else \
                    _value_note(d, asked, found, whole and found is not None)
        if missed is not None and (told is None or missed[1] not in told):
            if told is not None:
                told.add(missed[1])
            return _missed_note(*missed)
        return None


def _asked(d) -> tuple:
    """The user's (file, line) that asked for the gradient: for a jitted gradient function
    (`jax.jit(jax.grad(f))`), the line that called it (its trace's line is the first call's)."""
    return d.called_at if _jit_of_gradient(d) else d.asked


def _first_nan(vg, args, kwargs):
    """Where the gradient's program first makes a NaN (a views.stepper NanFound, the innermost
    at a line of the user's), or None where it was not stepped (too long, calling back into
    Python) or tracing it again failed. Tracing runs the user's Python again: its prints are
    dropped, its compiles not logged."""
    return _stepped(lambda: make_stepper(vg, args, kwargs))


def _first_nan_in_program(closed, inputs):
    """_first_nan of a jitted call's own program, run again from its inputs: where the
    gradient's function cannot be traced again (Flax's nnx.value_and_grad makes one that runs
    once), the program the call ran holds its equations, at the user's lines."""
    return _stepped(lambda: Stepper(closed, inputs, [f"input {i}" for i in range(len(inputs))]))


def _stepped(make):
    """The first NaN a stepper `make()` finds, the innermost at a line of the user's; None
    past STEPPED equations, with a callback into Python, or where making it failed."""
    try:
        with compile_record.unlogged(), contextlib.redirect_stdout(io.StringIO()):
            stepper = make()
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


def _note(d, asked, found, whole: bool = False) -> Note:
    """`whole`: `found` in the jitted call's program, its gradient not traced again."""
    name = _function_name(d.vg)
    head = f"⚠ the gradient holds NaN, though {name}'s value is finite (at " \
        f"{source_label(Site(*asked))}{_context(d)})"
    how = _how_found(d, name, whole)
    if found is None:
        return Note(head, body=how + _GENERIC.format(faq=FAQ) + " jxkernel.views.stepper.step("
                    "jax.grad(f), x).first_nan() finds the equation.", kind="info",
                    details=True)
    at = source_label(Site(found.info.file, found.info.line))
    fix = where_fix(found.info.file, found.info.line)
    if fix is None:
        return Note(f"{head}: first made at {at}, differentiating that line",
                    body=how + _GENERIC.format(faq=FAQ), kind="info", details=True)
    where, function, operand, rewritten = fix
    return Note(
        f"{head}: the {where} at {at} passed it back from the branch it did not take",
        body=(how + f"{where}(c, a, b) takes each value from a or b, but its gradient flows "
              "into both: the branch not taken gets a zero cotangent, and zero times that "
              f"branch's derivative is NaN where the derivative is infinite or NaN "
              f"({function}'s, with {operand} at the edge of its domain or outside it), in JAX "
              f"as here ({FAQ}). Keep those values out of the branch with a second where "
              "inside it; where the branch is taken nothing changes" +
              (", jitted or not" if d.jitted is not None else "") + ":\n" +
              "\n".join("  " + line for line in rewritten.splitlines())),
        kind="info", details=True)


# what makes an operation's NaN from finite inputs (its domain's edge, or two infinities):
# the debug-nans card's words (views/error_cards/nans.py), said of the operation, not of values
# the note has not read
_NAN_OF = {"div": "0 / 0 and inf / inf", "mul": "0 times an infinity",
           "add": "infinities of opposite signs", "sub": "an infinity minus itself",
           "pow": "a negative number to a fractional power", "rem": "a remainder of 0",
           **{prim: domain[1] for prim, domain in _DOMAINS.items()}}


def _value_note(d, asked, found, whole: bool = False) -> Note:
    """The note of a gradient whose function's value holds NaN though its inputs hold none:
    where the first NaN was made (`found`, a stepper's NanFound; None: not stepped)."""
    name = _function_name(d.vg)
    # (where it was made first, where it was asked after: a title cut short by the page's
    # width keeps the line to look at)
    asked_at = f"{name} at {source_label(Site(*asked))}{_context(d)}"
    how = f"{name}'s inputs hold no NaN. " + _how_found(d, name, whole)
    after = ("Its gradient holds NaN too, and a step taken with it makes the parameters NaN, "
             "so every value after is NaN (a training loop's loss stays NaN). "
             if _holds(np.isnan, d.g) else "")
    guard = ("Find why the input has that value there (print it outside jit, or "
             "jax.debug.print inside); where such inputs are expected, give the operation a "
             "safe input with jnp.where under the condition that picks its result, or keep "
             "the input off that point (an epsilon). jax.config.update('jax_debug_nans', "
             "True) raises at that operation, with its values.")
    if found is None:
        return Note(f"⚠ {name}'s value is NaN, though its inputs hold none ({asked_at})",
                    body=how + after + guard.replace("the input has that value there",
                                                     "a value is NaN") +
                    " jxkernel.views.stepper.step(f, x).first_nan() finds the equation.",
                    kind="info", details=True)
    at = source_label(Site(found.info.file, found.info.line))
    prim = found.primitive
    of = _NAN_OF.get(prim)
    return Note(f"⚠ {name}'s value is NaN: first made by {prim} at {at} ({asked_at})",
                body=how + f"The first NaN is {prim}'s, at {at}" +
                (f" ({prim} gives NaN of {of}). " if of else ". ") + after + guard,
                kind="info", details=True)


def _missed_note(name: str, site: tuple) -> Note:
    """The note of a jitted call given NaN after calls of the cell let by unlooked at
    (core/watches.Schedule): one of those may have made it, and the next cell looks at every
    call."""
    return Note(
        f"⚠ {name} was given NaN (at {source_label(Site(*site))}), after calls of it that went "
        "by unlooked at: one of them may have made it",
        body=(f"A loop's calls of {name} are looked at one in so many after the first few "
              "(so that looking costs little). The next cell to run looks at every call of "
              f"{name}: run this cell again, from values without NaN, and the note names the "
              f"line that made the first NaN, where a call of {name} made it (if none says "
              "so, the NaN came in from outside: in the data given). "
              "jax.config.update('jxkernel_watched_calls', 'all') looks at every call, "
              "always."),
        kind="info", details=True)


def _function_name(vg) -> str:
    """The name of the learner's function a gradient differentiates: `vg`'s own, or where
    `vg` is a library's (Equinox's filter_value_and_grad differentiates its own
    `fun_value_and_grad`, which calls the learner's), the learner's function its closure
    holds (itself or as `__wrapped__`)."""
    name = getattr(vg, "__name__", "the function")
    fun = getattr(vg, "__wrapped__", vg)           # (value_and_grad's: the function it takes)
    code = getattr(fun, "__code__", None)
    if code is None or installed_package(code.co_filename) is None:
        return name
    for cell in getattr(fun, "__closure__", None) or ():
        try:
            held = cell.cell_contents
        except ValueError:              # (an empty cell)
            continue
        held = getattr(held, "__wrapped__", held)
        inner = getattr(held, "__code__", None)
        if inner is not None and is_user_file(inner.co_filename) and \
                installed_package(inner.co_filename) is None:
            return held.__name__
    return name


def _jit_of_gradient(d) -> bool:
    """Whether the jitted function is jxkernel's own, a transformation of the user's
    function (`jax.jit(jax.grad(f))`, `jax.jit(jax.vmap(jax.grad(f)))`), not one the user
    wrote: then the line that called it is the one that asked for the gradient."""
    code = getattr(getattr(d.jitted, "_fun", None), "__code__", None)
    return code is not None and is_jxkernel_file(code.co_filename)


def _context(d) -> str:
    """Where the gradient was taken, for the note's title: inside which jitted function,
    for which examples of a vmap's batch (none: "")."""
    words = ""
    if _jit_of_gradient(d):
        words += ", under jit"
    elif d.jitted is not None:
        words += f", inside {d.jitted.__name__} (jitted), called at " \
            f"{source_label(Site(*d.called_at))}"
    if d.examples is not None:
        shown = [str(i) for i in d.examples[:NAMED]]
        listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
        if len(d.examples) > NAMED:
            listed = ", ".join(shown) + f", ... ({len(d.examples)} of them)"
        words += f", for example{'s' * (len(d.examples) > 1)} {listed} of the vmapped batch " \
            f"of {d.batch}"
    return words


def _how_found(d, name, whole: bool = False) -> str:
    """The body's first words, where the gradient was not computed on its own line: how its
    values were found (none: "")."""
    words = ""
    if d.jitted is not None and whole:
        words += (f"The NaN reached {d.jitted.__name__}'s result: its program was run again, "
                  f"equation by equation, from that call's inputs to the first NaN it makes. ")
    elif d.jitted is not None:
        jitted = "the jitted gradient" if _jit_of_gradient(d) else d.jitted.__name__
        words += (f"The NaN reached {jitted}'s result: its program was run again, equation by "
                  f"equation, from that call's inputs to the values {name} was differentiated "
                  "at, and that gradient stepped. ")
    if d.examples is not None and len(d.examples) > 1:
        words += f"Example {d.examples[0]}'s gradient was stepped, the first holding NaN. "
    return words


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
