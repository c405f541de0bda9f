"""What differs between two signatures of a jitted function, as Changes: each difference
(a path, its kind, old and new) with the fix in a sentence and in code; the nearest earlier
signature; the text a user reads. views/recompile_explainer.py finds the signatures of a
jit's miss and asks this module why.

    >>> str(Change("x", "shape", "f32[3]", "f32[4]"))
    'x: shape f32[3] -> f32[4]'
"""
from __future__ import annotations

import dataclasses
import re
import sys

import numpy as np


# The jit options that make another program (kind "config"), and Jitted's attributes of them
_JIT_OPTIONS = (("donate_argnums", "_donate_argnums"), ("donate_argnames", "_donate_argnames"),
                ("inline", "_inline"), ("keep_unused", "_keep_unused"),
                ("compiler_options", "_compiler_options"))


def explain(old_sig, new_sig, old_tree, new_tree, old_static, new_static,
            structure=()) -> str:
    """Why a new signature missed: against the closest earlier one, per argument path.
    `structure`: the structure Changes found (explain_changes), which name the node that
    changed; the one line says them rather than the two PyTreeDefs."""
    if old_sig is None:
        return "first call"
    reasons = []
    before, after = dict(old_static), dict(new_static)
    for path in [p for p, _ in new_static] + [p for p, _ in old_static if p not in after]:
        old, new = before.get(path, _ABSENT), after.get(path, _ABSENT)
        if old is _ABSENT or new is _ABSENT or not _same_static(old, new):
            reasons.append(f"static {path}: {_DEFAULT if old is _ABSENT else repr(old)} -> "
                           f"{_DEFAULT if new is _ABSENT else repr(new)}")
    if old_tree != new_tree:
        said = "; ".join(f"{c.path}: {c.old} -> {c.new}" for c in structure)
        reasons.append(f"new pytree structure: {said or f'{old_tree} -> {new_tree}'}")
    else:
        for (path, old), (_, new) in zip(old_sig, new_sig):
            if old != new:
                if old.shape == new.shape and old.dtype == new.dtype:
                    reasons.append(f"{path}: weak_type {old.weak_type} -> {new.weak_type}")
                else:
                    reasons.append(f"{path}: {old.str_short()} -> {new.str_short()}")
    return "; ".join(reasons) or "a changed configuration (x64, backend or device)"


def distance(old_sig, new_sig, old_tree, new_tree, old_static, new_static) -> int:
    """How many things differ between two signatures (to find the closest earlier one)."""
    d = sum(a != b for (_, a), (_, b) in zip(old_static, new_static))
    if old_tree != new_tree:
        return d + 1000
    return d + sum((a.shape != b.shape) + (a.dtype != b.dtype) + (a.weak_type != b.weak_type)
                   for (_, a), (_, b) in zip(old_sig, new_sig))


# ------------------------------------------------------------------ structured explanations
@dataclasses.dataclass(frozen=True)
class Change:
    """One difference between a new signature and the nearest earlier one, with its fix.

        >>> str(Change("params['w']", "shape", "f32[3]", "f32[4]"))
        "params['w']: shape f32[3] -> f32[4]"
    """
    path: str            # "x", "params['w']", "n" (static), "jax_enable_x64", "w (closed over)"
    kind: str            # one of KINDS
    old: str
    new: str
    fix: str = ""        # what to do, in a sentence
    snippet: str = ""    # the fix as code

    def __str__(self):
        # the kinds that are not a part of the signature are said in words alone: "fresh_jit"
        # is a key of this module's, not a word a learner can look up (a new jit object in a
        # loop read "(jit object): fresh_jit jit(f) compiled for ... -> a new jit object")
        if self.kind in _UNNAMED_KINDS:
            return f"{self.path}: {self.old} -> {self.new}"
        return f"{self.path}: {self.kind} {self.old} -> {self.new}"

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


KINDS = ("shape", "dtype", "weak_type", "static", "traced", "structure", "constant", "config",
         "fresh_jit", "fresh_body", "traced_for")
_UNNAMED_KINDS = ("fresh_jit", "fresh_body", "traced_for")


@dataclasses.dataclass(frozen=True)
class Signature:
    """What a compiled program was specialised on, as explain_changes compares it: named
    avals (path, ShapedArray), the pytree structure, static (name, value) pairs, the config
    (name, value) pairs, the closed-over constants (name, value), None if unknown, and the
    names of the statics passed by keyword (f(x, n=2) and f(x, 2) are two cache keys, as in
    JAX)."""
    named: tuple
    treedef: object = None
    statics: tuple = ()
    config: tuple = ()
    consts: tuple | None = None
    by_keyword: tuple = ()


_ROOT = re.compile(r"^(args\[\d+\]|[^\[.]+)")


def _root(path: str) -> str:
    """The argument a leaf path belongs to: "params['w']" -> "params"."""
    found = _ROOT.match(path)
    return found.group(1) if found else path


def _aval_text(aval) -> str:
    return aval.str_short() + (" (weak)" if aval.weak_type else "")


def explain_changes(old: Signature | None, new: Signature) -> tuple:
    """The Changes from `old` to `new` (empty for a first call), each with its fix.

        >>> a = ShapedArray((3,), np.float32)
        >>> [str(c) for c in explain_changes(Signature((("x", a),)),
        ...                                  Signature((("x", a.update(shape=(4,))),)))]
        ['x: shape f32[3] -> f32[4]']
    """
    if old is None:
        return ()
    changes = [*_config_changes(old, new)]
    old_static, new_static = dict(old.statics), dict(new.statics)
    old_roots, new_roots = {_root(p) for p, _ in old.named}, {_root(p) for p, _ in new.named}
    flipped = (set(old_static) & new_roots) | (set(new_static) & old_roots)
    changes += _traced_changes(old, new, flipped)
    changes += _static_changes(old_static, new_static, flipped)
    changes += _static_keyword_changes(old, new, flipped)
    changes += _leaf_changes(old, new, flipped)
    changes += _const_changes(old.consts, new.consts)
    if any(c.kind == "config" and c.path == "jax_enable_x64" for c in changes):
        changes = [c for c in changes if not _widened_by_x64(c)]
    return tuple(changes)


_X64_PAIRS = {("f32", "f64"), ("i32", "i64"), ("u32", "u64"), ("c64", "c128")}


def _widened_by_x64(change) -> bool:
    """A dtype change x64 makes by itself (a Python 1.0 is f32 without it, f64 with it): JAX
    names the config alone, and casting the argument would not stop it.

        >>> _widened_by_x64(Change("x", "dtype", "f32[] (weak)", "f64[] (weak)"))
        True
    """
    if change.kind != "dtype":
        return False
    (a, a_dims), (b, b_dims) = (re.match(r"^([a-z]+\d*)(.*)$", t).groups()
                                for t in (change.old, change.new))
    return a_dims == b_dims and ((a, b) in _X64_PAIRS or (b, a) in _X64_PAIRS)


def _option_setters(name: str) -> str:
    """What sets the option `name` in a learner's code: its context manager where jax has
    one under the option's name (jax_numpy_rank_promotion: `jax.numpy_rank_promotion`), and
    jax.config.update.

        >>> _option_setters("jax_numpy_rank_promotion")
        'a `with jax.numpy_rank_promotion(...)` block or jax.config.update'
    """
    # read from the loaded package (this module is imported by it): the table is jax's own
    manager = getattr(sys.modules.get("jxkernel"), name.removeprefix("jax_"), None)
    if callable(manager):
        return f"a `with jax.{name.removeprefix('jax_')}(...)` block or jax.config.update"
    return "jax.config.update"


def _config_changes(old, new):
    before = dict(old.config)
    changed = {name for name, value in new.config if name in before and before[name] != value}
    if "donate_argnums" in changed:           # its names follow from its numbers: one change
        changed.discard("donate_argnames")
    for name, value in new.config:
        if name in changed:
            change = _fixed(name, "config", before[name], value)
            if name == "jax_default_device":
                change = _refixed(change, _DEFAULT_DEVICE_FIX, new_code=_device_code(value))
            elif name.startswith("jax_") and name != "jax_enable_x64":   # a trace option
                change = _refixed(change, _TRACE_OPTION_FIX, new_repr=f'"{value}"'
                                  if isinstance(value, str) else repr(value),
                                  set_by=_option_setters(name))
            elif _USER_CONTEXT.search(name):      # jax.make_user_context's
                change = _user_context_change(name, before[name], value)
            yield change
    # a context made since the old signature: every jit's key has one value more (JAX:
    # "number of tracing context values differs")
    made = [name for name, _ in new.config if _USER_CONTEXT.search(name) and
            name not in before]
    if made and old.config:
        count = sum(bool(_USER_CONTEXT.search(name)) for name, _ in new.config)
        context = _context_name(made[-1])
        change = Change(USER_CONTEXTS, "config", str(count - len(made)), str(count))
        yield _refixed(change, _NEW_CONTEXT_FIX, context=context,
                       value=repr(dict(new.config)[made[-1]]))


def _device_code(value) -> str:
    """jax_default_device's value as code: a Device as jax.devices("cpu")[0]; a string or
    None as itself."""
    platform, index = getattr(value, "platform", None), getattr(value, "id", None)
    if platform is not None and index is not None:
        return f'jax.devices("{platform}")[{index}]'
    return f'"{value}"' if isinstance(value, str) else repr(value)


# the end of a jax.make_user_context context's name in a signature: "ctx (user context #3)",
# shown as "ctx (user context)"
_USER_CONTEXT = re.compile(r" \(user context #\d+\)$")
USER_CONTEXTS = "user contexts"       # how many there are (a new one made: every key grows)


def _context_name(name) -> str:
    """The name to write a fix with: "ctx (user context #3)" -> "ctx" (one made where no
    name holds it: ctx)."""
    context = _USER_CONTEXT.sub("", name)
    return context if context.isidentifier() else "ctx"


def _user_context_change(name, old, new) -> Change:
    context = _context_name(name)
    change = Change(_USER_CONTEXT.sub(" (user context)", name), "config", repr(old), repr(new))
    return _refixed(change, _USER_CONTEXT_FIX, context=context, old_repr=repr(old),
                    new_repr=repr(new))


def _traced_changes(old, new, flipped):
    """An argument static in one signature and traced in the other."""
    def side(sig, name):
        value = dict(sig.statics).get(name, _ABSENT)
        if value is not _ABSENT:
            return f"static {value!r}"
        return ", ".join(_aval_text(a) for p, a in sig.named if _root(p) == name) or "absent"
    for name in sorted(flipped):
        change = _fixed(name, "traced", side(old, name), side(new, name))
        arrays = [a for sig in (old, new) for p, a in sig.named if _root(p) == name]
        if any(a.shape for a in arrays):      # an array (not hashable) cannot be static
            change = _refixed(change, _ARRAY_TRACED_FIX)
        yield change


_ABSENT = object()
_DEFAULT = "(not passed: its default)"


def _static_changes(old_static, new_static, flipped):
    for name in sorted(set(old_static) | set(new_static), key=str):
        if name in flipped:
            continue
        before, after = old_static.get(name, _ABSENT), new_static.get(name, _ABSENT)
        if before is _ABSENT or after is _ABSENT or not _same_static(before, after):
            change = _fixed(str(name), "static",
                            _DEFAULT if before is _ABSENT else _static_repr(before),
                            _DEFAULT if after is _ABSENT else _static_repr(after), name=name)
            if before is _ABSENT or after is _ABSENT:    # not "a new value": drop nothing
                passed = after if before is _ABSENT else before
                change = _refixed(change, _STATIC_DEFAULT_FIX, value=_static_repr(passed))
            elif before == after:                        # True and 1: equal, other types
                change = _refixed(change, _STATIC_TYPE_FIX, old_type=type(before).__name__,
                                  new_type=type(after).__name__, py=_py_type(before, after))
            elif (before is None) != (after is None):    # None or a value: traced, two too
                change = _refixed(change, _STATIC_NONE_FIX)
            elif _hashed_by_identity(after) and callable(after):   # a new lambda, a partial
                change = _refixed(change, _STATIC_FUNCTION_FIX,
                                  kind=type(after).__name__,
                                  func=getattr(getattr(after, "func", None), "__name__", "g"))
            elif _hashed_by_identity(after):
                names = _fields(after) or ["field"]
                tail = "," if len(names) == 1 else ""        # (self.k,): a tuple of one
                change = _refixed(change, _IDENTITY_FIX, kind=type(after).__name__,
                                  fields=", ".join(f"self.{k}" for k in names) + tail,
                                  other=", ".join(f"other.{k}" for k in names) + tail)
            elif isinstance(after, bool) and isinstance(before, bool):
                change = _refixed(change, _BOOL_STATIC_FIX)
            elif after is not _ABSENT and dataclasses.is_dataclass(after) and \
                    not isinstance(after, type):
                change = _refixed(change, _DATACLASS_STATIC_FIX, **_dataclass_fields(after))
            elif _pytree_fields(after) is not None:      # its own class, of number fields
                fields = _pytree_fields(after)
                change = _refixed(change, _OBJECT_STATIC_FIX, kind=type(after).__name__,
                                  leaves=", ".join(f"m.{k}" for k in fields) + ",")
            elif after is not _ABSENT and not _traceable(after):
                change = _refixed(change, _STATIC_KEEP_FIX, kind=type(after).__name__)
            yield change


def _py_type(before, after) -> str:
    """The type to make both of two equal static values: the old one's, or where either is
    a NumPy scalar (np.int32(3) and 3), the Python type of its value (`int32(n)` is no name
    in a learner's cell; int(n) makes both one key)."""
    if isinstance(before, np.generic) or isinstance(after, np.generic):
        return type(np.asarray(before).item()).__name__
    return type(before).__name__


def _static_keyword_changes(old, new, flipped):
    """A static argument of the same value passed by position in one call and by keyword in
    the other: JAX keys its cache on how it came (f(x, 2) and f(x, n=2) trace twice)."""
    old_static, new_static = dict(old.statics), dict(new.statics)
    for name in sorted(set(old_static) & set(new_static), key=str):
        if name in flipped or not _same_static(old_static[name], new_static[name]):
            continue
        was, now = name in old.by_keyword, name in new.by_keyword
        if was != now:
            how = {True: "by keyword", False: "by position"}
            yield _refixed(_fixed(str(name), "structure", how[was], how[now], name=name),
                           _STATIC_KEYWORD_FIX)


def _fields(value) -> list:
    """The attributes of an object of a user's class (its __dict__), or []."""
    found = getattr(value, "__dict__", None)
    return list(found) if isinstance(found, dict) else []


def _static_repr(value) -> str:
    """A static value as a change shows it: its repr, but for an object of a class keeping
    object's own repr (an address, which tells a learner nothing) its class and fields:
    Model(k=2)."""
    if type(value).__repr__ is not object.__repr__ or not _fields(value):
        return repr(value)
    fields = _fields(value)
    inner = ", ".join(f"{k}={_short(getattr(value, k))}" for k in fields[:4])
    return f"{type(value).__name__}({inner}{', …' if len(fields) > 4 else ''})"


def _short(value, limit=30) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pytree_fields(value):
    """The fields of an object of a user's class whose fields are all numbers and whose
    constructor takes them in order (Model(k) with self.k = k): it can be registered as a
    pytree and traced (register_pytree_node, its fields the leaves). None otherwise."""
    fields = _fields(value)
    if not fields or not all(_traceable(getattr(value, k)) for k in fields):
        return None
    try:
        import inspect
        params = list(inspect.signature(type(value)).parameters)
    except (TypeError, ValueError):
        return None
    return fields if params == fields else None


def _same_static(a, b) -> bool:
    """One static value for jit's key, as JAX's tree_util.Static compares them: equal and of
    the same type (True and 1, 2.0 and 2 are two keys)."""
    return type(a) is type(b) and a == b


def _dataclass_fields(value) -> dict:
    """A frozen dataclass used as a static value: its number fields (which could be traced
    data fields of a registered pytree) and the others (meta fields)."""
    fields = [f.name for f in dataclasses.fields(value)]
    data = [n for n in fields if _traceable(getattr(value, n, None))]
    return dict(kind=type(value).__name__, data=data,
                meta=[n for n in fields if n not in data])


def _traceable(value) -> bool:
    """Whether a static value could be passed traced instead: a number or a NumPy value."""
    return isinstance(value, (bool, int, float, complex, np.number, np.bool_, np.ndarray))


def _hashed_by_identity(value) -> bool:
    """An object whose class keeps object's own __hash__ and __eq__: every instance is a new
    static value, however alike."""
    kind = type(value)
    return kind.__hash__ is object.__hash__ and kind.__eq__ is object.__eq__


def _leaf_changes(old, new, flipped):
    before = {p: a for p, a in old.named if _root(p) not in flipped}
    after = {p: a for p, a in new.named if _root(p) not in flipped}
    moved = [p for p in after if p not in before] + [p for p in before if p not in after]
    explained = False
    for root in sorted({_root(p) for p in moved}, key=str):
        change = _array_or_container(root, before, after)
        if change is not None:              # one change for the argument, not one per leaf
            moved, explained = [p for p in moved if _root(p) != root], True
            yield change
    node = None if explained else _node_change(old, new)
    if node is not None:                    # one change for the node, not one per leaf
        moved = [p for p in moved if not _under(p, node.path)]
        explained = True
        yield node
    for path in sorted(moved):
        change = _fixed(path, "structure",
                        _aval_text(before[path]) if path in before else "absent",
                        _aval_text(after[path]) if path in after else "absent")
        if path == _root(path) and _none_passed(old, new, path in before):   # None, array
            side = (after if path in after else before)[path]
            change = _refixed(dataclasses.replace(
                change, **{"old" if path in after else "new": "None"}), _NONE_ARGUMENT_FIX,
                shape=tuple(side.shape))
        elif path == _root(path):                   # a whole argument passed, then not
            change = _refixed(change, _ARGUMENT_FIX)
        elif path.endswith("]") and re.search(r"\[\d+\]$", path):   # a list's length
            change = _refixed(change, _LENGTH_FIX)
        yield change
    if not moved and not flipped and not explained and old.treedef is not None and \
            new.treedef is not None and old.treedef != new.treedef:
        change = _fixed("(arguments)", "structure", str(old.treedef), str(new.treedef))
        meta = _metadata_change(old.treedef, new.treedef)
        if meta is not None:                # a registered pytree's meta fields differ
            kind, was, now = meta
            change = _refixed(dataclasses.replace(change, old=f"{kind} meta {was!r}",
                                                  new=f"{kind} meta {now!r}"), _META_FIX,
                              kind=kind)
        elif _by_keyword_now(old.treedef, new.treedef):
            moved_by = _keyword_moves(old.treedef, new.treedef)
            if moved_by:                    # name the argument, not the two PyTreeDefs
                name, was, now = moved_by
                change = dataclasses.replace(change, path=name, old=was, new=now)
            change = _refixed(change, _KEYWORD_FIX)
        else:
            change = _refixed(change, _TREE_FIX)
        yield change
    batches = _partial_batches(before, after)
    for path, a in after.items():
        b = before.get(path)
        if b is None or a == b:
            continue
        if a.shape != b.shape:
            # the weak flag only where it changed too (a Python number grown into an array)
            text = _aval_text if a.weak_type != b.weak_type else type(a).str_short
            change = _fixed(path, "shape", text(b), text(a))
            if any(not isinstance(d, (int, np.integer)) for d in (*a.shape, *b.shape)):
                change = _refixed(change, _SYMBOLIC_FIX)    # an export's symbolic shape
            elif _is_key(a) != _is_key(b):         # PRNGKey's u32[2], key's key<fry>[]
                change = _refixed(change, _KEY_FIX)
            elif len(a.shape) == len(b.shape) >= 1 and a.shape[1:] == b.shape[1:] and \
                    (b.shape[0], a.shape[0]) in batches:  # fewer rows: a last, partial batch
                change = _refixed(change, _PARTIAL_BATCH_FIX, size=b.shape[0])
            elif not b.shape:                      # a scalar grown into an array
                change = _refixed(change, _GROWN_FIX, shape=tuple(a.shape),
                                  dtype=a.dtype.name)
            elif len(a.shape) != len(b.shape) or not a.shape:
                change = _refixed(change, _RANK_FIX)
            else:                                  # one axis or more of another length
                change = _bucket_change(change, b.shape, a.shape)
            # (a scalar grown into an array is told to start with the new shape and dtype)
            if a.dtype != b.dtype and b.shape and not _is_key(a) and not _is_key(b):
                change = _with_cast(change, b.dtype.name, a.dtype.name)
            yield change
        elif a.dtype != b.dtype:
            change = _fixed(path, "dtype", _aval_text(b), _aval_text(a), dtype=b.dtype.name)
            if a.weak_type and b.weak_type and not b.shape:       # two Python scalars
                # the wider kind of the two: float(x) keeps an int's value, int(x) would
                # truncate 2.5 to 2 (a wrong result for a compile saved)
                kind = max(a.dtype.kind, b.dtype.kind, key=lambda k: _PY_ORDER.get(k, 2))
                change = _refixed(change, _PY_SCALAR_FIX, py=_PY_TYPE.get(kind, "float"))
            yield change
        else:
            change = _fixed(path, "weak_type", _aval_text(b), _aval_text(a), dtype=a.dtype.name)
            if b.weak_type and not a.shape:       # a Python number, then a 0-d array
                change = _refixed(change, _NUMBER_THEN_ARRAY_FIX, dtype=a.dtype.name)
            yield change


def _with_cast(change: Change, old_dtype: str, new_dtype: str) -> Change:
    """A shape change whose dtype changed too: its fix alone would still compile once per
    dtype, so the cast to the earlier dtype joins it (f32[3] -> i32[4]: pad, and cast)."""
    fix = (f"{change.fix} Its dtype changed too ({old_dtype} -> {new_dtype}): cast it as "
           f"well, so that every call has one dtype.")
    cast = f"{change.path} = jnp.asarray({change.path}, jnp.{old_dtype})"
    snippet = f"{cast}\n{change.snippet}" if change.snippet else cast
    return dataclasses.replace(change, fix=fix, snippet=snippet)


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
    change = Change(path, "structure", was, now)
    if {a[0], b[0]} == {type(None), "leaf"}:        # None, then an array (or back)
        aval = dict(new.named if b[0] == "leaf" else old.named).get(path)
        if aval is None:        # a body's leaves named otherwise than the node's path
            return None         # (a while_loop's carry under vmap, in Equinox): told per leaf
        change = _refixed(dataclasses.replace(change, **{
            "old" if a[0] is type(None) else "new": "None"}), _NONE_ARGUMENT_FIX,
            shape=tuple(aval.shape))
    else:
        change = _refixed(change, _CONTAINER_FIX, convert=_convert_to(a[0], path))
    return dataclasses.replace(change, snippet=_assignable(path, change.snippet))


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
    name is its first leaf's (on either side), a keyword's its key. A jit call's structure is
    (args, kwargs); a loop body's, its arguments' tuple alone."""
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
        if path is None:
            return None
    for (kind, _), key in rest:
        fields = getattr(kind, "_fields", None)
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
    return f"a {kind.__name__}"


def _convert_to(kind, path) -> str:
    """Code making `path` the kind of node it was: Point(*p), tuple(xs), None."""
    if kind is type(None):
        return f"{path} = None    # one kind of empty value, every call"
    name = kind.__name__ if kind in (tuple, list, dict) or getattr(kind, "_fields", None) \
        else None
    star = "*" if getattr(kind, "_fields", None) else ""
    return f"{path} = {name}({star}{path})    # one container type, every call" if name \
        else ""


def _under(path, node) -> bool:
    """Whether a leaf's path is `node` or below it."""
    return path == node or path.startswith((node + "[", node + "."))


def _bucket_change(change, old_shape, new_shape) -> Change:
    """The bucketing fix for the first axis whose length changed (padding axis 0 left an
    f32[5,3] -> f32[5,4] two programs), its buckets powers of two at least the one holding
    both lengths seen (3 and 2 bucketed alone are 4 and 2: two programs still)."""
    axis = next(i for i, (m, n) in enumerate(zip(old_shape, new_shape)) if m != n)
    return _refixed(change, _BUCKET_FIX, **_bucket_fill(axis, old_shape, new_shape, change.path))


# how far the bucketing fix's promise goes: lengths up to 2**(_DOUBLINGS - 1) times its floor
_DOUBLINGS = 5


def _bucket_fill(axis, old_shape, new_shape, array, offset=0) -> dict:
    """The bucketing snippet's blanks for `axis` (of an array `offset` axes deeper): its
    floor (the power of two holding both lengths seen), the pads before and after, and what
    it achieves (lengths up to the floor: one program; each doubling past it: one more)."""
    floor = 1 << (max(old_shape[axis], new_shape[axis]) - 1).bit_length()
    at = axis + offset
    return dict(axis=at, floor=floor, before=f"[(0, 0)] * {at} + " if at else "",
                after=f" + [(0, 0)] * ({array}.ndim - {at + 1})",
                most=_DOUBLINGS, upto=floor << (_DOUBLINGS - 1))


def rows_under_vmap(changes) -> tuple:
    """`changes` of a jitted function traced under vmap: a row's new shape is told as such,
    with its fix on the array vmap is given (vmap's mapped axis changing retraces nothing)."""
    out = []
    for c in changes:
        if c.kind == "shape" and c.fix.startswith(_BUCKET_FIX[0][:30]):
            old, new = _shape_of(c.old), _shape_of(c.new)
            if old is not None and new is not None and len(old) == len(new):
                axis = next(i for i, (m, n) in enumerate(zip(old, new)) if m != n)
                c = _refixed(c, _VMAP_ROWS_FIX, **_bucket_fill(axis, old, new, "xs", offset=1))
        out.append(c)
    return tuple(out)


def _shape_of(text):
    """(3, 4) from "f32[3,4]" (None for a symbolic or unreadable one)."""
    m = re.match(r"^[a-z]+\d*\[([\d,]*)\]", text)
    return None if m is None else tuple(int(d) for d in m.group(1).split(",") if d)


def _partial_batches(before, after) -> set:
    """(rows before, rows now) of the leaves that lost rows as a last, partial batch does:
    a leaf of rank 2 or more, its other dimensions kept; the vectors of the same batch (its
    labels) lose as many rows with it."""
    return {(b.shape[0], a.shape[0]) for p, a in after.items()
            for b in [before.get(p)] if b is not None and len(a.shape) == len(b.shape) >= 2
            and a.shape[1:] == b.shape[1:] and a.shape[0] < b.shape[0]}


def _is_key(aval) -> bool:
    """Whether an aval is a typed PRNG key's (key<fry>[])."""
    return str(aval.str_short()).startswith("key<")


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


def _array_or_container(root, before, after):
    """`root` passed as one array in one call and as a list/tuple/dict of Python numbers in
    the other (f(jnp.array([1., 2.])), then f([1., 2.])): one Change, or None."""
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
    if any(a.shape for a in parts.values()):     # a container of arrays: not this mistake
        return None
    items = f"{len(parts)} Python numbers ({', '.join(_aval_text(a) for a in parts.values())})"
    old, new = (_aval_text(whole), items) if old_is_array else (items, _aval_text(whole))
    return _refixed(_fixed(root, "structure", old, new), _NUMBERS_FIX)


def _metadata_change(old_tree, new_tree):
    """(type name, old, new) where the two structures hold the same registered pytree type
    with other metadata (a register_dataclass meta field, a custom node's aux data), or
    None."""
    try:
        a, b = old_tree.node_data(), new_tree.node_data()
        if a is None or b is None or a[0] is not b[0]:
            return None
        if a[1] != b[1] and a[0] not in (dict, list, tuple, type(None)):
            return getattr(a[0], "__name__", str(a[0])), a[1], b[1]
        ca, cb = old_tree.children(), new_tree.children()
    except (AttributeError, TypeError, ValueError):
        return None
    if len(ca) != len(cb):
        return None
    for x, y in zip(ca, cb):
        found = _metadata_change(x, y)
        if found is not None:
            return found
    return None


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


def _refixed(change: Change, fix_and_snippet, **more) -> Change:
    """`change` with another fix (a template of _FIXES' kind)."""
    fix, snippet = fix_and_snippet
    fill = dict(path=change.path, name=change.path, root=_root(change.path), old=change.old,
                new=change.new, **_jitting())
    fill.update(more)
    return dataclasses.replace(change, fix=fix.format(**fill), snippet=snippet.format(**fill))


def _const_changes(old, new):
    """Closed-over constants whose value differs (compared only when both sides know them)."""
    if old is None or new is None:
        return
    if len(old) != len(new):
        yield _fixed("(closed-over constants)", "constant", f"{len(old)} constant(s)",
                     f"{len(new)} constant(s)", name="c")
        return
    for (name, a), (_, b) in zip(old, new):
        if not _same_value(a, b):
            yield _fixed(f"{name} (closed over)", "constant", _value_text(a), _value_text(b),
                         name=name)


_COMPARE_MAX = 1 << 20          # elements: larger constants are compared by identity only


def _same_value(a, b) -> bool:
    if a is b:
        return True
    if getattr(a, "shape", None) != getattr(b, "shape", None) or \
            getattr(a, "dtype", None) != getattr(b, "dtype", None):
        return False
    if int(np.prod(getattr(a, "shape", ()))) > _COMPARE_MAX:
        return True              # too big to read back on every miss: not reported
    return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))


class _Large:
    """A closed-over constant too large to compare by value, as a signature keeps it: its type
    alone (holding the array would keep a device copy per compiled signature alive)."""
    __slots__ = ("shape", "dtype")

    def __init__(self, value):
        self.shape, self.dtype = tuple(value.shape), value.dtype

    def __repr__(self):
        return f"{np.dtype(self.dtype).name}{list(self.shape)}"


def _value_text(value, limit: int = 40) -> str:
    if type(value) is _Large:
        return repr(value)
    text = " ".join(np.array2string(np.asarray(value), threshold=6).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def change_distance(old: Signature, new: Signature) -> int:
    """How far two signatures are (to pick the nearest earlier one): a changed structure
    weighs more than any number of changed types."""
    d = sum(100 if c.kind in ("structure", "traced") else 1
            for c in explain_changes(old, new) if c.kind not in ("shape", "dtype", "weak_type"))
    before = dict(old.named)
    for path, a in new.named:            # per leaf: shape, dtype and weak type count apart
        b = before.get(path)
        if b is not None:
            d += (a.shape != b.shape) + (a.dtype != b.dtype) + (a.weak_type != b.weak_type)
    return d


def nearest(history, new: Signature):
    """The entry of `history` (Signatures, oldest first) JAX 0.10.2 names as "the closest
    previous key" for `new`: the least jax_order. Where JAX's message would read the same for
    several (it stops at its first kind: {'w': f32[2]} and {'w': f32[3]}, then a key 'b'
    added to the second, both read "a dict of 2 children, before 1"), the one with the fewest
    differences in all, then the latest. None for an empty history."""
    found = min(((jax_order(old, new), change_distance(old, new), -i, old)
                 for i, old in enumerate(history)), default=None, key=lambda e: e[:3])
    return None if found is None else found[3]


# JAX's severity of a kind of difference (partial_eval.diff_tracing_cache_keys: the tracing
# context, then the pytree, which holds the statics, then debug info, then the input types)
_PARENT = re.compile(r"(\[[^\]]*\]|\.\w+)$")     # xs[2] -> xs, p.y -> p, p['b'] -> p
_SEVERITY = {"config": 0, "static": 1, "traced": 1, "structure": 1, "shape": 3, "dtype": 3,
             "weak_type": 3}


def jax_order(old: Signature, new: Signature) -> tuple:
    """(severity, number of differences, text) as JAX 0.10.2 orders its earlier cache keys to
    name the closest (`min` over partial_eval.diff_tracing_cache_keys): a key differing in
    the tracing context (x64, a context manager) before one differing in the pytree (a
    static value, the structure) before one differing in input types, whatever their counts;
    then fewer differences (types: leaves, each counted once); then the text of JAX's message,
    so that of two lengths one away, f32[3] is named before f32[5] and a static 10 before 2
    ("Static(val=10)" sorts first) -- not the latest. jit options (donate_argnums) are not in
    JAX's tracing key: they do not count."""
    changes = [c for c in explain_changes(old, new) if c.kind in _SEVERITY and
               not (c.kind == "config" and c.path in dict(_JIT_OPTIONS))]
    if not changes:
        return (4, 0, "")
    severity = min(_SEVERITY[c.kind] for c in changes)
    group = [c for c in changes if _SEVERITY[c.kind] == severity]
    if severity == 3:                 # "  * at x, now f32[4] and before f32[3]", in leaf order
        before, lines = dict(old.named), []
        for path, a in new.named:
            b = before.get(path)
            if b is not None and a != b:
                now, was = a.str_short(), b.str_short()
                if a.weak_type != b.weak_type:
                    now, was = f"{now}{{weak_type={a.weak_type}}}", \
                        f"{was}{{weak_type={b.weak_type}}}"
                lines.append(f"  * at {path}, now {now} and before {was}")
        return (3, len(lines), "\n".join(lines))
    if severity == 1:                 # JAX's input path: the statics in argument order
        order = {name: i for i, (name, _) in enumerate(new.statics)}
        lines = [f"  * at {order.get(c.path, len(order)):04d} {c.path}, before "
                 f"{'Static(val=' + c.old + '), so' if c.kind == 'static' else c.old}"
                 for c in group]
        # JAX counts a node whose children differ once (a list two items longer: one
        # difference), where jxkernel has a change per leaf come or gone
        nodes = {_PARENT.sub("", c.path) if c.kind == "structure" else (c.path,)
                 for c in group}
        return (1, len(nodes), "\n".join(sorted(lines)))
    count = sum(abs(int(c.new) - int(c.old)) if c.path == USER_CONTEXTS else 1 for c in group)
    return (0, count, "\n".join(f"  * {c.path} differs: now {c.new} and before {c.old}"
                                 for c in group))


def _fixed(path, kind, old, new, name=None, dtype="float32") -> Change:
    name = name or path
    fix, snippet = _FIXES[kind]
    if kind == "config" and path in dict(_JIT_OPTIONS):
        fix, snippet = _OPTION_FIX
    elif kind == "config" and path != "jax_enable_x64":
        fix, snippet = _DEVICE_FIX
    fill = dict(path=path, name=name, root=_root(path), old=old, new=new, dtype=dtype,
                **_jitting())
    return Change(path, kind, str(old), str(new), fix.format(**fill),
                  _assignable(path, snippet.format(**fill)))


_FIELD = re.compile(r"^(?P<obj>.+)\.(?P<field>[A-Za-z_]\w*)$")


def _assignable(path: str, snippet: str) -> str:
    """`snippet` with its `p.y = ...` lines (a namedtuple's field cannot be assigned) as
    `p = p._replace(y=...)`."""
    found = _FIELD.match(path)
    if found is None:
        return snippet
    obj, field = found.group("obj"), found.group("field")
    lines = []
    for line in snippet.splitlines():
        if line.startswith(f"{path} = "):
            value = line[len(path) + 3:].partition("    #")[0]
            line = f"{obj} = {obj}._replace({field}={value.strip()})" \
                "    # dataclasses.replace(...) for a dataclass"
        lines.append(line)
    return "\n".join(lines)


# A fix's code jits the function as `{bind}jax.jit({fun}`: `f = jax.jit(f` where it is not
# known yet, `jax.jit(update` once for_function knows its name (a learner pastes it as it is)
_JIT_OF = "{bind}jax.jit({fun}"


def _jitting(fun: str = "") -> dict:
    """The fill of `{bind}` and `{fun}` in a fix's template, for the function named `fun`.

        >>> _JIT_OF.format(**_jitting()), _JIT_OF.format(**_jitting("update"))
        ('f = jax.jit(f', 'jax.jit(update')
    """
    return {"bind": "", "fun": fun} if fun else {"bind": "f = ", "fun": "f"}


_FIXES = {
    "shape": ("Every new shape compiles anew. Pad or bucket {path} to a few fixed sizes (a "
              "mask keeps the padding out of the result).",
              "n = {path}.shape[0]\n"
              "size = 1 << (n - 1).bit_length()        # the next power of two\n"
              "{path} = jnp.pad({path}, [(0, size - n)] + [(0, 0)] * ({path}.ndim - 1))"),
    "dtype": ("{path} came as {new} (before: {old}). Cast it before the call so that every "
              "call has one dtype.",
              "{path} = jnp.asarray({path}, jnp.{dtype})"),
    "weak_type": ("A Python scalar is weakly typed and an array is not, so {path} flipping "
                  "between them compiles anew. Pass the same kind every time (weak types: "
                  "https://docs.jax.dev/en/latest/type_promotion.html#weak-types).",
                  "{path} = jnp.asarray({path}, jnp.{dtype})    # always a (strong) array"),
    # the last sentence is the note's fix in brief (notebook/compile_notes.py): the common
    # case (a number that only sets values) goes last
    "static": ("Each new value of a static argument compiles anew. If {name} sets a shape "
               "(jnp.ones(n)) or a Python branch, a program per value is expected: keep its "
               "values few (sizes rounded up to a few buckets). If {name} only sets values, "
               "make it traced: drop it from static_argnums/static_argnames.",
               "{bind}jax.jit({fun})    # {name} traced: one program for all its values"),
    "traced": ("{name} was {old} and is {new} now: a static argument is a Python value baked "
               "into the program, a traced one an abstract array. Treat it one way in every "
               "call.",
               "{bind}jax.jit({fun}, static_argnames=('{name}',))    # or traced, but always "
               "the same"),
    "structure": ("The arguments' pytree structure changed ({path}: {old} -> {new}), and every "
                  "structure compiles anew. Keep the same keys and fields (zeros or a mask "
                  "instead of a missing entry or None).",
                  "{root} = {{**defaults, **{root}}}    # the same keys in every call"),
    "constant": ("{name} is closed over: its value when traced is baked into the program. This "
                 "compile picked up its new value, while cache hits keep the old one. Pass it "
                 "as an argument instead.",
                 "f = jax.jit(lambda x, {name}: ...)    # then call f(x, {name})"),
    "config": ("jax_enable_x64 changed ({old} -> {new}): every default dtype changes, so "
               "everything compiles anew. Set it once, at start-up.",
               'jax.config.update("jax_enable_x64", {new})    # first thing, before any jit'),
    "fresh_jit": ("This is a new jit(...) of the same code in a new function object (a "
                  "lambda or nested def made anew): jit's cache is keyed on the function "
                  "object, so making it anew every time (say in a loop) compiles every "
                  "time. Make the jitted function once and reuse it.",
                  "f_jit = jax.jit(f)            # once, outside the loop\n"
                  "for batch in batches:\n"
                  "    out = f_jit(batch)"),
}
# a static argument's fix where the function's source says how it is used (argument_uses)
_STATIC_STAYS = ("Each new value of a static argument compiles anew. {fun} needs {name} as "
                 "a Python value ({uses}), so it must stay static and a program per value is "
                 "expected. Keep its values few (sizes rounded up to a few buckets).",
                 "")
_STATIC_TRACED = ("Each new value of a static argument compiles anew, and {fun} only computes "
                  "with {name}. Make it traced: drop it from static_argnums/static_argnames.",
                  "{bind}jax.jit({fun})    # {name} traced: one program for all its values")


def for_function(changes, fun, uses_of) -> tuple:
    """`changes` with their fixes written for `fun`: its own name in the code (`jax.jit(update)`,
    not a generic `f`, which a learner would paste as it is), and a static argument's advice
    by how `fun`'s source uses it (`uses_of(fun, name)`: views/argument_uses.uses), where it
    can be read: traced where it only computes, kept static where it sets a shape or a
    Python branch.

        >>> def update(w, lr):
        ...     return w - lr * w
        >>> from jxkernel.views.argument_uses import uses
        >>> for_function([_fixed("lr", "static", 0.1, 0.05)], update, uses)[0].snippet
        'jax.jit(update)    # lr traced: one program for all its values'
    """
    name = getattr(fun, "__name__", "")
    if not name.isidentifier():
        return tuple(changes)
    out = []
    for change in changes:
        if change.kind == "static" and _generic(change):
            used = uses_of(fun, change.path)     # (a function's or an object's: its own fix)
            if used.found:
                template = _STATIC_STAYS if used.python else _STATIC_TRACED
                change = _refixed(change, template, **_jitting(name),
                                  uses=", ".join(used.python))
        generic = _JIT_OF.format(**_jitting())
        lines = change.snippet.split("\n")          # (a fix made before `fun` was known:
        if any(line.startswith(generic) for line in lines):     # its jit line, any line)
            named = _JIT_OF.format(**_jitting(name))
            change = dataclasses.replace(change, snippet="\n".join(
                named + line[len(generic):] if line.startswith(generic) else line
                for line in lines))
        out.append(change)
    return tuple(out)


def _generic(change) -> bool:
    """Whether `change` has its kind's plain fix (not one written for its value's kind)."""
    plain = _fixed(change.path, change.kind, change.old, change.new)
    return (change.fix, change.snippet) == (plain.fix, plain.snippet)


_PY_TYPE = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}
_PY_ORDER = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
_NUMBER_THEN_ARRAY_FIX = (
    "{path} was weakly typed (a Python number, or made from one) and is a {dtype} array "
    "now (strong), two types: often an accumulator started as 0.0 and then given a jitted "
    "function's result. "
    "Make it an array from the start (weak types: "
    "https://docs.jax.dev/en/latest/type_promotion.html#weak-types).",
    "{path} = jnp.asarray({path}, jnp.{dtype})    # an array from the start")
_PY_SCALAR_FIX = ("{path} came as {new} (before: {old}): two Python numbers of different "
                  "kinds (say 1 and 1.0) are two types. Pass the same kind every time.",
                  "{path} = {py}({path})    # always a Python {py}")
_STATIC_KEEP_FIX = (
    "{name} is static ({old} -> {new}): each value compiles once, and later calls with a "
    "value seen before reuse its program. A {kind} cannot be traced, so a compile per value "
    "is what to expect; for many values, map them to an integer and choose with "
    "lax.switch (the integer traced: one program).",
    "i = MODES.index({name})                      # an int, traced\n"
    "out = jax.lax.switch(i, [branch_0, branch_1], x)")
_PARTIAL_FRESH_FIX = (
    "This is jit(functools.partial({func}, ...)) made anew: every partial is a new function "
    "object, and jit's cache is keyed on the function object, so each one traces and "
    "compiles again. Jit {func} once and pass what the partial bound as arguments (static "
    "if it must be).",
    "f_jit = jax.jit({func})    # once\n"
    "out = f_jit(k, x)    # k passed, not bound")
_METHOD_FRESH_FIX = (
    "This is jax.jit(obj.{method}) made anew: every `obj.{method}` is a new bound-method "
    "object, and jit's cache is keyed on the function object, so each jit of it traces "
    "and compiles again. Jit it once and reuse the jitted method.",
    "{method}_jit = jax.jit(obj.{method})    # once, outside the loop\n"
    "for batch in batches:\n"
    "    out = {method}_jit(batch)")
# a notebook cell defining and calling a jitted function, run again (or another cell of the
# same code): its function is a new object, which JAX too has never seen
# jit of a wrapper made anew (jax.grad(loss), jax.checkpoint(loss, policy=p)): the wrapped
# code is the same, the wrapper a new object, and its options may differ (another program)
_WRAPPER_FRESH_FIX = (
    "This is a new jit of {func} through a wrapper made anew ({wrapper}(...) or a decorator, "
    "called again for this jit): jit's cache is keyed on the function object it is given, "
    "so each new wrapper traces and compiles again. Make the jitted function once per set "
    "of options and reuse it; wrappers with other options (another checkpoint policy, "
    "other argnums) are other programs, each compiled once.",
    "{func}_jit = jax.jit({wrapper}({func}))    # once, outside the loop; one per options")
_CELL_RERUN_FIX = (
    "{now} defined this function anew ({before} defined one of the same code): running a "
    "cell again makes new function objects, and jit's cache is keyed on the function "
    "object, so its first call compiles again. Define and jit it in a cell of its own, run "
    "once, and call it from other cells: they reuse its program however often they run.",
    "{fname} = jax.jit({fun})    # in a cell of its own, run once\n"
    "# in the cells that call it, run as often as you like:\n"
    "out = {fname}(x)")
_CLOSURE_FRESH_FIX = (
    "This is a new function object of the same code, a closure over {names} made anew (a "
    "factory, or a def inside a loop): jit's cache is keyed on the function object, so "
    "each one traces and compiles again, even when {names} did not change. Pass {names} "
    "as arguments to one jitted function (traced: one program for all values), or keep "
    "one jitted function per value and reuse it.",
    "@jax.jit\n"
    "def f(x, {first}):     # what the closure read, now an argument\n"
    "    ...")
_ARRAY_TRACED_FIX = (
    "{name} was {old} and is {new} now: static in one jit, traced in the other. An array "
    "cannot be static (it is not hashable): keep {name} traced in every jit of the "
    "function.",
    "{bind}jax.jit({fun})    # {name} traced (no static_argnums for it)")
_BOOL_STATIC_FIX = (
    "{name} is a static bool ({old} -> {new}): each of its two values compiles once, and "
    "later calls reuse that program, so at most two compiles. That is usually fine; for one "
    "program, pass it traced and choose with jnp.where or lax.cond instead of a Python if.",
    "out = jax.lax.cond({name}, branch_true, branch_false, x)    # {name} traced: one "
    "program")
_DATACLASS_STATIC_FIX = (
    "{name} is a static {kind} ({old} -> {new}): it is hashed by its fields, so an equal "
    "{kind} reuses the program, and each new value compiles once. To pass its numbers "
    "traced (one program for all their values), register {kind} as a pytree with them as "
    "data fields and drop {name} from static_argnums/static_argnames.",
    "jax.tree_util.register_dataclass({kind}, data_fields={data}, meta_fields={meta})\n"
    "{bind}jax.jit({fun})    # {name} traced: its data fields are arrays")
_STATIC_KEYWORD_FIX = (
    "{name} has the same value but came {old} in one call and {new} in the other: how a "
    "static argument is passed is part of the cache key. Pass it the same way every time.",
    "f(x, {name}={name})    # always by keyword (or always by position)")
_NUMBERS_FIX = (
    "{path} was {old} and is {new} now: one array and a list (or tuple, dict) of Python "
    "numbers are different pytrees (each number is an input of its own, weakly typed), and "
    "each structure compiles anew. Pass an array every time.",
    "{path} = jnp.asarray({path})    # one array, every call")
_META_FIX = (
    "A {kind}'s meta fields are part of the pytree structure, like a static argument: "
    "{old} -> {new} compiles anew (each value once; an equal one reuses its program). If "
    "the field should change without compiling, make it a data field (an array, traced).",
    "jax.tree_util.register_dataclass({kind}, data_fields=[...], meta_fields=[...])    # "
    "numbers that vary: data")
_TRACE_OPTION_FIX = (
    "{path} changed ({old} -> {new}): it is part of every jit's cache key ({set_by} sets "
    "it), so the "
    "function traced and compiled again; back at {old}, the earlier program is reused. "
    "Set it once, at start-up, if every call should use it.",
    'jax.config.update("{path}", {new_repr})    # once, at start-up')
_DEFAULT_DEVICE_FIX = (
    "jax_default_device changed ({old} -> {new}): as in JAX, the option itself is part of "
    "every jit's cache key (a `with jax.default_device(...)` block sets it), even where the "
    "program runs on the same device as before, so the function traced and compiled again; "
    "back at {old}, the earlier program is reused. Set it once, at start-up, if every call "
    "should use it.",
    'jax.config.update("jax_default_device", {new_code})    # once, at start-up')
_SYMBOLIC_FIX = (
    "{path} was {old} in a jax.export with a symbolic shape, a program for every size; a "
    "call of the jitted function compiles for the concrete shape it is given ({new}), "
    "once per shape. This is expected: nothing to fix (the exported program is the "
    "Exported's, run by its .call).",
    "")
_USER_CONTEXT_FIX = (
    "{path} changed ({old} -> {new}): the value of a jax.make_user_context context is part "
    "of every jit's cache key, so the function traced and compiled again for it; each value "
    "compiles once, and back at {old} the earlier program is reused. If every call should "
    "run under {new}, set it once instead of per block.",
    "{context}.set_global({new_repr})    # once, at start-up: every call under one value")
_NEW_CONTEXT_FIX = (
    "A new jax.make_user_context context ({context}) was made after this function compiled "
    "({old} -> {new} contexts): every jit's cache key holds each context's value, so every "
    "jitted function traces and compiles again, once. Make your contexts at start-up, "
    "before the first jitted call.",
    "{context} = jax.make_user_context({value})    # at start-up, before any jitted call")
# a function passed static (apply(fn, x), fn in static_argnums): functions compare by
# identity, so a lambda or a partial made anew each call is a new key, however alike
_STATIC_FUNCTION_FIX = (
    "{name} is a function passed static, and a {kind} is compared by identity: a new one "
    "each call (a lambda or a partial made anew) is a new key and compiles anew, however "
    "alike. Make it once, outside the loop, and pass that same object (a partial can "
    "instead go traced, as jax.tree_util.Partial: its bound arrays are leaves, one program "
    "for all their values).",
    "{name} = ...    # made once, outside the loop\n"
    "for batch in batches:\n"
    "    out = f({name}, batch)    # the same object every call")
_IDENTITY_FIX = ("{name} is a {kind} object, and {kind} keeps object's own hash and ==, by "
                 "identity: every new instance is a new static value and compiles anew, however "
                 "alike. Reuse one instance, or give {kind} __hash__ and __eq__ over the fields "
                 "that matter (or register it as a pytree, its arrays traced).",
                 "def __hash__(self): return hash(({fields}))          # in class {kind}\n"
                 "def __eq__(self, other): return isinstance(other, {kind}) and "
                 "({fields}) == ({other})")
# a static left to its default in one call and passed in the other (JAX: the keywords' dict
# has one child more); a new value would be no cause: f(x) and f(x, n=2) for n=2 by default
_STATIC_DEFAULT_FIX = (
    "{name} was {old} and is {new} now: jit's key holds the arguments as they were passed, "
    "so leaving {name} to its default and passing it are two keys, each compiled, even for "
    "the default's own value. Pass {name} in every call, or in none.",
    "f(..., {name}={value})    # {name} passed in every call")
_STATIC_TYPE_FIX = (
    "{name} is {new} ({new_type}) now and was {old} ({old_type}): equal values, but jit's key "
    "tells a static value's type apart (True and 1, 2.0 and 2), so each compiles. Pass one "
    "type in every call.",
    "{name} = {py}({name})    # one type in every call")
_STATIC_NONE_FIX = (
    "{name} was {old} and is {new} now: None and a value are two programs whether {name} is "
    "static or traced (None is an empty pytree, a number a leaf). For one program, pass a "
    "value that means what None did (jnp.inf for no limit, 0.0 for nothing to add) in every "
    "call, and make {name} traced.",
    "{bind}jax.jit({fun})    # {name} traced, not in static_argnums/static_argnames\n"
    "f(..., {name}=jnp.inf)    # a value meaning \"off\" where None was passed")
_OBJECT_STATIC_FIX = (
    "{name} is static ({old} -> {new}): a {kind} with equal fields reuses its program, a new "
    "value compiles anew. Its fields are numbers: register {kind} as a pytree and pass it "
    "traced (not static), and one program serves every value.",
    "jax.tree_util.register_pytree_node(\n"
    "    {kind}, lambda m: (({leaves}), None), lambda _, leaves: {kind}(*leaves))\n"
    "{bind}jax.jit({fun})    # {name} traced: its fields are the leaves")
# an argument passed None in one call and an array in the other (not left out)
_NONE_ARGUMENT_FIX = (
    "{path} was {old} and is {new} now: None is an empty pytree and an array a leaf, two "
    "argument structures, each compiled. Pass an array in every call (zeros where None "
    "meant nothing to add).",
    "{path} = jnp.zeros({shape}) if {path} is None else {path}    # an array in every call")
_ARGUMENT_FIX = ("{path} was {old} and is {new} now: an argument left out (to its default, "
                 "or a **kwargs keyword not given) and one passed are two different argument "
                 "structures, each compiled. Pass {path} in every call, or in none.",
                 "f(..., {path}={path})    # in every call")
_LENGTH_FIX = ("{root} changed length ({path}: {old} -> {new}): a list's length is part of "
               "its pytree structure, and every structure compiles anew. Keep the length "
               "fixed: stack the items into one array of a fixed number of rows, zeros past "
               "the real ones, and pass a mask of them (stacked alone, its length is a "
               "shape, which compiles anew too).",
               "MAX = 8                              # the most items a call has\n"
               "n = len({root})\n"
               "{root} = jnp.stack(list({root}) + [jnp.zeros_like({root}[0])] * (MAX - n))\n"
               "mask = jnp.arange(MAX) < n           # which rows are real: pass it too")
_KEYWORD_FIX = ("The same argument came by position in one call and by keyword in the other "
                "({old} -> {new}): which arguments are keywords is part of the cache key. "
                "Pass each argument the same way in every call.",
                "f(x)    # or always f(x=x): one way, every call")
_TREE_FIX = ("The arguments' pytree structure changed ({old} -> {new}), and every structure "
             "compiles anew. Pass arguments of one structure in every call.",
             "")
_CONTAINER_FIX = ("{path} was {old} and is {new} now: another kind of node in one place (a "
                  "tuple for a namedtuple, a list for a tuple, () for None) is another pytree "
                  "structure, each compiled. Pass the same kind in every call.",
                  "{convert}")
_PARTIAL_BATCH_FIX = (
    "{path} has fewer rows than before ({old} -> {new}), as the last, partial batch of an "
    "epoch has, and every new shape compiles anew. Pad it to the {size} rows compiled "
    "before (a mask keeps the padding out of the result), or drop the partial batch.",
    "n = {path}.shape[0]\n"
    "{path} = jnp.pad({path}, [(0, {size} - n)] + [(0, 0)] * ({path}.ndim - 1))\n"
    "mask = jnp.arange({size}) < n    # weigh the padded rows 0")
# a reshape or atleast_1d would not help: f32[3] and f32[1] are two programs too
_BUCKET_FIX = (
    "Every new shape compiles anew. Pad or bucket {path} to a few fixed sizes (a mask keeps "
    "the padding out of the result): padded as below, lengths up to {floor} share one "
    "program and each doubling past it adds one, at most {most} compiles for lengths up to "
    "{upto} (not one: a length past the last bucket compiles again).",
    "n = {path}.shape[{axis}]\n"
    "size = max({floor}, 1 << (n - 1).bit_length())    # a power of two, at least {floor}\n"
    "{path} = jnp.pad({path}, {before}[(0, size - n)]{after})")
# a jitted function under vmap sees rows: the fix pads what vmap is given, along the row's axis
_VMAP_ROWS_FIX = (
    "{path} is a row of what vmap maps over, and its shape changed ({old} -> {new}): the "
    "mapped axis may change freely (5 rows or 7 reuse one trace), a row of another shape is "
    "another program. If the two calls map different axes (another in_axes), a compile for "
    "each is expected. If the rows grew, pad the array given to vmap along the row's axis: "
    "lengths up to {floor} then share one program and each doubling past it adds one, at "
    "most {most} compiles for lengths up to {upto}.",
    "n = xs.shape[{axis}]    # xs: the array given to vmap (mapped over axis 0)\n"
    "size = max({floor}, 1 << (n - 1).bit_length())    # a power of two, at least {floor}\n"
    "xs = jnp.pad(xs, {before}[(0, size - n)]{after})")
_RANK_FIX = ("{path} changed rank ({old} -> {new}), and every shape is a program of its own: "
             "a compile per rank is expected. Nothing to fix unless it is one value that "
             "should keep one shape (then make it that shape where it is made).",
             "")
# a state started as a Python number and given back by the jitted function as an array
# (a velocity started as 0.0): made with the array's shape and dtype from the start
_GROWN_FIX = (
    "{path} was a scalar ({old}) and is an array now ({new}): every shape compiles anew. If "
    "it is a state started as 0.0 and given back by the jitted function as an array, make "
    "it with that shape and dtype from the start; if the calls really take two shapes, a "
    "compile for each is expected.",
    "{path} = jnp.broadcast_to(jnp.asarray({path}, jnp.{dtype}), {shape})    # from the "
    "start")
_KEY_FIX = (
    "{path} was {old} and is {new} now: a raw key (jax.random.PRNGKey, u32[2]) and a typed "
    "key (jax.random.key) are two types, each compiled. Make keys one way: typed keys "
    "everywhere (raw ones wrapped).",
    "if not jnp.issubdtype({path}.dtype, jax.dtypes.prng_key):\n"
    "    {path} = jax.random.wrap_key_data({path})    # typed keys, every call")
_OPTION_FIX = ("{path} differs between two jits of this function ({old} -> {new}): each set "
               "of jit options compiles a program of its own (JAX traces once, and lowers and "
               "compiles twice). Jit the function once with the options you need, and call "
               "that one.",
               "f = jax.jit(g, {path}={new})    # once; call f everywhere")
_DEVICE_FIX = ("The {path} changed ({old} -> {new}): a compiled program runs on one device. "
               "Keep the inputs on one device, or expect one compile per device.",
               "x = jax.device_put(x, jax.devices()[0])    # or %jxbackend cpu:0")


def fresh_jit_change(other_owner: str) -> Change:
    """The "jit in a loop" change: `other_owner` describes the earlier jit object."""
    return _fixed("(jit object)", "fresh_jit", other_owner, "a new jit object")


def jax_line(change: Change) -> str | None:
    """The change as JAX 0.10.2's `jax_explain_cache_misses` words it
    (partial_eval.diff_types, diff_tracing_ctx), or None for a kind JAX words otherwise.

        >>> jax_line(Change("y", "dtype", "f32[]", "i32[]"))
        '* at y, now i32[] and before f32[]'
        >>> jax_line(Change("x", "weak_type", "f32[]", "f32[] (weak)"))
        '* at x, now f32[]{weak_type=True} and before f32[]{weak_type=False}'
    """
    if change.kind == "config" and change.path.endswith(" (user context)"):
        # JAX names every jax.make_user_context slot "user_context", its values unquoted
        return (f"* user_context differs: now {_unquoted(change.new)} and before "
                f"{_unquoted(change.old)}")
    if change.kind == "config":
        return f"* {change.path} differs: now {change.new} and before {change.old}"
    if change.kind not in ("shape", "dtype", "weak_type"):
        return None
    now, was = (t.removesuffix(" (weak)") for t in (change.new, change.old))
    weak_now, weak_was = (t.endswith(" (weak)") for t in (change.new, change.old))
    if weak_now != weak_was:            # JAX adds the flags only where the weak type differs
        now, was = f"{now}{{weak_type={weak_now}}}", f"{was}{{weak_type={weak_was}}}"
    return f"* at {change.path}, now {now} and before {was}"


def _unquoted(text: str) -> str:
    """A repr'd string's text ("'a'" -> "a"), as JAX prints a context's value; else as is."""
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" else text


def explanation_text(changes, indent: str = "  ", jax_words: bool = False) -> str:
    """The changes as lines of text, each with its fix and code; with `jax_words`, each
    change JAX's line says is said in JAX's words (the `jax_explain_cache_misses` log).

        >>> print(explanation_text([Change("x", "shape", "f32[3]", "f32[4]", "Pad.", "x = ...")]))
          x: shape f32[3] -> f32[4]
            fix: Pad.
              x = ...
    """
    lines = []
    for c in changes:
        lines.append(f"{indent}{(jax_words and jax_line(c)) or c}")
        if c.fix:
            lines.append(f"{indent}  fix: {c.fix}")
        lines += [f"{indent}    {code}" for code in c.snippet.splitlines()]
    return "\n".join(lines)
