"""Cards for vmap's in_axes: inconsistent sizes (which argument has which size along which
axis, and the in_axes that map each along its own batch axis), an axis an argument has not (a
scalar mapped along axis 0: None, or the axis of the others' size), an in_axes tuple of
another length than the arguments passed, and in_axes written as a dict of the parameters'
names (a tuple in their order)."""
from __future__ import annotations

import ast
import contextlib
import io
import re
from collections import Counter

from ...core import compile_record
from ...transforms.batching import vmap
from ...transforms.api_util import positional_parameters
from ...transforms.make_jaxpr import eval_shape
from ...tree_util import tree_flatten, tree_unflatten
from .call_arity import in_axes_for_missing
from .card import ErrorCard
from .reading import _user_frame
from .rewrites import _called, _parse_line, _pattern, _replaced


# "one axis had size 5: axis 0 of argument x ..." and, where several leaves share a size,
# "most axes (2 of them) had size 3, e.g. axis 0 of argument params[0] ..."; a keyword
# argument's "axis 0 of kwargs['scale'] ..." (JAX's words)
_VMAP_AXIS = re.compile(r"\* (?:one axis|(?:most|some) axes \((\d+) of them\)) had size (\d+)"
                        r"(?::|, e\.g\.) axis (-?\d+) of (?:argument )?(.+?) of type "
                        r"(\w+)\[([\d,]*)\]")


def _is_vmap_sizes(e) -> bool:
    return isinstance(e, ValueError) and str(e).startswith("vmap got inconsistent sizes") \
        and _VMAP_AXIS.search(str(e)) is not None


def mapped_axes(exc) -> list:
    """The mapped axes a size error lists (vmap's, pmap's), each {"name", "axis", "size",
    "count", "type", "shape"}."""
    return [{"name": name, "axis": int(axis), "size": int(size), "count": int(count or 1),
             "type": f"{dtype}[{dims}]", "shape": [int(d) for d in dims.split(",") if d]}
            for count, size, axis, name, dtype, dims in _VMAP_AXIS.findall(str(exc))]


def _vmap_card(exc, where, called_from) -> ErrorCard:
    mapped = mapped_axes(exc)
    if any(m["name"].startswith("kwargs[") for m in mapped):
        return _vmap_keyword_card(exc, where, mapped)
    sizes = Counter()
    for m in mapped:
        sizes[m["size"]] += m["count"]
    size = max(sizes, key=lambda s: (sizes[s], -[m["size"] for m in mapped].index(s)))
    axes = [_axis_for(m, size) for m in mapped]
    tried = _in_axes_that_trace(exc, [size] + [s for s in sizes if s != size])
    if tried is not None:       # the first size whose in_axes the function traces with
        size, per_argument = tried
        axes = [_axis_for(m, size) for m in mapped]
    advice = "; ".join(f"{m['name']}: " + (f"axis {a} has size {size}" if a is not None
                                            else f"None (not mapped: the same {m['name']} "
                                                 f"for every element)")
                       for m, a in zip(mapped, axes) if m["size"] != size)
    shown = per_argument if tried is not None else axes
    # in_axes that traced, one per positional argument: the call's line with them. Else no
    # code: in_axes that no trace checked (f failed with every one tried, JAX 0.10.2 too), or
    # a line the card cannot rewrite (a call over two lines, *args), were given as code, the
    # learner's line or `jax.vmap(f, in_axes=(0, None))(...)`, which pasted raised again
    rewrite = _with_in_axes(where, shown) if tried is not None else None
    if rewrite is None:
        placeholders = ", ".join(f"arg{i}" for i in range(len(shown)))
        rewrite = _pattern(f"jax.vmap(f, in_axes={tuple(shown)!r})({placeholders})    # one "
                           f"entry per positional argument" + ("" if tried is not None else
                                                               ": f traced with none tried"))
    pairs = _every_pair(exc, where, shown) if tried is not None else None
    if pairs is not None:       # (which the learner meant, the card cannot tell: both)
        rewrite += f"    # the same whole argument for every element\n{pairs}"
    listing = ", ".join(f"{m['name']} {m['type']} axis {m['axis']} (size {m['size']})" +
                        (f" and {m['count'] - 1} more of that size" if m["count"] > 1 else "")
                        for m in mapped)
    return ErrorCard(
        "vmap-sizes", "vmap: the mapped axes have different sizes",
        why=(f"vmap maps every argument along its in_axes entry, one slice per element, so "
             f"those axes must have one size: {listing}."),
        fix=(f"Say per argument which axis to map, or None for an argument shared by every "
             f"element, with in_axes (to map over size {size}: {advice})." +
             ("" if tried is not None else " The card found no in_axes with which the "
              "function traces on one element: check the shape it expects of each argument.")
             +
             (" Or, if you meant every pair of rows (distances between two sets of points), "
              "a vmap inside a vmap maps one argument in each." if pairs else "")),
        rewrite=rewrite,
        origin={"arguments": [{k: m[k] for k in ("name", "axis", "size", "type")}
                              for m in mapped]},
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html")


def _in_axes_that_trace(exc, sizes, call=None):
    """(size, in_axes per positional argument) of the first of `sizes` whose in_axes (each
    argument along its given axis where that has the size, else its first axis of that size,
    else None) the function traces with, fewest arguments moved off their given axis first,
    abstractly (eval_shape: nothing runs, nothing is
    logged, what it prints is dropped), or None where none does, or the call is not one array
    per positional argument (vmap's `vmap_call`: its function, arguments and axes). The most
    common size first: `jax.vmap(lambda W, x: W @ x)(W, xs)` of a (3, 4) W and a (5, 4) xs
    ties, and in_axes=(0, None) fails in the function (JAX 0.10.2 too): (None, 0) traces."""
    call = call or getattr(exc, "vmap_call", None)
    if call is None:
        return None
    fun, args, kwargs, flat_axes, options = call
    flat = [tree_flatten(a) for a in args]
    leaves = [x for each, _ in flat for x in each]
    if kwargs or len(flat_axes) != len(leaves) or \
            any(not hasattr(x, "shape") for x, ax in zip(leaves, flat_axes) if ax is not None):
        return None
    shapes = [tuple(getattr(x, "shape", ())) for x in leaves]
    fits = []
    for size in sizes:
        axes = tuple(ax if ax is not None and shape[ax] == size else
                     next((i for i, d in enumerate(shape) if d == size), None)
                     for ax, shape in zip(flat_axes, shapes))
        if all(ax is None for ax in axes):
            continue
        per_argument = _per_argument(axes, flat)
        try:
            with compile_record.unlogged(), contextlib.redirect_stdout(io.StringIO()):
                eval_shape(vmap(fun, in_axes=tuple(per_argument), **options), *args)
        except Exception:       # noqa: BLE001  (this in_axes does not fit the function)
            continue
        # how many leaves it maps along another axis than the given one (fewest first:
        # `vmap(lambda b, x: x + b)(b, xs)` of a (3,) b and a (5, 3) xs is (None, 0), where
        # (0, 1) traces too but maps xs by its columns)
        fits.append((sum(a is not None and a != g for a, g in zip(axes, flat_axes)), size,
                     per_argument))
    if not fits:
        return None
    _, size, axes = min(fits, key=lambda f: f[0])      # (ties: the most common size's)
    return size, list(axes)


def _every_pair(exc, where, shown) -> str | None:
    """The user's line with a vmap of a vmap: f of every pair, a row of the first argument
    with a row of the second, where the two are batches of one kind (their rows of one shape,
    of two counts, each row a vector at least: a row of scalars is f of every pair under
    (0, None) already) and the in_axes that traced passes one whole. `jax.vmap(dist)(xs, ys)` of
    4 and 5 points meant the (4, 5) distances, most likely: (0, None) passes ys whole to a
    dist written for two points, and its sum over every row of ys gave 4 numbers (JAX 0.10.2
    too). None where the nested vmap does not trace."""
    fun, args, kwargs, flat_axes, options = exc.vmap_call
    if len(args) != 2 or kwargs or sorted(shown, key=str) != [0, None] or \
            tuple(flat_axes) != (0, 0) or not all(hasattr(a, "shape") for a in args) or \
            len(args[0].shape) < 2 or tuple(args[0].shape[1:]) != tuple(args[1].shape[1:]):
        return None
    nested = vmap(vmap(fun, in_axes=(None, 0), **options), in_axes=(0, None), **options)
    try:
        with compile_record.unlogged(), contextlib.redirect_stdout(io.StringIO()):
            out = eval_shape(nested, *args)
            whole = eval_shape(vmap(fun, in_axes=tuple(shown), **options), *args)
    except Exception:       # noqa: BLE001  (f does not take one row of each)
        return None
    # where f kept the whole argument's rows as an axis of its own (W @ x: a row per row of
    # W), the in_axes that traced holds every pair already; where f reduced them away (dist's
    # sum), it gave one number per element of the other: the pairs are another reading
    if tuple(getattr(whole, "shape", ())[1:]) != tuple(getattr(out, "shape", ())[2:]):
        return None
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and \
                ast.unparse(node.func.func).split(".")[-1] == "vmap" and node.func.args:
            vmap_name, inner = ast.unparse(node.func.func), ast.unparse(node.func.args[0])
            shape = getattr(out, "shape", None)
            a, b = (ast.unparse(x) for x in node.args) if len(node.args) == 2 else ("a", "b")
            nested = f"{vmap_name}({vmap_name}({inner}, in_axes=(None, 0)), in_axes=(0, None))"
            return f"# or, {inner} of every pair (a row of each):\n" + \
                _replaced(tree, node.func, nested) + \
                (f"    # {tuple(shape)}: at [i, j], of {a}[i] and {b}[j]" if shape is not None
                 else "")
    return None


def _vmap_keyword_card(exc, where, mapped) -> ErrorCard:
    """vmap's sizes differing where a keyword argument is among the mapped: vmap maps every
    keyword argument along axis 0 (in_axes names the positional ones alone), so no in_axes
    makes `jax.vmap(f)(xs, scale=s)` pass s whole; the card's in_axes, keyword arguments
    left as they were, pasted, raised again (its template `jax.vmap(f, in_axes=(0,))(...)`
    was code naming nothing of the learner's). The keywords passed positionally, in f's
    order, with the in_axes that traces (JAX 0.10.2: `jax.vmap(f, in_axes=(0, None))(x, s)`)."""
    sizes = Counter()
    for m in mapped:
        sizes[m["size"]] += m["count"]
    order = sorted(sizes, key=lambda s: (-sizes[s], [m["size"] for m in mapped].index(s)))
    call, names = _keywords_as_positional(getattr(exc, "vmap_call", None))
    tried = _in_axes_that_trace(exc, order, call) if call is not None else None
    rewrite = _with_in_axes(where, tried[1], order=names) if tried is not None else None
    keywords = ", ".join(m["name"][len("kwargs['"):-2] for m in mapped
                         if m["name"].startswith("kwargs['"))
    if rewrite is None:
        rewrite = _pattern("jax.vmap(f, in_axes=(0, None))(xs, scale)    # scale passed "
                           "positionally: None, the same scale for every element")
    else:
        rewrite += (f"    # {', '.join(names)} passed positionally: in_axes="
                    f"{tuple(tried[1])!r}")
    listing = ", ".join(f"{m['name']} {m['type']} axis {m['axis']} (size {m['size']})"
                        for m in mapped)
    return ErrorCard(
        "vmap-sizes", "vmap: the mapped axes have different sizes (a keyword argument's too)",
        why=(f"vmap maps every argument along one axis of one size, and keyword arguments "
             f"always along axis 0: in_axes names the positional arguments only. Here: "
             f"{listing}."),
        fix=(f"To pass {keywords} whole to every "
             f"element (or map it along another axis), pass it positionally and give its "
             f"in_axes entry (None: not mapped)."),
        rewrite=rewrite,
        origin={"arguments": [{k: m[k] for k in ("name", "axis", "size", "type")}
                              for m in mapped]},
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html")


def _keywords_as_positional(call):
    """(vmap's call with its keyword arguments passed positionally, in the order of the
    function's parameters, each leaf at axis 0 as vmap maps it; the names of the keywords in
    that order), or (None, None) where they are not the parameters right after the
    positional arguments."""
    if call is None:
        return None, None
    fun, args, kwargs, flat_axes, options = call
    params = positional_parameters(fun) or []
    names = list(params[len(args):len(args) + len(kwargs)])
    if not kwargs or set(names) != set(kwargs):
        return None, None
    moved = tuple(args) + tuple(kwargs[n] for n in names)
    positional = sum(len(tree_flatten(a)[0]) for a in args)
    axes = list(flat_axes[:positional]) + [0] * sum(len(tree_flatten(kwargs[n])[0])
                                                   for n in names)
    return (fun, moved, {}, axes, options), names


def _per_argument(axes, flat) -> list:
    """One in_axes entry per positional argument from one axis per leaf: the axis where all
    its leaves share it (None for `params = (W, b)` passed whole to every element), else the
    argument's own structure holding each leaf's (`{'x': 0, 'y': None}` for a dict whose
    'y' is shared: JAX takes a tree prefix)."""
    entries, at = [], 0
    for leaves, treedef in flat:
        own = list(axes[at:at + len(leaves)])
        at += len(leaves)
        entries.append(own[0] if len(set(own)) == 1 else tree_unflatten(treedef, own))
    return entries


def _axis_for(mapped, size):
    if mapped["size"] == size:
        return mapped["axis"]
    return next((i for i, d in enumerate(mapped["shape"]) if d == size), None)


def _with_in_axes(where, axes, keywords=False, transform="vmap", order=None) -> str | None:
    """The user's line `jax.vmap(f, ...)(a, b)` (or `transform`'s: pmap's) with
    in_axes=`axes` (one per positional argument; keyword arguments only where `keywords`:
    vmap maps them along axis 0, in_axes being the positional ones'; `order`: the keyword
    arguments' names, passed positionally in that order after the others), or None where
    the line is not such a call."""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and \
                ast.unparse(node.func.func).split(".")[-1] == transform:
            if order is not None:
                given = {k.arg: k.value for k in node.keywords}
                if set(given) != set(order):
                    return None
                node.args = node.args + [given[n] for n in order]
                node.keywords = []
            if len(node.args) != len(axes) or node.keywords and not keywords or \
                    any(isinstance(a, ast.Starred) for a in node.args):
                return None
            in_axes = ast.parse(repr(tuple(axes)), mode="eval").body
            node.func.keywords = [k for k in node.func.keywords if k.arg != "in_axes"] + \
                [ast.keyword("in_axes", in_axes)]
            node.func.args = node.func.args[:1]
            return ast.unparse(tree)
    return None


# ------------------------------------------------------------------ an axis the argument has not
_RANK = "vmap was requested to map its argument along axis "


def _is_vmap_rank(e) -> bool:
    # the core attaches every leaf's shape and axis (transforms/batching.py's _leaf_axes)
    return isinstance(e, ValueError) and str(e).startswith(_RANK) and \
        hasattr(e, "vmap_leaves")


def _fits(shape, axis) -> bool:
    return axis is None or -len(shape) <= axis < len(shape)


def _vmap_rank_card(exc, where, called_from) -> ErrorCard:
    """vmap asked to map an argument along an axis it has not (a scalar along 0). The others'
    mapped size says what to do: map this one along its axis of that size, or not at all
    (None: the same value for every element)."""
    leaves, counts = exc.vmap_leaves, exc.vmap_leaf_counts
    bad = next(i for i, (shape, ax) in enumerate(leaves) if not _fits(shape, ax))
    shape, axis = leaves[bad]
    sizes = Counter(s[a] for i, (s, a) in enumerate(leaves) if i != bad and a is not None
                    and _fits(s, a))
    size = max(sizes, key=sizes.get) if sizes else None
    position = _position(bad, counts)
    which = f"argument {position}" if position is not None else "one argument's leaf"
    why = (f"vmap maps each argument along its in_axes entry, and {which} has shape {shape}: "
           f"it has no axis {axis}" + (" (a scalar has no axes at all)." if not shape else
                                       " (its only axis is 0)." if len(shape) == 1 else
                                       f" (its axes are 0 to {len(shape) - 1})."))
    if size is None:
        new = 0 if shape else None
        fix = ("It is the only argument vmap maps, so it must hold the batch: an array whose "
               "axis in_axes names runs over the elements" +
               (f" (its axes have sizes {shape}: name the one that does)." if shape else
                ", not a scalar."))
    else:
        new = next((i for i, d in enumerate(shape) if d == size), None)
        fix = (f"The other mapped arguments have size {size}: " +
               (f"map this one along its axis {new}, of that size." if new is not None else
                "pass None for this one in in_axes: not mapped, the same value for every "
                "element."))
    axes = [a for s, a in leaves[:sum(counts)]]
    rewrite = None
    dtypes = getattr(exc, "vmap_leaf_dtypes", None) or [""] * len(leaves)
    if new is None and size is None and dtypes[bad].startswith("key<"):
        # one key, mapped: a batch of keys is split from it (floats are no keys)
        fix = ("A key is one value: split it into a key per element, jax.random.split(key, n), "
               "and map over those.")
        passed = _batch_passed(where, "keys")
        rewrite = (f"keys = jax.random.split({passed[1]}, 3)    # a batch of keys: one per "
                   f"element\n{passed[0]}") if passed else \
            _pattern("keys = jax.random.split(key, n)    # a batch of keys: one per element\n"
                     "ys = jax.vmap(f)(keys)")
    elif new is None and size is None:        # a scalar alone: there is nothing to map over
        passed = _batch_passed(where)
        rewrite = ("xs = jnp.asarray([1.0, 2.0, 3.0])    # a batch: one value per element (your "
                   "values)\n" + passed[0]) if passed else \
            _pattern("xs = jnp.asarray([1.0, 2.0, 3.0])    # a batch: one value per element\n"
                     "ys = jax.vmap(f)(xs)")
    elif position is not None and all(c == 1 for c in counts) and len(leaves) == len(counts):
        axes[position] = new
        rewrite = _with_in_axes(where, axes)
        if rewrite is not None and size is None:
            rewrite += "    # " + ", ".join(f"axis {i}: size {d}" for i, d in enumerate(shape)) \
                + ": the batch's?"
    if rewrite is None:
        rewrite = _pattern(f"jax.vmap(f, in_axes={new!r})(x)    # per argument: an axis of "
                           f"the batch size, or None")
    return ErrorCard(
        "vmap-rank", f"vmap: {which} has no axis {axis} to map", why=why, fix=fix,
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html")


def _batch_passed(where, name="xs") -> tuple | None:
    """(the user's `jax.vmap(f)(1.0)` with the batch `name` passed in place of its one
    argument, that argument's code), or None (the template's `jax.vmap(f)(xs)` named an f
    the learner's line may not have)."""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and \
                ast.unparse(node.func.func).split(".")[-1] == "vmap" and \
                len(node.args) == 1 and not node.keywords and \
                not isinstance(node.args[0], ast.Starred):
            return _replaced(tree, node.args[0], name), ast.unparse(node.args[0])
    return None


def _position(leaf, counts):
    """The positional argument holding flat leaf `leaf`, or None (a keyword argument's)."""
    start = 0
    for i, count in enumerate(counts):
        if start <= leaf < start + count:
            return i
        start += count
    return None


# ------------------------------------------------------------------ in_axes of another length
_IN_AXES_LENGTH = re.compile(r"^vmap in_axes must be an int, None, or a tuple of entries "
                             r"corresponding to the positional arguments passed to the "
                             r"function, but got len\(in_axes\)=(\d+), len\(args\)=(\d+)")


def _is_in_axes_length(e) -> bool:
    return isinstance(e, ValueError) and _IN_AXES_LENGTH.match(str(e)) is not None


def _in_axes_length_card(exc, where, called_from) -> ErrorCard:
    given, passed = map(int, _IN_AXES_LENGTH.match(str(exc)).groups())
    axes = _given_in_axes(where)
    added = []
    if axes is not None and len(axes) == given:
        added = _added_axes(where, axes, passed, _user_frame(exc))
        fitted = (axes + added)[:passed]
        rewrite = _with_in_axes(where, fitted, keywords=True)
    else:
        fitted, rewrite = None, None
    if given < passed:
        n = passed - given
        mapped = [i for i, a in enumerate(added) if a == 0]
        if mapped and axes is not None and all(a is None for a in axes):
            what = ("Every entry given is None, and vmap maps at least one argument: the rewrite "
                    "maps along axis 0 the ones it adds that have an axis 0.")
        elif mapped and len(mapped) == len(added):
            what = (f"The rewrite maps the last {n} along axis 0 too: "
                    f"{'its' if n == 1 else 'their'} axis 0 has the batch's size (None would "
                    f"pass {'it' if n == 1 else 'them'} whole to every call).")
        elif mapped:
            what = ("The rewrite maps along axis 0 the ones whose axis 0 has the batch's size, "
                    "and gives None to the others.")
        else:
            what = (f"The rewrite adds None for the last {n}: put 0 there to map "
                    f"{'it' if n == 1 else 'them'} too.")
        fix = (f"Give one entry per argument: the axis to map it along, or None to pass it "
               f"whole to every call. {what}")
    elif (short := in_axes_for_missing(exc, where, given)) is not None:
        left, rewrite = short
        said = " and ".join(left)
        fix = (f"in_axes has an entry for each of the function's {given} parameters; the call "
               f"left out {said}: pass {'it' if len(left) == 1 else 'them'} after the others"
               + ("." if rewrite else f" (nothing here is named {said}: your own values)."))
        rewrite = f"{rewrite}    # every parameter, as in_axes lists them" if rewrite else \
            _pattern(f"jax.vmap(f, in_axes=...)(..., {', '.join(left)})    # every parameter")
        fitted = None
    else:
        fix = (f"Give one entry per argument passed: {given - passed} too many here (the "
               f"rewrite drops the last).")
    if rewrite is None:
        example = "(0, None)" if passed == 2 else repr((0,) * passed)    # (0,): a tuple
        rewrite = _pattern(f"jax.vmap(f, in_axes={example})(...)    # one entry per "
                           f"positional argument")
    elif fitted is not None:
        rewrite += f"    # in_axes={tuple(fitted)!r}: one entry per argument"
    return ErrorCard(
        "vmap-in-axes", f"vmap: in_axes has {given} entries for {passed} arguments",
        why=(f"A tuple in_axes says, for each positional argument in order, which axis to map; "
             f"this one has {given} entries, and the call passes {passed} arguments."),
        fix=fix, rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html")


def _added_axes(where, axes, passed, frame) -> list:
    """in_axes entries for the arguments past the given `axes`: 0 for an argument (a name in
    the user's `frame`, read, never called) whose axis 0 has the size of the batch that the
    given entries map, None otherwise. `jax.vmap(convolve, in_axes=(0,))(xs, ws)` with xs and
    ws both of 2 rows meant (0, 0): under JAX 0.10.2 (0, None) passes ws whole and raises."""
    missing = passed - len(axes)
    if missing <= 0:
        return []
    tree = _parse_line(where)
    call = next((node for node in ast.walk(tree) if isinstance(node, ast.Call) and
                 isinstance(node.func, ast.Call) and
                 ast.unparse(node.func.func).split(".")[-1] == "vmap"), None) \
        if tree is not None else None
    names = {} if frame is None else {**frame.f_globals, **frame.f_locals}

    def shape(node):
        value = names.get(node.id) if isinstance(node, ast.Name) else None
        found = getattr(value, "shape", None)
        return tuple(found) if isinstance(found, tuple) else None

    if call is None or len(call.args) != passed:
        return _one_mapped(axes, [None] * missing)
    shapes = [shape(a) for a in call.args]
    if all(a is None for a in axes):        # no batch given yet: map what has an axis 0
        return _one_mapped(axes, [0 if s else None for s in shapes[len(axes):]])
    sizes = {s[a] for s, a in zip(shapes, axes)
             if s is not None and isinstance(a, int) and -len(s) <= a < len(s)}
    if len(sizes) != 1:
        return [None] * missing
    size = sizes.pop()
    return [0 if s and s[0] == size else None for s in shapes[len(axes):]]


def _one_mapped(axes, added) -> list:
    """`added` with its first entry 0 where every entry would be None: vmap maps at least one
    argument (JAX 0.10.2: "vmap must have at least one non-None value in in_axes"), and
    in_axes=(None,) padded with None raised that, pasted."""
    if all(a is None for a in [*axes, *added]) and added:
        added[0] = 0
    return added


def _given_in_axes(where) -> list | None:
    """The literal in_axes tuple (or list) of the user's `jax.vmap(f, in_axes=...)(...)`."""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and \
                ast.unparse(node.func.func).split(".")[-1] == "vmap":
            given = [k.value for k in node.func.keywords if k.arg == "in_axes"] or \
                node.func.args[1:2]
            try:
                axes = ast.literal_eval(given[0]) if given else None
            except ValueError:
                return None
            return list(axes) if isinstance(axes, (tuple, list)) else None
    return None


# ------------------------------------------------------------------ in_axes given as a dict
_IN_AXES_DICT = re.compile(r"^vmap in_axes must be an int, None, or a tuple of entries "
                           r"corresponding to the positional arguments passed to the "
                           r"function, but got (\{.*\})\.$", re.S)


def _is_in_axes_dict(e) -> bool:
    return isinstance(e, TypeError) and _IN_AXES_DICT.match(str(e)) is not None


def _in_axes_dict_card(exc, where, called_from) -> ErrorCard:
    """`jax.vmap(predict, in_axes={'p': None, 'x': 0})(params, xs)`: in_axes keyed by the
    parameters' names, which JAX refuses (a tuple, one entry per positional argument); the
    tuple in the parameters' order, or the dict wrapped in one where the call passes one dict
    argument with those keys (a tree prefix of it)."""
    try:
        given = ast.literal_eval(_IN_AXES_DICT.match(str(exc)).group(1))
    except (ValueError, SyntaxError):
        given = None
    axes, how = _axes_of_dict(exc, where, given), "in the order of its parameters"
    if axes is None and isinstance(given, dict):
        axes, how = [given], "for its one argument, a dict: the dict inside a tuple"
    rewrite = _with_in_axes(where, axes) if axes is not None else None
    if rewrite is None:
        rewrite = _pattern("jax.vmap(f, in_axes=(None, 0))(params, xs)    # one entry per "
                           "positional argument, in order")
        how = "in the order the function takes its arguments"
    else:
        rewrite += f"    # in_axes={tuple(axes)!r}: {how}"
    return ErrorCard(
        "vmap-in-axes", "vmap: in_axes is a dict, not a tuple per argument",
        why=("vmap's in_axes says which axis to map for each positional argument, by "
             "position: an int or None for all of them, or a tuple (a list) with one entry per "
             "argument. A dict is taken for one argument's structure (a tree prefix of a dict "
             "argument), never for the parameters' names."),
        fix=(f"Write in_axes as a tuple, {how}: None for an argument passed whole to every "
             f"call, the axis to map for the others."),
        rewrite=rewrite, docs="https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html")


def _axes_of_dict(exc, where, given) -> list | None:
    """in_axes per positional argument from a dict keyed by the vmapped function's parameter
    names (a parameter not named: 0, vmap's default), or None where a key names none of
    them or the call is not `jax.vmap(name, ...)(...)` of positional arguments."""
    tree = _parse_line(where)
    call = next((node for node in ast.walk(tree) if isinstance(node, ast.Call) and
                 isinstance(node.func, ast.Call) and
                 ast.unparse(node.func.func).split(".")[-1] == "vmap" and node.func.args),
                None) if tree is not None and isinstance(given, dict) else None
    frame = _user_frame(exc)
    if call is None or frame is None or not isinstance(call.func.args[0], ast.Name):
        return None
    fun = {**frame.f_globals, **frame.f_locals}.get(call.func.args[0].id)
    params = positional_parameters(fun) if callable(fun) else None
    passed = len(call.args)
    if not params or len(params) < passed or call.keywords or \
            not set(given) <= set(params[:passed]):
        return None
    return [given.get(p, 0) for p in params[:passed]]


# ------------------------------------------------------------------ out_axes past the output
def _is_vmap_out_axes(e) -> bool:
    # JAX's words are NumPy's axis-bounds words for the stacked result: the core attaches
    # out_axes' entry and one element's shape (transforms/batching.py's _finish_output)
    return isinstance(e, ValueError) and hasattr(e, "vmap_out")


def _vmap_out_axes_card(exc, where, called_from) -> ErrorCard:
    """jax.vmap(f, out_axes=1) of an f returning a scalar: out_axes says where the batch axis
    goes among the axes of f's output, which has none to put it after. The axis-bounds card
    said "axis 1 is past the axes of a 1-D array" and advised `axis=0` of a line with no axis
    argument; out_axes=0 (or f returning a vector) is the fix (JAX 0.10.2: (3,) for out_axes=0,
    (1, 3) for `v.sum(keepdims=True)` at out_axes=1)."""
    axis, shape, path = exc.vmap_out
    rank = len(shape)
    name = _vmapped_name(where)
    output = f"{name}'s output{path}"
    places = ", ".join(str(a) for a in range(rank + 1))
    has = ("a scalar (shape ()): one value per element, so the stacked result has the batch "
           "axis alone" if not rank else
           f"of shape {shape}, so the stacked result has {rank + 1} axes")
    need = axis if axis >= 0 else -axis - 1         # the axes f must return for that place
    more = (f"make {name} return an array of at least {need} "
            f"ax{'i' if need == 1 else 'e'}s" + (" (a scalar as a vector: x[None], "
                                                 "x.sum(keepdims=True))" if not rank else ""))
    line = _with_out_axes(where, rank) if not path else None
    if line:
        rewrite = line + (f"    # the batch axis last, after the {rank} of {name}'s output"
                          if rank else "    # one value per element, stacked")
    elif path:      # (one out_axes for every output moves the others' batch axis too)
        rewrite = (f"# out_axes per output, in the structure {name} returns (a tuple for a "
                   f"tuple): {f'0 to {rank}' if rank else 0} for {output}")
    else:
        rewrite = _pattern(f"jax.vmap(f, out_axes={rank})(xs)")
    rewrite += f"\n# or, for the batch at axis {axis}, {more}"
    return ErrorCard(
        "vmap-out-axes", f"vmap: out_axes={axis} is past the axes of {output}",
        why=(f"out_axes says where vmap puts the batch axis in each output, among the axes "
             f"{name} returns for one element. {output} is {has}: the batch axis can go at "
             f"{places} (or -1, the last), not at {axis}. JAX's message counts the stacked "
             f"result's axes ({rank + 1})."),
        fix=(f"Give out_axes one of {places}" if rank else "Give out_axes=0") + f", or {more}.",
        rewrite=rewrite,
        origin={"out_axes": axis, "element_shape": list(shape), "path": path or None},
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html")


def _vmapped_name(where) -> str:
    """The name of the function the user's line vmaps (`jax.vmap(predict, ...)`), or "f"."""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if _called(node) == "vmap" and node.args and isinstance(node.args[0], ast.Name):
            return node.args[0].id
    return "f"


def _with_out_axes(where, axis) -> str | None:
    """The user's line `jax.vmap(f, out_axes=...)(...)` with out_axes=`axis`, or None where
    its out_axes is no int written there (a tuple of entries, a name)."""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if _called(node) == "vmap":
            given = next((k for k in node.keywords if k.arg == "out_axes"), None)
            if given is None or not isinstance(given.value, (ast.Constant, ast.UnaryOp)):
                return None
            given.value = ast.Constant(axis)
            return ast.unparse(tree)
    return None
