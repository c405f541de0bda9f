"""What differs in the arguments' pytree structure (kind "structure"): an array, then a list
of numbers; another kind of node (a tuple for a namedtuple, None for an array); an argument
or a list item come or gone; a registered pytree's metadata; an argument passed by keyword,
then by position. Each with its fix.
"""
from __future__ import annotations

import dataclasses
import re

from ...core.config import config
from ...tree_util import _dataclass_fields
from .change import Change, _aval_text, _root
from .fixes import _assignable, _fixed, _refixed, pattern_said
from .statics import _static_repr


def _structure_changes(old, new, flipped, before, after):
    """The leaves come or gone between the two signatures' (named avals `before` and
    `after`), and a structure that differs otherwise: one Change per argument, node or leaf."""
    moved = [p for p in after if p not in before] + [p for p in before if p not in after]
    explained = False
    for root in sorted({_root(p) for p in moved}, key=str):
        change = _array_or_container(root, before, after, old, new)
        if change is not None:              # one change for the argument, not one per leaf
            moved, explained = [p for p in moved if _root(p) != root], True
            yield change
    keyed = None if explained else _key_kind_change(old, new)
    if keyed is not None:                   # {0: ..} then {'0': ..}: one change for the dict
        moved = [p for p in moved if not _under(p, keyed.path)]
        explained = True
        yield keyed
    node = None if explained else _node_change(old, new)
    if node is not None:                    # one change for the node, not one per leaf
        moved = [p for p in moved if not _under(p, node.path)]
        explained = True
        yield node
    listed = set()      # the lists told already: one change per list (JAX's one line)
    # (in the order of the items' indices: xs[2] before xs[10], each list by its first)
    for path in sorted(moved, key=lambda p: re.sub(r"\[(\d+)\]",
                                                   lambda m: f"[{int(m.group(1)):09d}]", p)):
        change = _fixed(path, "structure",
                        _aval_text(before[path]) if path in before else "absent",
                        _aval_text(after[path]) if path in after else "absent")
        if path == _root(path) and _none_passed(old, new, path in before):   # None, array
            side = (after if path in after else before)[path]
            change = _refixed(dataclasses.replace(
                change, **{"old" if path in after else "new": "None"}), _NONE_ARGUMENT_FIX,
                shape=tuple(side.shape), dtype=_zeros_dtype(side.dtype))
        elif path == _root(path):                   # a whole argument passed, then not
            change = _refixed(change, _ARGUMENT_FIX)
        elif path.endswith("]") and re.search(r"\[\d+\]$", path) and \
                _parent_of(path, old, new) in (list, tuple, None):   # a list's length
            # a list two items longer is one cause (JAX 0.10.2: "* at input path [0][0], now
            # list of length 3 and before list of length 1"), not a note per item, each the
            # same (list_argument_grows' third call said it twice)
            if re.sub(r"\[\d+\]$", "", path) in listed:
                continue
            listed.add(re.sub(r"\[\d+\]$", "", path))
            item = after[path] if path in after else before[path]
            change = _refixed(change, _LENGTH_FIX, **list_item(path, item))
        elif (_KEY_OF_ARGUMENT.match(path) or _INT_KEY_OF_ARGUMENT.match(path) and
              _parent_of(path, old, new) is dict) and not \
                (after[path] if path in after else before[path]).weak_type:
            # a key one call lacks: its zeros written out, `defaults` being no name of theirs
            # (a weak leaf is left to the plain fix: strong zeros would be another type)
            item = after[path] if path in after else before[path]
            key = (_KEY_OF_ARGUMENT.match(path) or _INT_KEY_OF_ARGUMENT.match(path)).group(1)
            change = _refixed(change, _KEY_FIX, key=key,
                              shape=tuple(item.shape), dtype=item.dtype.name)
        elif re.search(r"\[\d+\]$", path) and \
                isinstance(_parent_of(path, old, new), type):   # a registered class's child
            kind = _parent_of(path, old, new)
            change = _refixed(change, _CHILDREN_FIX, kind=kind.__name__,
                              node=re.sub(r"\[\d+\]$", "", path))
        yield change
    if not moved and not flipped and not explained and old.treedef is not None and \
            new.treedef is not None and old.treedef != new.treedef:
        change = _fixed("(arguments)", "structure", str(old.treedef), str(new.treedef))
        meta = _metadata_change(old.treedef, new.treedef, ())
        if meta is not None:                # a registered pytree's meta fields differ
            change = _meta_fixed(change, meta, old, new)
        elif _by_keyword_now(old.treedef, new.treedef):
            moved_by = _keyword_moves(old.treedef, new.treedef)
            if moved_by:                    # name the argument, not the two PyTreeDefs
                name, was, now = moved_by
                change = dataclasses.replace(change, path=name, old=was, new=now)
            change = _refixed(change, _KEYWORD_FIX)
            if moved_by:                    # (its code in the argument's name: `x=x` was any)
                change = dataclasses.replace(change, snippet=_KEYWORD_NAMED_CODE.format(
                    keywords=", ".join(f"{n}={n}" for n in name.split(", "))))
        else:
            change = _leafless_argument(old, new) or _leafless_node(change, old, new)
        yield change


# an empty value as a change names it, and as code writes it
EMPTY_LITERALS = {"None": "None", "a tuple": "()", "a list": "[]", "a dict": "{}"}


def _leafless_argument(old, new):
    """An argument with no leaves (None, (), [], {}) passed in one call and left out in the
    other (f(x, mask=None), then f(x)): its Change with _ARGUMENT_FIX, or None. Named by its
    keyword, or by its parameter (Signature.arg_names) where passed by position."""
    try:
        (args_a, kw_a), (args_b, kw_b) = old.treedef.children(), new.treedef.children()
        keys_a, keys_b = kw_a.node_data()[1], kw_b.node_data()[1]
    except (AttributeError, TypeError, ValueError):
        return None
    sides = []
    for args, kw, keys, sig in ((args_a, kw_a, keys_a, old), (args_b, kw_b, keys_b, new)):
        named = dict(zip(keys, kw.children()))
        named.update(zip(sig.arg_names, args.children()))
        sides.append(named)
    a, b = sides
    gone = list(a.keys() ^ b.keys())
    if len(gone) != 1 or any(a[k] != b[k] for k in a.keys() & b.keys()):
        return None
    (name,), side = gone, a if gone[0] in a else b
    node = side[name]
    text = _node_text((node.node_data() or ("leaf",))[0], old, name)
    if node.num_nodes != 1 or text not in EMPTY_LITERALS:
        return None
    was, now = (text, "absent") if side is a else ("absent", text)
    return _refixed(Change(name, "structure", was, now), _ARGUMENT_FIX)


def _leafless_node(change, old, new):
    """`change` (the two structures, no leaf come or gone) as the first node whose length or
    keys differ, what differs holding no arrays (p = {'w': w, 'b': None}, then {'w': w}; f(x,
    [None]), then f(x, [None, None]): JAX's "with the symmetric difference of key sets", "so
    the lengths do not match"), with the fix its kind of node calls for."""
    try:
        keys, (a, ca), (b, cb) = _first_difference(old.treedef, new.treedef, ())
        # (a call's structure is (args, kwargs): its first key is no argument; a loop
        # body's is its arguments' tuple)
        top = 1 if _is_call_pair(old.treedef) and _is_call_pair(new.treedef) else 0
        path = _node_path(keys, old, new) if len(keys) > top else None
    except (AttributeError, IndexError, TypeError, ValueError):
        path = None
    if path is None:            # the call itself: other positional arguments or keywords
        try:
            (args_a, kw_a), (args_b, kw_b) = old.treedef.children(), new.treedef.children()
            was, now = _call_text(args_a, kw_a), _call_text(args_b, kw_b)
        except (AttributeError, TypeError, ValueError):
            was = now = None
        if was == now:          # not a call's, or alike as counted: no numbers to tell
            was, now = "one structure", "another"
        return _refixed(dataclasses.replace(change, old=was, new=now), _LEAFLESS_FIX,
                        what=f"The call passed {was}, then {now}")
    change = Change(path, "structure", _shape_text(a, ca), _shape_text(b, cb))
    if a[0] is dict and b[0] is dict:
        lacking = {k: _literal(c) for aux, kids, other in ((a[1], ca, b[1]), (b[1], cb, a[1]))
                   for k, c in zip(aux, kids) if k not in other}
        if lacking and None not in lacking.values():
            defaults = "{" + ", ".join(f"{k!r}: {v}" for k, v in lacking.items()) + "}"
            return _refixed(change, _EMPTY_KEYS_FIX, defaults=defaults,
                            held=" and ".join(sorted(set(lacking.values()))))
    if a[0] is b[0] and a[0] in (list, tuple):
        short, long = sorted((ca, cb), key=len)
        padding = {_literal(c) for c in long[len(short):]}
        if list(short) == list(long[:len(short)]) and len(padding) == 1 and \
                None not in padding:
            (held,) = padding
            one = f"({held},)" if a[0] is tuple else f"[{held}]"
            return _refixed(change, _EMPTY_ITEMS_FIX, held=held, one=one, n=len(long),
                            kind=a[0].__name__)
    return _refixed(change, _LEAFLESS_FIX, what=f"{path} was {change.old} and is "
                    f"{change.new} now")


def _first_difference(old, new, keys):
    """(keys down to it, (node data, children) old and new) of the first node whose type,
    metadata or number of children differ, depth first (JAX's order); None where alike."""
    a, b = old.node_data() or ("leaf", None), new.node_data() or ("leaf", None)
    ca, cb = old.children(), new.children()
    if a[0] is not b[0] or a[1] != b[1] or len(ca) != len(cb):
        return keys, (a, ca), (b, cb)
    for i, (x, y) in enumerate(zip(ca, cb)):
        found = _first_difference(x, y, (*keys, (a, a[1][i] if a[0] is dict else i)))
        if found is not None:
            return found
    return None


def _shape_text(data, children) -> str:
    """A node as its length or keys: "a tuple of 2 items", "a dict with keys 'b', 'w'"."""
    kind, aux = data
    n = len(children)
    if kind is dict:
        return "a dict with keys " + ", ".join(map(repr, aux)) if aux else "an empty dict"
    if kind in (list, tuple):
        return f"{_a(kind.__name__)} of {n} item{'' if n == 1 else 's'}"
    text = "None" if kind is type(None) else "an array" if kind == "leaf" else \
        _a(getattr(kind, '__name__', str(kind)))
    return f"{text} of {n} child{'' if n == 1 else 'ren'}" if n else text


def _call_text(args, kwargs) -> str:
    """What a call passed (its (args, kwargs) structure's two children), counted.

        >>> import jxkernel as jax
        >>> _call_text(*jax.tree_util.tree_structure(((1.0, None), {'mask': None})).children())
        "2 positional arguments and keywords 'mask'"
    """
    n, keys = len(args.children()), kwargs.node_data()[1]
    said = f"{n} positional argument{'' if n == 1 else 's'}"
    return said + (" and keywords " + ", ".join(map(repr, keys)) if keys else "")


def _literal(tree, leaf=lambda: None) -> str | None:
    """Python code for a pytree of builtin nodes, each leaf written by `leaf()` (called in the
    leaves' order; by default none can be); None where a leaf or another kind of node cannot
    be written.

        >>> import jxkernel as jax, jxkernel.numpy as jnp
        >>> _literal(jax.tree_util.tree_structure({'b': None, 'm': ((),), 'l': []}))
        "{'b': None, 'l': [], 'm': ((),)}"
        >>> _literal(jax.tree_util.tree_structure([None, jnp.ones(2)])) is None
        True
    """
    kind, aux = tree.node_data() or ("leaf", None)
    if kind == "leaf":
        return leaf()
    items = [_literal(c, leaf) for c in tree.children()]
    if kind is type(None):
        return "None"
    if None in items or kind not in (tuple, list, dict):
        return None
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(aux, items)) + "}"
    inner = ", ".join(items) + ("," if kind is tuple and len(items) == 1 else "")
    return f"({inner})" if kind is tuple else f"[{inner}]"


def _array_or_container(root, before, after, old, new):
    """`root` passed as one array in one call and as a list/tuple/dict in the other: of Python
    numbers (f(jnp.array([1., 2.])), then f([1., 2.])), or of arrays (f(x), then f((x, y))):
    one Change, or None."""
    def split(side):
        whole = side.get(root)
        parts = {p: a for p, a in side.items() if p != root and _root(p) == root}
        return whole, parts
    (whole_b, parts_b), (whole_a, parts_a) = split(before), split(after)
    if whole_b is not None and parts_a and not parts_b and whole_a is None:
        whole, parts, old_is_array = whole_b, parts_a, True
    elif whole_a is not None and parts_b and not parts_a and whole_b is None:
        whole, parts, old_is_array = whole_a, parts_b, False
    else:
        return None
    texts = ", ".join(_aval_text(a) for a in parts.values())
    if all(a.weak_type and not a.shape for a in parts.values()):     # Python numbers
        items, fix = f"{len(parts)} Python numbers ({texts})", _NUMBERS_FIX
    else:       # arrays: the per-leaf changes said the argument was "absent", a "length"
        node = _parent_of(next(iter(parts)), old, new)
        kind = _node_text(node, new, root) if isinstance(node, type) else "a container"
        items, fix = f"{kind} of {len(parts)} ({texts})", _ARRAYS_FIX
    was, now = (_aval_text(whole), items) if old_is_array else (items, _aval_text(whole))
    return _refixed(_fixed(root, "structure", was, now), fix)


def _node_change(old, new):
    """The first place where the two structures hold another kind of node (a tuple for a
    namedtuple, () or an array for None: JAX's "so their Python types differ"), as one
    Change with the fix that makes it the old kind again; None where they differ otherwise
    (keys, lengths, metadata) or an argument is None on one side (_NONE_ARGUMENT_FIX's)."""
    try:
        found = _node_difference(old.treedef, new.treedef, ())
    except (AttributeError, TypeError, ValueError):
        return None
    if found is None or len(found[0]) < 2:
        return None
    keys, a, b = found
    path = _node_path(keys, old, new)
    if path is None or (path == _root(path) and "leaf" in (a[0], b[0])):
        return None
    was, now = _node_text(a[0], old, path), _node_text(b[0], new, path)
    if _class_made_anew(a[0], b[0]):
        # a dataclass's cell run again: the same name and code, another class; or its
        # cell edited (a field added), whose compile is the edit's, nothing to fix
        edited = _class_code(a[0]) != _class_code(b[0])
        return _refixed(Change(path, "structure", was, f"{now} (class {b[0].__qualname__} "
                               f"{'edited' if edited else 'made anew'})"),
                        _CLASS_EDITED_FIX if edited else _CLASS_ANEW_FIX,
                        name=b[0].__qualname__)
    change = Change(path, "structure", was, now)
    if {a[0], b[0]} == {type(None), "leaf"}:        # None, then an array (or back)
        aval = dict(new.named if b[0] == "leaf" else old.named).get(path)
        if aval is None:        # a body's leaves named otherwise than the node's path
            return None         # (a while_loop's carry under vmap, in Equinox): told per leaf
        change = _refixed(dataclasses.replace(change, **{
            "old" if a[0] is type(None) else "new": "None"}), _NONE_ARGUMENT_FIX,
            shape=tuple(aval.shape), dtype=_zeros_dtype(aval.dtype))
    elif a[0] is type(None) and _zeros_of(new, keys, path) is not None:
        # None, then a container of arrays (a gradient accumulator started as None): the
        # container's zeros in every call, as for one array. _CONTAINER_FIX's `acc = None`
        # made every call's accumulator None, and JAX compiles once with it pasted, but the
        # sum lost every step but the last (grad_accumulator_starts_as_none_fixed)
        change = _refixed(change, _NONE_HOLDS_ARRAYS_FIX, zeros=_zeros_of(new, keys, path),
                          kind=now)
    elif b[0] is type(None) and _zeros_of(old, keys, path) is not None:
        # the other way, a container of arrays, then None (f(x, (w,)), then f(x, None)): the
        # zeros at the call passing None (no code before: `tuple(None)` raises, and no code
        # knew the arrays; tuple_of_arrays_then_none_at_two_calls_fixed: one lowering)
        change = _refixed(change, _NONE_HOLDS_ARRAYS_FIX, zeros=_zeros_of(old, keys, path),
                          kind=was)
    else:
        held = any(_under(p, path) for p, _ in old.named)
        change = _refixed(change, _CONTAINER_FIX, convert=_convert_to(
            a[0], path, from_none=b[0] is type(None), held=held))
    holder = keys[-1][0][0]                 # the class holding the node
    return dataclasses.replace(change, snippet=_assignable(path, change.snippet, holder))


def _class_made_anew(a, b) -> bool:
    """Whether node types `a` and `b` are two classes of one name in one module: its `class`
    statement ran again (a notebook cell run again, a module reloaded)."""
    return isinstance(a, type) and isinstance(b, type) and a is not b and \
        (a.__module__, a.__qualname__) == (b.__module__, b.__qualname__)


def _class_code(cls) -> tuple:
    """What a `class` statement wrote, to tell a class cell run again as it was from one
    edited: its fields (annotations, a namedtuple's _fields) and the code of each function it
    defines, by name; no values (a default array made anew is no edit)."""
    out = [tuple(getattr(cls, "_fields", ())),
           tuple((k, repr(v)) for k, v in vars(cls).get("__annotations__", {}).items())]
    for name, value in sorted(vars(cls).items()):
        value = getattr(value, "__func__", getattr(value, "fget", value))
        code = getattr(value, "__code__", None)
        if code is not None:
            out.append((name, _code_text(code)))
    return tuple(out)


def _code_text(code) -> tuple:
    """A code object's instructions, names and constants (nested code so too): equal for the
    same source run again, whatever file or line it ran from."""
    consts = tuple(_code_text(c) if hasattr(c, "co_code") else repr(c)
                   for c in code.co_consts)
    return code.co_code, code.co_names, code.co_varnames, consts


def _zeros_of(sig, keys, path) -> str | None:
    """Code for the container at `keys` (its `path`) of `sig`'s structure, each array zeros of
    its type: "{'b': jnp.zeros((2,)), 'w': jnp.zeros((3, 2))}"; None where it holds no
    arrays, or what no code of zeros can write (another kind of node, a weak or key leaf:
    strong zeros would be another type)."""
    try:
        node = sig.treedef               # (keys: from the root, as _node_difference's)
        for (kind, aux), key in keys:
            node = node.children()[list(aux).index(key) if kind is dict else key]
    except (AttributeError, IndexError, TypeError, ValueError):
        return None
    held = [a for p, a in sig.named if _under(p, path)]
    if node.num_leaves == 0 or node.num_leaves != len(held):
        return None
    avals = iter(held)

    def zeros():
        aval = next(avals)
        if aval.weak_type or str(aval.str_short(True)).startswith("key<"):
            return None
        return f"jnp.zeros({tuple(aval.shape)}{_zeros_dtype(aval.dtype)})"
    return _literal(node, zeros)


def _key_kind_change(old, new):
    """A dict whose keys are the same names of another type in the two calls ({0: a, 1: b},
    then {'0': a, '1': b}: JAX's "pytree metadata ('0', '1') and before (0, 1)"), as one
    Change of the dict with its fix; None otherwise (keys come or gone are told per key)."""
    try:
        found = _dict_keys_retyped(old.treedef, new.treedef, ())
    except (AttributeError, TypeError, ValueError):
        return None
    if found is None:
        return None
    keys, was, now = found
    path = _node_path(keys, old, new) if keys else None
    if path is None:
        return None
    text = lambda aux: "keys " + ", ".join(map(repr, aux))     # noqa: E731
    kinds = lambda aux: " and ".join(sorted({type(k).__name__ for k in aux}))  # noqa: E731
    return _refixed(Change(path, "structure", text(was), text(now)), _KEY_KIND_FIX,
                    old_kind=kinds(was), new_kind=kinds(now))


def _dict_keys_retyped(old, new, keys):
    """(keys down to it, old keys, new keys) of the first dict whose keys differ only in
    their type (str(k) alike on both sides), depth first through nodes alike otherwise."""
    a, b = old.node_data() or ("leaf", None), new.node_data() or ("leaf", None)
    if a[0] is not b[0]:
        return None
    ca, cb = old.children(), new.children()
    if a[1] != b[1]:
        if a[0] is dict and len(ca) == len(cb) and \
                sorted(map(str, a[1])) == sorted(map(str, b[1])):
            return keys, a[1], b[1]
        return None
    if len(ca) != len(cb):
        return None
    for i, (x, y) in enumerate(zip(ca, cb)):
        found = _dict_keys_retyped(x, y, (*keys, (a, a[1][i] if a[0] is dict else i)))
        if found is not None:
            return found
    return None


def _node_difference(old, new, keys):
    """(keys down to it, old node data, new node data) of the first node of another type,
    depth first; None where the structures are alike down to nodes of one type with other
    keys or children (not this module's "another container")."""
    a, b = old.node_data() or ("leaf", None), new.node_data() or ("leaf", None)
    if a[0] is not b[0]:
        return keys, a, b
    ca, cb = old.children(), new.children()
    if a[1] != b[1] or len(ca) != len(cb):
        return None
    for i, (x, y) in enumerate(zip(ca, cb)):
        found = _node_difference(x, y, (*keys, (a, a[1][i] if a[0] is dict else i)))
        if found is not None:
            return found
    return None


def _node_path(keys, old, new) -> str | None:
    """A node's keys as a path written as the leaves' ("p['extra']", "p.x"): the argument's
    name is its first leaf's (on either side), or for one with no leaves (None, then ()) its
    parameter's; a keyword's its key. A jit call's structure is (args, kwargs); a loop
    body's, its arguments' tuple alone."""
    pair = _is_call_pair(new.treedef) and _is_call_pair(old.treedef)
    if pair:
        (_, top), (_, arg), *rest = keys
    else:
        top, ((_, arg), *rest) = 0, keys
    if top == 1:
        path = str(arg)
    else:
        path = None
        for sig in (new, old):
            args = sig.treedef.children()[0].children() if pair else sig.treedef.children()
            offset = sum(c.num_leaves for c in args[:arg])
            if arg < len(args) and args[arg].num_leaves and offset < len(sig.named):
                path = _root(sig.named[offset][0])
                break
        if path is None and pair and arg < len(new.arg_names):
            path = new.arg_names[arg]
        if path is None:
            return None
    for (kind, _), key in rest:
        # a namedtuple's fields, or the data fields of a class registered with
        # register_dataclass (its children, in that order)
        fields = getattr(kind, "_fields", None) or (_registered_fields(kind) or [None])[0]
        path += f"[{key!r}]" if kind is dict else f".{fields[key]}" if fields else f"[{key}]"
    return path


def _is_call_pair(treedef) -> bool:
    """Whether `treedef` is a call's (args tuple, kwargs dict)."""
    children = treedef.children()
    return len(children) == 2 and children[1].node_data() is not None and \
        children[1].node_data()[0] is dict


def _node_text(kind, sig, path) -> str:
    """A node as a change shows it: None, a tuple, Point (a namedtuple), an array's type."""
    if kind == "leaf":      # (a body's leaves may be named otherwise than `path`: a while
        aval = dict(sig.named).get(path)          # loop's carry under vmap, seen in Equinox)
        return _aval_text(aval) if aval is not None else "a leaf"
    if kind is type(None):
        return "None"
    return _a(kind.__name__)


def _a(name: str) -> str:
    """`name` with its article: "a Lin", "an Opt"."""
    return f"{'an' if name[:1] in 'AEIOUaeiou' else 'a'} {name}"


def _convert_to(kind, path, from_none=False, held=False) -> str:
    """Code making `path` the kind of node it was: Point(*p), tuple(xs), None. From None (the
    later call's), where it `held` nothing, the empty container: `tuple(None)` raises; where
    it held arrays, none (no code can know them).

        >>> _convert_to(tuple, "xs", from_none=True)
        'xs = ()    # one kind of empty value, every call'
    """
    if kind is type(None):
        return f"{path} = None    # one kind of empty value, every call"
    if from_none:
        empty = {tuple: "()", list: "[]", dict: "{}"}.get(kind)
        return f"{path} = {empty}    # one kind of empty value, every call" \
            if empty and not held else ""
    name = kind.__name__ if kind in (tuple, list, dict) or getattr(kind, "_fields", None) \
        else None
    star = "*" if getattr(kind, "_fields", None) else ""
    return f"{path} = {name}({star}{path})    # one container type, every call" if name \
        else ""


def _parent_of(path, old, new):
    """The type of the node holding the leaf `path` (list, dict, a registered class), read
    from the signature that has it; None where it cannot be told (a leaf count that does not
    match the names: a body's carry named otherwise)."""
    for sig in (new, old):
        if path in sig.leaf_parents:
            return sig.leaf_parents[path]
    return None


def _under(path, node) -> bool:
    """Whether a leaf's path is `node` or below it."""
    return path == node or path.startswith((node + "[", node + "."))

def _none_passed(old, new, old_has_it) -> bool:
    """Whether an argument with leaves on one side was passed None on the other (not left
    to its default): the same arguments were passed, and the side without has one None more."""
    def nones(tree):
        args, kwargs = tree.children()
        return sum(str(c) == "PyTreeDef(None)" for c in (*args.children(), *kwargs.children()))
    try:
        (a, ka), (b, kb) = old.treedef.children(), new.treedef.children()
        if len(a.children()) != len(b.children()) or ka.node_data() != kb.node_data():
            return False
        return nones(new.treedef if old_has_it else old.treedef) > \
            nones(old.treedef if old_has_it else new.treedef)
    except (AttributeError, TypeError, ValueError):
        return False


def _metadata_change(old_tree, new_tree, keys):
    """(type, old, new, keys down to it: _node_difference's) where the two structures hold
    the same registered pytree type with other metadata (a register_dataclass meta field, a
    custom node's aux data, an OrderedDict's key order), or None."""
    try:
        a, b = old_tree.node_data(), new_tree.node_data()
        if a is None or b is None or a[0] is not b[0]:
            return None
        if a[1] != b[1] and a[0] not in (dict, list, tuple, type(None)):
            return a[0], a[1], b[1], keys
        ca, cb = old_tree.children(), new_tree.children()
    except (AttributeError, TypeError, ValueError):
        return None
    if len(ca) != len(cb):
        return None
    for i, (x, y) in enumerate(zip(ca, cb)):
        found = _metadata_change(x, y, (*keys, (a, a[1][i] if a[0] is dict else i)))
        if found is not None:
            return found
    return None


def _meta_fixed(change, meta, old, new):
    """`change` (the two structures) as the metadata that differs, with the fix its kind of
    node calls for: an OrderedDict's key order, aux data compared by identity (a new object
    each call), or a meta field's new value."""
    kind, was, now, keys = meta
    name = getattr(kind, "__name__", str(kind))
    try:
        path = _node_path(keys, old, new) if keys else None
    except (AttributeError, IndexError, TypeError, ValueError):
        path = None
    change = dataclasses.replace(change, path=path or change.path, old=f"{name} meta {was!r}",
                                 new=f"{name} meta {now!r}")
    arg = path or "p"
    if issubclass(kind, dict):      # OrderedDict (and its kin): its keys in insertion order
        return _refixed(change, _ORDERED_FIX, kind=name, arg=arg)
    if type(now) is type(was) and type(now).__eq__ is object.__eq__ and \
            type(now).__hash__ is object.__hash__:     # a new object each call: never equal
        aux = type(now).__name__
        fields = list(getattr(now, "__dict__", {})) or ["name"]
        change = dataclasses.replace(     # its fields, not two addresses
            change, old=f"{name} meta {_static_repr(was)}",
            new=f"{name} meta {_static_repr(now)} (another object)")
        return _refixed(change, _AUX_IDENTITY_FIX, kind=name, aux=aux,
                        fields="\n".join(f"    {f}: object" for f in fields))
    was_text, now_text = repr(was), repr(now)
    if len(was_text) + len(now_text) > _LONG or "\n" in was_text + now_text:
        # (a Flax GraphDef's is thousands of characters over hundreds of lines): said where
        # the two differ, the rest left out
        old, new_ = _where_they_differ(was_text, now_text)
        change = dataclasses.replace(change, old=f"{name} meta {old}", new=f"{name} meta {new_}")
    if was_text != now_text and _ADDRESS.sub("", was_text) == _ADDRESS.sub("", now_text):
        # alike but for objects made anew (a GraphDef holding a new optax transformation's
        # functions)
        optax = "GradientTransformation" in change.old
        return _refixed(change, _OPTAX_MADE_ANEW_FIX if optax else _MADE_ANEW_FIX, kind=name)
    if isinstance(now, kind) and isinstance(was, kind):
        # its own aux data (jax.tree_util.register_static): no field to make data, and a
        # register_dataclass of it in place would be a second registration, refused
        return _refixed(change, _STATIC_CLASS_FIX, kind=name)
    if dataclasses.is_dataclass(kind):
        fields = _registered_fields(kind)
        if fields is not None and isinstance(was, tuple) and isinstance(now, tuple) and \
                len(was) == len(now) == len(fields[1]):
            data, meta = fields
            changed = [m for m, a, b in zip(meta, was, now) if not _same(a, b)]
            if changed:
                return _refixed(change, _META_DATA_FIX, kind=name, changed=", ".join(changed),
                                data=[*data, *changed],
                                meta=[m for m in meta if m not in changed])
        return _refixed(change, _META_FIX, kind=name)
    return _refixed(change, _AUX_FIX, kind=name)


# two texts of pytree metadata longer than this together are shown where they differ
_LONG = 240
# an object's address in its repr (`<function f at 0x7f...>`)
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _where_they_differ(was: str, now: str, before: int = 120, after: int = 30) -> tuple:
    """Two texts, each on one line, cut to where they differ: from the first ", " within
    `before` characters ahead of the first difference (an entry whole: `('tx', Static(...`),
    to `after` characters past the last ('…' where cut); an object's address differing is
    taken whole, so the cut does not move with its digits.

        >>> _where_they_differ("D(k=1, n=1, f=<function g at 0x1>, m=2)",
        ...                    "D(k=1, n=1, f=<function g at 0x2>, m=2)", 20, 2)
        ('…n=1, f=<function g at 0x1>,…', '…n=1, f=<function g at 0x2>,…')
    """
    was, now = " ".join(was.split()), " ".join(now.split())
    start = next((i for i, (a, b) in enumerate(zip(was, now)) if a != b), min(len(was), len(now)))
    tail = 0
    while tail < min(len(was), len(now)) - start and was[-1 - tail] == now[-1 - tail]:
        tail += 1
    for m in _ADDRESS.finditer(was):        # an address differing in its last digits: whole
        start = m.start() if m.start() <= start < m.end() else start
        tail = len(was) - m.end() if m.start() <= len(was) - tail - 1 < m.end() else tail
    lo = max(0, start - before)
    if lo:
        entry = was.find(", ", lo, start)
        lo = entry + 2 if entry >= 0 else lo

    def cut(text):
        hi = min(len(text), len(text) - tail + after)
        return ("…" if lo else "") + text[lo:hi] + ("…" if hi < len(text) else "")
    return cut(was), cut(now)


def _by_keyword_now(old_tree, new_tree) -> bool:
    """Whether the (args, kwargs) structures differ in which arguments came by keyword."""
    try:
        (old_args, old_kwargs), (new_args, new_kwargs) = old_tree.children(), new_tree.children()
        return old_args.num_leaves != new_args.num_leaves and \
            old_kwargs.num_leaves != new_kwargs.num_leaves
    except (AttributeError, ValueError, TypeError):
        return False


def _keyword_moves(old_tree, new_tree):
    """(argument names, how it came before, how now) for the arguments that came by keyword
    in one call and by position in the other, or None:

        ("y", "by position", "by keyword")
    """
    try:
        old_keys = set(old_tree.children()[1].node_data()[1])
        new_keys = set(new_tree.children()[1].node_data()[1])
    except (AttributeError, IndexError, TypeError, ValueError):
        return None
    if new_keys - old_keys:
        return ", ".join(sorted(new_keys - old_keys)), "by position", "by keyword"
    if old_keys - new_keys:
        return ", ".join(sorted(old_keys - new_keys)), "by keyword", "by position"
    return None


_NUMBERS_FIX = (
    "{path} was {old} and is {new} now: one array and a list (or tuple, dict) of Python "
    "numbers are different pytrees (each number is an input of its own, weakly typed), and "
    "each structure compiles anew. Pass an array every time.",
    "{path} = jnp.asarray({path})    # one array, every call")
# (no code: no reshaping makes one array and a container of arrays one type; JAX 0.10.2
# traces f(x), then f((x, y)), twice: recompile_audit_reference.json's
# array_then_tuple_of_arrays, and the tuple passed again reuses its program)
_ARRAYS_FIX = (
    "{path} was {old} and is {new} now: one array and a container of arrays are different "
    "pytrees, each compiled (and each reused when passed again). If the function is meant "
    "for both, two programs are expected; if not, pass the kind it is meant for in every "
    "call.",
    "")
# a meta field of a class registered with register_dataclass, its value changed: the fields
# the learner registered, that one made data (JAX 0.10.2 traces pasted_fixes_reference.json's
# meta_field_changes, so registered, once)
_META_DATA_FIX = (
    "{kind}'s meta fields are part of the pytree structure, like a static argument: "
    "{old} -> {new} compiles anew (each value once; an equal one reuses its program). "
    "{changed} changed: if it should change without compiling (a number it computes with, "
    "not a shape or a Python branch), make it a data field (traced), registered as below in "
    "place of your registration of {kind}.",
    "jax.tree_util.register_dataclass({kind}, data_fields={data}, meta_fields={meta})    # "
    "{changed}: data, traced")


def _registered_fields(kind):
    """(data fields, meta fields) `kind` was registered with by register_dataclass, or None."""
    found = _dataclass_fields.get(kind)
    return None if found is None else (list(found[0]), list(found[1]))


def _same(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:       # an array's ==: not one truth value
        return False


# a class registered with register_static (register_static_config_changed): the object is
# the treedef's aux data, as JAX's registration holds it
_STATIC_CLASS_FIX = (
    "{kind} is registered as static (jax.tree_util.register_static): each {kind} is held "
    "whole in the pytree structure, like a static argument, so {old} -> {new} compiles anew "
    "(each value once; an equal one reuses its program). A compile per value is expected "
    "where it sets a shape or a Python loop; a number that should change without compiling "
    "goes out of {kind}, passed as an array argument of its own (traced).",
    "")
# pytree metadata alike but for objects made anew, which compare by identity (a function, a
# class without its own ==): the same object passed again is equal (JAX 0.10.2 lowers
# register_static_holding_a_function_made_anew_fixed once)
_MADE_ANEW_FIX = (
    "{kind} is held whole in the pytree structure, like a static argument, and the two "
    "differ only in objects made anew (another address): a function, or an object without "
    "its own ==, equals only itself, so each new one compiles anew. Make it once and pass "
    "the same object each call.",
    "")
# the same, the object an optax transformation (Flax's nnx.Optimizer keeps it in its
# GraphDef): a new optimizer with the same transformation reuses the program (JAX 0.10.2 with
# Flax 0.12.7: one compile for two optimizers of one tx, a second for optax.adam called again)
_OPTAX_MADE_ANEW_FIX = (
    "{kind} is held whole in the pytree structure, like a static argument, and the two "
    "differ only in objects made anew (another address): an optax transformation's "
    "functions, new each time optax.adam(...) (or another) is called, and equal only to "
    "themselves, so each new one compiles anew. Make the transformation once and give the "
    "same one to each new optimizer.",
    "tx = optax.adam(...)    # once, in a cell of its own\n"
    "optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)    # each new optimizer: the same tx")
_META_FIX = (
    "{kind}'s meta fields are part of the pytree structure, like a static argument: "
    "{old} -> {new} compiles anew (each value once; an equal one reuses its program). If "
    "the field should change without compiling, make it a data field (an array, traced).",
    "jax.tree_util.register_dataclass({kind}, data_fields=[...], meta_fields=[...])    # "
    "numbers that vary: data")
# an OrderedDict flattens in its insertion order (a dict in sorted order): JAX 0.10.2 lowers
# the program of ordereddict_order_fixed (dict(p) before each call) once
_ORDERED_FIX = (
    "{arg} is an {kind}, whose keys in the order they were inserted are its pytree "
    "structure ({old} -> {new}), so each order compiles anew. A dict's keys are sorted: "
    "any order is one structure. Pass a dict, or build the {kind} in one order.",
    "{arg} = dict({arg})    # keys sorted: one structure, whatever the order")
# aux data of a class keeping object's == and hash: a new one per call is never equal (JAX
# 0.10.2 lowers pytree_aux_data_compared_by_identity_fixed, the class frozen, once)
_AUX_IDENTITY_FIX = (
    "{kind}'s aux data is a {aux} object, and {aux} keeps object's own == and hash (by "
    "identity): a new {aux} each call is new pytree metadata, however alike, and compiles "
    "anew. Make {aux} compare by its fields (a frozen dataclass has == and hash over them), "
    "or reuse one {aux} object.",
    "@dataclasses.dataclass(frozen=True)    # == and hash by its fields\n"
    "class {aux}:\n"
    "{fields}")
_AUX_FIX = (
    "{kind}'s aux data (what its flatten function returns beside the children) is part "
    "of the pytree structure, like a static argument: {old} -> {new} compiles anew (each "
    "value once; an equal one reuses its program). If it should change without compiling, "
    "return it among the children (a leaf, traced).",
    "")
# an argument passed None in one call and an array in the other (not left out)
_NONE_ARGUMENT_FIX = (
    "{path} was {old} and is {new} now: None is an empty pytree and an array a leaf, two "
    "argument structures, each compiled. Pass an array in every call (zeros where None "
    "meant nothing to add).",
    "{path} = jnp.zeros({shape}{dtype}) if {path} is None else {path}    # an array in every "
    "call")


# None, then a container holding arrays: zeros of each, where None meant nothing (JAX 0.10.2
# lowers grad_accumulator_starts_as_none_fixed, the code pasted before the loop's call, once)
_NONE_HOLDS_ARRAYS_FIX = (
    "{path} was {old} and is {new} now: None is an empty pytree and {kind} of arrays a node "
    "holding leaves, two argument structures, each compiled. Pass {kind} of arrays in every "
    "call (zeros of each where None meant nothing to add).",
    "{path} = {zeros} if {path} is None else {path}    # arrays in every call")


def _zeros_dtype(dtype) -> str:
    """The dtype argument of jnp.zeros for zeros of `dtype`: none for the default float
    (float32, float64 under x64), `, jnp.int32` else (default zeros in place of an int32
    array were another dtype: a compile more)."""
    default = "float64" if config.jax_enable_x64 else "float32"
    return "" if dtype.name == default else f", jnp.{dtype.name}"
_ARGUMENT_FIX = ("{path} was {old} and is {new} now: an argument left out (to its default, "
                 "or a **kwargs keyword not given) and one passed are two different argument "
                 "structures, each compiled. Pass {path} in every call, or in none.",
                 "f(..., {path}={path})    # in every call")
def list_item(path: str, aval) -> dict:
    """What a list's length fix is written with, from an item's path and type: the list's
    own path (`state['losses']` of `state['losses'][1]`, not the argument `state`) and the
    item's zeros (`jnp.zeros((2,), jnp.float32)`: an empty list has no item to copy)."""
    shape = tuple(aval.shape)
    return dict(list=re.sub(r"\[\d+\]$", "", path), shape=shape, dtype=aval.dtype.name,
                rows=f"(n_steps, {', '.join(map(str, shape))})" if shape else "(n_steps,)")


# (the zeros are written out: zeros_like of the first item fails for a list that starts empty)
_LENGTH_FIX = ("{list} changed length ({path}: {old} -> {new}): a list's length is part of "
               "its pytree structure, and every structure compiles anew. If the jitted "
               "step returns it one item longer each time (a history), make it an array of "
               "its full size once and write each step's value at its index "
               "(`.at[i].set(value)`, i passed traced) instead. Keep the length "
               "fixed: stack the items into one array of a fixed number of rows, zeros past "
               "the real ones, and pass a mask of them (stacked alone, its length is a "
               "shape, which compiles anew too).",
               "MAX = 8                              # the most items a call has\n"
               "n = len({list})\n"
               "{list} = jnp.stack(list({list}) + [jnp.zeros({shape}, jnp.{dtype})] * (MAX - n))\n"
               "mask = jnp.arange(MAX) < n           # which rows are real: pass it too")
# a dict argument's own key (`params['b']`, not `params['layer']['b']`)
_KEY_OF_ARGUMENT = re.compile(r"^[A-Za-z_]\w*\[('[^'\\]*'|\"[^\"\\]*\")\]$")
_KEY_FIX = ("The arguments' pytree structure changed ({path}: {old} -> {new}): a dict's keys "
            "are part of its structure, and every structure compiles anew. Give {root} the "
            "same keys in every call: zeros where a call has no {key} (the function must read "
            "zeros as nothing there), set before each call.",
            "defaults = {{{key}: jnp.zeros({shape}, jnp.{dtype})}}    # the keys some call "
            "lacks\n"
            "{root} = {{**defaults, **{root}}}    # the same keys in every call: before each")
# a dict argument's own int key (`layers[2]`), its parent told a dict by the treedef
_INT_KEY_OF_ARGUMENT = re.compile(r"^[A-Za-z_]\w*\[(-?\d+)\]$")
# a class registered with register_pytree_node given another number of children (JAX: "with 2
# children and before ... with 1 child"): not a list, whose stacking fix would not apply
_CHILDREN_FIX = (
    "{node} is a {kind} whose number of children changed ({path}: {old} -> {new}): how many "
    "children its flatten function returns is part of its pytree structure, and every "
    "structure compiles anew. Give {kind} the same number of children in every call: pad "
    "what it holds to a fixed count, zeros past the real ones (with a mask of them passed "
    "too, where they would count).",
    "")
# the same key names as ints in one call and strs in another: other keys to a dict's structure
_KEY_KIND_FIX = (
    "{path}'s keys are the same names but of another type ({old} -> {new}: {old_kind} then "
    "{new_kind}): a dict's keys are part of its pytree structure, and 0 and '0' are "
    "different keys, so each kind compiles anew. Make the keys one type where the dict is "
    "made.",
    "{path} = {{str(k): v for k, v in {path}.items()}}    # one type of key, every call")
_KEYWORD_FIX = ("The same argument came by position in one call and by keyword in the other "
                "({old} -> {new}): which arguments are keywords is part of the cache key. "
                "Pass each argument the same way in every call.",
                # (at_the_calls writes it in the learner's call where both can be read)
                "f(...)    # or always f(..., x=x): one way, every call")
# (each moved argument by keyword: "scale, x" read `f(..., scale, x=scale, x)`)
_KEYWORD_NAMED_CODE = "f(..., {keywords})    # or always by position: one way, every call"
# what differs holds no arrays: a key or item that is None or an empty container in one call
# and absent in the other (JAX 0.10.2 traces each *_fixed of these audit scenarios once)
_EMPTY_KEYS_FIX = (
    "The keys of {path} changed ({old} -> {new}): a dict's keys are part of its pytree "
    "structure, even a key holding {held} (no arrays), and each structure compiles anew. "
    "Give {path} the same keys in every call, {held} where a call has no such key (the "
    "function must read it as nothing there), set before each call.",
    "defaults = {defaults}    # the keys some call lacks\n"
    "{path} = {{**defaults, **{path}}}    # the same keys in every call: before each")
_EMPTY_ITEMS_FIX = (
    "{path} changed length ({old} -> {new}), and the items only the longer has are {held} "
    "(no arrays): a {kind}'s length is part of its pytree structure, and each length "
    "compiles anew. Give it one length in every call, padded with {held} (the function "
    "must read it as nothing there), before each call.",
    "{path} = {kind}({path}) + {one} * ({n} - len({path}))    # one length, every call: "
    "before each")
_LEAFLESS_FIX = (
    "{what}, and what differs holds no arrays (None, empty containers): only the pytree "
    "structure changed, which jit keys on as on a static argument's value, so each structure "
    "compiles anew (an equal one reuses its program). If the function reads it (a length, a "
    "key), a program per structure is expected; if not, pass one structure in every call.",
    "")
# JAX 0.10.2: "now <class 'Lin'> and before <class 'Lin'>, so their Python types differ"
# (tests/data/recompile_cells_cases.py, dataclass_model_class_cell_run_again)
_CLASS_ANEW_FIX = (
    "{path} is of a class {name} made anew: its `class {name}` statement ran again (its "
    "cell run again, or its module reloaded), and a new class, even of the same code, is "
    "another pytree node type, so the first call with it compiles again (one compile per "
    "class made, expected after an edit of the class). Define the class in a cell of its "
    "own, run once, and make its objects in other cells: they share its programs.",
    "")
# the same, the class cell edited (a field added, a method changed) and run: JAX 0.10.2 says
# the same ("so their Python types differ") and lowers once for it; "define the class in a
# cell of its own, run once" told a learner whose class cell was its own to stop editing it
# (recompile_cells_cases.py's namedtuple_class_cell_edited_with_a_field)
_CLASS_EDITED_FIX = (
    "{path} is of the class {name} as edited: its `class {name}` statement ran again with "
    "other code (a field or a method changed), which makes a new class, another pytree node "
    "type, so the first call with it compiles again (its later calls reuse that program). "
    "Nothing to fix: a compile per edit is expected.",
    "")
_CONTAINER_FIX = ("{path} was {old} and is {new} now: another kind of node in one place (a "
                  "tuple for a namedtuple, a list for a tuple, () for None) is another pytree "
                  "structure, each compiled. Pass the same kind in every call.",
                  "{convert}")


# ------------------------------------------------------------------ None made an array
# what _NONE_ARGUMENT_FIX's zeros become by how the function combines the value (argument_uses
# .field_uses): zeros in place of None keep a sum only; multiplied by, divided by or selected
# with (jnp.where), zeros changed the result (4 summed under a mask of zeros: 0), and ones (True)
# keep it
_NONE_MARK = ": None is an empty pytree and an array a leaf, two argument structures"
_ONES_USES = {"factor": "multiplies by", "divisor": "divides by", "condition": "selects with"}
_NONE_NEUTRAL_FIX = (
    "{path} was {old} and is {new} now: None is an empty pytree and an array a leaf, two "
    "argument structures, each compiled. Zeros in place of None would change the result: "
    "{fun} {uses} {path}. Pass an array in every call, {neutral} where it was None ({means}).",
    "")
_NONE_UNREAD_FIX = (
    "{path} was {old} and is {new} now: None is an empty pytree and an array a leaf, two "
    "argument structures, each compiled. Zeros in place of None keep the result only where "
    "{path} is added, and which value means nothing for {fun}'s use of it cannot be told "
    "from its source here: pass an array in every call, where it was None the one that "
    "means nothing for that use (ones to multiply or divide by, True to select with, zeros "
    "to add).",
    "")


def none_made_neutral(change, fun, uses_of) -> Change:
    """`change`, None then an array (or back) made zeros in every call (_NONE_ARGUMENT_FIX),
    with the array that keeps `fun`'s result as None did, by how its source combines the
    value (`uses_of(fun, path)`: argument_uses.field_uses): ones (True for a bool) where it
    multiplies, divides or selects with it, zeros where it adds it or does not read it; where
    that is not read, a pattern whose value is left to fill in (`jnp.full(shape, ...)`)."""
    if change.kind != "structure" or _NONE_MARK not in change.fix or \
            not _NONE_ZEROS.search(change.snippet):
        return change
    used = uses_of(fun, change.path)
    if used is not None and set(used) <= {"term"}:
        return change                       # added, or not read: zeros keep the result
    name = getattr(fun, "__name__", "")
    fill = dict(fun=name if name.isidentifier() else "the function")
    if used is None or not set(used) <= set(_ONES_USES):
        # not read, or read as added in one place and multiplied in another: no one value
        fixed = _refixed(change, _NONE_UNREAD_FIX, **fill)
        snippet = _with_neutral(change.snippet, r"jnp.full(\1, ...)",
                                "...: ones, True or zeros, whichever means nothing there")
    else:
        neutral = "True" if ", jnp.bool)" in change.snippet else "ones"
        fixed = _refixed(change, _NONE_NEUTRAL_FIX, **fill, neutral=neutral,
                         uses=" and ".join(_ONES_USES[u] for u in used),
                         means=_what_ones_keep(used, neutral))
        snippet = _with_neutral(change.snippet, r"jnp.ones(\1\2)",
                                f"an array in every call: {neutral} where it was None")
    return dataclasses.replace(fixed, snippet=snippet, fix=pattern_said(fixed.fix, snippet))


def _what_ones_keep(used, neutral: str) -> str:
    """What `neutral` ("ones", "True") in place of None does to `used`'s kinds: "ones change
    no value, as without it" (a factor, a divisor), "True selects every element, as without
    it" (a condition), or both."""
    said = (["change no value"] if set(used) - {"condition"} else []) + \
        (["select every element"] if "condition" in used else [])
    if neutral == "True":
        said = [s.replace("change", "changes").replace("select ", "selects ") for s in said]
    return f"{neutral} {' and '.join(said)}, as without it"


# the zeros _NONE_ARGUMENT_FIX's code makes (its shape, its dtype argument), and its comment
_NONE_ZEROS = re.compile(r"jnp\.zeros\((\([\d, ]*\))((?:, jnp\.\w+)?)\)")


def _with_neutral(snippet: str, made: str, comment: str) -> str:
    """`snippet` with the zeros of _NONE_ZEROS made as `made` (a replacement of its groups),
    the line holding them commented `comment` (in place of its own comment)."""
    out = []
    for line in snippet.split("\n"):
        if _NONE_ZEROS.search(line):
            line = _NONE_ZEROS.sub(made, line).split("    # ")[0] + f"    # {comment}"
        out.append(line)
    return "\n".join(out)
