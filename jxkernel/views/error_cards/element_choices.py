"""Cards for a choice per element given to lax's one-branch control flow: lax.cond given a
condition per element (JAX: "Pred must be a scalar"), lax.switch given an index per element
("Branch index must be scalar"). cond and switch run one branch for the whole computation;
a choice per element is jnp.where's (both branches computed), or a vmap of the switch. And
jnp.where itself given two arguments (its y None: "got <class 'NoneType'> at position 2"),
and jnp.max(a, b) written as Python's max(a, b) (its b read as an axis): jnp.maximum(a, b).

    lax.cond(x > 0, f, g, x)          ->  jnp.where(x > 0, f(x), g(x))
    lax.switch(idx, branches, x)      ->  jax.vmap(lambda i, v: lax.switch(i, branches, v))(idx, x)
"""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _called, _first_call, _int_written, _parse_line, _pattern, _replaced


# ------------------------------------------------------------------ cond's condition
_PRED = re.compile(r"^Pred must be a scalar, got (.*) of (?:shape (\(.*\))\.|type (.*))$")


def _is_cond_predicate(e) -> bool:
    return isinstance(e, TypeError) and _PRED.match(str(e)) is not None


def _cond_predicate_card(exc, where, called_from) -> ErrorCard:
    value, shape, kind = _PRED.match(str(exc)).groups()
    has = f"shape {shape}" if shape else f"type {kind}"
    return ErrorCard(
        "cond-predicate", "lax.cond was given one condition per element",
        why=(f"lax.cond runs one branch for the whole computation, so its condition is one "
             f"bool, of shape (). This one has {has}: {value}."),
        fix=("For a choice per element, jnp.where(condition, a, b) computes both branches and "
             "takes, at each position, a's element where the condition holds and b's where "
             "not. For one branch for the whole array, make the condition one bool: "
             "jnp.all(condition) (every element) or jnp.any(condition) (at least one)."),
        rewrite=_cond_rewrite(where),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.cond.html")


def _cond_rewrite(where) -> str:
    """The user's lax.cond as jnp.where of its branches' values (a lambda's body with the
    operands put in for its parameters, a named function called on them), then with its
    condition reduced by jnp.all."""
    tree = _parse_line(where)
    call = _first_call(tree, {"cond"}, 3)
    if call is None:
        return _pattern("y = jnp.where(condition, a, b)     # per element: both computed\n"
                        "y = lax.cond(jnp.all(condition), true_fun, false_fun, *operands)   "
                        "# one branch for the whole array")
    pred, operands = call.args[0], call.args[3:]
    values = [_branch_value(b, operands) for b in call.args[1:3]]
    lines = []
    if None not in values:
        where_ = _where_of(pred, *values)
        lines += [f"{_replaced(tree, call, where_)}    # both computed, then picked element "
                  f"by element",
                  "# or, to run one branch for the whole array (jnp.any: at least one):"]
    every = ast.Call(ast.parse("jnp.all", mode="eval").body, [pred], [])
    lines.append(_replaced(tree, pred, every))
    return "\n".join(lines)


def _where_of(pred, a, b):
    """jnp.where(pred, a, b); of branches returning tuples of one length, a tuple of jnp.where
    per part (jnp.where of the tuples raised: a tuple given where it takes arrays)."""
    if isinstance(a, ast.Tuple) and isinstance(b, ast.Tuple) and len(a.elts) == len(b.elts):
        return ast.Tuple([_where_of(pred, x, y) for x, y in zip(a.elts, b.elts)], ast.Load())
    return ast.Call(ast.parse("jnp.where", mode="eval").body, [pred, a, b], [])


def _branch_value(branch, operands):
    """The expression a branch gives for `operands`: a lambda's body with them put in for
    its parameters, a function named by the user called on them; None otherwise."""
    if isinstance(branch, ast.Lambda):
        params = branch.args
        if params.vararg or params.kwarg or params.kwonlyargs or params.defaults or \
                len(params.args) != len(operands):
            return None
        names = {a.arg: op for a, op in zip(params.args, operands)}
        return _Substitute(names).visit(ast.parse(ast.unparse(branch.body), mode="eval").body)
    if isinstance(branch, (ast.Name, ast.Attribute)):
        return ast.Call(branch, list(operands), [])
    return None


class _Substitute(ast.NodeTransformer):
    """Puts an expression in for each read of a name (a lambda's parameter)."""

    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        return self.names.get(node.id, node) if isinstance(node.ctx, ast.Load) else node


# ------------------------------------------------------------------ switch's index
_INDEX = re.compile(r"^Branch index must be scalar, got (.*) of shape (\(.*\))\.$", re.S)


def _is_switch_per_element(e) -> bool:
    return isinstance(e, TypeError) and _INDEX.match(str(e)) is not None


def _switch_per_element_card(exc, where, called_from) -> ErrorCard:
    shape = _INDEX.match(str(exc)).group(2)
    return ErrorCard(
        "switch-per-element", f"lax.switch was given one index per element: shape {shape}",
        why=(f"lax.switch runs one branch, branches[index], for the whole computation, so its "
             f"index is one integer, of shape (). This one has shape {shape}."),
        fix=("For a branch per element, map the switch over the index and the operands with "
             "jax.vmap: each element gets its own branch (under vmap every branch is computed "
             "and the results picked, as jnp.where does). An operand shared by every element "
             "takes in_axes None."),
        rewrite=_switch_rewrite(where, _user_frame(exc), shape),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.switch.html")


def _switch_rewrite(where, frame, shape: str) -> str:
    """The user's switch mapped by jax.vmap over the index and each operand whose first size
    is the index's (an operand of another length, read by its name, passed whole: None); the
    pattern where there is no such call or an operand's shape is not at hand."""
    tree = _parse_line(where)
    call = _first_call(tree, {"switch"}, 2)
    pattern = _pattern("y = jax.vmap(lambda i, v: jax.lax.switch(i, branches, v))(index, x)")
    if call is None or call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return pattern
    index, branches, operands = call.args[0], call.args[1], call.args[2:]
    n = int(shape.strip("(),").split(",")[0]) if shape.strip("()") else None
    axes = []
    for op in operands:
        value = _named_value(frame, op.id) if isinstance(op, ast.Name) and frame else None
        size = getattr(value, "shape", (None,))[:1]
        axes.append("0" if size == (n,) or value is None else "None")
    names = [f"v{k}" if len(operands) > 1 else "v" for k in range(len(operands))]
    switch = ast.unparse(call.func)
    body = f"{switch}(i, {ast.unparse(branches)}{''.join(', ' + p for p in names)})"
    in_axes = "" if all(a == "0" for a in axes) else \
        f", in_axes=({', '.join(['0'] + axes)})"
    mapped = ast.parse(f"jax.vmap(lambda {', '.join(['i'] + names)}: {body}{in_axes})"
                       f"({', '.join(ast.unparse(a) for a in [index, *operands])})",
                       mode="eval").body
    return f"{_replaced(tree, call, mapped)}    # a branch per element"


# ------------------------------------------------------------------ jnp.where of two
_NO_Y = "where requires ndarray or scalar arguments, got <class 'NoneType'> at position 2."


def _where_call(where):
    """(the line's tree, its `where(condition, x)` call) or None."""
    tree = _parse_line(where)
    call = next((n for n in ast.walk(tree) if _called(n) == "where" and len(n.args) == 2 and
                 not n.keywords), None) if tree is not None else None
    return None if call is None else (tree, call)


def _is_where_of_two(e) -> bool:
    return isinstance(e, TypeError) and str(e) == _NO_Y and \
        _where_call(_user_lines(e)[0]) is not None


def _where_of_two_card(exc, where, called_from) -> ErrorCard:
    tree, call = _where_call(where)
    condition, x = (ast.unparse(a) for a in call.args)
    three = ast.Call(call.func, call.args + [ast.Constant(0)], [])
    one = ast.Call(call.func, call.args[:1], [])
    return ErrorCard(
        "where-arguments", "jnp.where takes the condition alone, or all three: condition, "
                           "x, y",
        why=("jnp.where(condition, x, y) picks, element by element, x where the condition "
             "holds and y where it does not, so it needs both; jnp.where(condition) alone "
             "(NumPy's nonzero) gives the indices where it holds. Given two, y is None, and "
             "JAX's message is that None's (position 2)."),
        fix=(f"Give the value where {condition} does not hold (0, or an array to keep its "
             f"own values there), or leave {x} out for the indices."),
        rewrite=(f"{_replaced(tree, call, three)}    # 0 where {condition} does not hold: "
                 f"yours to choose\n"
                 f"# or the indices where it holds: {ast.unparse(one)} (under jit: give it "
                 f"size=, the most there can be)"),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.numpy.where.html")


# ------------------------------------------------------------------ jnp.max of two values
# the words for jnp.max(a, b)'s b taken as an axis: a number past the axes, an array, a float
_AXIS_TAKEN = re.compile(r"^(axis -?\d+ is out of bounds for array of dimension \d+"
                         r"|Only integer scalar arrays can be converted to a scalar index\."
                         r"|'float' object is not iterable)$")
_ELEMENTWISE = {"max": "maximum", "min": "minimum", "amax": "maximum", "amin": "minimum"}


def _is_max_of_two(e) -> bool:
    return isinstance(e, (TypeError, ValueError)) and _AXIS_TAKEN.match(str(e)) is not None \
        and _max_of_two(_user_lines(e)[0]) is not None


def _max_of_two(where):
    """(the line's tree, its jnp.max(a, b) of two values), or None: two arguments by
    position, the second no axis (not an int written out), or both numbers written out."""
    tree = _parse_line(where)
    for call in ast.walk(tree) if tree is not None else ():
        if _called(call) in _ELEMENTWISE and len(call.args) == 2 and not call.keywords and \
                ast.unparse(call.func).rpartition(".")[0] in ("jnp", "jax.numpy", "np"):
            a, b = call.args
            number = _int_written(b)
            if not number or isinstance(a, ast.Constant):
                return tree, call
    return None


def _max_of_two_card(exc, where, called_from) -> ErrorCard:
    tree, call = _max_of_two(where)
    name = _called(call)
    module = ast.unparse(call.func).rpartition(".")[0]
    new = ast.Call(ast.parse(f"{module}.{_ELEMENTWISE[name]}", mode="eval").body,
                   call.args, [])
    return ErrorCard(
        "elementwise-max", f"{module}.{name} reduces one array: the {name} of two is "
                           f"{module}.{_ELEMENTWISE[name]}",
        why=(f"{module}.{name}(a, axis) takes the {name} of one array's elements, along an "
             f"axis; its second argument is that axis, so {ast.unparse(call.args[1])} was "
             f"read as one (JAX's message is about that axis). Python's {name}(a, b) picks "
             f"between two values: {module}.{_ELEMENTWISE[name]} does that, element by "
             f"element."),
        fix=f"Write {ast.unparse(new)}.",
        rewrite=f"{_replaced(tree, call, new)}    # the {name} of the two, element by element",
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.numpy.{_ELEMENTWISE[name]}.html")
