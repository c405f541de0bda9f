"""What differs in a leaf's type (JAX's "different input types"): its shape, dtype or weak type
(kinds "shape", "dtype", "weak_type"); with the fix for each cause (a last, partial batch, a
scalar grown into an array, a raw key then a typed one, two kinds of Python number, ...). The
same fixes for the rows a vmap gives a jitted function are `vmap_rows.py`'s.
"""
from __future__ import annotations

import dataclasses
import re

import numpy as np

from ...core import dtypes
from ...core.config import config
from .change import Change, _aval_text
from .fixes import ADDS_TO_THE_FIX, PATTERN_SAID, _fixed, _refixed
from .structure import list_item


def _type_changes(before, after):
    """The leaves of both signatures (named avals `before` and `after`) whose shape, dtype or
    weak type differ: a Change each, its fix by what the change looks like (a last, partial
    batch, a scalar grown into an array, two kinds of Python number, ...)."""
    batches = _partial_batches(before, after)
    for path, a in after.items():
        b = before.get(path)
        if b is None or a == b or _mesh_alone(a, b):
            # (types that differ in their mesh alone, an unsplit array typed on set_mesh's
            # mesh then on none: the mesh of the context changed, a config change says so)
            continue
        if a.shape != b.shape:
            # the weak flag only where it changed too (a Python number grown into an array)
            text = _aval_text if a.weak_type != b.weak_type else \
                (lambda v: v.str_short(True))
            change = _fixed(path, "shape", text(b), text(a))
            per_rank = False            # a program per rank expected: no cast makes one
            symbolic = [any(not isinstance(d, (int, np.integer)) for d in v.shape)
                        for v in (b, a)]
            if any(symbolic):          # an export's symbolic shape: after a call, an export
                change = _refixed(change, _SYMBOLIC_FIXES[tuple(symbolic)],    # or both
                                  **_symbols_of(a))
            elif _is_key(a) != _is_key(b):         # PRNGKey's u32[2], key's key<fry>[]
                change = _refixed(change, _KEY_FIX)
            elif len(a.shape) == len(b.shape) >= 1 and a.shape[1:] == b.shape[1:] and \
                    (b.shape[0], a.shape[0]) in batches:  # fewer rows: a last, partial batch
                change = _refixed(change, _PARTIAL_BATCH_FIX, size=b.shape[0])
            elif not b.shape:                      # a scalar grown into an array
                change = _refixed(change, _GROWN_FIX, shape=tuple(a.shape),
                                  dtype=a.dtype.name)
            elif _relaid(b.shape, a.shape):       # (8, 784) then (8, 28, 28): one layout
                change = _refixed(change, _RELAID_FIX, first=", ".join(
                    [f"{path}.shape[0]"] + [str(d) for d in b.shape[1:]]))
            elif not a.shape and a.weak_type and not b.weak_type:
                # an array, then a Python number (a state reset with jax.tree.map(lambda a:
                # 0.0, ...)): the earlier call's shape and dtype, which covers its cast too
                yield _refixed(change, _RESET_TO_NUMBER_FIX, shape=tuple(b.shape),
                               dtype=b.dtype.name)
                continue
            elif len(a.shape) != len(b.shape) or not a.shape:
                change = _refixed(change, _RANK_FIX)
                per_rank = True
            elif _is_key(a) and a.shape[1:] == b.shape[1:]:   # split(key, 3), then 4
                change = _refixed(change, _KEY_COUNT_FIX)
            elif _transposed(b.shape, a.shape) is not None:    # (2, 3), then (3, 2)
                change = _refixed(change, _TRANSPOSED_FIX, perm=_transposed(b.shape, a.shape))
            else:                                  # one axis or more of another length
                change = _bucket_change(change, b.shape, a.shape)
            # (a scalar grown into an array is told to start with the new shape and dtype)
            if a.dtype != b.dtype and b.shape and not _is_key(a) and not _is_key(b):
                change = _with_cast(change, b.dtype.name, a.dtype.name,
                                    None if per_rank else _cast_to(b.dtype, a.dtype).name)
            yield change
        elif a.dtype != b.dtype and _is_key(a) and _is_key(b):    # key<rbg> then key<fry>
            yield _refixed(_fixed(path, "dtype", _aval_text(b), _aval_text(a)), _KEY_IMPL_FIX)
        elif a.dtype != b.dtype and (_is_key(a) or _is_key(b)):   # numbers, then keys
            yield _refixed(_fixed(path, "dtype", _aval_text(b), _aval_text(a)), _NOT_A_KEY_FIX)
        elif a.dtype != b.dtype:
            change = _fixed(path, "dtype", _aval_text(b), _aval_text(a),
                            dtype=_cast_to(b.dtype, a.dtype).name)
            if a.weak_type and b.weak_type and not b.shape:       # two Python scalars
                # the wider kind of the two: float(x) keeps an int's value, int(x) would
                # truncate 2.5 to 2 (a wrong result for a compile saved)
                kind = max(a.dtype.kind, b.dtype.kind, key=lambda k: _PY_ORDER.get(k, 2))
                change = _refixed(change, _PY_SCALAR_FIX, py=_PY_TYPE.get(kind, "float"))
            elif _kind(a.dtype) == _kind(b.dtype) == "f" and _holds(b.dtype, a.dtype) and \
                    a.dtype != b.dtype:       # float32, then bfloat16 (a cast of the learner's)
                change = _refixed(change, _NARROWED_FIX, new_dtype=a.dtype.name,
                                  dtype=b.dtype.name)
            yield change
        elif a.weak_type == b.weak_type:
            # the same shape split another way over set_mesh's mesh (f32[4@x,3], then
            # f32[4,3]): a type of its own under a mesh of Explicit axes, as in JAX
            yield _refixed(_fixed(path, "shape", b.str_short(True), a.str_short(True)), _SPLIT_FIX,
                           spec=_spec_arguments(getattr(b.split, "spec", None)))
        else:
            change = _fixed(path, "weak_type", _aval_text(b), _aval_text(a), dtype=a.dtype.name)
            if b.weak_type and not a.shape:       # a Python number, then a 0-d array
                change = _refixed(change, _NUMBER_THEN_ARRAY_FIX, dtype=a.dtype.name)
            yield change


def _spec_arguments(spec) -> str:
    """What goes between `PartitionSpec(` and `)` to make `spec` again, its unreduced and
    reduced sets included (iterating a spec that has them is refused).

    >>> from jxkernel.sharding import PartitionSpec as P
    >>> _spec_arguments(P("x", None)), _spec_arguments(P(None, unreduced={"x"}))
    ("'x', None", "None, unreduced={'x'}")
    """
    return "" if spec is None else repr(spec).removeprefix("P(").removesuffix(")").rstrip(",")


def _mesh_alone(a, b) -> bool:
    """Whether types `a` and `b` differ in the mesh they are typed on alone (same shape, dtype,
    weak type and splits: an unsplit array under set_mesh's mesh, then under none)."""
    return a.shape == b.shape and a.dtype == b.dtype and a.weak_type == b.weak_type and \
        a.str_short(True) == b.str_short(True)


def _cast_to(old, new) -> np.dtype:
    """The dtype a fix casts to, of a leaf that came as `old`, then as `new`: the earlier one
    where it holds the other's values, else one that holds both: a float with an integer
    (int32 data cast to int32 truncates 0.5 to 0: a wrong result for a compile saved), a
    complex with a float, a number with a bool (2 cast to bool is True), an integer type
    holding both ranges (uint8 pixels cast to int8 wrap, 200 to -56: int8 then uint8 casts to
    int16), and the float of more precision (bfloat16 then float32 casts to float32, which
    holds every bfloat16 exactly: the earlier call may be the odd one, a bfloat16 warm-up
    before float32 data, whose values bfloat16 would round). A state the jitted function
    promoted (bfloat16 in, float32 back) is kept in its earlier dtype where the call can be
    read (at_the_calls, saying that it rounds).

    >>> _cast_to(np.dtype("int8"), np.dtype("uint8")).name, _cast_to(dtypes.int2, dtypes.uint2).name
    ('int16', 'int8')
    >>> [_cast_to(a, b).name for a, b in ((dtypes.bfloat16, np.dtype("float32")),
    ...                                   (np.dtype("float16"), dtypes.bfloat16))]
    ['float32', 'float32']
    """
    kinds = {_kind(old), _kind(new)}
    if kinds == {"f"} and not _holds(old, new):
        return next(d for d in (new, np.dtype(np.float32), np.dtype(np.float64))
                    if _holds(d, old) and _holds(d, new))
    if kinds == {"c"}:
        return max(old, new, key=lambda d: d.itemsize)
    if kinds in ({"i", "f"}, {"u", "f"}, {"i", "c"}, {"u", "c"}, {"f", "c"}):
        return max(old, new, key=lambda d: "iufc".index(_kind(d)) // 2 + (_kind(d) == "c"))
    if "b" in kinds and kinds != {"b"}:
        return new if _kind(old) == "b" else old
    if kinds <= {"i", "u"} and not _holds_ints(old, new):
        # from the ranges, not np.promote_types: ml_dtypes before 0.7 registers no promotion
        # of its narrow integers (int2 with uint2 raised DTypePromotionError inside the
        # explainer); uint64 with int64 has none (NumPy's float64 would round)
        both = next((d for d in _SIGNED if _holds_ints(d, old) and _holds_ints(d, new)), old)
        # (int64 without x64 is int32 when made: the earlier then, as before)
        return both if both.itemsize <= 4 or config.jax_enable_x64 else old
    return old


_SIGNED = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)]


def _holds_ints(wide, narrow) -> bool:
    """Whether the integer dtype `wide` holds every value of the integer dtype `narrow`.

    >>> _holds_ints(np.dtype("int8"), dtypes.uint4), _holds_ints(dtypes.int4, dtypes.uint2)
    (True, True)
    >>> _holds_ints(np.dtype("int8"), np.dtype("uint8"))
    False
    """
    w, n = dtypes.iinfo(wide), dtypes.iinfo(narrow)
    return int(w.min) <= int(n.min) and int(w.max) >= int(n.max)


def _holds(wide, narrow) -> bool:
    """Whether the float dtype `wide` holds every finite value of the float dtype `narrow`
    exactly (as many bits of precision, as wide a range of exponents).

    >>> _holds(np.dtype("float32"), dtypes.bfloat16), _holds(dtypes.bfloat16, np.dtype("float16"))
    (True, False)
    """
    w, n = dtypes.finfo(wide), dtypes.finfo(narrow)
    return w.nmant >= n.nmant and w.maxexp >= n.maxexp and w.minexp <= n.minexp


def _kind(d: np.dtype) -> str:
    """NumPy's kind letter of `d` as jxkernel's dtypes see it: ml_dtypes' are NumPy kind 'V'
    (bfloat16 and int4 alike), here 'f' and 'i'.

    >>> _kind(np.dtype("int32")), _kind(dtypes.bfloat16), _kind(dtypes.uint4)
    ('i', 'f', 'u')
    """
    tests = ((dtypes.is_bool, "b"), (dtypes.is_signed, "i"), (dtypes.is_unsigned, "u"),
             (dtypes.is_float, "f"), (dtypes.is_complex, "c"))
    return next((k for test, k in tests if test(d)), d.kind)


def _with_cast(change: Change, old_dtype: str, new_dtype: str, to: str | None) -> Change:
    """A shape change whose dtype changed too: its fix alone would still compile once per
    dtype, so a cast joins it (f32[3] -> i32[4]: pad, and cast to float32). `to` None: the
    ranks differ, a program each however cast (f32[4,3] one-hot labels, then i32[4] class
    indices: JAX 0.10.2 lowers twice with the cast pasted), so words alone."""
    if to is None:
        return dataclasses.replace(change, fix=(
            f"{change.fix} {ADDS_TO_THE_FIX} ({old_dtype} -> {new_dtype}), but no cast "
            f"makes one program of two ranks."))
    fix = (f"{change.fix} {ADDS_TO_THE_FIX} ({old_dtype} -> {new_dtype}): cast it as "
           f"well, so that every call has one dtype.")
    cast = f"{change.path} = jnp.asarray({change.path}, jnp.{to})"
    snippet = f"{cast}\n{change.snippet}" if change.snippet else cast
    return dataclasses.replace(change, fix=fix, snippet=snippet)


def _bucket_change(change, old_shape, new_shape) -> Change:
    """The bucketing fix for the axes whose length changed, their buckets powers of two at
    least the one holding both lengths seen (3 and 2 bucketed alone are 4 and 2: two programs
    still). One axis: its own code; several: each padded (28x28 then 32x32 images padded along
    axis 0 alone were (32, 28) and (32, 32), two programs still)."""
    floors = bucket_floors(old_shape, new_shape)
    axes = [i for i, floor in enumerate(floors) if floor is not None]
    if axes == [len(new_shape) - 1] and len(new_shape) >= 3 and \
            {old_shape[-1], new_shape[-1]} <= {1, 2, 3, 4}:
        return _refixed(change, _CHANNELS_FIX, before=old_shape[-1], now=new_shape[-1],
                        wide=max(old_shape[-1], new_shape[-1]))
    if len(axes) == 1:
        return _refixed(change, _BUCKET_FIX,
                        **_bucket_fill(axes[0], old_shape, new_shape, change.path))
    return _refixed(change, _BUCKETS_FIX, axes=", ".join(map(str, axes)), floors=floors)


def bucket_floors(old_shape, new_shape) -> tuple:
    """Per axis, the power of two holding both lengths seen where they differ, else None.

    >>> bucket_floors((28, 3), (32, 3))
    (32, None)
    """
    return tuple(None if m == n else 1 << (max(m, n) - 1).bit_length()
                 for m, n in zip(old_shape, new_shape))


def _transposed(before: tuple, after: tuple):
    """The axes of `after` in `before`'s order where `after` holds `before`'s lengths in
    another order ((2, 3), then (3, 2): (1, 0)); None otherwise."""
    if len(before) < 2 or len(before) != len(after) or before == after or \
            sorted(before) != sorted(after):
        return None
    free = list(range(len(after)))
    perm = []
    for n in before:
        j = next(j for j in free if after[j] == n)
        free.remove(j)
        perm.append(j)
    return tuple(perm)


# how far the bucketing fix's promise goes: lengths up to 2**(_DOUBLINGS - 1) times its floor
_DOUBLINGS = 5


def _bucket_fill(axis, old_shape, new_shape, array, offset=0) -> dict:
    """The bucketing snippet's blanks for `axis` (of an array `offset` axes deeper): its
    floor (the power of two holding both lengths seen), the pads before and after, and what
    it achieves (lengths up to the floor: one program; each doubling past it: one more)."""
    floor = bucket_floors(old_shape[axis:axis + 1], new_shape[axis:axis + 1])[0]
    at = axis + offset
    return dict(axis=at, floor=floor, before=f"[(0, 0)] * {at} + " if at else "",
                after=f" + [(0, 0)] * ({array}.ndim - {at + 1})",
                most=_DOUBLINGS, upto=floor << (_DOUBLINGS - 1))


def grown_step_by_step(changes, history, now=None, anew=None) -> tuple:
    """`changes` where a leaf's first axis grew by one in each of the last calls (the earlier
    signatures in `history` hold it one and two shorter: f32[0], f32[1], now f32[2]): an
    array appended to at every step (jnp.concatenate, jnp.append), told to be made at its
    full size once and written at an index, where bucketing would pad what is appended to.
    So too a list one item longer at each call (`now`, the new Signature: 0, 1, now 2 items),
    a history kept in the state a jitted step returns (`state['losses'] + [loss]`), where
    stacking it outside the step would not stop the step appending to it. `anew(path)`:
    whether the call makes that argument anew (`f(x[:n])`, `f(jnp.arange(n))`: at_the_calls.
    made_anew_at_the_call), its length the loop's n and no array appended to, which keeps
    its padding fix (JAX 0.10.2 lowers prefix_slice_python_n_grows_fixed, padded, once)."""
    out = []
    for c in changes:
        new = _shape_of(c.new) if c.kind == "shape" else None
        if new and not (anew is not None and anew(c.path)):
            seen = {_shape_of(a.str_short(True)) for sig in history
                    for p, a in sig.named if p == c.path}
            if all((new[0] - k,) + new[1:] in seen for k in (1, 2)):
                c = _refixed(c, _GROWN_STEP_FIX, a=new[0] - 2, b=new[0] - 1, c=new[0])
        if new and c.fix.startswith(BUCKET_SAID + ". Pad or bucket"):
            c = _first_bucket(c, history, now)
        item = _LIST_ITEM.match(c.path) if c.kind == "structure" and c.old == "absent" \
            and now is not None else None
        if item:
            length = _list_length(item.group(1))
            n = length(now)
            if n >= 2 and {n - 1, n - 2} <= {length(sig) for sig in history}:
                aval = dict(now.named)[c.path]
                c = _refixed(c, _GROWN_LIST_FIX, a=n - 2, b=n - 1, c=n,
                             **list_item(c.path, aval))
        out.append(c)
    return tuple(out)


def _first_bucket(c, history, now):
    """`c`, a length bucketed (_BUCKET_FIX: the power of two holding the closest earlier
    call's length and this one's), with the bucket of the first two lengths the argument
    had, the first recompile's: f(jnp.arange(n)) for n 3, 4, 5 was told "at least 4" at the
    second call and "at least 8" at the third (the closest key, JAX's, is n = 3 for both),
    two notes, two rules. Each note of the argument now gives the first's, whose code,
    pasted, compiles as it says (lengths up to 4 one program, each doubling one more: 2 for
    3, 4, 5; JAX 0.10.2 lowers arange_argument_grows_fixed twice)."""
    # (not a symbolic shape, jax.export's f32[b] traced into the same jit's history: no length;
    # it read as None, whose len() broke the explainer for every later bucketed call)
    shapes = [s for sig in (*history, now) for p, a in sig.named if p == c.path
              for s in [_shape_of(a.str_short(True))] if s is not None]
    old, new = _shape_of(c.old), _shape_of(c.new)
    axes = [i for i, floor in enumerate(bucket_floors(old, new)) if floor is not None] \
        if old and new and len(old) == len(new) else []
    # (the first call's shape of the same rank as these two: another rank has no such bucket)
    first = shapes[0] if shapes and len(shapes[0]) == len(old or ()) else None
    second = next((s for s in shapes if s and first and len(s) == len(first) and
                   s[:axes[0]] + s[axes[0] + 1:] == first[:axes[0]] + first[axes[0] + 1:]
                   and s[axes[0]] != first[axes[0]]), None) if len(axes) == 1 else None
    if second is None:
        return c
    was, now_fill = (_bucket_fill(axes[0], old, new, c.path),
                     _bucket_fill(axes[0], first, second, c.path))
    if was["floor"] == now_fill["floor"]:
        return c
    said = "lengths up to {floor} share one program and each doubling past it adds one, " \
        "at most {most} compiles for lengths up to {upto}"
    coded = "max({floor}, 1 << (n - 1).bit_length())    # a power of two, at least {floor}"
    return dataclasses.replace(
        c, fix=c.fix.replace(said.format(**was), said.format(**now_fill)),
        snippet=c.snippet.replace(coded.format(**was), coded.format(**now_fill)))


_LIST_ITEM = re.compile(r"^(.+)\[\d+\]$")      # state['losses'][2]: an item of state['losses']


def _list_length(path: str):
    """How many items the list at `path` has in a Signature (its items' distinct indices)."""
    item = re.compile(re.escape(path) + r"\[(\d+)\]")

    def length(sig) -> int:
        return len({m.group(1) for p, _ in sig.named for m in [item.match(p)] if m})
    return length


def _dtype_name(text: str) -> str:
    """"float32" from "f32[]" (a Change's side as written), "float32" where unreadable."""
    m = re.match(r"^([a-z]+)(\d*)\[", text)
    kinds = {"f": "float", "i": "int", "u": "uint", "c": "complex", "bf": "bfloat"}
    if m is None or m.group(1) not in kinds:
        return "bool" if text.startswith("bool") else "float32"
    return f"{kinds[m.group(1)]}{m.group(2)}"


def _shape_of(text):
    """(3, 4) from "f32[3,4]" (None for a symbolic or unreadable one)."""
    m = re.match(r"^[a-z]+\d*\[([\d,]*)\]", text)
    return None if m is None else tuple(int(d) for d in m.group(1).split(",") if d)


def _partial_batches(before, after) -> set:
    """(rows before, rows now) of the leaves that lost rows as a last, partial batch does:
    a leaf of rank 2 or more, its other dimensions kept; the vectors of the same batch (its
    labels) lose as many rows with it. A symbolic first axis (an export's) is never one:
    `b < a` of two symbols decides nothing (InconclusiveDimensionOperation)."""
    return {(b.shape[0], a.shape[0]) for p, a in after.items()
            for b in [before.get(p)] if b is not None and len(a.shape) == len(b.shape) >= 2
            and isinstance(a.shape[0], (int, np.integer))
            and isinstance(b.shape[0], (int, np.integer))
            and a.shape[1:] == b.shape[1:] and a.shape[0] < b.shape[0]}


def _is_key(aval) -> bool:
    """Whether an aval is a typed PRNG key's (key<fry>[])."""
    return str(aval.str_short(True)).startswith("key<")


_PY_TYPE = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}
_PY_ORDER = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
_NUMBER_THEN_ARRAY_FIX = (
    "{path} was weakly typed (a Python number, or made from one) and is {a_dtype} array "
    "now (strong), two types: often an accumulator started as 0.0 and then given a jitted "
    "function's result. "
    "Make it an array from the start (weak types: "
    "https://docs.jax.dev/en/latest/type_promotion.html#weak-types).",
    "{path} = jnp.asarray({path}, jnp.{dtype})    # an array from the start")
_PY_SCALAR_FIX = ("{path} came as {new} (before: {old}): two Python numbers (or arrays made "
                  "from them without a dtype, jnp.array(0)) of different kinds (say 1 and "
                  "1.0) are two types. Pass the same kind every time.",
                  "{path} = {py}({path})    # always a Python {py}")
_SYMBOLIC_FIX = (
    "{path} was {old} in a jax.export with a symbolic shape, a program for every size; a "
    "call of the jitted function compiles for the concrete shape it is given ({new}), "
    "once per shape. This is expected: nothing to fix (the exported program is the "
    "Exported's, run by its .call).",
    "")
# symbols are of the symbolic_shape call that made them: JAX 0.10.2 traces an export with the
# same symbols once, with symbols of a second call (printed alike) or other symbols again
# (symbolic_recompile_reference.json)
_SYMBOLIC_AGAIN_FIX = (
    "{path} was {old} and is {new} now, in two jax.export traces with symbolic shapes: "
    "symbols belong to the jax.export.symbolic_shape call that made them, so other symbols, "
    "or the same names made by another call, are another type, traced again. This is "
    "expected for two exports of other shapes; for one shape, make its symbols once and "
    "export with those every time.",
    # (in the shape's own symbols: a generic `a` made once left the learner's `n` made anew)
    "{names}{comma} = jax.export.symbolic_shape(\"{spec}\")    # once; then every export uses "
    "{names}")
_EXPORT_AFTER_CALL_FIX = (
    "{path} was {old} in a call and is {new} in a jax.export with a symbolic shape, a "
    "program for every size, traced apart from the calls' concrete shapes. This is "
    "expected: nothing to fix.",
    "")
def _symbols_of(aval) -> dict:
    """The fill of _SYMBOLIC_AGAIN_FIX's code: the symbols of `aval`'s shape, in order (`a`
    where it has none of its own)."""
    symbols = list(dict.fromkeys(n for d in aval.shape if not isinstance(d, (int, np.integer))
                                 for n in re.findall(r"[A-Za-z_]\w*", str(d))
                                 if n not in ("mod", "floordiv", "max", "min"))) or ["a"]
    return dict(names=", ".join(symbols), spec=", ".join(symbols),
                comma="," if len(symbols) == 1 else "")


# (symbolic before, symbolic now) -> the fix
_SYMBOLIC_FIXES = {(True, False): _SYMBOLIC_FIX, (False, True): _EXPORT_AFTER_CALL_FIX,
                   (True, True): _SYMBOLIC_AGAIN_FIX}
# (the words slices_in_a_loop finds a partial batch's fix by)
_PARTIAL_BATCH = "as the last, partial batch of an epoch has"
_PARTIAL_BATCH_FIX = (
    "{path} has fewer rows than before ({old} -> {new}), " + _PARTIAL_BATCH + ", and every "
    "new shape compiles anew. Pad it to the {size} rows compiled "
    "before and pass the jitted function the mask below, to weigh the padded rows 0 where "
    "rows are summed or averaged (unweighted, the padding counts in the result; a result "
    "with a row per example has the padded rows too: keep its first n, out[:n]), or drop "
    "the partial batch.",
    "n = {path}.shape[0]\n"
    "{path} = jnp.pad({path}, [(0, {size} - n)] + [(0, 0)] * ({path}.ndim - 1))\n"
    "mask = jnp.arange({size}) < n    # pass it in: weigh each row by it")
# a loop's body calling a jitted function with one slice of what the loop runs over
# (`lax.scan` over batches of 25, after calls with 32 rows): fewer rows, but the same at every
# step, so the function is traced once for the loop's program (JAX 0.10.2 logs one miss there
# too); no partial batch to pad
_LOOP_SLICE_FIX = (
    "{path} is {new} at every step of {inside}: a slice of what the loop runs over, the same "
    "at each step, so {fun} is traced once for that loop's program (not at each step), as "
    "JAX traces it. Nothing to fix, unless the loop is given other shapes each time it runs.",
    "")
# how a loop's body names its trace (lax/_cf_bodies' _JAX_TRACED_FOR, and fori_loop's)
_LOOPS = frozenset({"scan", "while_body", "while_cond", "fori_loop"})


def slices_in_a_loop(changes, inside: str, fun: str) -> tuple:
    """`changes` of the jitted function `fun` traced inside `inside` ("scan(body)"): where that
    is a loop's body, a shape told as a last, partial batch is told as the loop's slice, the
    same at every step."""
    if inside.partition("(")[0] not in _LOOPS:
        return changes
    return tuple(_refixed(c, _LOOP_SLICE_FIX, inside=inside, fun=fun)
                 if c.kind == "shape" and _PARTIAL_BATCH in c.fix else c
                 for c in changes)


# a batch of typed keys of another count: jnp.pad refuses a key array (JAX 0.10.2: "Cannot
# convert_element_type from int32 to key<fry>"), a fixed count of keys split is one shape
_KEY_COUNT_FIX = (
    "{path} is a batch of PRNG keys of another count ({old} -> {new}): every shape compiles "
    "anew, and a key array cannot be padded (jnp.pad has no zeros of a key type). Split the "
    "same number of keys in every call, as many as the largest batch needs, and keep the "
    "rows of the results you need.",
    "MAX = ...    # the most keys a call needs: one count, one program\n"
    "out = f(jax.random.split(key, MAX))[:n]    # the n rows this call needs")
# a reshape or atleast_1d would not help: f32[3] and f32[1] are two programs too. The padded
# rows stay in a result with a row per input row (an elementwise f: the demos' selu gave 16
# values for 5), so the fix says to keep the first n, as _PARTIAL_BATCH_FIX does
# the bucketing fixes' first words, one axis or several (vmap_rows rewrites either for rows)
BUCKET_SAID = "Every new shape compiles anew"
_BUCKET_FIX = (
    BUCKET_SAID + ". Pad or bucket {path} to a few fixed sizes (a mask of the "
    "real rows, passed in and used where they are summed, keeps the padding out of the "
    "result; a result with a row per input row has the padded rows too: keep its first n, "
    "out[:n]): padded as below, lengths up to {floor} share one "
    "program and each doubling past it adds one, at most {most} compiles for lengths up to "
    "{upto} (not one: a length past the last bucket compiles again).",
    "n = {path}.shape[{axis}]\n"
    "size = max({floor}, 1 << (n - 1).bit_length())    # a power of two, at least {floor}\n"
    "{path} = jnp.pad({path}, {before}[(0, size - n)]{after})")
# an image's channels (RGB, then grayscale: audit image_batch_hwc_channel_count): padding
# them compiled once but gave f channels it computes on, a result of another shape
_CHANNELS_FIX = (
    "{path}'s last axis went from {before} to {now}: by its size, an image's channels (RGB "
    "3, RGBA 4, grayscale 1), another kind of input, not a length. Padding it would give f "
    "channels it computes on and change its result. Two kinds of input are two programs, "
    "each compiled once; to share one, give every call the same kind.",
    "# one program per kind of input: nothing to pad\n"
    "# one kind for both, where f treats the channels alike:\n"
    "#   {path} = jnp.repeat({path}, {wide}, axis=-1)    # grayscale as {wide} equal channels")
# several axes changed: each padded (JAX 0.10.2 lowers image_size_changes_both_axes_fixed,
# both calls padded so, once)
_BUCKETS_FIX = (
    BUCKET_SAID + ", and {path} changed along axes {axes} ({old} -> {new}). "
    "Pad or bucket each axis that changed to a few fixed sizes (a mask of the real entries, "
    "passed in and used where they are summed or averaged, keeps the padding out of the "
    "result): padded as below, shapes up to {floors} share one program and each doubling of "
    "an axis past it adds one (padding one axis alone leaves the other's length a program of "
    "its own).",
    "floors = {floors}    # per axis: a power of two holding the lengths seen (None: kept)\n"
    "pads = [(0, 0) if m is None else (0, max(m, 1 << (n - 1).bit_length()) - n)\n"
    "        for m, n in zip(floors, {path}.shape)]\n"
    "{path} = jnp.pad({path}, pads)")
# the same lengths in another order (JAX 0.10.2 lowers transposed_argument_fixed, transposed
# back before the call, once)
_TRANSPOSED_SAID = "in another order: every shape is a program of its own."
_TRANSPOSED_FIX = (
    "{path} came as {new}, the lengths of {old} " + _TRANSPOSED_SAID +
    " If it is the same data transposed, give every call one layout (transposed back before "
    "the call, as below); if the calls really take both layouts, a compile for each is "
    "expected.",
    "{path} = jnp.transpose({path}, {perm})    # the first call's layout")
# an array grown by one row a step: a program per step; made at its full size and written at
# a traced index, one (JAX 0.10.2 lowers history_concatenate_grows_fixed once)
_GROWN_STEP_FIX = (
    "{path} grew by one along its first axis at each of the last calls ({a} -> {b} -> {c}): "
    "an array grown step by step (jnp.concatenate or jnp.append of each step's value) has "
    "a new shape, so a new compile, at every step. Make it at its full size once, before "
    "the loop (where it is read whole, a sum or a mean, pass a mask of the rows written too "
    "and weigh them by it: the zeros past them would count), and write each step's value at "
    "its index, the index passed traced: one program for every step." + PATTERN_SAID,
    "# n_steps: how many steps; i: this step's index; value: this step's value\n"
    "{path} = jnp.zeros((n_steps,) + {path}.shape[1:], {path}.dtype)    # once, before the "
    "loop\n"
    "# in the jitted step, i an argument (traced):\n"
    "{path} = {path}.at[i].set(value)\n"
    "mask = jnp.arange(n_steps) <= i    # the rows written so far, where it is read whole")
_GROWN_LIST_FIX = (
    "{list} grew by one item at each of the last calls ({a} -> {b} -> {c} items): a list "
    "appended to at every step (by the loop, or by the jitted step returning it one item "
    "longer: a history kept in its state) is a new pytree structure, so a new compile, at "
    "every step. Make it an array at its full size once, before the loop, and write each "
    "step's value at its index instead of appending (in the jitted step, the index passed "
    "traced); where it is read whole, a mask of the rows written keeps the zeros out: one "
    "program for every step." + PATTERN_SAID,
    "# n_steps: how many steps; i: this step's index; value: this step's value\n"
    "{list} = jnp.zeros({rows}, jnp.{dtype})    # once, before the loop\n"
    "{list} = {list}.at[i].set(value)    # step i: not an append (+ [value])\n"
    "mask = jnp.arange(n_steps) <= i    # the rows written so far, where it is read whole")


def _relaid(before: tuple, after: tuple) -> bool:
    """Whether two shapes of other ranks hold the same rows in another layout: the same first
    axis, and as many numbers per row (images as (8, 784), then as (8, 28, 28))."""
    return len(before) != len(after) and min(len(before), len(after)) >= 2 and \
        before[0] == after[0] and np.prod(before[1:]) == np.prod(after[1:])


# (JAX 0.10.2 lowers images_flattened_then_not_fixed, reshaped to the first layout, once)
_RELAID_FIX = ("{path} changed rank ({old} -> {new}), with as many numbers per row: the same "
               "data in another layout, and every shape is a program of its own. Reshape it "
               "to one layout before the call (the first call's, below), so that every call "
               "has one shape.",
               "{path} = {path}.reshape({first})    # before the call")
_SPLIT_FIX = ("{path} came split as {old} and comes as {new} now: under a mesh of Explicit "
              "axes, how an array is split over the mesh is part of its type, so the "
              "function traced and compiled again. Split it the same way for every call "
              "(under the mesh jax.set_mesh set, called or as a `with` block).",
              "{path} = jax.device_put({path}, jax.sharding.PartitionSpec({spec}))    "
              "# split as before")
# the same, where set_mesh's mesh changed too (the shard_map tutorial's batch, split over an
# 8-device mesh, then replicated under a 4-device one): split as before under the new mesh,
# JAX 0.10.2 compiles again (tests/data/tutorial_mesh_reference.json, "split_again")
_SPLIT_UNDER_ANOTHER_MESH_FIX = (
    "{path} came split as {old} and comes as {new} now, under another mesh than that "
    "compile's: the mesh's change alone compiles again, and no split of {path} under this "
    "mesh gives the earlier program back (split as before, it compiles again too).",
    "")


def _under_another_mesh(change):
    """`change`, a split told under a mesh set_mesh changed since, without the fix that
    splits it as before (which cannot bring back a program of another mesh)."""
    if not change.snippet.endswith("# split as before"):
        return change
    return _refixed(change, _SPLIT_UNDER_ANOTHER_MESH_FIX)


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
# float32, then bfloat16 (params cast with jax.tree.map(lambda a: a.astype(jnp.bfloat16), ...)):
# the plain cast back to float32 compiles once (JAX 0.10.2: params_cast_to_bfloat16_all_leaves_
# fixed), but keeps bfloat16's rounding and undoes a cast meant for mixed precision: said
_NARROWED_FIX = (
    "{path} came as {new} (before: {old}): every dtype compiles anew. The cast below back to "
    "{dtype} loses nothing more ({dtype} holds every {new_dtype} value; the values keep the "
    "{new_dtype} rounding), but undoes a cast to {new_dtype} that was meant (mixed "
    "precision): then cast the earlier call's to {new_dtype} too, or expect a program per "
    "dtype. Cast it before the call so that every call has one dtype.",
    "{path} = jnp.asarray({path}, jnp.{dtype})")
# the reverse: an array, then a Python number in its place (JAX 0.10.2: "now
# f32[]{weak_type=True} and before f32[3]{weak_type=False}"); "a compile per rank is
# expected" told the learner nothing of the reset (grads_reset_to_python_zeros_with_tree_map:
# the code pasted, one lowering, _fixed)
_RESET_TO_NUMBER_FIX = (
    "{path} was an array ({old}) and is a Python number now ({new}; or an array made from "
    "one without a dtype): another shape and a weak type, so it compiles anew. If it is a state reset to 0.0 (jax.tree.map(lambda a: "
    "0.0, ...)) or a number passed where an array was, make it an array of the earlier "
    "call's shape and dtype (jax.tree.map(jnp.zeros_like, ...) resets a state so); if the "
    "calls really take two shapes, a compile for each is expected.",
    "{path} = jnp.broadcast_to(jnp.asarray({path}, jnp.{dtype}), {shape})    # the earlier "
    "call's shape and dtype")
# (no code: a key cannot be cast to another implementation, its data differs in length)
_KEY_IMPL_FIX = (
    "{path} was {old} and is {new} now: keys of two PRNG implementations are two types, each "
    "compiled. Make every key with one implementation: the same impl= in each "
    "jax.random.key(seed, impl=...) (or jax_default_prng_impl set once, first thing).",
    "")

# no cast turns numbers into keys or keys into numbers (a cast fix crashed on the key's dtype,
# stop 71's CI): the two are two programs, and the fix is only to mean one of them
_NOT_A_KEY_FIX = (
    "{path} was {old} and is {new} now: an array of PRNG keys and an array of numbers are two "
    "types, each compiled, and no cast turns one into the other. If the function is meant "
    "for both, the two programs are expected; if not, pass the kind it is meant for.",
    "")

_KEY_FIX = (
    "{path} was {old} and is {new} now: a raw key (jax.random.PRNGKey, u32[2]) and a typed "
    "key (jax.random.key) are two types, each compiled. Make keys one way: typed keys "
    "everywhere (raw ones wrapped).",
    "if not jnp.issubdtype({path}.dtype, jax.dtypes.prng_key):\n"
    "    {path} = jax.random.wrap_key_data({path})    # typed keys, every call")
