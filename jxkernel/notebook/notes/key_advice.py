"""The fix a key-reuse note offers (notebook/notes/key_notes.py): the learner's own lines rewritten
with a split before each draw, where they can be, and otherwise the rule in words. Every
rewrite is one a test runs under JAX 0.10.2 and finds drawing different numbers
(tests/data/key_reuse_note_cases.py's "advice" cases).

    >>> split_fix("b = jax.random.normal(key, (3,))", "normal")[1][1]
    'b = jax.random.normal(subkey, (3,))'
"""
from __future__ import annotations

import ast
import linecache
import re

from ...core.source_info import positions
from ...views.source_edits import after, own_nodes, parse_file, replaced, segment
from ..display import source_label


def advice(first_name, first_site, name, site, same_line) -> str:
    """Split before each draw, the first one too, and draw with the subkey: the user's own
    lines rewritten where each is at a cell's top level and one call of the function with the
    key as its first argument; a key that split consumed: draw with the keys it made; a
    function's line run again with the same key: a key of its own for each call."""
    if same_line and first_site.code is site.code and first_site.lasti == site.lasti and \
            _drew_with_a_parameter(site):
        loop = _loop_around(site)
        return again_advice(first_site) if loop is None else loop_advice(site, *loop)
    if first_name == "split" and first_site.callee == "split":
        return split_again_advice(first_site, site)
    if first_site.function != "<module>" and first_site.code is site.code and not same_line:
        # two lines of one function of the user's (called eagerly, or by grad or vmap)
        return traced_advice(first_name, first_site, name, site, "jit")
    lines = [site] if same_line else [first_site, site]
    rewritten = [split_fix(linecache.getline(s.file, s.line).strip(), s.callee,
                           s.callee in (first_name, name)) if s.function == "<module>" else None
                 for s in lines]
    if all(rewritten) and len({var for var, _ in rewritten}) == 1:
        code = "\n".join(f"  {split}\n  {drawn}    # at {source_label(s)}"
                         for s, (_, (split, drawn)) in zip(lines, rewritten))
        return ("Split the key before each draw, the first one too, and draw with the new "
                "subkey:\n" + code)
    return ("Split the key before each draw, the first one too, and draw with the new "
            "subkey (key, subkey = jax.random.split(key)); a function that draws is given "
            "its own subkey as an argument at each call.")


def again_advice(site) -> str:
    """A function's line run again, drawing with the same key: the function was given one key
    at each call (Equinox's vision_transformer: `[Block(k2) for _ in range(3)]`, each Block
    splitting the same k2; JAX 0.10.2 makes the blocks alike, and its checker raises
    KeyReuseError with a typed key). Splitting more inside would not help: the calls'
    keys must differ."""
    name = getattr(site.code, "co_qualname", None) or site.function
    return (f"{name} ran this line again with the same key: it was given one key at each "
            f"call, so each call draws the same numbers. Give each call a key of its own, "
            f"split where the calls are made (keys = jax.random.split(key, n): one per call, "
            f"keys[i] to the i-th); splitting more inside {name} would not help.")


def loop_advice(site, loop_line: int, head: str) -> str:
    """A function's line inside a loop of its own, run again with the same key: one call's
    passes may have drawn alike (`for m, n in ...: W = normal(key, (m, n))` in `def
    init(key, sizes)`, called once), which no key of its own per call would fix: the key
    split at each pass, before the draw, the line rewritten where it can be (JAX 0.10.2
    draws a different array at each pass then: key_reuse_note_cases' loop_in_a_function)."""
    name = getattr(site.code, "co_qualname", None) or site.function
    said = (f"{name} drew at this line again with the same key, in its loop at line "
            f"{loop_line} (`{head}`): each pass draws the same numbers (and each call of "
            f"{name} with that key too). Split the key at each pass, before the draw, and "
            f"draw with the subkey")
    text = linecache.getline(site.file, site.line)
    fixed = split_fix(text.strip(), site.callee)
    if fixed is None:
        return said + " (key, subkey = jax.random.split(key))."
    indent = text[:len(text) - len(text.lstrip())]
    split, drawn = fixed[1]
    return (said + f":\n  {indent}{split}\n  {indent}{drawn}    # at "
            f"{source_label(site)}")


def _loop_around(site):
    """(the line, the head's text) of the innermost `for` or `while` of the function around
    `site`'s line (the function's own, not a def inside it), or None."""
    tree = parse_file(site.file)
    if tree is None:
        return None
    around = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
              and n.name == site.function and n.lineno <= site.line <= n.end_lineno]
    if len(around) != 1:
        return None
    loops = [n for n in own_nodes(around[0]) if isinstance(n, (ast.For, ast.While)) and
             n.body[0].lineno <= site.line <= n.end_lineno]
    if not loops:
        return None
    loop = max(loops, key=lambda n: n.lineno)
    head = linecache.getline(site.file, loop.lineno).strip()
    return loop.lineno, head.rstrip(":").strip() + ":"


def _drew_with_a_parameter(site) -> bool:
    """Whether the draw at `site` (a function's line) drew with a key the function was given:
    its key argument is one of the function's parameters (`split(key, 2)` in `def
    __init__(self, key)`), not a global or a closure's key it reads."""
    code = site.code
    if code is None or site.function == "<module>" or site.lasti is None:
        return False
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    line, end, column, end_column = positions(code, site.lasti)
    text = linecache.getline(site.file, line) if line == end else ""
    try:
        tree = ast.parse(text.strip())
    except SyntaxError:
        return False
    indent = len(text) - len(text.lstrip())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and
             n.col_offset + indent == column and n.end_col_offset + indent == end_column]
    if len(calls) != 1:
        return False
    call = calls[0]
    key = next((k.value for k in call.keywords if k.arg == "key"),
               call.args[0] if call.args else None)
    return isinstance(key, ast.Name) and key.id in params


def split_again_advice(split_site, site) -> str:
    """A key split at `split_site`, then drawn with again at `site`: draw with a key the split
    made; where the cell's other lines use each of them already (JAX 101's state chapter:
    `x_rng, noise_rng = jax.random.split(rng)`, each drawn with, then `init(rng)`), one more
    made by that split, both lines rewritten where they are a cell's top-level lines."""
    said = (f"The keys split made at {source_label(split_site)} are new ones: draw with one "
            f"of them, not with the key it split")
    line = linecache.getline(split_site.file, split_site.line).strip()
    made = _split_into(line)
    if made is None:
        return said + "."
    targets, key, call = made
    others = [text for n, text in enumerate(linecache.getlines(split_site.file), 1)
              if n != split_site.line]
    used = {t for t in targets if any(_names_in(text, t) for text in others)}
    if used != set(targets):
        free = [t for t in targets if t not in used]
        return said + f" ({', '.join(free)}: not used by another line of this cell)."
    new = next(n for n in ("subkey", "new_key", f"{key}_{len(targets) + 1}")
               if not any(_names_in(text, n) for text in others + [line]))
    drawn = None
    if split_site.function == site.function == "<module>" and site.file == split_site.file:
        drawn = _key_replaced(linecache.getline(site.file, site.line).strip(), key, new)
    said = (f"The keys split made at {source_label(split_site)} are new ones, and another "
            f"line of this cell uses each: split one more there and draw with it, not with "
            f"the key it split")
    if drawn is None:
        return said + f" (jax.random.split({key}, {len(targets) + 1}))."
    return (said + f":\n  {', '.join(targets + [new])} = {call}({key}, {len(targets) + 1})"
            f"    # at {source_label(split_site)}\n  {drawn}    # at {source_label(site)}")


def _split_into(line: str):
    """(the names, the key's name, the split's function as written) of `a, b = split(key)` or
    `a, b = split(key, 2)`, one split into names at a line of its own; None otherwise."""
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign):
        return None
    statement = tree.body[0]
    target, call = statement.targets[0], statement.value
    if len(statement.targets) != 1 or not isinstance(target, ast.Tuple) or \
            not all(isinstance(t, ast.Name) for t in target.elts) or \
            not isinstance(call, ast.Call) or call.keywords or \
            getattr(call.func, "attr", getattr(call.func, "id", None)) != "split" or \
            not call.args or not isinstance(call.args[0], ast.Name) or len(call.args) > 2:
        return None
    if len(call.args) == 2 and not (isinstance(call.args[1], ast.Constant) and
                                    call.args[1].value == len(target.elts)):
        return None
    return ([t.id for t in target.elts], call.args[0].id,
            ast.get_source_segment(line, call.func))


def _names_in(text: str, name: str) -> bool:
    """Whether `name` is a name read or bound in `text` (a line; by its tokens, so a line that
    does not parse alone, a `for` header, still counts)."""
    return re.search(rf"(?<![\w.]){re.escape(name)}\b", text.split("#")[0]) is not None


def _key_replaced(line: str, key: str, new: str) -> str | None:
    """`line` with its one read of the name `key` given as `new` (`params = init(rng)`:
    `params = init(subkey)`); None where it reads it more or less than once."""
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return None
    reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == key]
    if len(reads) != 1 or not isinstance(reads[0].ctx, ast.Load):
        return None
    return replaced(line, [(reads[0], new)])


def traced_advice(first_name, first_site, name, site, traced) -> str:
    """Inside a traced function: the two lines rewritten with `k1, k2 = split(key)` before
    the first, where both are one call each of a random function in one function with the
    same key and the names k1, k2 are free there; a loop: fold_in or a carried split."""
    if traced == "loop":
        return ("In a loop, make each iteration's key from the key: draw with "
                "jax.random.fold_in(key, i), i the iteration's index, or carry the key and "
                "split it at each iteration (key, subkey = jax.random.split(key)).")
    if first_name == "split" and first_site.callee == "split":
        return (f"The keys split made at {source_label(first_site)} are new ones: draw with "
                f"one of them, not with the key it split.")
    names = set()
    if first_site.code is not None:
        code = first_site.code
        names = {*code.co_varnames, *code.co_names, *code.co_cellvars, *code.co_freevars}
    if first_site.line != site.line and first_site.code is site.code and \
            first_site.code is not None and not names & {"k1", "k2"}:
        fixes = [split_fix(linecache.getline(s.file, s.line).strip(), s.callee,
                           s.callee in (first_name, name), subkey)
                 for s, subkey in ((first_site, "k1"), (site, "k2"))]
        if all(fixes) and fixes[0][0] == fixes[1][0]:
            var, (split, _) = fixes[0]
            code = (f"  k1, k2 = {split.partition(' = ')[2]}\n" +
                    "\n".join(f"  {drawn}    # at {source_label(s)}"
                              for s, (_, (_, drawn)) in zip((first_site, site), fixes)))
            return ("Split the key inside the function, once, and draw with each new key "
                    "once:\n" + code)
    return ("Split the key inside the function (k1, k2 = jax.random.split(key)) and draw "
            "with each new key once; a function that draws is given its own new key as an "
            "argument at each call.")


def split_fix(line: str, name: str, random_function: bool = True, subkey: str = "subkey"):
    """(the key's name, (the split line, `line` calling with the subkey)) for a line with one
    call of `name` whose first argument is a name or attribute (the key); None for another
    line. The split is `name`'s module's where `name` is a random function (`jr.normal`:
    `jr.split`), jax.random's otherwise.

        >>> split_fix("b = jax.random.normal(key, (3,))", "normal")
        ('key', ('key, subkey = jax.random.split(key)', 'b = jax.random.normal(subkey, (3,))'))
    """
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return None
    calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and c.args and
             (getattr(c.func, "attr", None) == name or getattr(c.func, "id", None) == name)]
    if len(calls) != 1 or not isinstance(calls[0].args[0], (ast.Name, ast.Attribute)):
        return None
    call, arg = calls[0], calls[0].args[0]
    if arg.lineno != 1 or arg.end_lineno != 1:
        return None
    var = ast.get_source_segment(line, arg)
    func = ast.get_source_segment(line, call.func)
    split = func[:-len(name)] + "split" if random_function and \
        isinstance(call.func, ast.Attribute) else "jax.random.split"
    drawn = replaced(line, [(arg, subkey)])
    return var, (f"{var}, {subkey} = {split}({var})", drawn)


def tree_map_advice(line: str, name: str) -> str:
    """`jax.tree.map(lambda p: p + normal(key, p.shape), params)`, the line that drew: one key
    per leaf, a tree of them mapped over beside `params`; the line rewritten where it is one
    such call with a lambda (`k` and `keys` free in it), the recipe in words otherwise.

        >>> print(tree_map_advice("y = jax.tree.map(lambda p: normal(key, p.shape), t)",
        ...                       "normal").splitlines()[-1])
          y = jax.tree.map(lambda p, k: normal(k, p.shape), t, keys)
    """
    fix, var, split = _mapped_with_keys(line, name), "key", "jax.random.split"
    drew = split_fix(line, name, subkey="k")
    if drew is not None:
        var, (split_line, _) = drew
        split = split_line.partition(" = ")[2].rpartition("(")[0]
    tree = fix[0] if fix else "tree"
    keys = (f"keys = jax.tree.unflatten(jax.tree.structure({tree}), "
            f"list({split}({var}, len(jax.tree.leaves({tree})))))")
    head = ("jax.tree.map called the function once per leaf, and each call drew with the one "
            "key it closes over. Give each leaf its own key, in a tree like the one mapped "
            "over, and map over both:\n  " + keys + "\n  ")
    if fix is None:
        return head + f"jax.tree.map(lambda leaf, k: ..., {tree}, keys)    # draw with k"
    return head + fix[1]


def _mapped_with_keys(line: str, name: str):
    """(the tree's source, `line` rewritten: the lambda given `k` and drawing with it, `keys`
    mapped over last) for a line with one `tree.map(lambda ..., tree, ...)` / `tree_map(...)`
    call whose lambda calls `name` once with a name as its key; None otherwise."""
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return None
    maps = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and len(c.args) >= 2 and
            getattr(c.func, "attr", getattr(c.func, "id", None)) in ("map", "tree_map") and
            isinstance(c.args[0], ast.Lambda)]
    if len(maps) != 1:
        return None
    call, fn = maps[0], maps[0].args[0]
    draws = [c for c in ast.walk(fn.body) if isinstance(c, ast.Call) and c.args and
             getattr(c.func, "attr", getattr(c.func, "id", None)) == name and
             isinstance(c.args[0], ast.Name)]
    args, params = fn.args, {a.arg for a in fn.args.args}
    used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | params
    if len(draws) != 1 or draws[0].args[0].id in params or used & {"k", "keys"} or \
            not args.args or args.vararg or args.kwarg or args.defaults or args.kwonlyargs or \
            call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    edits = [(after(call.args[-1]), ", keys"), (draws[0].args[0], "k"),
             (after(fn.args.args[-1]), ", k")]
    return segment(line, call.args[1]), replaced(line, edits)



def taken_advice(first_name, first_site, name, site, first_how, taken, once=False) -> str:
    """Two draws with one key of an array taken twice (random/taken_keys.py's `taken`, the
    second's): by index, the reuse line rewritten to a key of the array no line has taken
    where there is one (at a cell's top level, or in a function that runs once per call,
    `once`: jit's trace, vmap's, both draws in it); by for loops (or unpacking), each loop
    given keys of its own."""
    if first_name == "split" and first_site.callee == "split":
        return (f"The keys split made at {source_label(first_site)} are new ones: draw with "
                f"one of them, not with the key it split.")
    if first_how == taken.how == "loop":
        return ("A for loop over an array of keys (or unpacking it) takes the same keys each "
                "time it runs. Give each loop keys of its own: split as many keys as all the "
                "loops draw with and loop over a part each (keys = jax.random.split(key, 2 * n)"
                ", then for k in keys[:n] and for k in keys[n:]), or split a new array for "
                "the loop from a key no draw has used.")
    line = linecache.getline(site.file, site.line).strip()
    found = _taken_by_index(line, site.callee)
    head = (f"Taking {found[0] if found else 'a key of the array'} again makes a new object, "
            f"not a new key: it is the key drawn with at {source_label(first_site)}. ")
    if first_site.code is site.code and first_site.lasti == site.lasti:     # (a loop's)
        return head + ("A line run again takes the same key each time: take the key at the "
                       "loop's index (keys[i]), or split a new key at each run.")
    free = None if taken.index is None else _untaken(taken)
    if free is None and taken.index is not None:
        return head + ("Every key of the array has been taken: make the array with as many "
                       "keys as draws (jax.random.split(key, n), n the number of draws) and "
                       "draw with each key once.")
    inside = once and first_site.code is site.code and site.code is not None
    if found is None or free is None or site.function != "<module>" and not inside:
        return head + "Draw with a key of the array that no line has taken yet."
    rewritten = replaced(line, [(found[1], f"{found[2]}{free}]")])
    return (head + "Draw with a key of the array that no line has taken yet:\n"
            f"  {rewritten}    # at {source_label(site)}")


def _taken_by_index(line: str, callee: str):
    """(`keys[0]` as written, the node of that argument, the text before its last index:
    `keys[` or `keys[0, `) for a line with one call of `callee` whose first argument indexes
    a name by constant ints (`keys[0]`, `keys[-1]`, `keys[0, 1]`, `keys[0][1]`); None
    otherwise. `keys[0][1]` is rewritten as one index, `keys[0, j]`: JAX's checker counts
    `keys[0]` as taking the whole row.

        >>> found = _taken_by_index("b = jax.random.normal(keys[0][1], (2,))", "normal")
        >>> found[0], found[2]
        ('keys[0][1]', 'keys[0, ')
    """
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return None
    calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and c.args and
             (getattr(c.func, "attr", None) == callee or getattr(c.func, "id", None) == callee)]
    if len(calls) != 1 or not isinstance(calls[0].args[0], ast.Subscript):
        return None
    node, ints = calls[0].args[0], []
    while isinstance(node, ast.Subscript):
        index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        ints[:0] = [_int(i) for i in index]
        node = node.value
    if not isinstance(node, (ast.Name, ast.Attribute)) or not ints or None in ints:
        return None
    arg = calls[0].args[0]
    head = f"{ast.get_source_segment(line, node)}[{''.join(f'{i}, ' for i in ints[:-1])}"
    return ast.get_source_segment(line, arg), arg, head


def _int(node):
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None
    return value if type(value) is int else None


def _untaken(taken):
    """The index along the last axis of `taken`'s index of a key of its array that no line
    has taken (by an index or a loop, itself or a part of it), or None: all were: for keys
    of shape (3,) of which keys[0] and keys[2] were taken, 1."""
    rows, index = taken.rows, taken.index
    for j in range(rows.shape[len(index) - 1]):
        sibling = index[:-1] + (j,)
        if not any(i[:len(sibling)] == sibling for i in rows):
            return j
    return None


def taken_checker(typed: bool, by_index: bool, vmapped: bool = False) -> str:
    """What jax_debug_key_reuse does for a key of an array taken twice: JAX 0.10.2's checker
    counts a key taken by an index (a slice of the array) as used, and raises at the second
    taking; it follows no key a for loop or unpacking takes eagerly, nor a raw key at all.
    Under vmap (`vmapped`) a for loop's keys are slices of the array too, and counted so.

        >>> taken_checker(True, False).splitlines()[1][:40]
        "JAX's checker, jax.config.update('jax_de"
    """
    if vmapped:
        where = ("taking the same key from the array a second time inside the vmapped function "
                 "(by its index or by a for loop) raises KeyReuseError")
        if typed:
            return ("\nTo have JAX check every key: jax.config.update('jax_debug_key_reuse', "
                    "True) before the array is made (at the notebook's top), and " + where +
                    " (JAX's checker counts a key taken from an array there as used).")
        return ("\nJAX's checker, jax.config.update('jax_debug_key_reuse', True), lets this "
                "key through: it follows typed keys, and a raw key from jax.random.PRNGKey is "
                "made a new typed one at each call. With jax.random.key(seed) in place of "
                "jax.random.PRNGKey(seed) and the checker on, " + where + ".")
    if typed and by_index:
        return ("\nTo have JAX check every key: jax.config.update('jax_debug_key_reuse', True) "
                "before the array is made (at the notebook's top), and taking the same key "
                "from the array by its index a second time raises KeyReuseError (JAX's checker "
                "counts a key taken by index as used).")
    if typed:
        return ("\nJAX's checker, jax.config.update('jax_debug_key_reuse', True), lets this "
                "key through: it does not follow the keys a for loop or unpacking takes from "
                "an array.")
    if by_index:
        return ("\nJAX's checker, jax.config.update('jax_debug_key_reuse', True), lets this "
                "key through: it follows typed keys, and a raw key from jax.random.PRNGKey "
                "is made a new typed one at each call. With jax.random.key(seed) in place of "
                "jax.random.PRNGKey(seed) and the checker on, taking the same key from the "
                "array by its index a second time raises KeyReuseError.")
    return ("\nJAX's checker, jax.config.update('jax_debug_key_reuse', True), lets this key "
            "through: it follows typed keys only, and not the keys a for loop or unpacking "
            "takes from an array, typed or raw.")
