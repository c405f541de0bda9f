"""The card for einsum's subscripts with another number of letters than an operand has axes:
`jnp.einsum('ij,jk->ik', a, b)` of a (2, 3, 4) a, `jnp.einsum('bij,jk->bik', x, w)` of a 2-D x.
JAX's ValueError is opt_einsum's, with no shape named: "Einstein sum subscript 'ij' does not
contain the correct number of indices for operand 0." (contract_path), or "Ellipses lengths do
not match." (parse_einsum_input) where an operand has fewer axes than the letters beside its
'...'. jnp.einsum attaches the subscripts and each operand's shape (numpy/products.py), from
which the card says which operand has how many axes for how many letters, and writes the line
with '...' for its leading axes (`'...ij,jk->...ik'`) where that makes every letter agree."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .einsum_labels import _DOCS, _conflict, _einsum_call, _names
from .rewrites import _parse_line, _replaced, _whole_statement

_COUNT = re.compile(r"^Einstein sum subscript '[^']*' does not contain the correct number of "
                    r"indices for operand (\d+)\.$")
_ELLIPSES = "Ellipses lengths do not match."
# letters of the card's own for the axes under '...', as opt_einsum gives them letters unused
_SPARE = [chr(c) for c in range(0x3b1, 0x3c9)] + [chr(c) for c in range(0x4e00, 0x4e40)]


def _is_einsum_axes(e) -> bool:
    return isinstance(e, ValueError) and hasattr(e, "einsum_operands") and \
        (_COUNT.match(str(e)) is not None or str(e) == _ELLIPSES) and \
        bool(_unfit(*_read(e.einsum_operands[0]), e.einsum_operands[1]))


def _read(subscripts):
    """(the operands' terms, the output or None for an implicit one), spaces dropped."""
    inputs, arrow, output = subscripts.replace(" ", "").partition("->")
    return inputs.split(","), (output if arrow else None)


def _unfit(terms, output, shapes) -> list:
    """The operands whose letters do not fit their axes."""
    return [k for k, (t, s) in enumerate(zip(terms, shapes)) if not _fits(t, len(s))]


def _letters(term) -> int:
    return len(term.replace("...", ""))


def _fits(term, ndim) -> bool:
    """Whether one operand's letters fit its number of axes ('...' takes any number, none
    too)."""
    return _letters(term) <= ndim if "..." in term else _letters(term) == ndim


def _spelled_out(terms, output, shapes):
    """The subscripts as opt_einsum reads them: each '...' written as letters of its own,
    the last ones for an operand with fewer axes under it (so they broadcast as NumPy's), and
    the output (given, or the implicit one: '...' first, then the letters written once, in
    order); None where an operand's letters do not fit its axes or the output is refused.

        >>> _spelled_out(["...ij", "jk"], "...ik", [(2, 3, 4), (4, 5)])
        (['αij', 'jk'], 'αik')
    """
    used = set("".join(terms) + (output or ""))
    under = [len(s) - _letters(t) if "..." in t else 0 for t, s in zip(terms, shapes)]
    if not all(_fits(t, len(s)) for t, s in zip(terms, shapes)):
        return None
    spare = [c for c in _SPARE if c not in used][:max(under, default=0)]
    spelled = [t.replace("...", "".join(spare[len(spare) - n:])) for t, n in zip(terms, under)]
    if output is None:
        joined = "".join(spelled)
        output = "".join(spare) + "".join(sorted(c for c in set(joined) if joined.count(c) == 1
                                                 and c not in spare))
    else:
        output = output.replace("...", "".join(spare))
    if any(output.count(c) != 1 or c not in "".join(spelled) for c in output):
        return None
    return spelled, output


def _shape(terms, output, shapes):
    """The shape einsum gives (a size 1 stretching to the other, as opt_einsum's), or None
    where it refuses these subscripts for these shapes.

        >>> _shape(["...ij", "jk"], "...ik", [(2, 3, 4), (4, 5)])
        (2, 3, 5)
        >>> _shape(["...ij", "jk"], "...ik", [(3, 4, 2), (4, 5)]) is None
        True
    """
    spelled = _spelled_out(terms, output, shapes)
    if spelled is None or _conflict(spelled[0], shapes) is not None:
        return None
    sizes = {}
    for term, shape in zip(spelled[0], shapes):
        for letter, size in zip(term, shape):
            sizes[letter] = size if sizes.get(letter, 1) == 1 else sizes[letter]
    return tuple(sizes[letter] for letter in spelled[1])


def _plan(terms, output, shapes):
    """Where '...' goes for each operand whose letters do not fit: {operand or "out": how many
    leading letters it takes the place of}. An operand with more axes than letters gets '...'
    in front (0), and the output too where it has none; one with fewer, '...' in place of its
    leading letters, which must lead every other term and the output they are in. None where
    no such '...' says it (an operand's own '...' cannot absorb; a leading letter used
    elsewhere, or summed).

        >>> _plan(["ij", "jk"], "ik", [(2, 3, 4), (4, 5)])
        {0: 0, 'out': 0}
        >>> _plan(["bij", "jk"], "bik", [(3, 4), (4, 5)])
        {0: 1, 'out': 1}
    """
    plan = {}

    def put(where, taken):
        if plan.setdefault(where, taken) != taken:
            raise LookupError
    try:
        for k, (term, shape) in enumerate(zip(terms, shapes)):
            if _fits(term, len(shape)):
                continue
            if "..." in term:
                return None
            if len(shape) > len(term):
                put(k, 0)
                if output is not None and "..." not in output:
                    if any("..." in t for t in terms):
                        return None     # (another operand's '...' is summed there)
                    put("out", 0)
                continue
            lead = term[:len(term) - len(shape)]
            put(k, len(lead))
            others = [(j, t) for j, t in enumerate(terms) if j != k] + \
                ([("out", output)] if output is not None else [])
            if output is not None and not set(lead) & set(output):
                return None             # (a batch summed away: the card does not guess)
            for j, other in others:
                if set(lead) & set(other):
                    if "..." in other or not other.startswith(lead):
                        return None
                    put(j, len(lead))
    except LookupError:
        return None
    return plan


def _planned(terms, output, plan):
    """The subscripts with the plan's '...' written in."""
    new = ["..." + t[plan[k]:] if k in plan else t for k, t in enumerate(terms)]
    if output is not None and "out" in plan:
        output = "..." + output[plan["out"]:]
    return new, output


def _joined(terms, output) -> str:
    return ",".join(terms) + ("" if output is None else "->" + output)


def _listed(node, taken):
    """A list (or tuple) of axis numbers with Ellipsis in place of its first `taken`; None
    for a list not written out in the call."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    return type(node)([ast.Constant(...)] + node.elts[taken:], ast.Load())


def _rewritten(tree, call, plan, new_spec, lettered, count):
    """(the line with the plan's '...' written into its call, the call so), or ("", "") where
    it cannot be (no call on the line; a list of axis numbers not written out in it)."""
    if call is None:
        return "", ""
    if lettered:
        new = ast.Call(call.func, [ast.Constant(new_spec)] + call.args[1:], call.keywords)
    else:
        args = list(call.args)
        for where, taken in plan.items():
            at = 2 * count if where == "out" else 2 * where + 1
            listed = _listed(args[at], taken)
            if listed is None:
                return "", ""
            args[at] = listed
        new = ast.Call(call.func, args, call.keywords)
    return _replaced(tree, call, new), ast.unparse(new)


def _axes(n) -> str:
    return f"{n} axis" if n == 1 else f"{n} axes"


def _leading(n) -> str:
    return "its leading axis" if n == 1 else f"its {n} leading axes"


def _said_of(name, term, shape) -> str:
    """Why one operand's letters do not fit, in a sentence."""
    n, m = len(shape), _letters(term)
    head = f"{name} has {_axes(n)} (shape {tuple(shape)}) but '{term}'"
    if "..." in term:
        return (f"{head} names {m} beside its '...', which stands for any number of axes, none "
                f"too, but never for fewer.")
    more = f"{_axes(n - m)} more than it has letters" if n > m else \
        f"{m - n} letter{'s' * (m - n > 1)} more than it has axes"
    return f"{head} has {m} letter{'s' * (m != 1)}: {more}."


def _step(name, term, ndim, taken, lettered) -> str:
    """What the '...' written for one operand does, in words."""
    if taken == 0:
        where = f"in front of {name}'s letters" if lettered else \
            f"first in {name}'s list of axis numbers"
        return (f"'...' {where} stands for {_leading(ndim - len(term))} (a batch), kept in the "
                f"result")
    instead = f"'{term[:taken]}'" if lettered else \
        f"its first {taken} axis number{'s' * (taken > 1)}"
    return (f"'...' in place of {instead} takes {name}'s {_axes(ndim)} as the letters after "
            f"it, with or without batch axes before them")


def _einsum_axes_card(exc, where, called_from) -> ErrorCard:
    subscripts, shapes, lettered, _ = exc.einsum_operands
    spec = subscripts.replace(" ", "")
    terms, output = _read(spec)
    bad = _unfit(terms, output, shapes)
    counted = _COUNT.match(str(exc))
    first = int(counted.group(1)) if counted else next(k for k in bad if "..." in terms[k])
    tree = _parse_line(_whole_statement(where))
    call, nodes = _einsum_call(tree, subscripts, len(shapes), lettered)
    names = _names(nodes or [None] * len(shapes))
    name, term, ndim = names[first], terms[first], len(shapes[first])
    needs = f"needs at least {_letters(term)}" if "..." in term else \
        f"has {_letters(term)} letter{'s' * (_letters(term) != 1)}"
    title = f"einsum '{subscripts}': {name} has {_axes(ndim)} but '{term}' {needs}"
    listing = ", ".join(f"{n} {tuple(s)} is '{t}'" for n, s, t in zip(names, shapes, terms))
    if not lettered:        # jnp.einsum(a, [0, 1], b, [1, 2]): opt_einsum's letters for them
        listing += "; your lists of axis numbers, as letters"
    why = (f"einsum names each operand's axes by the letters of its subscripts, one letter per "
           f"axis, in order ({listing}). " + " ".join(_said_of(names[k], terms[k], shapes[k])
                                                     for k in bad))
    unknown = "; which letters you meant for which axes the card cannot tell."
    plan = _plan(terms, output, shapes)
    if plan is None:
        dotted = [k for k in bad if "..." in terms[k]]
        fix = ((f"Give {names[dotted[0]]} the axes its letters name, or write one letter per "
                f"axis it has beside its '...' (print {names[dotted[0]]}.shape)" if dotted else
                f"Write one letter per axis of {name}, in the order of its own axes (print "
                f"{name}.shape)") +
               ". '...' stands for the leading axes (a batch) that the letters after it leave "
               "out" + unknown)
        return ErrorCard("einsum-axes", title, why=why, fix=fix, rewrite="", docs=_DOCS)
    new_terms, new_output = _planned(terms, output, plan)
    new_spec = _joined(new_terms, new_output)
    result = _shape(new_terms, new_output, shapes)
    steps = "; ".join(_step(names[k], terms[k], len(shapes[k]), plan[k], lettered)
                      for k in bad)
    spelled = _spelled_out(new_terms, new_output, shapes)
    conflict = _conflict(spelled[0], shapes) if spelled else None
    if result is None and conflict is None:
        return ErrorCard("einsum-axes", title, why=why, fix=(
            f"Write one letter per axis of {name}, in the order of its own axes (print "
            f"{name}.shape)" + unknown), rewrite="", docs=_DOCS)
    if result is None:      # the extra axes are not the leading ones: which are, not said
        letter, (s0, k0, _), (s1, k1, _) = conflict
        label = f"'{letter}'" if letter in spec else "an axis under '...'"
        fix = (f"'{new_spec}', with '...' for the leading axes the letters leave out, does not "
               f"fit either: there {label} would be {s0} in {names[k0]} and {s1} in "
               f"{names[k1]}. Write one letter per axis of {name}, in the order of its own axes "
               f"(print {name}.shape)" + unknown)
        return ErrorCard("einsum-axes", title, why=why, fix=fix, rewrite="", docs=_DOCS)
    line, new_call = _rewritten(tree, call, plan, new_spec, lettered, len(shapes))
    spelled = f"'{new_spec}'" if lettered else new_call or f"'{new_spec}' (as letters)"
    fix = f"{steps[0].upper()}{steps[1:]}: {spelled} gives {result}."
    letter = next(c for c in "bnzabcdefghijklmopqrstuvwxy" if c not in spec)
    alternative = new_spec.replace("...", letter)
    if lettered and output is not None and "..." not in spec and \
            all(plan[k] == 0 and len(shapes[k]) - len(terms[k]) == 1 for k in bad) and \
            _shape(alternative.split("->")[0].split(","), alternative.split("->")[1],
                   shapes) == result:
        fix += f" Naming the batch axis with a letter of its own, '{alternative}', gives the same."
    rewrite = f"{line}    # the result: {result}" if line else ""
    return ErrorCard("einsum-axes", title, why=why, fix=fix, rewrite=rewrite, docs=_DOCS)
