"""The note under a cell that jitted a method which sets an attribute of its object: under jit
that assignment runs once, while the method is traced, and the compiled program neither reads
nor changes the attribute again (JAX's stateful-computations tutorial: a Counter whose jitted
`count` returns 1 on every call, in JAX 0.10.2 and here alike, silently).

    counter = Counter()
    fast_count = jax.jit(counter.count)     # count does `self.n += 1`
    fast_count(); fast_count()              # ⚠ count sets self.n (at In[3]:5): ...
"""
from __future__ import annotations

import ast
import inspect
import textwrap

from ..core import compile_record
from ..core.compile_record import USER
from .display import Note, source_label
from .print_notes import _Site


class MethodWatch:
    """The compile log between a cell's start and end, for the first trace of each jitted
    bound method whose code sets an attribute of its object."""

    def __init__(self):
        self.start = compile_record.last_seq() + 1

    def cell_started(self) -> None:
        self.start = compile_record.last_seq() + 1

    def cell_finished(self) -> Note | None:
        events = compile_record.events_since(self.start)
        self.start = compile_record.last_seq() + 1
        for event in events:
            if event.origin == USER and event.nth <= 1:
                method = getattr(event.key, "__wrapped__", None)
                found = attribute_sets(method)
                if found:
                    return _note(method, found)
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


def _note(method, found) -> Note:
    name = method.__func__.__name__
    attribute, file, line = found[0]
    at = source_label(_Site(file, line))
    return Note(
        f"⚠ {name} sets self.{attribute} (at {at}) once, while traced: its compiled program "
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
