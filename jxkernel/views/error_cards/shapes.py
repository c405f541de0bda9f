"""Cards for shapes that must be known while tracing: a boolean mask (`x[mask]`), a result
sized by the data (jnp.nonzero, one-argument jnp.where), a slice with a traced bound
(`x[:n]`), and an in-place update (`x[i] = v`, which JAX arrays refuse)."""
from __future__ import annotations

import ast
import linecache
import re

from ...core import errors as jx_errors
from ..source_edits import parse_file
from .card import ErrorCard, _DOCS
from .frame_names import _named_value
from .reading import _origin, _user_frame
from .static_fixes import _array_note, _or_static, _static_fix, _traced_phrase
from .rewrites import _operand, _parse_line, _pattern, _replaced


# ------------------------------------------------------------------ fixed shapes and values
def _boolean_index_card(exc, where, called_from) -> ErrorCard:
    update = _masked_update_rewrite(where)
    if update:          # x.at[mask].set(v): the mask is made indices, as many as it has True
        return ErrorCard(
            "boolean-index", "A boolean mask picks the elements to update",
            why=("x.at[mask] turns the mask into the indices of its True values, as many as "
                 "it has True values; under jit the mask is traced (no values yet), so their "
                 "number is unknown, and every shape must be known while tracing."),
            fix=("Update every element and keep the old value where the mask is False: "
                 "jnp.where(mask, new, x) has x's shape whatever the mask holds (v a scalar "
                 "or of x's shape)."),
            rewrite=update, docs=_DOCS + "NonConcreteBooleanIndexError")
    return ErrorCard(
        "boolean-index", "A boolean mask would give a result of unknown size",
        why=("x[mask] keeps as many elements as the mask has True values; under jit the mask "
             "is traced (no values yet), so the result's shape is unknown, and every shape "
             "must be known while tracing."),
        fix=("Keep the shape: jnp.where(mask, x, fill) keeps every element and replaces the "
             "others; a reduction takes where= (x.sum(where=mask)); jnp.nonzero(mask, "
             "size=N, fill_value=0) gives at most N indices."),
        rewrite=_mask_rewrite(where),
        docs=_DOCS + "NonConcreteBooleanIndexError")


# x.at[mask].<method>(v) as the value each element takes where the mask is True (JAX's .at
# methods; get and apply have no one-line jnp.where form here)
_AT_NEW = {"set": "{v}", "add": "{x} + {v}", "subtract": "{x} - {v}", "multiply": "{x} * {v}",
           "divide": "{x} / {v}", "power": "{x} ** {v}", "min": "jnp.minimum({x}, {v})",
           "max": "jnp.maximum({x}, {v})"}


def _masked_update_rewrite(where) -> str:
    """`x.at[mask].set(v)` on the user's line as `jnp.where(mask, v, x)` (`.add(v)`: `x + v`
    where the mask holds, ...), or "" when the line has no such update.

        >>> _masked_update_rewrite({"code": "y = x.at[x > 0].add(1.0)"})
        'y = jnp.where(x > 0, x + 1.0, x)    # x where the mask is False'
    """
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr in _AT_NEW and len(call.args) == 1 and not call.keywords
                and isinstance(call.func.value, ast.Subscript)
                and isinstance(call.func.value.value, ast.Attribute)
                and call.func.value.value.attr == "at"):
            continue
        array = _operand(call.func.value.value.value)
        mask, value = ast.unparse(call.func.value.slice), call.args[0]
        # the value picked by the same mask (`.set(v[v > 1] * 2)`): the whole array there,
        # jnp.where picks its elements (kept, the boolean index raised again under jit)
        value = _Unmasked(mask).visit(ast.parse(ast.unparse(value), mode="eval").body)
        value = ast.unparse(value) if call.func.attr in ("set", "min", "max") else \
            _operand(value)
        new = _AT_NEW[call.func.attr].format(x=array, v=value)
        return (f"{_replaced(tree, call, f'jnp.where({mask}, {new}, {array})')}    "
                f"# {array} where the mask is False")
    return ""


class _Unmasked(ast.NodeTransformer):
    """`y[mask]` as `y`, for the one mask's text."""

    def __init__(self, mask):
        self.mask = mask

    def visit_Subscript(self, node):
        self.generic_visit(node)
        return node.value if ast.unparse(node.slice) == self.mask else node


def _is_size_needed(e) -> bool:
    """jnp.nonzero, a one-argument jnp.where, jnp.unique, ... of traced data: JAX's
    ConcretizationTypeError naming the size argument (their result's size is the data's)."""
    return isinstance(e, jx_errors.ConcretizationTypeError) and "size argument" in str(e)


def _size_card(exc, where, called_from) -> ErrorCard:
    return ErrorCard(
        "data-dependent-size", "The result's size depends on the data",
        why=("This call returns one element per True value (or per distinct value); under jit "
             "the data is traced (no values yet), so the result's size is unknown, and every "
             "shape must be known while tracing."),
        fix=("Give size=N, a size known in advance (the input's size always suffices): at "
             "most N results, the unused slots filled with fill_value. Or keep the shape: "
             "jnp.where(mask, x, fill) with three arguments, or a reduction with where=."),
        rewrite=_size_rewrite(where),
        origin=_origin(exc), docs=_DOCS + "ConcretizationTypeError")


# the jnp functions (and Array methods) whose result has as many elements as the data says
_SIZED = {"where", "nonzero", "argwhere", "flatnonzero", "unique", "unique_values",
          "unique_counts", "unique_inverse", "unique_all"}


def _size_rewrite(where) -> str:
    """The user's line with size= given to its call (the data's size: always enough), or the
    pattern where the line has no such call."""
    code = (where or {}).get("code") or ""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in _SIZED and all(k.arg != "size" for k in node.keywords)
                and (node.func.attr != "where" or len(node.args) == 1)):
            continue
        data = node.args[0] if node.args else node.func.value      # x.nonzero(): x
        name = next((n.id for n in ast.walk(data) if isinstance(n, ast.Name)
                     and n.id not in ("jnp", "np", "jax")), None)
        old = ast.get_source_segment(code, node)
        if name is None or old is None:
            continue
        unique = node.func.attr.startswith("unique")
        extra = f"size={name}.size" + ("" if unique else ", fill_value=-1")
        new = old[:-1] + (", " if node.args or node.keywords else "") + extra + ")"
        # (unique's unused slots repeat the smallest value, JAX's fill_value: its length is
        # the slots', not the count of distinct values, which a learner may have read off it)
        said = (f"    # {name}.size slots: enough for every distinct value; the unused ones "
                f"repeat the smallest\n# the count of distinct values, traced: "
                f"(jnp.diff(jnp.sort({name}.ravel())) != 0).sum() + 1" if unique else
                f"    # at most {name}.size indices; unused ones are -1" +
                _padded_indices(_assigned(tree), name))
        keep = (f"\n# or keep the shape: jnp.where({ast.get_source_segment(code, data)}, "
                f"{name}, 0)" if node.func.attr == "where" else "")
        return code.replace(old, new, 1) + said + keep
    return ("idx = jnp.nonzero(mask, size=mask.size, fill_value=-1)    # at most mask.size "
            "indices; unused ones are -1" + _padded_indices("idx", "x"))


def _padded_indices(idx: str | None, x: str) -> str:
    """The padded indices' caveat: -1 as an index reads the last element (JAX, as NumPy,
    counts a negative index from the end, and clamps one past it), so an index array padded
    with it reads real values in its unused slots (`x[idx].sum()` of x = [0., 1., 2.] padded
    to [1, 2, -1]: 5., not 3.); where it indexes, those slots are masked."""
    idx = idx or "idx"
    return (f"\n# -1 as an index reads the last element: where {idx} indexes an array, mask "
            f"its unused slots: jnp.where({idx} >= 0, {x}[{idx}], 0)")


def _assigned(tree) -> str | None:
    """The name a one-statement line assigns (`idx = jnp.nonzero(x)[0]`: idx), or None."""
    node = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    return node.targets[0].id if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
        isinstance(node.targets[0], ast.Name) else None


# `x[x > 0]`, `v[mask]`: the array and the mask of a boolean index on the user's line
_MASKED = re.compile(r"(?P<array>[A-Za-z_][\w.]*)\[(?P<mask>[^\[\]]*(?:[<>]=?|==|!=)[^\[\]]*"
                     r"|(?=\w*mask)[A-Za-z_]\w*)\]")


# reductions that take where= (jnp's): over the kept elements alone, where the zeros a
# masked array holds elsewhere would count (a mean's divisor, a variance, a max of
# negatives: jnp.where(x < 0, x, 0).max() is 0.); as a method after the span, or as jnp's
# function around it
_WHERE_OPS = "mean|sum|var|std|max|min"
# argmax and argmin of the kept elements: the others filled with what never wins
_ARG_OPS = "argmax|argmin"


def _reduced_span(code: str, start: int, end: int, ops: str = _WHERE_OPS) -> tuple | None:
    """(the reduction, its start, its end) where `code[start:end]` is reduced whole on its
    line by one of `ops`, `x[m].mean()` or `jnp.mean(x[m])`; else None.

    >>> _reduced_span("return jnp.max(x[:n]) + 1", 15, 20)
    ('max', 7, 21)
    """
    found = re.compile(rf"\.({ops})\(\)").match(code, end)
    if found:
        return found.group(1), start, found.end()
    call = re.compile(rf"\b(?:jnp|np|jax\.numpy)\.({ops})\($").search(code[:start])
    if call and code.startswith(")", end):
        return call.group(1), call.start(), end + 1
    return None


def _reduced_where(array: str, op: str, condition: str) -> str:
    """`array.op()` over the elements where `condition` holds, one shape.

    max and min need an initial with where=: the whole array's min (max) is of its dtype
    (-inf cast to an int warns) and no kept element is past it, so the result is the kept
    elements' own.

    >>> _reduced_where("x", "max", "x < 0")
    'x.max(where=x < 0, initial=x.min())'
    """
    initial = {"max": "min", "min": "max"}.get(op)
    extra = f", initial={array}.{initial}()" if initial else ""
    return f"{array}.{op}(where={condition}{extra})"


def _mask_rewrite(where) -> str:
    """The user's line with its boolean index kept to one shape, or the pattern."""
    code = (where or {}).get("code") or ""
    found = _MASKED.search(code)
    if found is None:
        return _pattern("y = jnp.where(mask, x, 0)    # same shape as x: 0 where the mask is "
                        "False")
    array, mask = found.group("array"), found.group("mask").strip()
    # the mean of the kept elements: mean's where= (jnp.where's zeros, counted, made it
    # another mean: x[x > 0].mean() of [-1, 0, 1, 2] is 1.5, the zeros' mean 0.75)
    picked = _reduced_span(code, found.start(), found.end(), _ARG_OPS)
    if picked:
        # an argmax of the kept elements: the others filled with what never wins (jnp.where's
        # 0 could: [-3., -1., 2.] masked x < 0 gave 2, a dropped position)
        op, start, end = picked
        fill = "-jnp.inf" if op == "argmax" else "jnp.inf"
        line = code[:start] + f"jnp.where({mask}, {array}, {fill}).{op}()" + code[end:]
        return (f"{line}    # an index into {array} itself, not into the kept elements "
                f"alone: {fill} where the mask is False")
    reduced = _reduced_span(code, found.start(), found.end())
    if reduced:
        op, start, end = reduced
        line = code[:start] + _reduced_where(array, op, mask) + code[end:]
        return f"{line}    # over the elements where the mask holds: one shape, traced"
    line = code[:found.start()] + f"jnp.where({mask}, {array}, 0)" + code[found.end():]
    return (f"{line}    # same shape as {array}: 0 where the mask is False\n"
            f"# or, for a sum or mean of the kept elements: {array}.sum(where={mask})")


def _immutable_card(exc, where, called_from) -> ErrorCard:
    why = ("x[i] = v writes into an array, but JAX arrays are immutable (a traced one is not "
           "even memory yet): each update makes a new array.")
    if str(exc).startswith(_AT_ASSIGNED):      # `x.at[i] = v`: half of the fix, assigned to
        why = ("x.at[i] = v assigns into .at, which only describes an update: .set(v) (or "
               ".add, ...) makes it, returning a new array, as JAX arrays are immutable.")
    elif _AT_UPDATED.match(str(exc)):          # `x.at[i] += v`: the operator, not the method
        why = ("x.at[i] += v applies += to .at[i], which only describes an update and has no "
               "operators: .add(v) (.subtract for -=, .multiply, .divide) makes it, returning "
               "a new array, as JAX arrays are immutable.")
    return ErrorCard(
        "immutable-array", "JAX arrays cannot be changed in place",
        why=why,
        fix=("Use x = x.at[i].set(v) (x[i] += v: .add(v); also .subtract, .multiply, .divide, "
             ".min, .max): a new array, bound to x."),
        rewrite=_nested_at_rewrite(where, _user_frame(exc)) or _at_rewrite(where),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


# `x[0] = 1.0`, `x[i] += v`: an item assignment on the user's line
_ASSIGNED = re.compile(r"^(?P<indent>\s*)(?P<array>[A-Za-z_][\w.]*)\[(?P<index>.+)\]\s*"
                       r"(?P<op>[-+*/]?)=\s*(?P<value>[^=].*)$")
_AT_METHOD = {"": "set", "+": "add", "-": "subtract", "*": "multiply", "/": "divide"}


_AT_OPS = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide"}


def _nested_at_rewrite(where, frame) -> str | None:
    """An assignment through two subscripts as its .at[] update, or None: `p['w'][1] = 2.0`
    of a dict of arrays updates the array `p['w']` (the one regex read it as p.at['w'][1]:
    a dict has no .at), `z[0][1] = 9.0` of a matrix the item (0, 1) of z (`z.at[0][1]`: .at's
    update has no second index)."""
    tree = _parse_line(where)
    statement = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target, method = statement.targets[0], "set"
    elif isinstance(statement, ast.AugAssign) and type(statement.op) in _AT_OPS:
        target, method = statement.target, _AT_OPS[type(statement.op)]
    else:
        return None
    chain, node = [], target
    while isinstance(node, ast.Subscript):
        chain.insert(0, node)
        node = node.value
    if len(chain) < 2 or not isinstance(node, ast.Name) or frame is None:
        return None
    value, level = _named_value(frame, node.id), 0        # through the containers to the array
    while isinstance(value, (dict, list, tuple)) and level < len(chain) - 1 and \
            isinstance(chain[level].slice, ast.Constant):
        try:
            value = value[chain[level].slice.value]
        except (KeyError, IndexError, TypeError):
            return None
        level += 1
    if not hasattr(value, "at"):
        return None
    array = ast.unparse(chain[level - 1]) if level else node.id
    indices = [c.slice for c in chain[level:]]
    if len(indices) > 1 and not all(isinstance(i, (ast.Constant, ast.Name, ast.UnaryOp))
                                    for i in indices):
        return None         # (a slice then an index is no one index of the array)
    index = ", ".join(ast.unparse(i) for i in indices)
    return (f"{array} = {array}.at[{index}].{method}({ast.unparse(statement.value)})"
            f"    # a new array, bound to {array}")


def _at_rewrite(where) -> str:
    """The user's assignment as an .at[] update, or the pattern."""
    found = _ASSIGNED.match((where or {}).get("code") or "")
    if found is None or "][" in found.group("index"):   # (two subscripts: _nested_at_rewrite's)
        return _pattern("x = x.at[i].set(v)    # a new array; .add(v) for x[i] += v")
    array, index, value = found.group("array"), found.group("index"), found.group("value")
    array = array.removesuffix(".at")           # `x.at[0] = 1`: the array is x
    method = _AT_METHOD[found.group("op")]
    return f"{array} = {array}.at[{index}].{method}({value})    # a new array, bound to {array}"


_IMMUTABLE = "JAX arrays are immutable and do not support in-place item assignment"


_AT_ASSIGNED = "'_IndexUpdateHelper' object does not support item assignment"


# `x.at[0] += 1.0`: Python's += of .at[0], which has no operators (JAX 0.10.2's words, and
# no card: the rewrite was there, `x = x.at[0].add(1.0)`, unasked)
_AT_UPDATED = re.compile(r"unsupported operand type\(s\) for [-+*/]=: '_IndexUpdateRef'")


def _is_item_assignment(e) -> bool:
    return isinstance(e, TypeError) and (str(e).startswith((_IMMUTABLE, _AT_ASSIGNED)) or
                                         _AT_UPDATED.match(str(e)) is not None)


# ------------------------------------------------------------------ traced slice bounds
def _is_traced_slice(e) -> bool:
    return isinstance(e, IndexError) and str(e).startswith(
        "Slice entries must be static integers")


def _slice_card(exc, where, called_from) -> ErrorCard:
    """`x[:n]` or `x[i:i + 2]` with a traced bound: every shape is fixed while tracing, so a
    traced start needs a fixed size (lax.dynamic_slice_in_dim), and a traced size a static
    argument, or the whole shape kept with a mask (JAX's gotchas: "the size of slices can't
    be functions of argument values")."""
    origin = _origin(exc)
    rewrite = _slice_rewrite(where, _user_frame(exc))
    static = _static_fix(origin, where, exc)
    rewrite += _or_static(origin, static, "int")
    return ErrorCard(
        "traced-slice", "A slice bound is traced",
        why=(f"A slice's size sets its result's shape, which must be known while tracing, but "
             f"this bound comes from {_traced_phrase(origin)}."),
        fix=("A traced start with a fixed size: lax.dynamic_slice_in_dim(x, start, size). A "
             "traced size: keep the whole shape and mask it (jnp.where(jnp.arange(len) < n, x, "
             "0)), or make the argument static." + ("" if static else _array_note(origin))),
        rewrite=rewrite,
        origin=origin, docs="https://docs.jax.dev/en/latest/notebooks/"
                            "Common_Gotchas_in_JAX.html#dynamic-shapes")


def _slice_rewrite(where, frame) -> str:
    """The user's line with its slice of a traced bound rewritten: `x[i:i + 2]` as a
    dynamic slice of size 2, `x[:n]` / `x[n:]` as the whole of x, masked; else the
    pattern."""
    code = (where or {}).get("code") or ""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and \
                node.slice.step is None:
            text, note = _one_slice(ast.unparse(node.value), node.slice)
            segment = ast.get_source_segment(code, node)
            if text and segment:
                reduced = _reduced_slice(code, segment, text) or \
                    _reduced_below(where, tree, node, text)
                return reduced or f"{code.replace(segment, text, 1)}    # {note}"
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple):
            text, note = _slice_of_axis(node, frame)
            segment = ast.get_source_segment(code, node)
            if text and segment:
                return f"{code.replace(segment, text, 1)}    # {note}"
    # (a pattern: pasted as code, its names were the learner's NameError)
    return _pattern("y = lax.dynamic_slice_in_dim(x, start, size)   # start traced, size a "
                    "Python int")


def _slice_of_axis(node, frame) -> tuple:
    """`x[:, :i]` (one axis sliced with a traced bound, the others whole) written as x masked
    along that axis, and a note; ("", "") otherwise. The mask's axis is the array's last
    (jnp.arange broadcasts there), else lax.broadcasted_iota's."""
    entries = node.slice.elts
    bounded = [k for k, e in enumerate(entries) if isinstance(e, ast.Slice) and
               (e.lower is not None or e.upper is not None)]
    whole = all(isinstance(e, ast.Slice) and e.lower is e.upper is e.step is None
                for k, e in enumerate(entries) if k not in bounded)
    if len(bounded) != 1 or not whole or entries[bounded[0]].step is not None:
        return "", ""
    k, s = bounded[0], entries[bounded[0]]
    if s.lower is not None and s.upper is not None:
        return "", ""
    array = ast.unparse(node.value)
    value = _named_value(frame, node.value.id) if isinstance(node.value, ast.Name) and \
        frame is not None else None
    ndim = len(getattr(value, "shape", ())) if value is not None else None
    index = f"jnp.arange({array}.shape[{k}])" if ndim == len(entries) and k == ndim - 1 else \
        f"lax.broadcasted_iota(jnp.int32, {array}.shape, {k})"
    test = f"{index} < {ast.unparse(s.upper)}" if s.upper is not None else \
        f"{index} >= {ast.unparse(s.lower)}"
    return (f"jnp.where({test}, {array}, 0)",
            f"the shape of {array}: 0 outside the slice along axis {k}")


def _reduced_slice(code: str, segment: str, masked: str) -> str | None:
    """`x[:n].mean()` written as `x.mean(where=jnp.arange(x.shape[0]) < n)`: the masked
    slice's zeros would count in the mean (x[:2].mean() of [0., 1., 2., 3.] is 0.5, the
    masked whole's 0.25); None where the slice is not so reduced on the line."""
    at = code.find(segment)
    reduced = _reduced_span(code, at, at + len(segment))
    where = re.fullmatch(r"jnp\.where\((.+), (.+), 0\)", masked)
    if reduced is None or where is None:
        return None
    (op, start, end), (condition, array) = reduced, where.groups()
    line = code[:start] + _reduced_where(array, op, condition) + code[end:]
    return f"{line}    # over the slice's elements alone: one shape, traced"


def _reduced_below(where, tree, node, masked: str) -> str | None:
    """`y = x[:n]` and, below it in its function, `y.mean()` the one use of y: written as the
    mask and that line reduced over it (`x.mean(where=mask)`), since the masked whole's zeros
    would count in the mean, max or min (a sum is left as it is: zeros add nothing); None where
    the slice is not so bound and used."""
    statement = tree.body[0] if len(tree.body) == 1 else None
    found = re.fullmatch(r"jnp\.where\((.+), (.+), 0\)", masked)
    if not (isinstance(statement, ast.Assign) and statement.value is node and found and
            len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
        return None
    name, (condition, array) = statement.targets[0].id, found.groups()
    body = _function_body(where)
    later = [line for line in body if line[0] > where["line"]]
    uses = [(number, text) for number, text in later
            if re.search(rf"\b{re.escape(name)}\b", text)]
    if len(uses) != 1 or len(re.findall(rf"\b{re.escape(name)}\b", uses[0][1])) != 1:
        return None
    number, text = uses[0]
    at = re.search(rf"\b{re.escape(name)}\b", text)
    reduced = _reduced_span(text, at.start(), at.end(), "mean|var|std|max|min")
    if reduced is None:
        return None
    op, start, end = reduced
    # (the second line's indentation relative to the slice's line, which the card writes flush)
    base = dict(body).get(where["line"], "")
    indent = text[len(base) - len(base.lstrip()):len(text) - len(text.lstrip())]
    return (f"mask = {condition}    # in place of {name} = ...: the slice's elements, "
            f"{array}'s shape\n"
            f"{indent}{text[:start].lstrip()}{_reduced_where(array, op, 'mask')}{text[end:]}"
            f"    # in place of line {number}'s {name}: over the slice's elements alone")


def _function_body(where) -> list:
    """[(line number, text)] of the lines of the def holding the user's line, from the file
    linecache holds (a cell's too); [] at a file's top level."""
    tree = parse_file(where.get("_path"))
    holder = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.lineno <= where["line"] <= node.end_lineno and \
                (holder is None or node.lineno > holder.lineno):
            holder = node
    if holder is None:
        return []
    return [(n, linecache.getline(where["_path"], n).rstrip("\n"))
            for n in range(holder.body[0].lineno, holder.end_lineno + 1)]


def _one_slice(array, s) -> tuple:
    """(the slice `array[s]` written with a static shape, a note on what it gives), or ("",
    "")."""
    lower = ast.unparse(s.lower) if s.lower is not None else None
    upper = s.upper
    if lower is not None and isinstance(upper, ast.BinOp) and isinstance(upper.op, ast.Add):
        for a, b in ((upper.left, upper.right), (upper.right, upper.left)):
            if ast.unparse(a) == lower and isinstance(b, ast.Constant) and \
                    type(b.value) is int:
                return (f"lax.dynamic_slice_in_dim({array}, {lower}, {b.value})",
                        f"size {b.value}, the start traced")
    index = f"jnp.arange({array}.shape[0])"
    note = f"the shape of {array}: 0 outside the slice"
    if lower is None and upper is not None:
        return f"jnp.where({index} < {ast.unparse(upper)}, {array}, 0)", note
    if lower is not None and upper is None:
        return f"jnp.where({index} >= {lower}, {array}, 0)", note
    return "", ""
