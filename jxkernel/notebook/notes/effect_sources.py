"""What a function's own source does that runs at its trace alone, read from its code (nothing
is called): a bound method's attribute set, a global or nonlocal set, a list, dict or set from
outside changed, a draw of NumPy's or Python's random module, a read of the clock. The notes
that tell them are effect_notes.py's.

    >>> LOG = []
    >>> [statement for statement, *_ in outside_changes(lambda x: LOG.append(x))]
    ['LOG.append(x)']
"""
from __future__ import annotations

import ast
import collections
import datetime
import functools
import inspect
import textwrap
import time

from ...views.host_callbacks import inside_callbacks
from ...views.random_calls import as_jax_random, family_of


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
    found = _tree(method) if getattr(method, "__self__", None) is not None else None
    if found is None:
        return []
    tree, first, code = found
    definition = tree.body[0] if tree.body else None
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
            not definition.args.args:
        return []
    me = definition.args.args[0].arg
    sets = []
    for node in _traced(definition):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and \
                    target.value.id == me:
                sets.append((target.attr, code.co_filename, first + node.lineno - 1))
    return sets


def random_draws(function) -> list:
    """[(call, file, line, jax.random's call)] of each call of NumPy's or Python's random
    module in a function's own code (`np.random.normal()`, `random.random()`), or of a
    generator of theirs, its names read from its globals, never called; [] for anything else.
    The last is the draw written with jax.random and a `key` (views/random_calls.py), or None.

        >>> import numpy as np
        >>> [(c, j) for c, _, _, j in random_draws(lambda x: x + np.random.normal(size=3))]
        [('np.random.normal(size=3)', 'jax.random.normal(key, (3,))')]
    """
    found = _tree(function)
    if found is None:
        return []
    tree, first, code = found
    scope = getattr(getattr(function, "__func__", function), "__globals__", {})
    found = []
    for node in _traced(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            # a generator's draw (`rng = np.random.default_rng(0)`, NumPy's advice for new
            # code) is baked in as the module's is (JAX 0.10.2: rng.normal() the same on two
            # calls, recorded)
            family = family_of(_resolved(node.func.value, scope))
            if family is not None:
                found.append((ast.unparse(node), code.co_filename, first + node.lineno - 1,
                              as_jax_random(node, family, "key")))
    return found


def _traced(tree):
    """ast.walk of the code that runs at the trace: the functions handed to host callbacks,
    which run at each call, left out (views/host_callbacks.py)."""
    skip = inside_callbacks(tree)
    return (node for node in ast.walk(tree) if id(node) not in skip)


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


# The methods that change a list, dict, set or deque in place: called on one from outside a
# jitted function, they change it once, at the trace
_CHANGING = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
                       "update", "setdefault", "popitem", "add", "discard", "appendleft",
                       "extendleft", "popleft"})


def returns_a_value(function) -> bool:
    """Whether any `return` of a function's code gives a value (`return loss`, not `return`)."""
    found = _tree(function)
    return found is not None and any(isinstance(n, ast.Return) and n.value is not None
                                     for n in ast.walk(found[0]))


def _tree(function):
    """(syntax tree, first line, code) of a plain function's source, or None. Each finder
    asks, at a function's first trace: parsed once per code object (a few kept)."""
    function = getattr(function, "__func__", function)
    code = getattr(function, "__code__", None)
    return None if code is None else _tree_of_code(code)


@functools.lru_cache(maxsize=16)
def _tree_of_code(code):
    try:
        lines, first = inspect.getsourcelines(code)
    except (OSError, TypeError):
        return None
    tree = _parsed(lines)
    return None if tree is None else (tree, first, code)


def _declared(tree) -> dict:
    """{name: 'global' | 'nonlocal'} of a function's `global` and `nonlocal` statements."""
    return {name: "global" if isinstance(node, ast.Global) else "nonlocal"
            for node in ast.walk(tree) if isinstance(node, (ast.Global, ast.Nonlocal))
            for name in node.names}


def _local_names(tree) -> set:
    """The names a function's code binds itself (arguments, assignments, loop and `with`
    targets, imports, nested definitions), less those it declares global or nonlocal: a list
    made inside the function and appended to is no side effect."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound - set(_declared(tree))


def global_sets(function) -> list:
    """[(name, kind, new value, file, line)] of each assignment in a function's code to a name
    it declares global or nonlocal (kind), the new value as written (`COUNT + 1` for
    `COUNT += 1`); [] for anything else.

        >>> def step(x):
        ...     global COUNT
        ...     COUNT += 1
        ...     return x
        >>> [(n, k, v) for n, k, v, _, _ in global_sets(step)]
        [('COUNT', 'global', 'COUNT + 1')]
    """
    found = _tree(function)
    if found is None:
        return []
    tree, first, code = found
    declared = _declared(tree)
    sets = []
    for node in _traced(tree):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            targets = [node.target]
            value = ast.unparse(ast.BinOp(node.target, node.op, node.value))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = ast.unparse(node.value)
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id in declared:
                sets.append((target.id, declared[target.id], value, code.co_filename,
                             first + node.lineno - 1))
    return sets


def outside_changes(function) -> list:
    """[(statement, name, value, outside, file, line)] of each change a function's code makes to
    a list, dict, set or deque it reads from outside (a global, a closed-over variable, an
    attribute of either or of a bound method's own object): a method that changes it in place
    (`LOG.append(x)`, `self.losses.append(loss)`) or an item set (`SEEN["last"] = x`), with
    the value it puts there as written (None where it puts none) and the statement with
    `kept` in the value's place (None likewise); [] for anything else.

        >>> LOG = []
        >>> [(s, n, v, o) for s, n, v, o, _, _ in outside_changes(lambda x: LOG.append(x))]
        [('LOG.append(x)', 'LOG', 'x', 'LOG.append(kept)')]
    """
    found = _tree(function)
    if found is None:
        return []
    tree, first, code = found
    local, read = _local_names(tree), reader(function)
    me = code.co_varnames[0] if hasattr(function, "__self__") and code.co_argcount else None
    changes = []
    for node, target, value, outside in _changes(tree):
        path = _path(target)
        if not path or (path[0] in local and path[0] != me):
            continue
        if is_container(read(target)):
            if value is not None and path[0] in _names(ast.parse(value)):
                # the new value reads the container at the trace (`SEEN["n"] + 1`): returned,
                # it is the trace's number on every call, so no such fix is offered
                value = outside = None
            changes.append((ast.unparse(node), ast.unparse(target), value, outside,
                            code.co_filename, first + node.lineno - 1))
    return changes


def argument_changes(function) -> list:
    """[(statement, name, file, line)] of each in-place change a function's code makes to a
    list or dict it was given (`params["w"] = ...`, `xs.append(x)`), where no `return` of its
    gives that argument back: under jit the function gets a container the trace rebuilt from
    the leaves, so the caller's is left as it was. [] for anything else (a bound method's own
    object is attribute_sets' and outside_changes').

        >>> def update(params, g):
        ...     params["w"] = params["w"] - g
        >>> [(s, n) for s, n, _, _ in argument_changes(update)]
        [("params['w'] = params['w'] - g", 'params')]
    """
    found = _tree(function)
    if found is None:
        return []
    tree, first, code = found
    parameters = set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    if hasattr(function, "__self__") and code.co_argcount:
        parameters.discard(code.co_varnames[0])
    returned = {n.id for r in ast.walk(tree) if isinstance(r, ast.Return) and r.value
                for n in ast.walk(r.value) if isinstance(n, ast.Name)}
    rebound = {n.id for n in ast.walk(tree)
               if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return [(ast.unparse(node), target.id, code.co_filename, first + node.lineno - 1)
            for node, target, _, _ in _changes(tree)
            if isinstance(target, ast.Name) and target.id in parameters - returned - rebound]


def _changes(tree):
    """(statement, what it changes, the value it puts there as written or None, the statement
    with `kept` in the value's place or None) for each in-place change in a syntax tree: a
    method that changes a container (`x.append(v)`), an item set (`d[k] = v`, `d[k] += v`)."""
    kept = ast.Name("kept")
    for node in _traced(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _CHANGING:
            if node.args:
                outside = ast.Call(node.func, node.args[:-1] + [kept], node.keywords)
                yield node, node.func.value, ast.unparse(node.args[-1]), ast.unparse(outside)
            else:
                yield node, node.func.value, None, None
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Subscript):
            item = node.targets[0]
            yield (node, item.value, ast.unparse(node.value),
                   ast.unparse(ast.Assign([item], kept, lineno=0)))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
            item = node.target
            read = ast.Subscript(item.value, item.slice, ast.Load())
            yield (node, item.value, ast.unparse(ast.BinOp(read, node.op, node.value)),
                   ast.unparse(ast.Assign([item], kept, lineno=0)))


def _names(tree) -> set:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _path(node) -> list:
    """[root name, step, ...] of what a target names, each step ('.', attribute) or ('[]', a
    constant key): ['self', ('.', 'losses')] for `self.losses`, ['hist', ('[]', 'loss')] for
    `hist['loss']`, ['LOG'] for `LOG`; [] for anything else (a call, an item of a traced key).
    """
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        inner = _path(node.value)
        return inner + [(".", node.attr)] if inner else []
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        inner = _path(node.value)
        return inner + [("[]", node.slice.value)] if inner else []
    return []


def is_container(value) -> bool:
    """Whether a value is a list, dict, set or deque (what a side effect may change)."""
    return isinstance(value, (list, dict, set, collections.deque))


def reader(function):
    """A callable giving what a name, or a path of attributes and constant keys below one
    (`self.losses`, `hist['loss']`), names for `function` from outside it, now: its closure's
    cell, else its global, else a bound method's own object for its first parameter; an
    instance's or module's own attributes, a dict's entries, a list's items below (no property,
    __getattr__ or __getitem__ run, nothing called; None where none has it). It holds the
    function's globals, cells and object, not the function."""
    owner = getattr(function, "__self__", None)
    function = getattr(function, "__func__", function)
    code = getattr(function, "__code__", None)
    cells = dict(zip(code.co_freevars, function.__closure__ or ())) if code else {}
    scope = getattr(function, "__globals__", {})
    me = code.co_varnames[0] if owner is not None and code and code.co_argcount else None

    def read(target):
        """What `target` (a syntax node, or its text: `self.losses`, `hist['loss']`) holds."""
        if isinstance(target, str):
            try:
                target = ast.parse(target, mode="eval").body
            except SyntaxError:
                return None
        root, *steps = _path(target) or [None]
        if root == me:
            held = owner
        elif root in cells:
            try:
                held = cells[root].cell_contents
            except ValueError:         # an empty cell: not yet assigned
                return None
        else:
            held = scope.get(root)
        for kind, key in steps:
            if kind == ".":
                held = vars(held).get(key) if hasattr(held, "__dict__") else None
            else:                      # a dict's entry or a list's item: no __getitem__ run
                held = dict.get(held, key) if isinstance(held, dict) else \
                    list.__getitem__(held, key) if isinstance(held, list) and \
                    isinstance(key, int) and -len(held) <= key < len(held) else None
        return held
    return read


def clock_reads(function) -> list:
    """[(call, file, line)] of each read of the clock in a function's own code (`time.time()`,
    `time.perf_counter()`, `datetime.now()`...), its names read from its globals, never
    called; [] for anything else.

        >>> import time
        >>> [c for c, _, _ in clock_reads(lambda x: x + time.time())]
        ['time.time()']
    """
    found = _tree(function)
    if found is None:
        return []
    tree, first, code = found
    scope = getattr(getattr(function, "__func__", function), "__globals__", {})
    clocks = _clocks()
    return [(ast.unparse(node), code.co_filename, first + node.lineno - 1)
            for node in _traced(tree)
            if isinstance(node, ast.Call) and _resolved(node.func, scope) in clocks]


def _clocks() -> list:
    """Python's functions that read the clock (a list: datetime's bound `now` compares equal,
    not identical, to each one read)."""
    return [time.time, time.time_ns, time.perf_counter, time.perf_counter_ns, time.monotonic,
            time.monotonic_ns, time.process_time, datetime.datetime.now,
            datetime.datetime.utcnow, datetime.date.today]
