"""Cards for a Python list where JAX wants an array, which NumPy takes: given to a jnp function
(`jnp.sum([1, 2, 3])`: JAX refuses it, since each element of a list is a value of its own to
trace), an operand of an array's operator (`x + [3, 4]`), or an index (`x[[0, 2]]`: JAX refuses
a list as ambiguous). The rewrite makes it an array (or a tuple of indices) in its place."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .reading import _user_frame
from .rewrites import _parse_line, _pattern, _replaced

# JAX's text (check_arraylike), the exception's whole message
_LIST = re.compile(r"^(\w+) requires ndarray or scalar arguments, got <class '(list|tuple)'> "
                   r"at position (\d+)\.")


def _is_list_argument(e) -> bool:
    return isinstance(e, TypeError) and _LIST.match(str(e)) is not None


def _list_argument_card(exc, where, called_from) -> ErrorCard:
    name, kind, position = _LIST.match(str(exc)).groups()
    tree = _parse_line(where)
    found = _sequence_nodes(tree, exc, _user_frame(exc)) if tree is not None else []
    if not found and tree is not None:      # (no sequences attached: the position JAX names)
        argument = _argument(tree, name, int(position))
        found = [(None, node) for node in [argument] if node is not None]
        found += [(None, node) for at in getattr(exc, "sequence_positions", ())
                  if at != int(position) and (node := _argument(tree, name, at)) is not None]
    if not found and tree is not None:      # a list traced into a custom_jvp (jax.nn.relu's):
        found = _sole_literal(tree, kind)   # its elements tracers, no equal literal on the line
    # the call the learner wrote: jax.nn.softmax's list reached jnp.max inside it
    called = ast.unparse(found[0][0].func) if found and found[0][0] is not None else \
        f"jnp.{name}"
    argument = found[0][1] if found else None
    lengths = _ragged_lengths(argument, _user_frame(exc)) if argument is not None else None
    if lengths is not None:
        return _ragged_list_card(name, called, kind, tree, argument, lengths)
    note = f"    # {'each' if len(found) > 1 else 'an'} array: one value for {called}"
    rewrite = (f"{_as_arrays(tree, [node for _, node in found])}{note}" if found else
               _pattern(f"y = {called}(jnp.asarray(values))    # the {kind} made an array"))
    return ErrorCard(
        "list-argument", f"{called} was given a Python {kind}",
        why=(f"NumPy turns a {kind} into an array for you; JAX's functions do not, since "
             f"under jit, grad or vmap each element of a {kind} would be traced as a value of "
             f"its own (a {kind} of 1,000 numbers: 1,000 inputs), where an array is one."),
        fix=(f"Make it an array first: jnp.asarray(values) (or jnp.array). Where the {kind} "
             f"came from grad or vmap of a {kind} argument, pass that argument as an array "
             f"instead: jax.grad(f)(jnp.asarray(values))."),
        rewrite=rewrite, docs=None)


def _sequence_nodes(tree, exc, frame) -> list:
    """(call, argument) of the user's line for each list or tuple the check refused (the
    exception's `sequences`): a literal of equal value, or a name holding that very object;
    in the order the line reads them."""
    left = list(getattr(exc, "sequences", ()))
    found = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        for node in [*call.args, *(k.value for k in call.keywords)]:
            held = next((i for i, value in enumerate(left) if _holds(node, value, frame)), None)
            if held is not None:
                found.append((call, node))
                del left[held]
    return found


def _sole_literal(tree, kind) -> list:
    """[(call, argument)] where one argument of one call on the line is a `kind` ("list",
    "tuple") written out; [] otherwise."""
    literal = ast.List if kind == "list" else ast.Tuple
    found = [(call, node) for call in ast.walk(tree) if isinstance(call, ast.Call)
             for node in [*call.args, *(k.value for k in call.keywords)]
             if isinstance(node, literal)]
    return found if len(found) == 1 else []


def _plain(value) -> bool:
    """Whether `value` holds only Python's own scalars (nested lists and tuples of them): a
    list of tracers compared with a literal would ask a tracer for its truth."""
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, complex, str))


def _holds(node, value, frame) -> bool:
    """Whether the argument `node` is the list or tuple `value`."""
    if isinstance(node, ast.Name):
        names = {**frame.f_globals, **frame.f_locals} if frame is not None else {}
        return names.get(node.id) is value
    if not isinstance(node, ast.List if type(value) is list else ast.Tuple) or \
            not _plain(value):
        return False
    try:
        return ast.literal_eval(node) == value
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def _as_arrays(tree, nodes) -> str:
    """The user's line with each of `nodes` made an array: every list or tuple the check
    found (JAX names the first alone, and `jnp.dot([1.0, 2.0], [3.0, 4.0])` with only that
    one made an array raises again at position 1, JAX 0.10.2)."""
    return ast.unparse(_MadeArrays(nodes).visit(tree))


class _MadeArrays(ast.NodeTransformer):
    """Wraps each of its nodes in jnp.asarray(...)."""

    def __init__(self, nodes):
        self.nodes = nodes

    def visit(self, node):
        if any(node is n for n in self.nodes):
            return ast.parse(f"jnp.asarray({ast.unparse(node)})", mode="eval").body
        return super().visit(node)


# jnp's functions that join their arrays end to end: a list of rows of any lengths joins as
# arrays, one per row
_END_TO_END = ("concatenate", "hstack", "append")


def _ragged_lengths(argument, frame) -> list | None:
    """The lengths of the rows of the list `argument` (written out, or a name the user's
    frame binds) where they differ, so that jnp.asarray of it raises too (NumPy's
    "inhomogeneous shape"); None where it makes one array or its value is not known here."""
    if isinstance(argument, ast.Name):
        names = {**frame.f_globals, **frame.f_locals} if frame is not None else {}
        value = names.get(argument.id)
    else:
        try:
            value = ast.literal_eval(argument)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    if not isinstance(value, (list, tuple)) or \
            not all(isinstance(row, (list, tuple)) for row in value):
        return None
    lengths = [len(row) for row in value]
    return lengths if len(set(lengths)) > 1 else None


def _ragged_list_card(name, called, kind, tree, argument, lengths) -> ErrorCard:
    """A list of rows of different lengths: jnp.asarray of it (the card's fix for a list)
    raised NumPy's ValueError, pasted. Joined end to end, each row an array of its own;
    stacked or computed with, no array holds them: the words, no code."""
    shown = ", ".join(map(str, lengths))
    why = (f"JAX's functions take arrays, not a Python {kind}; and this {kind}'s rows have "
           f"lengths {shown}, so no one array holds them (jnp.asarray of it raises too): an "
           f"array is a rectangle.")
    if name in _END_TO_END:
        each = f"[jnp.asarray(row) for row in {ast.unparse(argument)}]"
        return ErrorCard(
            "list-argument", f"{called} was given a Python {kind} of rows of lengths {shown}",
            why=why, fix=(f"Make each row an array: {called} takes a list of arrays of "
                          f"different lengths and joins them end to end."),
            rewrite=f"{_replaced(tree, argument, each)}    # each row an array of its own",
            docs=None)
    return ErrorCard(
        "list-argument", f"{called} was given a Python {kind} of rows of lengths {shown}",
        why=why,
        fix=("Give the rows one length first (pad the short ones with a value that leaves "
             "your result as it is, jnp.pad or by hand), then jnp.asarray; or, to join them "
             "end to end, jnp.concatenate of each row as an array."),
        rewrite=(f"# jnp.asarray needs rows of one length: these have {shown}\n# the pattern, "
                 f"with your own names in place of these:\n#   rows = [jnp.pad(jnp.asarray(r),"
                 f" (0, n - len(r))) for r in rows]    # n: the longest row's length"),
        docs=None)


def _argument(tree, name, position):
    """The node of `name`'s argument at `position` on the user's line (a method call counts
    its object as position 0: `x.sum()` has none to rewrite), or None."""
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == name and \
                ast.unparse(func.value).split(".")[-1] in ("jnp", "numpy") and \
                position < len(call.args) and not isinstance(call.args[position], ast.Starred):
            return call.args[position]
    return None


# Python's words when both operands decline: an array (or a tracer) and a list or tuple
_OPERAND = re.compile(r"^(?:unsupported operand type\(s\) for (?P<op>[^:]+): |'(?P<cmp>[<>]=?)' "
                      r"not supported between instances of )'(?P<a>[\w.]+)' and '(?P<b>[\w.]+)'$")
_SEQUENCES = ("list", "tuple")
_OPS = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv,
        "%": ast.Mod, "** or pow()": ast.Pow, "**": ast.Pow, "@": ast.MatMult, "&": ast.BitAnd,
        "|": ast.BitOr, "^": ast.BitXor, "<<": ast.LShift, ">>": ast.RShift,
        "<": ast.Lt, ">": ast.Gt, "<=": ast.LtE, ">=": ast.GtE}


def _operands(e):
    """(operator, "list" or "tuple", its side: 0 left, 1 right, augmented: `x += [1]`) of
    `e`, or None."""
    found = _OPERAND.match(str(e)) if isinstance(e, TypeError) else None
    if found is None:
        return None
    a, b = found.group("a"), found.group("b")
    symbol = found.group("op") or found.group("cmp")
    augmented = bool(found.group("op")) and symbol.endswith("=")
    symbol = symbol.removesuffix("=") if augmented else symbol
    for side, (kind, other) in enumerate(((a, b), (b, a))):
        if kind in _SEQUENCES and other.endswith(("ArrayImpl", "Tracer")):
            return symbol, kind, side, augmented
    return None


def _is_list_operand(e) -> bool:
    return _operands(e) is not None


def _list_operand_card(exc, where, called_from) -> ErrorCard:
    symbol, kind, side, augmented = _operands(exc)
    shown = symbol.split()[0] + ("=" if augmented else "")
    tree = _parse_line(where)
    operand = _operand_node(tree, symbol, side) if tree is not None else None
    note = "    # an array: one operand"
    rewrite = (f"{_replaced(tree, operand, f'jnp.asarray({ast.unparse(operand)})')}{note}"
               if operand is not None else f"y = x {shown} jnp.asarray(values){note}")
    return ErrorCard(
        "list-operand", f"A Python {kind} as an operand of {shown}",
        why=(f"NumPy turns a {kind} operand into an array for you; JAX's operators take "
             f"arrays and Python numbers only (as its functions do: under jit, grad or vmap "
             f"each element of a {kind} would be a value of its own), so {shown} declined the "
             f"{kind} and Python reports the two types."),
        fix=f"Make the {kind} an array first: jnp.asarray(values) (or jnp.array).",
        rewrite=rewrite, docs=None)


def _operand_node(tree, symbol, side):
    """The operand on `side` of the one `symbol` operation on the user's line (a literal list
    or tuple where several are), or None."""
    op = _OPS.get(symbol)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, op):
            found.append((node.left, node.right)[side])
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, op) and side:
            found.append(node.value)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and \
                isinstance(node.ops[0], op):
            found.append((node.left, node.comparators[0])[side])
    literal = [n for n in found if isinstance(n, (ast.List, ast.Tuple))]
    return (literal or found)[0] if len(literal or found) == 1 else None


# JAX's words for `x[[0, 2]]` (a list of numbers: "array") and `M[[[0, 1], [1, 2]]]` (a list
# holding sequences or slices: "tuple")
_INDEX = re.compile(r"^Using a non-tuple sequence for multidimensional indexing is not allowed; "
                    r"use `arr\[(array|tuple)\(seq\)\]`")


def _is_list_index(e) -> bool:
    return isinstance(e, TypeError) and _INDEX.match(str(e)) is not None


def _list_index_card(exc, where, called_from) -> ErrorCard:
    per_axis = _INDEX.match(str(exc)).group(1) == "tuple"
    tree = _parse_line(where)
    index = _list_index_node(tree) if tree is not None else None
    if index is None:
        rewrite = _pattern(("y = x[tuple(seq)]    # one index per axis\n# or, as one index "
                            "array: x[jnp.array(seq)]") if per_axis else
                           "y = x[jnp.array(seq)]    # an index array: the elements it names")
    else:
        text = ast.unparse(index)
        as_array = _replaced(tree, index, f"jnp.array({text})")
        if per_axis and isinstance(index, ast.List):     # each entry indexes its own axis
            as_tuple = _replaced(tree, index, ast.Tuple(index.elts, ast.Load()))
        elif per_axis:
            as_tuple = _replaced(tree, index, f"tuple({text})")
        rewrite = f"{as_array}    # an index array: the elements it names"
        if per_axis:
            rewrite = f"{as_tuple}    # one index per axis" + (
                f"\n# or, as one index array (NumPy's reading of a list of lists): {as_array}"
                if _numbers_only(index) else "")
    return ErrorCard(
        "list-index", "An array was indexed with a Python list",
        why=("A list index meant two things in NumPy: an index array (x[[0, 2]]: elements 0 "
             "and 2) and, in older NumPy, one index per axis (x[[0, 2]] as x[0, 2]); JAX "
             "refuses a list rather than guess which."),
        fix=("For the elements a list names, make it an array: x[jnp.array([0, 2])]. For one "
             "index per axis, a tuple: x[0, 2], or x[tuple(seq)]."),
        rewrite=rewrite, docs="https://github.com/jax-ml/jax/issues/4564")


def _list_index_node(tree):
    """The list that indexes an array on the user's line (`x[[0, 2]]`, `x.at[[0, 2]]`), else
    the one name that does (`x[idx]`), or None."""
    subscripts = [n for n in ast.walk(tree) if isinstance(n, ast.Subscript)]
    # a list written out, or made there: `x[list(range(2))]`, `x[[i for i in ...]]`
    lists = [n.slice for n in subscripts if isinstance(n.slice, (ast.List, ast.ListComp)) or
             isinstance(n.slice, ast.Call) and ast.unparse(n.slice.func) == "list"]
    names = [n.slice for n in subscripts if isinstance(n.slice, ast.Name)]
    if lists:
        return lists[0] if len(lists) == 1 else None
    return names[0] if len(names) == 1 else None


def _numbers_only(index) -> bool:
    """Whether a list index could be an index array: no slice, None or ... among its
    entries (`[0, slice(None)]` is one index per axis only)."""
    return not any(isinstance(n, ast.Slice) or isinstance(n, ast.Constant) and
                   (n.value is None or n.value is Ellipsis) or isinstance(n, ast.Call) and
                   ast.unparse(n.func) == "slice" for n in ast.walk(index))
