"""The card for arrays of different numbers of dimensions joined into one:
`jnp.concatenate([v, M])` of a vector v of shape (3,) and a matrix M of shape (2, 3), and the
same in jnp.hstack, jnp.stack and lax.concatenate. JAX's message lists each operand's shape.
Where one new axis of length 1 makes the others fit (the vector as one row, `v[None]`, or one
column, `v[:, None]`), the rewrite is the user's line with it (and jnp.vstack or
jnp.column_stack, which make vectors rows or columns themselves); else the card lists the
shapes and guesses no code."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .frame_names import _is_one_example, _named_value
from .reading import _user_frame
from .rewrites import _first_call, _listing, _operand, _parse_line, _replaced

_RANKS = re.compile(r"^Cannot (concatenate|stack) arrays with different numbers of "
                    r"dimensions: got (.*)\.$")
# where each function takes the axis it joins along: (its keyword, its position, its default)
_AXIS = {"concatenate": ("axis", 1, 0), "stack": ("axis", 1, 0), "hstack": (None, None, 1),
         "append": ("axis", 2, None)}
_LAX_AXIS = ("dimension", 1, None)                  # lax.concatenate(operands, dimension)


def _is_join_ranks(e) -> bool:
    return isinstance(e, (TypeError, ValueError)) and _shapes(e) is not None


def _shapes(exc):
    """The operands' shapes JAX's message lists, as tuples; None for another message."""
    found = _RANKS.match(str(exc))
    try:
        shapes = ast.literal_eval(f"[{found.group(2)}]") if found else None
    except (ValueError, SyntaxError):
        return None
    return shapes if shapes and all(isinstance(s, tuple) for s in shapes) else None


def _join_ranks_card(exc, where, called_from) -> ErrorCard:
    verb, shapes = _RANKS.match(str(exc)).group(1), _shapes(exc)
    tree = _parse_line(where)
    appended = _first_call(tree, {"append"}, 2) if tree is not None and verb == "concatenate" \
        else None
    if appended is not None and len(shapes) == 2:
        return _append_card(tree, appended, shapes)
    call = _join_call(tree, verb) if tree is not None else None
    name = ast.unparse(call.func) if call is not None else f"jnp.{verb}"
    elts = _operands(call, len(shapes))
    shapes, vmapped = _one_example(exc, elts, shapes)
    names = [ast.unparse(e) for e in elts] if elts else \
        [f"operand {i}" for i in range(len(shapes))]
    listing = ", ".join(f"{n} is {s} ({len(s)}-D)" for n, s in zip(names, shapes)) + \
        (_ONE_EXAMPLE if vmapped else "")
    ranks = sorted({len(s) for s in shapes})
    what = ("puts arrays of one shape side by side along a new axis, so they must have the "
            "same shape" if verb == "stack" else "joins arrays along an axis they all have, "
            "so they must have the same number of dimensions")
    axis = _axis(call, verb, max(ranks)) if call is not None else None
    fix, rewrite = _fitted(tree, call, verb, elts, names, shapes, axis) if elts and \
        axis is not None else (None, None)
    if rewrite is None:
        same = "one shape" if verb == "stack" else \
            "the same number of dimensions and agree on every axis but the one they join along"
        fix = (f"No one rewrite is sure here. Print each array's .shape, and reshape (or index "
               f"with None) those you mean to join so that all have {same}.")
        rewrite = "# " + "; ".join(f"{n}: {s}" for n, s in zip(names, shapes))
    return ErrorCard(
        "concatenate-ranks", f"{name} was given arrays of "
                             f"{' and '.join(map(str, ranks))} dimensions",
        why=f"{name} {what}: {listing}.", fix=fix, rewrite=rewrite,
        docs="https://numpy.org/doc/stable/user/absolute_beginners.html"
             "#adding-removing-and-sorting-elements")


def _append_card(tree, call, shapes) -> ErrorCard:
    """jnp.append(arr, values, axis=k) of values with fewer dimensions than arr (a number, a
    row): values given arr's dimensions (a number filled to arr's shape with size 1 along k, a
    row given its axis k); with no axis, jnp.append flattens both instead."""
    arr, values = call.args[:2]
    a_shape, v_shape = shapes
    k = _axis(call, "concatenate", len(a_shape))
    name, arr_text, v_text = ast.unparse(call.func), ast.unparse(arr), ast.unparse(values)
    fitted = None
    if k is not None and not v_shape:
        fill = tuple(1 if i == k else n for i, n in enumerate(a_shape))
        fitted = f"jnp.full({fill}, {v_text})"
    elif k is not None and v_shape == a_shape[:k] + a_shape[k + 1:]:
        fitted = f"jnp.expand_dims({v_text}, {k})"
    rewrite = (f"{_replaced(tree, values, fitted)}    # values of {arr_text}'s "
               f"{len(a_shape)} dimensions, size 1 along axis {k}") if fitted else \
        f"# {arr_text}: {a_shape}; {v_text}: {v_shape}"
    return ErrorCard(
        "concatenate-ranks", f"{name} along axis {k} takes values of {len(a_shape)} dimensions",
        why=(f"{name}(arr, values, axis={k}) joins values to arr along that axis, as "
             f"jnp.concatenate does, so values must have arr's {len(a_shape)} dimensions "
             f"({arr_text} is {a_shape}, {v_text} is {v_shape}); without axis, jnp.append "
             f"flattens both into one vector."),
        fix=(f"Give values arr's dimensions, with size 1 along axis {k} for one more row or "
             f"column: a number as jnp.full, a row with jnp.expand_dims (or v[None])."),
        rewrite=rewrite, docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.append.html")


def _join_call(tree, verb):
    """The call on the user's line that joined the arrays (concatenate's error also comes from
    jnp.hstack, which calls it)."""
    known = {"stack"} if verb == "stack" else {"concatenate", "hstack"}
    return _first_call(tree, known, 1)


def _operands(call, count):
    """The operands' nodes where the call writes them out (a list or tuple of `count`
    entries), else None."""
    arrays = call.args[0] if call is not None else None
    if not isinstance(arrays, (ast.List, ast.Tuple)) or len(arrays.elts) != count or \
            any(isinstance(e, ast.Starred) for e in arrays.elts):
        return None
    return arrays.elts


def _one_example(exc, elts, shapes):
    """(the shapes, whether inside jax.vmap): inside vmap JAX's message lists the batched
    shapes, but the function sees one example, and its axes are what the rewrite writes; so
    where the operands the line names are vmap's tracers (read in the user's frame), their
    own shapes, a plain array's as it is."""
    frame = _user_frame(exc)
    if frame is None or not elts or not all(isinstance(e, ast.Name) for e in elts):
        return shapes, False
    values = [_named_value(frame, e.id) for e in elts]
    if not any(_is_one_example(v) for v in values) or \
            not all(isinstance(getattr(v, "shape", None), tuple) for v in values):
        return shapes, False
    return [tuple(v.shape) for v in values], True


_ONE_EXAMPLE = (" (one example's shapes: inside jax.vmap the function sees each example "
                "without the batch's axis)")


def _axis(call, verb, rank):
    """The axis the call joins along, counted from 0 in arrays of `rank` dimensions, or None
    (a name, not a number); hstack's is 1, horizontal, for matrices."""
    func = ast.unparse(call.func)
    keyword, position, default = _LAX_AXIS if func.split(".")[-2:-1] == ["lax"] else \
        _AXIS[func.split(".")[-1]]
    given = [k.value for k in call.keywords if keyword is not None and k.arg == keyword]
    if not given and position is not None and len(call.args) > position:
        given = [call.args[position]]
    if given:
        try:
            default = ast.literal_eval(given[0])
        except (ValueError, TypeError, SyntaxError):      # a name, not a number
            return None
    if verb == "concatenate" and func.endswith("hstack"):
        default = 1 if rank > 1 else 0
    if type(default) is not int or not -rank <= default < rank:
        return None
    return default % rank


def _new_axis_fits(shapes, axis) -> bool:
    """Whether every operand of the lower rank, given a new axis of length 1 at `axis`, has
    the shape of the others but along `axis` (where they are joined)."""
    rank = max(len(s) for s in shapes)
    high = {s[:axis] + s[axis + 1:] for s in shapes if len(s) == rank}
    low = {s for s in shapes if len(s) != rank}
    return len(high) == 1 and low == high


def _fitted(tree, call, verb, elts, names, shapes, axis):
    """(the fix in words, the rewrite), or (None, None) where no new axis makes the shapes
    fit. jnp.stack, which would add yet another axis, and jnp.hstack of a vector as long as
    the matrix's rows become jnp.vstack; concatenate's other operands get their new axis."""
    rank = max(len(s) for s in shapes)
    low = [i for i, s in enumerate(shapes) if len(s) != rank]
    hstack = ast.unparse(call.func).endswith("hstack")
    if verb == "stack" or (hstack and not _new_axis_fits(shapes, axis)):
        rows = rank == 2 and axis == 0 if verb == "stack" else rank == 2
        return _as_rows(tree, call, verb, names, low) if rows and \
            _new_axis_fits(shapes, 0) else (None, None)
    if not _new_axis_fits(shapes, axis):
        return None, None
    grown = shapes[low[0]][:axis] + (1,) + shapes[low[0]][axis:]
    helper = {0: "vstack", 1: "column_stack"}.get(axis) if rank == 2 else None
    part = {0: "a row", 1: "a column"}.get(axis, "") if rank == 2 else ""
    said = f", {part}" if part else ""
    whole = [ast.parse(n, mode="eval").body for n in names]      # before the new axes
    for i in low:
        elts[i] = ast.parse(_one_more_axis(elts[i], shapes[i], axis), mode="eval").body
    first = ast.unparse(elts[low[0]])
    many = len(low) > 1
    if rank == 1:            # numbers (0-d) among vectors: `1.0[None]` is no Python
        fix = (f"Make {_listing([names[i] for i in low])} {'each ' if many else ''}a vector "
               f"of one element: {first} has shape {grown}, which joins the others along "
               f"axis 0.")
    else:
        fix = (f"Index {_listing([names[i] for i in low])} with None to give "
               f"{'each' if many else 'it'} a new axis of length 1 at axis {axis}: {first} "
               f"has shape {grown}{said}, which joins the others along axis {axis}.")
    rewrite = f"{ast.unparse(tree)}    # {first}: {grown}{said}"
    if helper is not None:
        helped = ast.Call(_func(call, helper), [type(call.args[0])(whole, ast.Load())], [])
        fix += f" jnp.{helper} does that for you: it makes each vector {part}."
        rewrite += f"\n{_replaced(tree, call, helped)}    # the same: each vector {part}"
    return fix, rewrite


def _one_more_axis(node, shape, axis) -> str:
    """`node` with a new axis of length 1 at `axis`: `v[None]`; a 0-d operand as a vector of
    one element, which `[None]` is not where it is a Python number (`1.0[None]`, a
    SyntaxError; `c[None]` of `c = 1.0`, a TypeError): a number written there in a list,
    anything else through jnp.atleast_1d (a number or an array alike).

        >>> _one_more_axis(ast.parse("-1.0", mode="eval").body, (), 0)
        'jnp.array([-1.0])'
        >>> _one_more_axis(ast.parse("c", mode="eval").body, (), 0)
        'jnp.atleast_1d(c)'
        >>> _one_more_axis(ast.parse("v", mode="eval").body, (3,), 1)
        'v[:, None]'
    """
    if shape:
        return f"{_operand(node)}[{':, ' * axis}None]"
    number = node.operand if isinstance(node, ast.UnaryOp) else node
    if isinstance(number, ast.Constant) and type(number.value) in (int, float, complex):
        return f"jnp.array([{ast.unparse(node)}])"
    return f"jnp.atleast_1d({ast.unparse(node)})"


def _as_rows(tree, call, verb, names, low):
    """jnp.vstack of the same arrays: each vector a row of the matrix."""
    rows = ast.Call(_func(call, "vstack"), call.args[:1],
                    [k for k in call.keywords if k.arg != "axis"])
    vectors = _listing([names[i] for i in low])
    said = ("jnp.stack makes a new axis, so its arrays must have one shape" if verb == "stack"
            else f"jnp.hstack joins matrices along axis 1, where {vectors} cannot fit")
    return (f"{said}. {vectors} {'are' if len(low) > 1 else 'is'} as long as the matrix's "
            f"rows: jnp.vstack joins along axis 0, making each vector a row."), \
        f"{_replaced(tree, call, rows)}    # each vector a row"


def _func(call, name):
    """jnp's `name`, written as the user's call names its module (lax's: jnp)."""
    prefix = ast.unparse(call.func).rpartition(".")[0]
    module = "jnp" if prefix.endswith("lax") or not prefix else prefix
    return ast.parse(f"{module}.{name}", mode="eval").body
