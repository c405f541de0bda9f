"""The note under a cell that jitted a function whose Python side effects run at its trace
alone, silently, in JAX 0.10.2 and here alike: a method that sets an attribute of its object
(JAX's stateful-computations tutorial: a Counter whose jitted `count` returns 1 on every call),
a global set (JAX's sharp bits: impure_saves_global), a list or dict from outside changed
(`log.append(x)`: one append, of a tracer), a draw from NumPy's or Python's random module,
whose number the program keeps, and the clock read (`time.time()`), whose number it keeps too.

    counter = Counter()
    fast_count = jax.jit(counter.count)     # count does `self.n += 1`
    fast_count(); fast_count()              # ⚠ count sets self.n (at In[3]:5) once, ...
"""
from __future__ import annotations

import ast
import functools
import linecache
import textwrap

from ...core import compile_record, miss_words
from ...core.compile_record import USER
from ...core.trace import Tracer
from ...views.random_calls import draws_one
from ...views.source_edits import parse_file, replaced, segment
from ..display import Note, Site, name_of, source_label
from .effect_sources import (argument_changes, attribute_sets, clock_reads, global_sets,
                             is_container, outside_changes, random_draws, reader, returns_a_value)

PURE_FUNCTIONS = ("https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
                  "#pure-functions")


class TraceEffectsWatch:
    """The first trace of each jitted function of the user's in a cell, heard as it compiles
    (`install`): a function jitted and called on one line (`jax.jit(f)(x)`) is gone by the
    cell's end, and the compile log holds it weakly."""

    def __init__(self):
        self.pending: list = []         # the notes the cell's first traces call for (_pending)
        self.in_cell = False
        self._unsubscribe = None

    def install(self) -> None:
        """Start hearing compiles: at the extension's load (a watch made apart hears none)."""
        if self._unsubscribe is None:
            self._unsubscribe = compile_record.subscribe(self._compiled)

    def uninstall(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _compiled(self, event) -> None:
        # read when it compiles, the jit and its function alive (held here, a bound method
        # made for the call would outlive it, and be reused by a later jit: JAX drops it)
        if self.in_cell and event.origin == USER and event.nth <= 1:
            function = getattr(event.key, "__wrapped__", None)
            if function is not None:
                pending = _pending(function, event.key, event.backend, event.signature)
                if pending is not None:
                    self.pending.append(pending)

    def cell_started(self) -> None:
        self.pending.clear()
        self.in_cell = True

    def cell_finished(self) -> Note | None:
        pending, self.pending, self.in_cell = self.pending, [], False
        return pending[0]() if pending else None


def _pending(function, jitted, backend, signature=()):
    """The note a function's first trace calls for, made at the cell's end (what a global or a
    list holds then is said), or None: a callable that holds neither the function nor its jit.
    `signature` is the compile's ((path, type), ...): an argument traced as a Ref is written
    in place by an item set, in JAX as here, and is no copy left as it was."""
    # (the NumPy backend compiles nothing: "its program", not its compiled one)
    program = "compiled program" if miss_words.compiles(backend) else "program"
    found = attribute_sets(function)
    if found:
        return functools.partial(_note, function.__func__.__name__, found, program,
                                 _owner_name(function))
    name = getattr(function, "__name__", "the function")
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    call = _call_name(function, jitted)
    sets = global_sets(function)
    if sets:
        return functools.partial(_global_note, name, code, call, sets[0], program,
                                 reader(function))
    changes = outside_changes(function)
    if changes:
        owner = _owner_name(function) if hasattr(function, "__self__") else None
        return functools.partial(_change_note, name, code, call, changes[0], program,
                                 reader(function), owner)
    refs = {path for path, text in signature if str(text).startswith("Ref{")}
    given = [found for found in argument_changes(function) if found[1] not in refs]
    if given:
        return functools.partial(_argument_note, name, code, call, given[0],
                                 returns_a_value(function), program, _nnx_name(function, code))
    drawn = random_draws(function)
    if drawn:
        return functools.partial(_draw_note, name, drawn, program,
                                 ", ".join(_parameters(code)))
    read = clock_reads(function)
    if read:
        return functools.partial(_clock_note, name, call, read, program)
    return None


def _call_name(function, jitted) -> str:
    """How the user calls the jitted function: a global name the jit is bound to, its own name
    first (`@jax.jit def f`: `f`; `fast = jax.jit(t.step)`: `fast`), else `jax.jit(f)`
    (`jax.jit(t.step)` for a bound method of the object named `t`)."""
    name = getattr(function, "__name__", "f")
    scope = getattr(getattr(function, "__func__", function), "__globals__", {})
    if scope.get(name) is jitted:
        return name
    bound = name_of(jitted, scope)
    if bound:
        return bound
    if hasattr(function, "__self__"):
        return f"jax.jit({_owner_name(function)}.{name})"
    return f"jax.jit({name})"


def _owner_name(method) -> str:
    """The global name of a bound method's object (`t` for t.step), else 'obj'."""
    return name_of(method.__self__, getattr(method.__func__, "__globals__", {})) or "obj"


def _draw_note(name: str, drawn, program: str = "compiled program",
               parameters: str = "x") -> Note:
    call, file, line, jax_call = drawn[0]
    at = source_label(Site(file, line))
    one = draws_one(ast.parse(call, mode="eval").body)
    what, same = ("number", "that same number") if one else ("numbers", "those same numbers")
    drawn_line = _drawn_line(file, line, call, jax_call) or \
        f"... {jax_call or 'jax.random.normal(key, shape)'} ..."
    key = "" if "key" in parameters.split(", ") else ", key"
    return Note(
        f"⚠ {call} drew its {what} once, while {name} was traced (at {at}): the {program} "
        f"uses {same} on every call",
        body=("NumPy's and Python's random functions run in Python, at the trace alone (as in "
              "JAX): the value they return is baked into the program. Draw inside the program "
              "with jax.random and a key passed in, a new key for each call:\n"
              f"  def {name}({parameters}{key}):\n"
              f"      {drawn_line}\n"
              "  key, sub = jax.random.split(key)    # then call it with sub"),
        kind="info", details=True)


def _drawn_line(file, line, call, jax_call) -> str | None:
    """The user's statement at `line` of `file` with its draw `call` written as `jax_call`
    (as typed otherwise; a shuffle in place binds the permuted copy), or None where it is
    not read back."""
    tree = parse_file(file) if jax_call is not None else None
    stmts = [s for s in ast.walk(tree) if isinstance(s, ast.stmt) and not isinstance(
        s, _BLOCKS) and s.lineno <= line <= s.end_lineno] if tree is not None else []
    calls = [c for s in stmts[-1:] for c in ast.walk(s)
             if isinstance(c, ast.Call) and ast.unparse(c) == call]
    if not calls:
        return None
    stmt, text = stmts[-1], "".join(linecache.getlines(file))
    if isinstance(stmt, ast.Expr) and stmt.value is calls[0] and \
            jax_call.startswith("jax.random.permutation("):
        jax_call = f"{segment(text, calls[0].args[0])} = {jax_call}"
    lines = replaced(text, [(calls[0], jax_call)]).splitlines()[stmt.lineno - 1:stmt.end_lineno]
    return textwrap.dedent("\n".join(lines)).replace("\n", "\n      ")


# statements that hold others: the draw's own statement is the innermost of the rest
_BLOCKS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor,
           ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try, ast.Match)


def _note(name: str, found, program: str = "compiled program", owner: str = "obj") -> Note:
    attribute, file, line = found[0]
    at = source_label(Site(file, line))
    return Note(
        f"⚠ {name} sets self.{attribute} (at {at}) once, while traced: its {program} "
        f"neither reads nor changes self.{attribute}",
        body=(f"A jitted function's Python side effects (an attribute set, a list appended to) "
              f"happen at its trace alone, as in JAX: the program returns what the trace "
              f"computed from self.{attribute} then. Pass the state in and return the new "
              f"state (JAX's stateful-computations tutorial):\n"
              f"  def {name}(self, state):\n"
              f"      ...                           # from state, not self.{attribute}\n"
              f"      return value, new_state\n"
              f"  value, state = jax.jit({owner}.{name})(state)"),
        kind="info", details=True)


def _tracer_in(value) -> bool:
    """Whether a value, or an item of a list, dict, set or deque, is a tracer: left by a trace,
    it is no value (using it raises UnexpectedTracerError)."""
    items = value.values() if isinstance(value, dict) else \
        value if is_container(value) else [value]
    return any(isinstance(item, Tracer) for item in items)


def _global_note(name: str, code, call_name: str, found, program: str, read) -> Note:
    variable, kind, value, file, line = found
    at = source_label(Site(file, line))
    parameters = _parameters(code)
    reads = variable in {n.id for n in ast.walk(ast.parse(value)) if isinstance(n, ast.Name)}
    inputs = ", ".join(parameters + ([variable] if reads else []))
    call = ", ".join([p for p in parameters if p != "self"] + ([variable] if reads else []))
    tracer = _tracer_in(read(variable))
    return Note(
        f"⚠ {name} sets the {kind} {variable} (at {at}) once, while traced: calls of its "
        f"{program} leave {variable} as it is" +
        (f", and {variable} now holds a tracer of that trace, not a value" if tracer else ""),
        body=(f"A jitted function's Python side effects (a global set, a list appended to) "
              f"happen at its trace alone, as in JAX ({PURE_FUNCTIONS}). " +
              ("Pass what it reads in and return what it sets:\n" if reads else
               "Return what it sets, and set it from the result:\n") +
              f"  def {name}({inputs}):\n"
              f"      ...\n"
              f"      return y, {value}\n"
              f"  y, {variable} = {call_name}({call})"),
        kind="info", details=True)


def _parameters(code) -> list:
    """A function's positional parameters' names (['x'] where it has no code)."""
    return list(code.co_varnames[:code.co_argcount]) if code else ["x"]


def _change_note(name: str, code, call: str, found, program: str, read,
                 owner: str | None = None) -> Note:
    """`owner`: a bound method's object's name, said for its first parameter outside it."""
    statement, variable, value, outside, file, line = found
    at = source_label(Site(file, line))
    tracer = _tracer_in(read(variable))
    body = (f"A jitted function's Python side effects happen at its trace alone, as in JAX "
            f"({PURE_FUNCTIONS})" +
            (", and a tracer kept past its trace is no value: using it raises "
             "UnexpectedTracerError" if tracer else "") + ".")
    if value is not None:
        me = code.co_varnames[0] if owner and code.co_argcount else None
        if me and outside.startswith(me + "."):
            outside = owner + outside[len(me):]
        body += (f" Return the value and change {variable} outside the jitted function:\n"
                 f"  y, kept = {call}({', '.join(p for p in _parameters(code) if p != 'self')})"
                 f"    # {name} returning (y, {value})\n"
                 f"  {outside}")
        method = statement.split("(", 1)[0] if statement.endswith(f"({value})") else None
        if method and method.endswith((".append", ".add")):
            body += (f"\nor, to run it on every call of the {program}, a host callback in its "
                     f"place:\n  jax.debug.callback({method}, {value})")
    else:
        body += (f" Pass what it reads of {variable} in as an argument, return what it puts "
                 f"there, and change {variable} with that outside the jitted function.")
    return Note(
        f"⚠ {name} changes {variable} ({statement}, at {at}) once, while traced: calls of its "
        f"{program} leave {variable} as it is" +
        (f", and {variable} now holds a tracer of that trace, not a value" if tracer else ""),
        body=body, kind="info", details=True)


def _clock_note(name: str, call_name: str, read, program: str) -> Note:
    call, file, line = read[0]
    at = source_label(Site(file, line))
    if len(read) == 1:
        said = (f"⚠ {call} read the clock once, while {name} was traced (at {at}): its number "
                f"is the trace's, the same on every call of the {program}")
    else:
        ats = " and ".join(source_label(Site(f, n)) for _, f, n in read[:2])
        said = (f"⚠ {name} read the clock at {ats}, once each, while traced: what they measure "
                f"is its trace, not the calls of its {program}")
    return Note(
        said,
        body=("Python's clock runs at the trace alone (as in JAX): the number it gave is baked "
              "into the program. To use the time in the program, pass it in:\n"
              f"  def {name}(x, now):\n"
              "      ... now ...\n"
              f"  {call_name}(x, {call})\n"
              "To time the program, time its call from outside, waiting for the result:\n"
              f"  %timeit {call_name}(x).block_until_ready()"),
        kind="info", details=True)


def _argument_note(name: str, code, call: str, found, returns: bool, program: str,
                   nnx: str | None = None) -> Note:
    """`nnx`: the name the function's code reads Flax's nnx module by (None: it reads none)."""
    statement, argument, file, line = found
    at = source_label(Site(file, line))
    parameters = _parameters(code)
    arguments = ", ".join(p for p in parameters if p != "self")
    title = (f"⚠ {name} changes its argument {argument} ({statement}, at {at}) but never "
             f"returns it: under jit, {name} gets a copy of {argument} that the trace made "
             f"from its arrays, so the {argument} you passed is left as it was")
    if nnx is not None:
        # Flax NNX objects change in place by design (optimizer.update(model, grads) changes
        # both): nnx.jit carries that back (JAX 0.10.2 with Flax 0.12.7: the loss goes down,
        # library_notes' jax_jit_of_nnx_step_fixed), where returning one would lose the other
        return Note(title, body=(
            f"jax.jit takes each argument apart into its arrays and gives the trace a copy, as "
            f"JAX does: a change to a Flax NNX object inside (an optimizer's update, a "
            f"module's attribute) changes that copy alone. {nnx}.jit, Flax's jit, carries "
            f"such changes back to the objects you passed: use it in place of jax.jit:\n"
            f"  @{nnx}.jit\n"
            f"  def {name}({', '.join(parameters)}):\n"
            f"      ..."), kind="info", details=True)
    # the result's name in the code: one none of the parameters has (`y` was also an input's)
    result = next(n for n in ("y", "out", "result", "value") if n not in parameters)
    kept = f"{result}, {argument}" if returns else argument
    return Note(
        title,
        body=(f"jit takes each argument apart into its arrays and builds its dicts and lists "
              f"anew for the trace, as JAX does: an item set or an append changes that copy "
              f"alone ({PURE_FUNCTIONS}). Return it, and keep what the call returns:\n"
              f"  def {name}({', '.join(parameters)}):\n"
              f"      ...\n"
              f"      return {result + ', ' if returns else ''}{argument}\n"
              f"  {kept} = {call}({arguments})"),
        kind="info", details=True)


def _nnx_name(function, code) -> str | None:
    """The global name `function`'s code reads Flax's nnx module by (`nnx` of `from flax
    import nnx`), or None."""
    scope = getattr(getattr(function, "__func__", function), "__globals__", {})
    for used in (code.co_names if code else ()):
        if getattr(scope.get(used), "__name__", None) == "flax.nnx":
            return used
    return None
