"""Cards for the classes a learner keeps training state in, used as JAX's pytrees are:

- a field of an immutable state set in place: `state.step += 1` of a NamedTuple (Python's
  "can't set attribute") or of a frozen dataclass (flax.struct's, "cannot assign to field
  'step'"). JAX's states are values: the rewrite binds a new one, `state =
  state._replace(step=state.step + 1)` (`dataclasses.replace`, or the class's own `replace`);
- a registered class whose tree_flatten returns its children alone (JAX: "The to_iterable
  function for a custom PyTree node should return a (children, aux_data) tuple, got [1.0]"):
  the rewrite returns the pair, None for no aux data.
"""
from __future__ import annotations

import ast
import dataclasses
import linecache
import re

from ..source import is_user_file
from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _parse_line, _pattern

_FROZEN = re.compile(r"^cannot assign to field '(\w+)'$")
# (a pair whose first is no sequence, `return (q.a, q.b)`: its children taken for the pair)
_NOT_PAIR = re.compile(r"^The to_iterable function for a custom PyTree node should return a "
                       r"\(children, aux_data\) tuple(?: where 'children' is iterable)?, "
                       r"got (.*)$", re.S)


# ------------------------------------------------------------------ a field set in place
def _field_set(exc):
    """(the statement, the object's name, the field, the object) of the user's line that sets
    a field of a NamedTuple or a frozen dataclass held by a name, or None."""
    where, _ = _user_lines(exc)
    tree, frame = _parse_line(where), _user_frame(exc)
    statement = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    target = statement.target if isinstance(statement, ast.AugAssign) else \
        statement.targets[0] if isinstance(statement, ast.Assign) and \
        len(statement.targets) == 1 else None
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)) or \
            frame is None:
        return None
    value = _named_value(frame, target.value.id)
    fields = type(value)._fields if _is_namedtuple(value) else \
        [f.name for f in dataclasses.fields(value)] if dataclasses.is_dataclass(value) and \
        type(value).__dataclass_params__.frozen else ()
    if target.attr not in fields:       # (no field of its: another error, another card)
        return None
    return statement, target.value.id, target.attr, value


def _is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _is_field_set(e) -> bool:
    frozen = type(e).__name__ == "FrozenInstanceError" and _FROZEN.match(str(e))
    return (isinstance(e, AttributeError) or bool(frozen)) and _field_set(e) is not None


def _field_set_card(exc, where, called_from) -> ErrorCard:
    statement, name, field, value = _field_set(exc)
    target = ast.unparse(statement.target if isinstance(statement, ast.AugAssign) else
                         statement.targets[0])
    new = ast.unparse(ast.BinOp(ast.parse(target, mode="eval").body, statement.op,
                                statement.value)) \
        if isinstance(statement, ast.AugAssign) else ast.unparse(statement.value)
    kind = type(value).__name__
    if _is_namedtuple(value):
        made, how = f"{name}._replace({field}={new})", "a NamedTuple"
    elif callable(getattr(value, "replace", None)):      # flax.struct's, chex's dataclasses
        made, how = f"{name}.replace({field}={new})", "a frozen dataclass"
    else:
        made, how = f"dataclasses.replace({name}, {field}={new})", "a frozen dataclass"
        frame = _user_frame(exc)
        if frame is not None and _named_value(frame, "dataclasses") is None:
            made = f"__import__('dataclasses').replace({name}, {field}={new})"
    return ErrorCard(
        "immutable-state", f"{name} is {how} ({kind}): its fields are set when it is made",
        why=(f"{kind}'s fields cannot change after it is made, as JAX's own states (an "
             f"optimizer's, a TrainState) cannot: a training step returns a new state "
             f"rather than changing the old one, which keeps jit's and grad's functions pure."),
        fix=f"Make a new {kind} with the field changed, and bind it to {name}.",
        rewrite=f"{name} = {made}    # a new {kind}, bound to {name}",
        docs="https://docs.jax.dev/en/latest/stateful-computations.html")


# ------------------------------------------------------------------ tree_flatten's pair
def _flatten_returns(exc, pairs_too=False):
    """The `return` statements, as (file, statement), of the learner's flatten functions whose
    value is no pair (`pairs_too`: any value, a pair of children taken for the pair): the
    tree_flatten methods of the classes the user's frame names, and its
    functions named like flatten (register_pytree_node's), each read from its own cell."""
    frame, (where, _) = _user_frame(exc), _user_lines(exc)
    names = {} if frame is None else {**frame.f_globals, **frame.f_locals}
    line = _parse_line(where)
    named = [names[n.id] for n in ast.walk(line) if isinstance(n, ast.Name) and
             n.id in names] if line is not None else []
    classes = {v if isinstance(v, type) else type(v) for v in named}
    # the line's classes' tree_flatten methods; else (register_pytree_node's) the functions
    # named like flatten
    functions = [c.__dict__["tree_flatten"] for c in classes
                 if "tree_flatten" in getattr(c, "__dict__", {})] or \
        [v for n, v in names.items() if callable(v) and "flatten" in n and
         "unflatten" not in n and hasattr(v, "__code__")]
    found, seen = [], set()
    for fn in functions:
        code = getattr(getattr(fn, "__func__", fn), "__code__", None)   # (a classmethod's too)
        if code is None or code in seen or not is_user_file(code.co_filename):
            continue
        seen.add(code)
        try:
            tree = ast.parse("".join(linecache.getlines(code.co_filename)))
        except SyntaxError:
            continue
        for node in ast.walk(tree):     # its def: co_firstlineno is its first decorator's line
            if isinstance(node, ast.FunctionDef) and code.co_firstlineno == \
                    (node.decorator_list[0].lineno if node.decorator_list else node.lineno):
                found += [(code.co_filename, r) for r in ast.walk(node)
                          if isinstance(r, ast.Return) and r.value is not None and
                          (pairs_too or not (isinstance(r.value, ast.Tuple) and
                                             len(r.value.elts) == 2))]
    return found


def _is_flatten_pair(e) -> bool:
    return isinstance(e, ValueError) and _NOT_PAIR.match(str(e)) is not None


def _flatten_pair_card(exc, where, called_from) -> ErrorCard:
    got = _NOT_PAIR.match(str(exc)).group(1)
    returns = _flatten_returns(exc, pairs_too="'children' is iterable" in str(exc))
    if len(returns) == 1:
        path, statement = returns[0]
        line = linecache.getline(path, statement.lineno)
        indent = line[:len(line) - len(line.lstrip())]
        rewrite = (f"{indent}return {ast.unparse(statement.value)}, None    # (children, "
                   f"aux_data): None, no aux data")
    else:
        rewrite = _pattern("return [self.a, self.b], None    # (children, aux_data) in "
                           "tree_flatten")
    return ErrorCard(
        "flatten-pair", "tree_flatten returns a pair: the children, then the aux data",
        why=(f"JAX calls a registered class's tree_flatten to take it apart, and reads two "
             f"things from what it returns: the children (the arrays and subtrees JAX "
             f"traces) and the aux data (what stays static: settings, names; None for "
             f"none), which tree_unflatten gets back. It returned {got}, the children "
             f"alone."),
        fix="Return the children and the aux data as a pair: return (children, aux_data).",
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/custom_pytrees.html")
