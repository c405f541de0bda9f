"""The note under a cell whose line made an updated copy of an array and dropped it:
`x.at[0].set(10)` (or `x.sort()`, which NumPy sorts in place) as a statement of its own. A
learner from NumPy, where `x[0] = 10` changes x, writes it expecting x to change; JAX arrays
are immutable, the call returns the new array, and x stays as it was. JAX says nothing.

    x = jnp.arange(5)
    x.at[0].set(10)     # ⚠ x.at[0].set(10) made a new array, and nothing kept it ...
    x                   # Array([0, 1, 2, 3, 4], dtype=int32)

A loop's item updated (`for row in m: row.at[0].set(1.)`) is told to be put back into m at
its index: `row = <copy>` alone keeps nothing once the turn ends.

A cell's last line shows its value (IPython's Out): there the note says so, and x unchanged,
and a copy of no name's array (`jnp.zeros(3).at[1].set(2.)`, a demonstration) is not told.
"""
from __future__ import annotations

import ast
import linecache

from ...numpy import indexing
from ...xla.array import Array
from ...views.source import is_user_file
from ...views.source_edits import own_nodes, parse_file, span
from ..display import Note, Site, cell_name, more_lines, source_label

SHARP_BITS = ("https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
              "#in-place-updates")
# `.at[idx]`'s methods that return an updated copy (get reads, and is not told)
UPDATES = frozenset({"set", "add", "subtract", "multiply", "mul", "divide", "power", "min",
                     "max", "apply"})


def install() -> None:
    """Have the user's `.at` updates and sorts recorded, for the note: at the extension's load."""
    indexing.record_update_sites = True


def uninstall() -> None:
    indexing.record_update_sites = False


def clear() -> None:
    """Forget the updates made so far: at a cell's start."""
    indexing.update_sites.clear()


def cell_note(told: set | None = None) -> Note | None:
    """The note of the cell that just ran, or None: no `.at` update or `sort` of the user's
    code dropped its result, or only at lines told of before (`told`: (file, line), kept by
    the loaded extension)."""
    sites = [s for s in dict.fromkeys(indexing.update_sites) if is_user_file(s[0])]
    indexing.update_sites.clear()
    if told is not None:
        sites = [s for s in sites if s[:2] not in told]
    dropped = [(s[:2], found) for s in sites if (found := dropped_update(*s)) is not None]
    dropped = list(dict((s, f) for s, f in dropped).items())      # (a line told once)
    if told is not None:
        told.update(s for s, _ in dropped)
    if not dropped:
        return None
    (file, line), (call, shown) = dropped[0]
    others = more_lines(s for s, _ in dropped)
    # the call as typed (ast.unparse would write 2. as 2.0, and requote strings)
    text = ast.get_source_segment("".join(linecache.getlines(file)), call) or ast.unparse(call)
    receiver = _root(call)
    named = _named(receiver)
    source = linecache.getline(file, line)
    indent = source[:len(source) - len(source.lstrip())]
    what = "returned a new array, shown as the cell's output" if shown else \
        "made a new array, and nothing kept it"
    how = ("x.sort() returns a sorted copy and leaves x as it was, where NumPy's x.sort() "
           "sorts x in place" if _is_sort(call) else
           "x.at[idx].set(v) (and .add, .multiply, ...) returns an updated copy and leaves x as "
           "it was, where NumPy's x[idx] = v changes x in place")
    keep = _keep(parse_file(file), file, call, text, indent)
    return Note(
        f"⚠ {text} {what} (at {source_label(Site(file, line))}){others}"
        + (f": {named} is unchanged" if named else ""),
        body=f"JAX arrays are immutable: {how} ({SHARP_BITS}). {keep}",
        kind="info", details=True)


def _loop_taking(tree, call: ast.Call, name: str):
    """The innermost `for` loop, of the scope of `call`, that binds `name` each turn (`for row
    in m:`, `for i, row in ...`), or None. There `name = <copy>` (the usual fix) keeps nothing:
    the next turn rebinds it, and what the loop went over (m) does not change, where NumPy's
    rows are views of m and `row[0] = 1` changes m."""
    at = span(call)                  # (`call` is of another parse of the file: its place)

    def inside(node, loop):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Call) and span(child) == at:
                return loop
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                  ast.ClassDef)):
                found = inside(child, None)            # (a scope of its own)
            else:
                binds = isinstance(child, ast.For) and any(
                    isinstance(n, ast.Name) and n.id == name for n in ast.walk(child.target))
                found = inside(child, child if binds else loop)
            if found is not False:
                return found
        return False
    found = inside(tree, None) if tree is not None else None
    return found or None


def _loop_fix(loop: ast.For, name: str, text: str, indent: str, file: str) -> str:
    """What the note says to do where the copy was made of a loop's item (`row`, of `for row
    in m:`): keep it under row's name (later lines of the turn read it) and put it back into m
    at the item's index, written out where the loop is the cell's own (its top level), over a
    name holding an Array or a list, with `for row in m:` on one line; else said in words."""
    over = loop.iter.id if isinstance(loop.iter, ast.Name) else None
    # (what the name holds is known where the loop ran at the cell's top level, in the
    # shell's namespace; not in a function, or in a module of the user's own)
    value = _cell_namespace().get(over) if over and loop.col_offset == 0 and \
        cell_name(file) is not None else None
    said = (f"{name} is the for loop's name for each item of {over or 'what it goes over'} "
            f"in turn: keeping the copy under {name}'s name keeps it for the rest of the turn "
            f"only, and {over or 'what the loop goes over'} does not change (NumPy's "
            f"{name}[0] = v writes into the item itself: a view of an array's row, or the very "
            "array a list holds)")
    header = linecache.getline(file, loop.lineno)
    if not (isinstance(loop.target, ast.Name) and isinstance(value, (Array, list)) and
            loop.target.lineno == loop.iter.end_lineno == loop.lineno):
        seq = over or "..."
        return (f"{said}. Keep it, and put it back at the item's index: loop with for i, "
                f"{name} in enumerate({seq}), then write {name} = {text} and {seq} = "
                f"{seq}.at[i].set({name}) where {seq} is an array ({seq}[i] = {name} where it "
                "is a list).")
    i = next((n for n in ("i", "j", "k", "index") if n not in _names(file)), "item_index")
    # (columns count UTF-8 bytes, as ast's)
    raw = header.encode()
    start, end = loop.target.col_offset, loop.iter.end_col_offset
    header = (raw[:start].decode() + f"{i}, {name} in enumerate({over})" +
              raw[end:].decode()).rstrip("\n")
    back = f"{over} = {over}.at[{i}].set({name})" if isinstance(value, Array) else \
        f"{over}[{i}] = {name}"
    return (f"{said}. Keep it, and put it back into {over} at the item's index:\n  {header}"
            f"\n  {indent}{name} = {text}\n  {indent}{back}")


def _keep(tree, file: str, call: ast.Call, text: str, indent: str) -> str:
    """What the note says to do with the dropped copy `text` (of `call`, at `indent`): keep it
    under the receiver's name where that is a plain name, put back into what a loop goes over
    (_loop_fix), returned where the name is a parameter the def never returns (_returned);
    in the object's field for `self.w` (_field_fix); else under a name of its own (x.T, a
    property, or x[0], an array's row, cannot be assigned to)."""
    receiver = _root(call)
    named = _named(receiver)
    function = _function_of(tree, call)
    if isinstance(receiver, ast.Name):
        loop = _loop_taking(tree, call, named)
        if loop is not None:
            return _loop_fix(loop, named, text, indent, file)
        return _returned(function, named, call, text, indent)
    owner = _class_of(tree, function)
    if owner is not None and isinstance(receiver, ast.Attribute) and \
            isinstance(receiver.value, ast.Name) and function.args.args and \
            receiver.value.id == function.args.args[0].arg:
        return _field_fix(owner, function, receiver, call, text, indent)
    return f"Keep the copy, under a name:\n  {indent}updated = {text}"


def _function_of(tree, call: ast.Call):
    """The innermost def whose body holds `call` (of another parse of the file: by its
    place), or None at the file's top level."""
    at, found = span(call), None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                any(isinstance(n, ast.Call) and span(n) == at for n in ast.walk(node)) and \
                (found is None or node.lineno > found.lineno):
            found = node
    return found


def _class_of(tree, function):
    """The class whose body defines `function` (a method), or None."""
    return None if function is None else next(
        (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and
         any(m is function for m in n.body)), None)


def _returned(function, name: str, call: ast.Call, text: str, indent: str) -> str:
    """The fix keeping the copy under `name`'s name; where `name` is a parameter of the def
    holding it that the def never returns, the copy so kept ends with the call, and the
    caller's array is unchanged (a function gets JAX arrays as values: NumPy's v[0] = 5
    changed the caller's): then returned too, a `return name` after the kept line where that
    line ends the def, in words elsewhere."""
    kept = f":\n  {indent}{name} = {text}"
    params = set() if function is None else {a.arg for a in function.args.args +
                                             function.args.posonlyargs + function.args.kwonlyargs}
    returns = [n for n in own_nodes(function) if isinstance(n, ast.Return)] \
        if name in params else []
    if name not in params or any(isinstance(r.value, ast.Name) and r.value.id == name
                                 for r in returns):
        return f"Keep the copy, under {name}'s name or a new one{kept}"
    said = (f"Keep the copy under {name}'s name, and return it: {name} is {function.name}'s "
            "parameter, so the copy kept under its name ends with the call, and the caller's "
            "array is unchanged (a function gets JAX arrays as values, where NumPy's in-place "
            f"write changed the caller's). Keep what {function.name} returns where it is "
            f"called (x = {function.name}(x))")
    last = function.body[-1]
    if not returns and isinstance(last, ast.Expr) and span(last.value) == span(call):
        return f"{said}{kept}\n  {indent}return {name}"
    return f"{said}; return {name} where {function.name} ends{kept}"


def _field_fix(owner: ast.ClassDef, method, receiver, call: ast.Call, text: str,
               indent: str) -> str:
    """The fix for `self.w.at[...]...` dropped in `method` of the class `owner`: the copy put
    back in the field (`self.w = ...`) where the object can take it (no frozen dataclass,
    NamedTuple or pytree node, and the method not jitted: a traced copy kept in the object
    outlives the trace); else an updated copy of the object returned, to keep where the
    method is called (`updated = self.w...`, the note's code before, kept nothing once the
    method returned)."""
    field = receiver.attr
    if not _frozen(owner) and not method.decorator_list:
        return f"Keep the copy, in the object's field:\n  {indent}{ast.unparse(receiver)} = {text}"
    me = receiver.value.id
    copy = f"{me}._replace({field}={text})" if _named_tuple(owner) else \
        f"dataclasses.replace({me}, {field}={text})"
    jitted = ("; and a traced copy kept in it would outlive the trace of the decorated "
              f"{method.name}") if method.decorator_list else ""
    return (f"{ast.unparse(receiver)} is a field of an object of class {owner.name}, which "
            "takes no new value for it (a frozen dataclass, a NamedTuple or a library's pytree "
            f"node{jitted}): return an updated copy of the object from {method.name}, and keep "
            "it where "
            f"{method.name} is called (obj = obj.{method.name}()):\n  {indent}return {copy}")


def _frozen(owner: ast.ClassDef) -> bool:
    """Whether objects of the class `owner` refuse `obj.field = ...`: a NamedTuple, a pytree
    node of a library (Equinox's Module, Flax's PyTreeNode), a frozen dataclass (Flax's
    struct.dataclass is one)."""
    bases = [ast.unparse(b) for b in owner.bases]
    decorators = [ast.unparse(d) for d in owner.decorator_list]
    return _named_tuple(owner) or any(b.endswith(("Module", "PyTreeNode", "Struct"))
                                      for b in bases) or \
        any("frozen=True" in d or d.endswith("struct.dataclass") for d in decorators)


def _named_tuple(owner: ast.ClassDef) -> bool:
    return any(ast.unparse(b).endswith("NamedTuple") for b in owner.bases)


def _names(file: str) -> set:
    """The names the cell's code uses (a name the fix adds must be none of them)."""
    tree = parse_file(file)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} if tree else set()


def _cell_namespace() -> dict:
    """The shell's namespace, where a cell's top level ran, or {} outside IPython."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:
        return {}
    return shell.user_ns if shell is not None else {}


def dropped_update(file: str, line: int, position=None) -> tuple[ast.Call, bool] | None:
    """The `x.at[...].set(...)` or `x.sort()` call that is the whole statement at `line` of
    `file` (its result dropped, or only shown: the cell's last expression, IPython's Out), and
    whether it was shown; None where there is none, or where a copy of no name's array was
    shown (a demonstration, `jnp.zeros(3).at[1].set(2.)`). `position`: where the call that
    ran is ((line, end line, column, end column)), which the statement's call must be."""
    tree = parse_file(file)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and node.lineno <= line <= node.end_lineno and \
                (_is_update(node.value) or _is_sort(node.value)) and \
                (position is None or position == (node.value.lineno, node.value.end_lineno,
                                                  node.value.col_offset,
                                                  node.value.end_col_offset)):
            shown = node is tree.body[-1] and cell_name(file) is not None and \
                not "".join(linecache.getlines(file)).rstrip().endswith(";")
            if shown and _named(_root(node.value)) is None:
                return None
            return node.value, shown
    return None


def _named(node) -> str | None:
    """`node`'s text where it names what holds an array (x, self.w, params['w'], x.T), else
    None (a call's result, an expression)."""
    return ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) \
        else None


def _receiver(call: ast.Call):
    """x, of `x.at[0].set(10)` or `x.sort()`."""
    return call.func.value if _is_sort(call) else call.func.value.value.value


def _root(call: ast.Call):
    """The array a chain of updates started from: x, of `x.at[0].set(1).at[1].set(2)` (each
    update's copy feeds the next; the last's is the one dropped, and x is what stays as it
    was). A sort's receiver is not looked into: `jnp.sort(x).at[0].set(1)` is a call's copy."""
    receiver = _receiver(call)
    while _is_update(receiver):
        receiver = _receiver(receiver)
    return receiver


def _is_sort(node) -> bool:
    """Whether `node` is a call `<array>.sort(...)` (jxkernel's Array.sort recorded its line:
    a list's sort, in place, records none)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr == "sort"


def _is_update(node) -> bool:
    """Whether `node` is a call `<array>.at[<index>].<update>(...)`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr in UPDATES and isinstance(node.func.value, ast.Subscript) and \
        isinstance(node.func.value.value, ast.Attribute) and node.func.value.value.attr == "at"
