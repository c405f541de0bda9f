"""The card for an axis an array has not: `x.sum(axis=1)` of a vector, `axis=2` of a matrix by
someone counting from 1 (as MATLAB and R do), `jnp.concatenate(..., axis=1)` of vectors meant
to stand side by side, an axis counted in the batch inside jax.vmap (whose function sees one
example). The rewrite is the user's line with the axis the array has (its last), or jnp.stack
for vectors of one shape joined along a new axis. And squeeze asked to remove an axis whose
size is not 1: the axis of size 1 there is, or the squeeze left out."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .frame_names import _is_one_example, _named_value
from .reading import _user_frame
from .rewrites import _called, _listing, _parse_line, _replaced

# JAX's text (NumPy's, from canonicalize_axis); `dimension` is the operand's, or for
# expand_dims the result's
_AXIS = re.compile(r"^axis (-?\d+) is out of bounds for array of dimension (\d+)$")
# functions whose second positional argument is the axis (jnp's and the array methods')
_AXIS_SECOND = {"sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "any",
                "all", "cumsum", "cumprod", "expand_dims", "squeeze", "softmax", "log_softmax",
                "logsumexp", "median", "nanmean", "nansum", "sort", "argsort", "flip"}


def _is_axis_bounds(e) -> bool:
    return isinstance(e, (ValueError, IndexError)) and _AXIS.match(str(e)) is not None


def _axis_bounds_card(exc, where, called_from) -> ErrorCard:
    axis, ndim = (int(g) for g in _AXIS.match(str(exc)).groups())
    tree = _parse_line(where)
    call, node = _axis_argument(tree, axis) if tree is not None else (None, None)
    joins = call is not None and _called(call) == "concatenate" and axis == ndim
    frame = _user_frame(exc)
    # JAX checks the axis against the first array alone: stacking is the fix only where every
    # array has that many axes (vectors side by side) and one shape, read from the user's names
    shapes = _joined_shapes(call, frame) if joins else None
    listed = ", ".join(f"{name} {shape}" for name, shape in dict(shapes or ()).items())
    mixed = joins and (shapes is None or any(len(s) != ndim for _, s in shapes))
    ends = joins and not mixed and len({s for _, s in shapes}) > 1    # stack needs one shape
    if ndim == 0:
        has = "a scalar (a 0-D array) has no axes"
    else:
        has = (f"an array of {ndim} dimensions has axes {_listing(range(ndim))} (or "
               f"{_listing(range(-ndim, 0))} from the end)" if ndim > 1 else
               "a 1-D array (a vector) has one axis, 0 (or -1 from the end)")
    why = f"Axes count from 0: {has}, so axis {axis} is not one of them."
    last = ndim - 1
    if axis == ndim and ndim > 0 and tree is not None and _vmapped(call or tree, frame):
        # the learner counted the batch's axis, which vmap's function never sees
        fix = (f"Inside jax.vmap the function sees one example, without the batch's axis"
               f"{': ' + listed if listed else ''}. Axis {axis} of the batch is axis {last} "
               f"(or -1) of one example; vmap puts the batch's axis back on the result.")
        rewrite = f"{_replaced(tree, node, str(last))}    # axis {last}: one example's" if \
            node is not None else \
            f"# one example's axes: {_listing(range(ndim))} (the batch's is vmap's)"
    elif ends and node is not None and len({s[:-1] for _, s in shapes}) == 1:
        joined = shapes[0][1][:-1] + (sum(s[-1] for _, s in shapes),)
        fix = (f"jnp.stack sets arrays side by side along a new axis, and needs one shape; "
               f"these are {listed}. Joined end to end along axis {last} they make "
               f"{joined}.")
        rewrite = f"{_replaced(tree, node, str(last))}    # axis {last}: {joined}"
    elif joins and not mixed and not ends:
        fix = (f"jnp.concatenate joins arrays along an axis they have. To set them side by side "
               f"along a new axis {axis} (vectors as the columns of a matrix), jnp.stack makes "
               f"that axis: jnp.stack(arrays, axis={axis}).")
        rewrite = (f"{_replaced(tree, call.func, _with_name(call.func, 'stack'))}"
                   f"    # stack: the new axis {axis}")
    elif joins:
        fix = ("jnp.concatenate joins arrays along an axis they all have" +
               (f", and these have different {'numbers of dimensions' if mixed else 'shapes'} "
                f"({listed})" if shapes else "") +
               ": give them the same first (x[None] makes a vector a row, x[:, None] a "
               "column), then join along an axis they share; vectors alone side by side: "
               f"jnp.stack(arrays, axis={axis}).")
        rewrite = f"# {listed}" if shapes else "# print each array's shape"
    elif axis == ndim and ndim > 0:
        fix = (f"Counting from 1 (as MATLAB and R do), axis {axis} is the last, which is axis "
               f"{last} (or -1) here. Print x.shape to see the axes; for a whole-array result "
               f"(a sum of everything), leave axis out.")
        said = "a vector's only axis" if ndim == 1 else f"the last of {ndim}"
        counted = _counted_from_one(call, node, ndim) if node is not None else None
        if counted is not None:       # a tuple counted from 1: each entry one less
            old, new = counted
            rewrite = (f"{_replaced(tree, old, new)}    # axes {new}: counted from 0")
        else:
            rewrite = (f"{_replaced(tree, node, str(last))}    # axis {last}: {said}"
                       if node is not None else f"# axis={last}: {said}")
    else:
        fix = ("Print x.shape to see the axes the array has, and name one of them (negative "
               "numbers count from the end: -1 is the last).")
        rewrite = f"# axes of this {ndim}-D array: {_listing(range(ndim)) or 'none'}"
    return ErrorCard(
        "axis-bounds", f"axis {axis} is past the axes of a {ndim}-D array",
        why=why, fix=fix, rewrite=rewrite,
        docs="https://numpy.org/doc/stable/glossary.html#term-axis")


def _counted_from_one(call, node, ndim):
    """(the axis tuple holding `node`, the tuple with each entry one less) where the learner
    counted every axis from 1 (`axis=(1, 2)` of a 2-D array: (0, 1)); None where `node` is no
    tuple's entry, or one less is not every entry's axis (writing the last for the one past
    it alone made `(1, 1)`, a duplicate JAX refuses)."""
    holder = next((v for v in [k.value for k in call.keywords] + list(call.args)
                   if isinstance(v, (ast.Tuple, ast.List)) and any(e is node for e in v.elts)),
                  None) if call is not None else None
    if holder is None:
        return None
    values = [_literal(e) for e in holder.elts]
    if None in values or not all(1 <= v <= ndim for v in values) or \
            len(set(values)) != len(values):
        return None
    return holder, repr(tuple(v - 1 for v in values))


def _joined_shapes(call, frame):
    """[(name, shape)] of the arrays a join lists by name (`jnp.concatenate([x, M], ...)`),
    read in the user's frame; None where one is an expression (evaluating it could run the
    user's code again) or not an array."""
    seq = call.args[0] if call.args else None
    if frame is None or not isinstance(seq, (ast.List, ast.Tuple)):
        return None
    shapes = []
    for element in seq.elts:
        if not isinstance(element, ast.Name):
            return None
        value = _named_value(frame, element.id)
        shape = getattr(value, "shape", None)
        if not isinstance(shape, tuple):
            return None
        shapes.append((element.id, shape))
    return shapes


def _vmapped(node, frame) -> bool:
    """Whether an array `node` names is one example inside jax.vmap (read in the user's
    frame)."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} if frame else ()
    return any(_is_one_example(_named_value(frame, n)) for n in names)


def _with_name(func, name) -> str:
    prefix = ast.unparse(func).rpartition(".")[0]
    return f"{prefix}.{name}" if prefix else name


def _axis_argument(tree, axis):
    """(the call, the constant node giving `axis`) on the user's line: an `axis=` keyword (or
    one entry of its tuple), or the second positional argument of a function taking the axis
    there; (None, None) when the line names no such constant."""
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        given = [k.value for k in call.keywords if k.arg == "axis"]
        if not given and _called(call) in _AXIS_SECOND:
            # a method call's first argument is the axis: x.sum(1)
            is_method = isinstance(call.func, ast.Attribute) and \
                ast.unparse(call.func.value) not in ("jnp", "np", "jax.numpy", "jax.nn", "nn")
            index = 0 if is_method else 1
            given = call.args[index:index + 1]
        for value in given:
            entries = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
            for entry in entries:
                if _literal(entry) == axis:
                    return call, entry
    return None, None


def _literal(node):
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):     # a name, a call: not a constant
        return None
    return value if type(value) is int else None


# ------------------------------------------------------------------ squeeze
# JAX's text (lax.squeeze's shape rule); pmap's own splitting says it too (devices.py's card,
# earlier in the list, holds that one)
_SQUEEZE = re.compile(r"^cannot select an axis to squeeze out which has size not equal to one, "
                      r"got shape=(\(.*?\)) and dimensions=(\(.*?\))$")


def _is_squeeze_size(e) -> bool:
    return isinstance(e, ValueError) and _SQUEEZE.match(str(e)) is not None


def _squeeze_card(exc, where, called_from) -> ErrorCard:
    """squeeze asked to remove an axis whose size is not 1 (the learner expected a batch or
    channel axis of 1 there; inside vmap the batch's axis is vmap's). The rewrite names the
    axes of size 1 the array has, or drops the squeeze where it has none."""
    shape, dims = (ast.literal_eval(g) for g in _SQUEEZE.match(str(exc)).groups())
    ones = [i for i, d in enumerate(shape) if d == 1]
    wrong = [d for d in dims if shape[d] != 1]
    tree = _parse_line(where)
    call = next((n for n in ast.walk(tree) if _called(n) == "squeeze"), None) \
        if tree is not None else None
    vmapped = call is not None and _vmapped(call, _user_frame(exc))
    sizes = ", ".join(f"axis {d} has size {shape[d]}" for d in wrong)
    why = (f"squeeze removes axes of size 1 only, and this array's shape is {shape}: {sizes}" +
           (" (one example's shape: inside jax.vmap the function never sees the batch's "
            "axis)." if vmapped else "."))
    if ones:
        new = str(ones[0]) if len(ones) == 1 else str(tuple(ones))
        fix = (f"Its axis of size 1 is {ones[0]}: squeeze that one (or leave axis out)." if
               len(ones) == 1 else
               f"Its axes of size 1 are {_listing(ones)}: squeeze those (or leave axis out).")
        rewrite = _squeezed(tree, call, new, f"    # axis {new}: size 1")
    else:
        fix = ("It has no axis of size 1: there is nothing to squeeze; leave the squeeze out "
               "(x[i] picks one element along an axis, x.reshape a new shape).")
        rewrite = _squeezed(tree, call, None, f"    # {shape}: no axis of size 1 to remove")
    return ErrorCard(
        "axis-bounds", f"squeeze: {sizes}, not 1", why=why, fix=fix,
        rewrite=rewrite or f"# axes of size 1: {_listing(ones) or 'none'}",
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.squeeze.html")


def _squeezed(tree, call, axis, note) -> str | None:
    """The user's line with the squeeze's axis `axis`, or the squeeze dropped (None), or None
    where the call cannot be read (its axis given otherwise than once, positionally or by
    keyword)."""
    if call is None:
        return None
    method = isinstance(call.func, ast.Attribute) and \
        ast.unparse(call.func.value) not in ("jnp", "np", "jax.numpy", "lax", "jax.lax")
    array = call.func.value if method else (call.args[0] if call.args else None)
    given = [k.value for k in call.keywords if k.arg in ("axis", "dimensions")] + \
        call.args[0 if method else 1:]
    if array is None or len(given) != 1:
        return None
    if axis is None:
        return _replaced(tree, call, ast.unparse(array)) + note
    if isinstance(given[0], (ast.Tuple, ast.List)) and not axis.startswith("("):
        axis = f"({axis},)"                     # a sequence stays one (lax.squeeze's)
    return _replaced(tree, given[0], axis) + note
