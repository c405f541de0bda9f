"""The card for einsum's subscripts that give one letter two sizes: `jnp.einsum('ij,jk->ik',
a, b)` of a (2, 3) a and a (4, 5) b, where j is 3 in a and 4 in b. JAX's ValueError is
opt_einsum's ("Size of label 'j' for operand 1 (3) does not match previous terms (4)."), raised
in its contract.py with no shape named and the two sizes the other way round (operand 1's j
is 4); jnp.einsum attaches the subscripts and each operand's shape (numpy/products.py), from
which the card says which letter has which size in which operand, and writes the one
transpose of an operand that makes every letter agree, where exactly one does."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .operand_shapes import _transposed
from .rewrites import _called, _parse_line, _replaced, _whole_statement

_LABEL = re.compile(r"^Size of label '(.)' for operand (\d+) \((\d+)\) does not match previous "
                    r"terms \((\d+)\)\.$")
_DOCS = "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.einsum.html"


def _is_einsum_labels(e) -> bool:
    return isinstance(e, ValueError) and hasattr(e, "einsum_operands") and \
        _LABEL.match(str(e)) is not None


def _conflict(terms, shapes):
    """The first letter given two sizes, read as opt_einsum reads them (operand by operand,
    axis by axis; a size 1 stretches to the other): (letter, (size, operand, axis) where it
    was first, (size, operand, axis) where it differs), or None where every letter agrees.

        >>> _conflict(["ij", "jk"], [(2, 3), (4, 5)])
        ('j', (3, 0, 1), (4, 1, 0))
    """
    seen = {}
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        for axis, (letter, size) in enumerate(zip(term, shape)):
            first = seen.get(letter)
            if first is not None and first[0] != 1:
                if size not in (1, first[0]):
                    return letter, first, (size, k, axis)
            else:
                seen[letter] = (size, k, axis)
    return None


def _result(terms, shapes, output) -> tuple:
    """The shape einsum gives for `output` where every letter agrees (a 1 stretched)."""
    sizes = {}
    for term, shape in zip(terms, shapes):
        for letter, size in zip(term, shape):
            sizes[letter] = size if sizes.get(letter, 1) == 1 else sizes[letter]
    return tuple(sizes[letter] for letter in output)


def _transposes(terms, shapes, output) -> list:
    """(operand, axis i, axis j, its shape so, the result's shape) for each swap of two axes
    of one operand (a matrix's transpose) after which every letter has one size; none where
    an operand has other than one axis per letter (no transpose gives it another count)."""
    if any("." not in term and len(term) != len(shape) for term, shape in zip(terms, shapes)):
        return []
    found = []
    for k, shape in enumerate(shapes):
        for i in range(len(shape)):
            for j in range(i + 1, len(shape)):
                if shape[i] == shape[j]:
                    continue
                new = list(shape)
                new[i], new[j] = new[j], new[i]
                tried = list(shapes)
                tried[k] = tuple(new)
                if _conflict(terms, tried) is None:
                    found.append((k, i, j, tuple(new), _result(terms, tried, output)))
    return found


def _einsum_call(tree, subscripts, count, lettered):
    """(the line's einsum call of these subscripts and `count` operands, each its own
    argument, its operands' nodes), or (None, None). Lists of axis numbers
    (`jnp.einsum(a, [0, 1], b, [1, 2])`): the operands are every other argument."""
    for node in ast.walk(tree) if tree is not None else ():
        if _called(node) != "einsum" or not node.args or \
                any(isinstance(a, ast.Starred) for a in node.args):
            continue
        first = node.args[0]
        if lettered and isinstance(first, ast.Constant) and isinstance(first.value, str) and \
                first.value.replace(" ", "") == subscripts.replace(" ", "") and \
                len(node.args) == count + 1:
            return node, node.args[1:]
        if not lettered and len(node.args) in (2 * count, 2 * count + 1):
            return node, node.args[0:2 * count:2]
    return None, None


def _swapped(node, i, j, ndim):
    """`node` with axes i and j swapped: `x.T` for a matrix, else `x.swapaxes(i, j)`."""
    if ndim == 2:
        return _transposed(node)
    # (ast.unparse writes the parentheses an operand such as `a + b` needs)
    return ast.Call(ast.Attribute(node, "swapaxes", ast.Load()),
                    [ast.Constant(i), ast.Constant(j)], [])


def _said(node, k) -> str:
    """How the card names operand `k`: the learner's name for it, or its place."""
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) and \
            len(ast.unparse(node)) <= 24:
        return ast.unparse(node)
    return f"operand {k}"


def _names(nodes) -> list:
    """How the card names each operand (`_said`); one array given twice (einsum('ij,jk->ik',
    m, m)) is named by its places too."""
    names = [_said(node, k) for k, node in enumerate(nodes)]
    twice = {n for n in names if names.count(n) > 1}
    return [f"{n} (operand {k})" if n in twice else n for k, n in enumerate(names)]


def _einsum_labels_card(exc, where, called_from) -> ErrorCard:
    subscripts, shapes, lettered, (inputs, output) = exc.einsum_operands
    terms = inputs.split(",")
    letter, (s0, k0, a0), (s1, k1, a1) = _conflict(terms, shapes)
    written = subscripts.split("->")[0].replace(" ", "")
    tree = _parse_line(_whole_statement(where))
    call, nodes = _einsum_call(tree, subscripts, len(shapes), lettered)
    nodes = nodes or [None] * len(shapes)
    names = _names(nodes)
    label = f"'{letter}'" if letter in written else "an axis under '...'"
    listing = ", ".join(f"{n} {tuple(s)} is '{t}'" for n, s, t in
                        zip(names, shapes, written.split(",")))
    if not lettered:        # jnp.einsum(a, [0, 1], b, [1, 2]): opt_einsum's letters for them
        listing += "; your lists of axis numbers, as letters"
    if k0 == k1:
        title = f"einsum '{subscripts}': {label} is {s0} and {s1} in {names[k0]}"
        why = (f"einsum names each operand's axes by the letters of its subscripts, in order "
               f"({listing}). A letter written twice in one operand's subscripts takes its "
               f"diagonal, so those axes must have one size: {label} is {names[k0]}'s axis "
               f"{a0} (size {s0}) and its axis {a1} (size {s1}).")
    else:
        title = f"einsum '{subscripts}': {label} is {s0} in {names[k0]} but {s1} in {names[k1]}"
        why = (f"einsum names each operand's axes by the letters of its subscripts, in order "
               f"({listing}). A letter stands for one size wherever it is written (a size 1 "
               f"stretches), since einsum pairs those axes element by element: {label} is "
               f"{names[k0]}'s axis {a0} (size {s0}) and {names[k1]}'s axis {a1} (size {s1}). "
               f"JAX's message, opt_einsum's, gives the two sizes the other way round: "
               f"operand {k1}'s is {s1}.")
    options = _transposes(terms, shapes, output)

    def expression(option) -> str:
        k, i, j, _, _ = option
        if nodes[k] is None:        # (no call on the line to name it by)
            return f"{names[k]} with its axes {i} and {j} swapped"
        written = ast.unparse(_swapped(nodes[k], i, j, len(shapes[k])))
        return f"{written} as operand {k}" if names[k].endswith(f"(operand {k})") else written

    rewrite = ""
    if len(options) == 1:
        k, i, j, new, result = options[0]
        same = list(written.split(",")[k])
        if "." not in written.split(",")[k]:
            same[i], same[j] = same[j], same[i]
        fix = (f"Transposing {names[k]} makes every letter agree: {expression(options[0])} "
               f"has shape {new}, and the result is {result}" +
               (f" (the same as writing its subscripts '{''.join(same)}')" if lettered and
                "." not in written.split(",")[k] else "") +
               ". If that is not what you meant, write each operand's letters in the order of "
               "its own axes (print each .shape).")
        if call is not None and lettered:
            rewrite = (f"{_replaced(tree, nodes[k], _swapped(nodes[k], i, j, len(new)))}"
                       f"    # {names[k]} as {new}: the result {result}")
    elif options:
        fix = ("Transposing one operand would make every letter agree, but more than one "
               "would, with different results: " +
               "; ".join(f"{expression(o)} gives {o[4]}" for o in options) +
               ". Which one you meant the card cannot tell: write each operand's letters in "
               "the order of its own axes (print each .shape).")
    elif k0 == k1:
        fix = (f"A diagonal needs {names[k0]}'s axes {a0} and {a1} of one size; if no "
               f"diagonal is meant, give each axis its own letter.")
    else:
        fix = ("No transpose of one operand makes every letter agree, so the subscripts or the "
               "operands are not the ones meant: write each operand's letters in the order of "
               "its own axes, one letter per axis (print each .shape), and give one letter "
               "only to axes that are to be paired or summed together.")
    return ErrorCard("einsum-labels", title, why=why, fix=fix, rewrite=rewrite, docs=_DOCS)
