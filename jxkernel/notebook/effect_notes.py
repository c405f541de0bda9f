"""The note under a cell that jitted a function whose Python side effects run at its trace
alone, silently, in JAX 0.10.2 and here alike: a method that sets an attribute of its object
(JAX's stateful-computations tutorial: a Counter whose jitted `count` returns 1 on every call),
and a draw from NumPy's or Python's random module, whose number the program keeps.

    counter = Counter()
    fast_count = jax.jit(counter.count)     # count does `self.n += 1`
    fast_count(); fast_count()              # ⚠ count sets self.n (at In[3]:5) once, ...
"""
from __future__ import annotations

import ast
import inspect
import textwrap

from ..core import compile_record, miss_words
from ..core.compile_record import USER
from .display import Note, Site, source_label


class TraceEffectsWatch:
    """The compile log between a cell's start and end, for the first trace of each jitted
    function of the user's whose code has such a side effect."""

    def __init__(self):
        self.start = compile_record.last_seq() + 1

    def cell_started(self) -> None:
        self.start = compile_record.last_seq() + 1

    def cell_finished(self) -> Note | None:
        events = compile_record.events_since(self.start)
        self.start = compile_record.last_seq() + 1
        for event in events:
            if event.origin == USER and event.nth <= 1:
                function = getattr(event.key, "__wrapped__", None)
                found = attribute_sets(function)
                # (the NumPy backend compiles nothing: "its program", not its compiled one)
                program = "compiled program" if miss_words.compiles(event.backend) else \
                    "program"
                if found:
                    return _note(function, found, program)
                drawn = random_draws(function)
                if drawn:
                    return _draw_note(function, drawn, program)
        return None


def attribute_sets(method) -> list:
    """[(attribute, file, line)] of each assignment to an attribute of a bound method's own
    object (`self.n += 1`, `self.items = ...`) in its code; [] for anything else.

        >>> class Counter:
        ...     def count(self):
        ...         self.n += 1
        ...         return self.n
        >>> [a for a, _, _ in attribute_sets(Counter().count)]
        ['n']
    """
    function = getattr(method, "__func__", None)
    if getattr(method, "__self__", None) is None or function is None:
        return []
    try:
        lines, first = inspect.getsourcelines(function)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return []
    definition = tree.body[0] if tree.body else None
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
            not definition.args.args:
        return []
    me = definition.args.args[0].arg
    found = []
    for node in ast.walk(definition):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and \
                    target.value.id == me:
                found.append((target.attr, function.__code__.co_filename,
                              first + node.lineno - 1))
    return found


def random_draws(function) -> list:
    """[(call, file, line)] of each call of NumPy's or Python's random module in a function's
    own code (`np.random.normal()`, `random.random()`), its names read from its globals,
    never called; [] for anything else.

        >>> import numpy as np
        >>> [c for c, _, _ in random_draws(lambda x: x + np.random.normal())]
        ['np.random.normal()']
    """
    function = getattr(function, "__func__", function)
    code = getattr(function, "__code__", None)
    if code is None:
        return []
    try:
        lines, first = inspect.getsourcelines(function)
    except (OSError, TypeError):
        return []
    tree = _parsed(lines)
    if tree is None:
        return []
    scope = getattr(function, "__globals__", {})
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = _resolved(node.func.value, scope)
            if _draws(owner):
                found.append((ast.unparse(node), code.co_filename,
                              first + node.lineno - 1))
    return found


def _draws(owner) -> bool:
    """Whether `owner`'s methods draw random numbers in Python: NumPy's or Python's random
    module, or a generator of theirs (`rng = np.random.default_rng(0)`, NumPy's advice for new
    code; `np.random.RandomState`, `random.Random`), whose draw under jit is baked in alike
    (JAX 0.10.2: rng.normal() the same on two calls, recorded)."""
    if inspect.ismodule(owner):
        return owner.__name__ in ("numpy.random", "random")
    import random
    import numpy as np
    return isinstance(owner, (np.random.Generator, np.random.RandomState, random.Random))


def _parsed(lines):
    """The syntax tree of a function's source lines (a lambda's line may hold more than it:
    the line alone, else None)."""
    try:
        return ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return None


def _resolved(node, scope):
    """The object `np.random` names in `scope` (attributes read, nothing called), or None."""
    if isinstance(node, ast.Name):
        return scope.get(node.id)
    if isinstance(node, ast.Attribute):
        return getattr(_resolved(node.value, scope), node.attr, None)
    return None


def _draw_note(function, drawn, program: str = "compiled program") -> Note:
    name = getattr(function, "__name__", "the function")
    call, file, line = drawn[0]
    at = source_label(Site(file, line))
    return Note(
        f"⚠ {call} drew its number once, while {name} was traced (at {at}): the {program} "
        f"uses that same number on every call",
        body=("NumPy's and Python's random functions run in Python, at the trace alone (as in "
              "JAX): the value they return is baked into the program. Draw inside the program "
              "with jax.random and a key passed in, a new key for each call:\n"
              f"  def {name}(x, key):\n"
              "      ... jax.random.normal(key) ...\n"
              "  key, sub = jax.random.split(key)    # then call it with sub"),
        kind="info", details=True)


def _note(method, found, program: str = "compiled program") -> Note:
    name = method.__func__.__name__
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
              f"  value, state = jax.jit(obj.{name})(state)"),
        kind="info", details=True)
