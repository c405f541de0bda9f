"""Cards for jax.random (a seed passed where a key goes: seed_keys.py): a batch of keys for
one, one key used twice (jax_debug_key_reuse), a key unpacked as if it were two (`k1, k2 =
key`; a raw key's two uint32 words, `k1, k2 = PRNGKey(0)`, then given as keys), NumPy's random
module asked of jax.numpy (`jnp.random.normal(size=3)`). NumPy's arguments given to
jax.random's functions: random_arguments.py."""
from __future__ import annotations

import ast
import linecache
import re

from .card import ErrorCard
from ..source import cell_name
from ..random_calls import PARAMETERS, TAKES_KEY, as_jax_random
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _called, _operand, _parse_line, _pattern, _replaced


# ------------------------------------------------------------------ a batch of keys for one
_KEY_BATCH = re.compile(r"^(\w+) accepts a single key, but was given a key array of shape "
                        r"\(([\d, ]*)\) != \(\)\. Use jax\.vmap for batching\.")


def _is_key_batch(e) -> bool:
    return isinstance(e, ValueError) and _KEY_BATCH.match(str(e)) is not None


def _key_batch_card(exc, where, called_from) -> ErrorCard:
    """normal(keys), split(keys) with keys from split: the first key of the batch (one draw),
    or vmap over the keys (a draw per key) where the call passes the keys alone."""
    name, shape = _KEY_BATCH.match(str(exc)).groups()
    # JAX's message names a raw key array's whole shape, its last axis the key's two uint32
    # words ((4, 2) for PRNGKey's split(key, 4)): the keys' own shape is the error's
    batch = getattr(exc, "batch_shape", None)
    if batch is not None:
        shape = ", ".join(map(str, batch)) + ("," if len(batch) == 1 else "")
    tree = _parse_line(where)
    lines = []
    for call in ast.walk(tree) if tree is not None else ():
        func = ast.unparse(call.func) if isinstance(call, ast.Call) else ""
        if func.rpartition(".")[2] == name and \
                func.rpartition(".")[0].endswith("random") and call.args:
            keys = call.args[0]         # (in its place: the same text may come earlier)
            lines.append(_replaced(tree, keys, f"{_operand(keys)}[0]") +
                         "    # one key of the batch")
            if len(call.args) == 1 and not call.keywords:
                lines.append(_replaced(tree, call, f"jax.vmap({func})({ast.unparse(keys)})") +
                             "    # or: one draw per key")
            break
    return ErrorCard(
        "key-batch", f"jax.random.{name} was given {shape.rstrip(',')} keys, not one",
        why=(f"{name} takes one key (shape ()), and was given an array of keys of shape "
             f"({shape}), as split returns them."),
        fix=(f"Pass one key of the batch (keys[0], or unpack: k1, k2 = jax.random.split(key)); "
             f"for one result per key, jax.vmap({name}) over the keys, as JAX's message says."),
        rewrite="\n".join(lines) or _pattern(f"k1, k2 = jax.random.split(key)    # one key "
                                              f"each\nx = jax.random.{name}(k1)"),
        docs="https://docs.jax.dev/en/latest/random-numbers.html")


# ------------------------------------------------------------------ a key unpacked
# (or split's keys unpacked into another number of names: Python's words)
_UNPACK_COUNT = re.compile(r"^(?:too many|not enough) values to unpack \(expected (\d+)")


def _is_key_unpacked(e) -> bool:
    return isinstance(e, TypeError) and str(e) == "iteration over a 0-d key array" or \
        _split_unpacked(e) is not None


def _split_unpacked(e):
    """The user's statement unpacking what jax.random.split returned into another number of
    names than it made keys (`key, sub = jax.random.split(key, 3)`), or None."""
    if not (isinstance(e, ValueError) and _UNPACK_COUNT.match(str(e))):
        return None
    where, _ = _user_lines(e)
    tree = _parse_line(where)
    for node in _unpackings(tree) if tree is not None else []:
        func = ast.unparse(node.value.func) if isinstance(node.value, ast.Call) else ""
        if func.rpartition(".")[2] == "split" and func.rpartition(".")[0].endswith("random"):
            return node
    return None


def _split_count_card(node) -> ErrorCard:
    """split(key, n) unpacked into k names: split(key, k) (split(key) for two), or all n with
    the rest as a list (`key, *subkeys = ...`)."""
    call, names = node.value, [t.id for t in node.targets[0].elts]
    num = call.args[1] if len(call.args) > 1 else \
        next((k.value for k in call.keywords if k.arg == "num"), None)
    made = ast.unparse(num) if num is not None else "2"
    asked = ast.Call(call.func, call.args[:1] + ([] if len(names) == 2 else
                                                 [ast.Constant(len(names))]),
                     [k for k in call.keywords if k.arg != "num"])
    lines = [f"{', '.join(names)} = {ast.unparse(asked)}    # {len(names)} keys, one per name"]
    # more keys made than names (or a count not written as a number): all of them, a list
    more = len(names) < int(made) if made.isdigit() else len(names) > 1
    if more:
        lines.append(f"{', '.join(names[:-1])}, *{names[-1]}s = {ast.unparse(call)}"
                     f"    # or: all {made}, the rest as a list")
    return ErrorCard(
        "split-count", f"{ast.unparse(call)} makes {made} keys, not {len(names)}",
        why=(f"jax.random.split(key, n) returns one array of n new keys (n is 2 when left "
             f"out); the line unpacks it into {len(names)} names, and Python unpacks an array "
             f"along its first axis, one key per name."),
        fix=(f"Ask split for as many keys as names: {ast.unparse(asked)}; or take all of them "
             f"and keep the rest as a list."),
        rewrite="\n".join(lines),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.random.split.html")


def _unpackings(tree) -> list:
    """The statements of `tree` unpacking one value into names (`k1, k2 = key`)."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.Assign) and
            len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List)) and
            all(isinstance(t, ast.Name) for t in node.targets[0].elts)]


def _split_rewrite(node) -> str:
    """`k1, k2 = value` as `k1, k2 = jax.random.split(value)`: as many new keys as names."""
    count = len(node.targets[0].elts)
    split = f"jax.random.split({ast.unparse(node.value)}" + \
        ("" if count == 2 else f", {count}") + ")"
    names = ", ".join(ast.unparse(t) for t in node.targets[0].elts)
    return f"{names} = {split}    # {count} new keys, each for one use"


def _key_unpack_card(exc, where, called_from) -> ErrorCard:
    if _split_unpacked(exc) is not None:
        return _split_count_card(_split_unpacked(exc))
    tree = _parse_line(where)
    found = _unpackings(tree) if tree is not None else []
    rewrite = _split_rewrite(found[-1]) if found else ""
    return ErrorCard(
        "key-unpack", "A key is one value: it does not unpack into keys",
        why=("jax.random.key(seed) is one key (an array of shape ()), not a pair; new keys "
             "come from jax.random.split(key, n), which returns n of them."),
        fix=("Split the key: k1, k2 = jax.random.split(key) (or split(key, n) for n keys), and "
             "use each new key once."),
        rewrite=rewrite or _pattern("key, sub = jax.random.split(key)    # a key to keep, one "
                                    "to use"),
        docs="https://docs.jax.dev/en/latest/random-numbers.html")


# ------------------------------------------------------------------ jnp.random
_NO_RANDOM = re.compile(r"^module '[\w.]*numpy' has no attribute 'random'$")
_KEY = "jax.random.key(0)"
# NumPy's legacy names asked of jax.random itself (`jax.random.randn(3)`, a NumPy habit): the
# same card. Only JAX's module: Python's own `random` lacks randn too, and has no keys
_NO_NUMPY_NAME = re.compile(r"^module '(?:jax|jxkernel)\.random' has no attribute "
                            r"'(seed|rand|randn|random|random_sample)'$")


def _is_numpy_random_module(e) -> bool:
    return isinstance(e, AttributeError) and (_NO_RANDOM.match(str(e)) or
                                              _NO_NUMPY_NAME.match(str(e))) is not None


def _numpy_random_module_card(exc, where, called_from) -> ErrorCard:
    rewrite = _numpy_random_module_rewrite(where, _user_frame(exc))
    name = _NO_NUMPY_NAME.match(str(exc))
    title = f"jax.random has no {name.group(1)}: its functions take a key and a shape" if name \
        else "jax.numpy has no random module: random numbers come from jax.random"
    return ErrorCard(
        "numpy-random", title,
        why=("NumPy draws from a hidden global state (np.random.seed), which traced, "
             "vectorized and parallel code cannot share; JAX's jax.random functions take "
             "that state as an argument instead: a key, made once from a seed and split for "
             "each new draw (the same key gives the same numbers)."),
        fix=("Make a key once, key = jax.random.key(seed) (in place of np.random.seed), and "
             "pass a key to each jax.random function with the shape: jax.random.normal(key, "
             "(3,)); split it for the next draw: key, sub = jax.random.split(key)."),
        rewrite=rewrite or
        ("key = jax.random.key(0)                 # in place of np.random.seed(0)\n"
         "key, sub = jax.random.split(key)       # a new key for each draw\n"
         "x = jax.random.normal(sub, (3,))"),
        docs="https://docs.jax.dev/en/latest/random-numbers.html")


def _numpy_random_module_rewrite(where, frame=None) -> str:
    """The user's `jnp.random.<fn>(...)` call as jax.random's, with a key from seed 0 and
    NumPy's size as the shape, or "" where it is no call this knows. A call given a key
    first (`jnp.random.normal(key, (3,))`) is JAX's already: only its module changes."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and
                isinstance(call.func.value, ast.Attribute) and call.func.value.attr == "random"):
            continue
        if call.func.attr in TAKES_KEY and call.args and _is_key_given(call.args[0], frame) \
                and ast.unparse(call.func.value.value) != "jax":     # (not jax.random's own)
            new = ast.Call(ast.parse(f"jax.random.{call.func.attr}", mode="eval").body,
                           call.args, call.keywords)
            return f"{_replaced(tree, call, new)}    # your key and arguments, JAX's module"
        if call.func.attr not in PARAMETERS["numpy"]:
            continue
        new = as_jax_random(call, "numpy", _KEY)
        if new is None:
            return ""
        if call.func.attr == "seed":
            line = f"key = {new}" if isinstance(tree.body[0], ast.Expr) and \
                tree.body[0].value is call else _replaced(tree, call, new)
            return f"{line}    # in place of the seed: pass key (split) to each draw"
        return f"{_replaced(tree, call, new)}    # a key: made once, split per draw"
    return ""


def _is_key_given(node, frame) -> bool:
    """Whether `node`, a call's first argument, is a key: one made on the line
    (`jax.random.key(0)`, a split's), or a name (`key`, `keys[0]`) whose value in the user's
    frame is a typed key or a raw one (uint32, last axis 2)."""
    base = node.value if isinstance(node, ast.Subscript) else node
    if isinstance(base, ast.Call):
        return _called(base) in ("key", "PRNGKey", "split", "fold_in", "clone")
    if not isinstance(base, ast.Name) or frame is None:
        return False
    return _is_key_value(_named_value(frame, base.id))


def _is_key_value(value, one=False) -> bool:
    """Whether `value` is a typed key or raw key data (uint32, last axis 2); `one`: a single
    key (shape (), or (2,) raw), not a batch."""
    dtype, shape = str(getattr(value, "dtype", "")), getattr(value, "shape", None)
    if not isinstance(shape, tuple):
        return False
    if dtype.startswith("key<"):
        return not one or shape == ()
    return dtype == "uint32" and (shape == (2,) if one else shape[-1:] == (2,))


# ------------------------------------------------------------------ a raw key's words as keys
def _is_seed_as_key(e) -> bool:
    """JAX's words for a number where a key goes (seed_keys.py's card; a raw key's word,
    below, is one such number)."""
    return isinstance(e, TypeError) and str(e).startswith(
        "JAX encountered invalid PRNG key data")


def _key_word_given(exc):
    """(name, where) of the 0-d uint32 the user's line gave jax.random where a key goes (a
    raw key's word, as `k1, k2 = jax.random.PRNGKey(0)` binds, or a seed of that dtype), read
    in the user's frame; None for anything else."""
    if not _is_seed_as_key(exc):
        return None
    frame, (where, _) = _user_frame(exc), _user_lines(exc)
    tree = _parse_line(where) if where is not None else None
    if frame is None or tree is None:
        return None
    calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and c.args and
             ast.unparse(c.func).rpartition(".")[0].endswith("random")]
    if not calls or not isinstance(calls[0].args[0], ast.Name):
        return None
    name = calls[0].args[0].id
    value = _named_value(frame, name)
    if getattr(value, "shape", None) != () or str(getattr(value, "dtype", "")) != "uint32":
        return None
    return name, where


def _last_binding(path, name, before=None):
    """The last statement of file or cell `path` (before line `before`) binding `name`: an
    unpacking (ast.Assign, `_unpackings`'s) or "other" for any other binding; None if none."""
    try:
        source = ast.parse("".join(linecache.getlines(path)))
    except SyntaxError:
        return "other"                  # unreadable: whatever it bound is not known
    unpacking = {id(node) for node in _unpackings(source)}
    binds = [node for node in ast.walk(source) if isinstance(node, ast.stmt) and
             (before is None or node.lineno < before) and not isinstance(
                 node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and any(
                 isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                 for n in _own_nodes(node))]
    if not binds:
        return None
    last = max(binds, key=lambda node: node.lineno)
    return last if id(last) in unpacking else "other"


def _own_nodes(statement):
    """The nodes of `statement` outside the statements it holds (a for loop's target, not its
    body's assignments)."""
    nodes = [statement]
    for node in nodes:
        nodes += [c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.stmt)]
    return nodes


_CELL_NUMBER = re.compile(r"In\[(\d+)\]")


def _earlier_cells(path) -> list:
    """The notebook's cells run before the cell `path`, latest first ([] where `path` is no
    cell): IPython keeps each cell's source in linecache under a file name of its own, which
    the shell maps to the cell's last execution number; cells of one number (run without
    history) in the order linecache got them."""
    def ran(filename, position):
        found = _CELL_NUMBER.search(cell_name(filename) or "")
        return None if found is None else (int(found.group(1)), position)
    files = list(linecache.cache)
    this = ran(path, files.index(path)) if path in files else None
    if this is None:
        return []
    cells = [(ran(f, i), f) for i, f in enumerate(files)]
    return [f for order, f in sorted((c for c in cells if c[0] is not None and c[0] < this),
                                     reverse=True)]


def _raw_key_unpacking(exc):
    """Where a key given to jax.random is a word of a raw key: the statement that bound it by
    unpacking (`k1, k2 = jax.random.PRNGKey(0)`), the last binding of that name before the
    failing line, in its file or cell or, in a notebook, in the cells run before it; with the
    cell it is in when that is another one (None: the failing line's own). None where the
    name's last binding is no unpacking or none is found (a seed: the seed card)."""
    given = _key_word_given(exc)
    if given is None:
        return None
    name, where = given
    found = _last_binding(where["_path"], name, where["line"])
    if found is None:
        for cell in _earlier_cells(where["_path"]):
            found = _last_binding(cell, name)
            if found is not None:
                return (found, cell_name(cell)) if found != "other" else None
    return (found, None) if found not in (None, "other") else None


def _is_raw_key_word(e) -> bool:
    return _raw_key_unpacking(e) is not None


def _raw_key_word_card(exc, where, called_from) -> ErrorCard:
    node, cell = _raw_key_unpacking(exc)
    there = f" (in {cell}, line {node.lineno}: change it there)" if cell else ""
    return ErrorCard(
        "raw-key-unpacked", "A raw key was unpacked into its two words, not split into keys",
        why=("jax.random.PRNGKey(seed) is one raw key: a uint32 array of shape (2,). "
             "Unpacking it (k1, k2 = key) gives its two uint32 words, numbers that are no "
             "key; a key made from one of them would repeat another's draws."),
        fix=(f"Split the key for new keys where it was unpacked{there}: k1, k2 = "
             "jax.random.split(key), and use each new key once."),
        rewrite=_split_rewrite(node) + (f" (in {cell})" if cell else ""),
        docs="https://docs.jax.dev/en/latest/random-numbers.html")
