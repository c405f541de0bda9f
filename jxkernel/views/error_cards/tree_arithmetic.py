"""The card for arithmetic on a pytree of arrays as if it were one array: a learner's gradient
step `params = params - 0.1 * grads` with params and grads dicts (Python's "unsupported
operand type(s) for *: 'float' and 'dict'"; a list's "can't multiply sequence by non-int of
type 'float'"), or `jnp.sum(params)`, `jnp.linalg.norm(grads)` of a dict (JAX's "sum requires
ndarray or scalar arguments, got <class 'dict'>"). The rewrite maps the expression over the
leaves with jax.tree.map (the trees of one structure, as a gradient's and its parameters'
are), or sums over jax.tree.leaves. And a stacked tree indexed as one array: vmap or scan
returns a dict with each leaf stacked (`out['loss']` holds every step's), so `out[0]` is
Python's KeyError, JAX 0.10.2's too; the rewrite takes entry 0 of every leaf.

    params = params - 0.1 * grads
    ->  params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
    out[0]
    ->  jax.tree.map(lambda v: v[0], out)
"""
from __future__ import annotations

import ast
import re

from ...tree_util import tree_leaves
from .card import ErrorCard
from .frame_names import _named_value
from .reading import _user_frame, _user_lines
from .rewrites import _parse_line, _replaced

_OPERATOR = re.compile(r"^unsupported operand type\(s\) for \S+: '(\w+)' and '(\w+)'$")
_SEQUENCE = re.compile(r"^can't multiply sequence by non-int of type '\w+'$")
_NO_TREE = re.compile(r"^(sum|jnp\.linalg\.norm) requires ndarray or scalar arguments, got "
                      r"<class '(dict|list|tuple)'> at position 0\.$")
_CONTAINERS = ("dict", "list", "tuple")


def _is_tree(value) -> bool:
    """A dict, list or tuple holding arrays (every leaf an array or a number, one at least an
    array): a learner's parameters or gradients."""
    if not isinstance(value, (dict, list, tuple)):
        return False
    leaves = tree_leaves(value)
    return bool(leaves) and all(hasattr(v, "shape") or isinstance(v, (int, float))
                                for v in leaves) and any(hasattr(v, "shape") for v in leaves)


def _trees_in(expression, frame) -> list | None:
    """The names of trees the expression computes with leaf by leaf (`params - 0.1 * grads`),
    in order; None where one is also indexed, called with or looked into (then the rewrite
    would map the wrong thing)."""
    names = []
    for node in ast.walk(expression):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and \
                isinstance(node.value, ast.Name) and _is_tree(_named_value(frame, node.value.id)):
            return None
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and _is_tree(
                _named_value(frame, a.id)) for a in node.args):
            return None
        if isinstance(node, (ast.ListComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)):
            return None
        if isinstance(node, ast.Name) and node.id not in names and \
                _is_tree(_named_value(frame, node.id)):
            names.append(node.id)
    return names or None


def _arithmetic(exc):
    """(the line's tree, the expression, the tree names) of arithmetic on trees, or None."""
    text = str(exc)
    found = _OPERATOR.match(text)
    if not (isinstance(exc, TypeError) and (found and set(found.groups()) & set(_CONTAINERS) or
                                            _SEQUENCE.match(text))):
        return None
    where, _ = _user_lines(exc)
    tree, frame = _parse_line(where), _user_frame(exc)
    statement = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    expression = getattr(statement, "value", None)
    if frame is None or not isinstance(expression, ast.BinOp):
        return None
    names = _trees_in(expression, frame)
    return (tree, expression, names) if names else None


def _is_tree_arithmetic(e) -> bool:
    return _arithmetic(e) is not None or _reduction(e) is not None


def _reduction(exc):
    """(the line's tree, the call, the tree's name, 'sum' or 'norm') of jnp.sum or
    jnp.linalg.norm given a tree, or None."""
    found = _NO_TREE.match(str(exc)) if isinstance(exc, TypeError) else None
    if found is None or found.group(2) != "dict":     # (a list: the list-argument card's)
        return None
    where, _ = _user_lines(exc)
    tree, frame = _parse_line(where), _user_frame(exc)
    op = "sum" if found.group(1) == "sum" else "norm"
    for call in ast.walk(tree) if tree is not None and frame is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                call.func.attr == op and len(call.args) == 1 and not call.keywords and \
                isinstance(call.args[0], ast.Name) and \
                _is_tree(_named_value(frame, call.args[0].id)):
            return tree, call, call.args[0].id, op
    return None


def _letters(names) -> list:
    """A short parameter per tree (`params` -> p, `grads` -> g), the name itself where two
    share a letter."""
    firsts = [n[0].lower() for n in names]
    return [f if firsts.count(f) == 1 and f.isidentifier() else n
            for f, n in zip(firsts, names)]


def _tree_arithmetic_card(exc, where, called_from) -> ErrorCard:
    found = _arithmetic(exc)
    if found is None:
        tree, call, name, op = _reduction(exc)
        module = ast.unparse(call.func.value).removesuffix(".linalg")
        each = f"{module}.sum(x)" if op == "sum" else f"{module}.sum(x ** 2)"
        total = f"sum([{each} for x in jax.tree.leaves({name})])"
        new = total if op == "sum" else f"{module}.sqrt({total})"
        said = "every leaf's entries added" if op == "sum" else \
            "the norm of all the leaves as one vector (optax.global_norm)"
        return ErrorCard(
            "tree-arithmetic", f"{name} is a {type(_named_value(_user_frame(exc), name)).__name__}"
                               f" of arrays: jnp.{'linalg.norm' if op == 'norm' else 'sum'} "
                               f"takes one array",
            why=(f"jnp's functions take arrays; {name} is a pytree, a container of them, which "
                 f"they do not look into."),
            fix=f"Reduce each leaf and add them up: {said}.",
            rewrite=f"{_replaced(tree, call, new)}    # {said}",
            docs="https://docs.jax.dev/en/latest/pytrees.html")
    tree, expression, names = found
    letters = _letters(names)

    class _Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in names:
                return ast.Name(letters[names.index(node.id)], ast.Load())
            return node
    body = _Rename().visit(ast.parse(ast.unparse(expression), mode="eval").body)
    mapped = (f"jax.tree.map(lambda {', '.join(letters)}: {ast.unparse(body)}, "
              f"{', '.join(names)})")
    listed = " and ".join(names)
    return ErrorCard(
        "tree-arithmetic", f"{listed} {'is a pytree' if len(names) == 1 else 'are pytrees'}: "
                           f"arithmetic goes leaf by leaf with jax.tree.map",
        why=(f"{listed} {'is a' if len(names) == 1 else 'are'} container{'s' * (len(names) > 1)}"
             f" of arrays (a dict, a list), and Python's operators do not look inside "
             f"containers: jax.tree.map applies the arithmetic to each leaf, pairing the leaves "
             f"of trees of one structure (a gradient and its parameters have one)."),
        fix="Map the expression over the leaves: jax.tree.map(lambda p, g: p - lr * g, params, "
            "grads).",
        rewrite=f"{_replaced(tree, expression, mapped)}    # leaf by leaf",
        docs="https://docs.jax.dev/en/latest/pytrees.html")


# ------------------------------------------------------------ a stacked tree indexed as a list
def _stacked_index(exc):
    """(the line's tree, the subscript, the dict's name, its leading size) where the line
    indexes by a number a dict of arrays (vmap's or scan's stacked result) that has no such
    key; None otherwise."""
    key = exc.args[0] if isinstance(exc, KeyError) and exc.args else None
    if type(key) is not int:
        return None
    where, _ = _user_lines(exc)
    tree, frame = _parse_line(where), _user_frame(exc)
    for node in ast.walk(tree) if tree is not None and frame is not None else ():
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
                _literal(node.slice) == key:
            value = _named_value(frame, node.value.id)
            if not isinstance(value, dict) or key in value or not _is_tree(value):
                continue
            sizes = {getattr(v, "shape", ())[:1] for v in tree_leaves(value)}
            if len(sizes) == 1 and sizes != {()} and -sizes.pop()[0] <= key < max(
                    v.shape[0] for v in tree_leaves(value)):
                return tree, node, node.value.id, tree_leaves(value)[0].shape[0]
    return None


def _literal(node):
    """The Python value `node` writes (`-1`, `'s'`), or None where it is no literal."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return None


def _is_stacked_index(e) -> bool:
    return _stacked_index(e) is not None


def _stacked_index_card(exc, where, called_from) -> ErrorCard:
    tree, node, name, size = _stacked_index(exc)
    key = _literal(node.slice)
    value = _named_value(_user_frame(exc), name)
    keys = ", ".join(repr(k) for k in list(value)[:4])
    # `out[1]['s']`: the leaf first, then its entry (out['s'][1]); else every leaf's entry
    outer = next((n for n in ast.walk(tree) if isinstance(n, ast.Subscript) and
                  n.value is node and _literal(n.slice) in value), None)
    if outer is not None:
        node, taken = outer, f"{name}[{_literal(outer.slice)!r}][{key}]"
    else:
        taken = f"jax.tree.map(lambda v: v[{key}], {name})"
    return ErrorCard(
        "stacked-index", f"{name} is a dict of stacked arrays: its entry {key} is in each leaf",
        why=(f"vmap and scan return the structure the function returns once, each leaf "
             f"stacked along a new first axis ({size} entries here), not a list of "
             f"{size} dicts: {name} has the keys {keys}, and {name}[{key}] looked for a key "
             f"{key}."),
        fix=(f"Take entry {key} of every leaf with jax.tree.map (or one leaf's: "
             f"{name}[key][{key}])."),
        rewrite=f"{_replaced(tree, node, taken)}    # entry {key} of "
                f"{'the leaf' if outer is not None else 'each leaf'}",
        docs="https://docs.jax.dev/en/latest/pytrees.html")
