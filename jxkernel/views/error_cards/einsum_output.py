"""The card for einsum's result subscripts that name a letter no operand has, or one letter
twice: `jnp.einsum('ij->ik', a)`, `jnp.einsum('i->ii', v)`. JAX's ValueError is opt_einsum's
("Output character 'k' did not appear in the input", "Output character 'i' appeared more than
once in the output."), raised before any shape is read; jnp.einsum attaches the subscripts and
each operand's shape (numpy/products.py). The card says what the letters after '->' are, and
writes a line only where one reading is clear and runs: the one letter summed away kept in
place of the unknown one, the letter given to the operand whose axes outnumber its letters
(a batch letter written in the result alone), each letter once, `jnp.diag` for 'i->ii'."""
from __future__ import annotations

import ast
import re
from typing import NamedTuple

from .card import ErrorCard
from .einsum_axes import _joined, _read, _shape, _unfit
from .einsum_labels import _DOCS, _einsum_call, _names
from .rewrites import _parse_line, _replaced, _whole_statement

_MISSING = re.compile(r"^Output character '(.)' did not appear in the input$")
_TWICE = re.compile(r"^Output character '(.)' appeared more than once in the output\.$")


def _is_einsum_output(e) -> bool:
    if not (isinstance(e, ValueError) and hasattr(e, "einsum_operands")):
        return False
    found = _MISSING.match(str(e)) or _TWICE.match(str(e))
    return found is not None and found.group(1) != "."


def _once(text) -> str:
    """Each letter at its first place only.

        >>> _once("iij")
        'ij'
    """
    return "".join(c for k, c in enumerate(text) if c not in text[:k])


class _Fix(NamedTuple):
    """The fix in words, and where one line is clear: its subscripts and the result's shape,
    or `diag` (the line is jnp.diag's)."""
    words: str
    spec: str | None = None
    result: tuple | None = None
    diag: bool = False


def _missing_fix(terms, output, shapes, names, letter) -> _Fix:
    """The fix for a result letter no operand has."""
    inputs = "".join(terms).replace(".", "")
    missing = _once("".join(c for c in output if c.isalpha() and c not in inputs))
    summed = _once("".join(c for c in inputs if c not in output))
    unfit = _unfit(terms, output, shapes)
    expand = ("einsum makes no new axis: to give its result one, add it afterwards "
              "(jnp.expand_dims(result, axis), then jnp.broadcast_to for a size other than 1).")
    if unfit:                   # a batch letter written in the result alone
        k = unfit[0]
        extra = len(shapes[k]) - len(terms[k])
        if len(unfit) == 1 and len(missing) == 1 and extra == 1 and "..." not in terms[k]:
            new = terms[:k] + [missing + terms[k]] + terms[k + 1:]
            result = _shape(new, output, shapes)
            if result is not None:
                return _Fix(f"{names[k]} has {len(shapes[k])} axes (shape {tuple(shapes[k])}) "
                            f"but '{terms[k]}' names {len(terms[k])}: if '{missing}' is "
                            f"{names[k]}'s leading axis (a batch), write it in {names[k]}'s "
                            f"letters too: '{_joined(new, output)}' gives {result}.",
                            _joined(new, output), result)
        said = "; ".join(f"{names[j]} has {len(shapes[j])} axes (shape {tuple(shapes[j])}) "
                         f"but '{terms[j]}'" for j in unfit)
        return _Fix(f"The letters do not fit the operands either ({said}): write one letter "
                    f"per axis of each operand, in the order of its own axes (print each "
                    f".shape), and after '->' only letters written for them. " + expand)
    if len(missing) == 1 and len(summed) == 1:
        new_output = output.replace(letter, summed)
        result = _shape(terms, new_output, shapes)
        if result is not None:
            return _Fix(f"The one letter summed over now is '{summed}'; if '{letter}' was "
                        f"meant to be it, keep that axis: '{_joined(terms, new_output)}' gives "
                        f"{result}. " + expand, _joined(terms, new_output), result)
    if summed:
        listed = ", ".join(f"'{c}'" for c in summed)
        return _Fix(f"The operands' letters summed over now are {listed}: write the one you "
                    f"meant in place of '{letter}' to keep its axis, or leave '{letter}' out. "
                    + expand)
    return _Fix("Every letter of the operands is in the result already; leave "
                f"'{letter}' out. " + expand)


def _twice_fix(terms, output, shapes, names, letter) -> _Fix:
    """The fix for a result letter written twice."""
    inputs = "".join(terms)
    unknown = [c for c in _once(output) if c.isalpha() and c not in inputs]
    if unknown:
        listed = " and ".join(f"'{c}'" for c in unknown)
        return _Fix(f"{listed} {'is' if len(unknown) == 1 else 'are'} no operand's letter "
                    "either: after '->' write letters of the operands' subscripts, each at "
                    "most once (an operand's letter left out is summed over).")
    if len(terms) == 1 and terms[0] == letter and output == letter * 2 and len(shapes[0]) == 1:
        v = names[0] if names[0].isidentifier() else "v"
        result = (shapes[0][0],) * 2
        return _Fix(f"A vector on a matrix's diagonal, zeros elsewhere, is jnp.diag({v}): "
                    f"it gives {result}.", result=result, diag=True)
    new_output = _once(output)
    result = _shape(terms, new_output, shapes)
    if result is None:
        return _Fix(f"Write '{letter}' once after '->'. A letter written twice in an "
                    "operand's subscripts takes that operand's diagonal; the result's letters "
                    "are one per axis.")
    return _Fix(f"Written once, '{_joined(terms, new_output)}' gives {result}. A letter "
                "written twice in an operand's subscripts takes that operand's diagonal "
                "('ii->i'); the result's letters are one per axis.",
                _joined(terms, new_output), result)


def _diag_call(call):
    """`jnp.diag(v)` for the line's `jnp.einsum('i->ii', v)` (the same module's diag)."""
    func = ast.Attribute(call.func.value, "diag", ast.Load()) \
        if isinstance(call.func, ast.Attribute) else ast.Name("diag", ast.Load())
    return ast.Call(func, [call.args[1]], [])


def _einsum_output_card(exc, where, called_from) -> ErrorCard:
    subscripts, shapes, lettered, _ = exc.einsum_operands
    terms, output = _read(subscripts)
    missing = _MISSING.match(str(exc))
    letter = (missing or _TWICE.match(str(exc))).group(1)
    tree = _parse_line(_whole_statement(where))
    call, nodes = _einsum_call(tree, subscripts, len(shapes), lettered)
    names = _names(nodes or [None] * len(shapes))
    listing = ", ".join(f"{n} {tuple(s)} is '{t}'" for n, s, t in zip(names, shapes, terms))
    if not lettered:        # jnp.einsum(a, [0, 1], [0, 2]): opt_einsum's letters for them
        listing += "; your lists of axis numbers, as letters"
    if missing:
        title = f"einsum '{subscripts}': the result's '{letter}' is no operand's letter"
        why = (f"The letters after '->' name the result's axes, each one an axis of an operand "
               f"kept ({listing}); an operand's letter left out of the result is summed over. "
               f"'{letter}' is written for none of the operands, so no axis is its.")
        fix = _missing_fix(terms, output, shapes, names, letter)
    else:
        title = f"einsum '{subscripts}': '{letter}' is written twice after '->'"
        why = (f"The letters after '->' name the result's axes, one letter per axis, each an "
               f"axis of an operand ({listing}): one axis cannot be two of the result's.")
        fix = _twice_fix(terms, output, shapes, names, letter)
    rewrite = ""
    if call is not None and lettered and fix.result is not None:
        new = _diag_call(call) if fix.diag else \
            ast.Call(call.func, [ast.Constant(fix.spec)] + call.args[1:], call.keywords)
        rewrite = f"{_replaced(tree, call, new)}    # the result: {fix.result}"
    return ErrorCard("einsum-output", title, why=why, fix=fix.words, rewrite=rewrite,
                     docs=_DOCS)
