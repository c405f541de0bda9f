"""Cards for JAX's forward- and reverse-mode calls used the way grad is:

- `jax.jvp(f, x, v)`: jvp takes the primals and the tangents each as a tuple (one entry per
  argument of f), "primal and tangent arguments to jax.jvp must be tuples or lists; found
  ArrayImpl and ArrayImpl."; the rewrite wraps them, `jax.jvp(f, (x,), (v,))`;
- `jax.vjp(f, x)(v)` (and `jax.linearize(f, x)(v)`): vjp returns the output and the function,
  a pair, which Python refuses to call ("'tuple' object is not callable"); the rewrite
  unpacks the pair first.
- what grad and value_and_grad return, unpacked otherwise (Python's "too many values to
  unpack"): `loss, grads = jax.grad(f)(x)` (grad returns the gradient alone: value_and_grad
  returns both), `loss, aux, grads = jax.value_and_grad(f, has_aux=True)(x)` (it returns
  ((value, aux), grads));
- and unpacked in another order (`(loss, grads), aux = jax.value_and_grad(f, has_aux=True)(x)`,
  `aux, grads = jax.grad(f, has_aux=True)(x)`): no error there, and `grads`, the aux or the
  value, fails where it meets the parameters (tree_map's structures, trees.py's card);
  `misbound_gradient` reads the statement that bound it.
"""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .reading import _user_frame, _user_lines
from .frame_names import _named_value
from .rewrites import _bound_above, _called, _parse_line, _pattern, _replaced

_NOT_TUPLES = re.compile(r"^primal and tangent arguments to jax\.jvp must be tuples or lists; "
                         r"found (\w+) and (\w+)\.$")
_PAIRS = {"vjp": ("f_vjp", "the function that pulls a cotangent back to the inputs"),
          "linearize": ("f_jvp", "the linear function that pushes a tangent forward")}


# ------------------------------------------------------------------ jvp's tuples
def _jvp_call(tree):
    for call in ast.walk(tree) if tree is not None else ():
        if _called(call) == "jvp" and len(call.args) == 3:
            return call
    return None


def _is_jvp_tuples(e) -> bool:
    if not (isinstance(e, TypeError) and _NOT_TUPLES.match(str(e))):
        return False
    where, _ = _user_lines(e)
    return _jvp_call(_parse_line(where)) is not None


def _as_tuple(node):
    """`node` as jvp wants it: a tuple or list as it is, else a tuple of one."""
    return node if isinstance(node, (ast.Tuple, ast.List)) else ast.Tuple([node], ast.Load())


def _jvp_tuples_card(exc, where, called_from) -> ErrorCard:
    tree = _parse_line(where)
    call = _jvp_call(tree)
    fun, primals, tangents = call.args
    new = ast.Call(call.func, [fun, _as_tuple(primals), _as_tuple(tangents)], call.keywords)
    return ErrorCard(
        "jvp-tuples", "jax.jvp takes its primals and its tangents as tuples",
        why=("jax.jvp(f, primals, tangents) takes one tuple of f's arguments and one tuple of "
             "their tangents (a tuple of one for a function of one argument), since f may "
             "take several; grad takes f's arguments themselves."),
        fix="Wrap each in a tuple: jax.jvp(f, (x,), (v,)).",
        rewrite=f"{_replaced(tree, call, new)}    # a tuple of primals, a tuple of tangents",
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.jvp.html")


# ------------------------------------------------------------------ vjp's pair called
def _pair_called(tree):
    """The line's call of what vjp (or linearize) returned, `jax.vjp(f, x)(v)`, or None."""
    for call in ast.walk(tree) if tree is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Call) and \
                _called(call.func) in _PAIRS:
            return call
    return None


def _is_pair_called(e) -> bool:
    if not (isinstance(e, TypeError) and str(e) == "'tuple' object is not callable"):
        return False
    where, _ = _user_lines(e)
    return _pair_called(_parse_line(where)) is not None


def _pair_called_card(exc, where, called_from) -> ErrorCard:
    tree = _parse_line(where)
    call = _pair_called(tree)
    name = _called(call.func)
    function, what = _PAIRS[name]
    made = ast.unparse(call.func)
    used = ast.Call(ast.Name(function), call.args, call.keywords)
    line = where["code"]
    indent = line[:len(line) - len(line.lstrip())]
    return ErrorCard(
        "pair-called", f"jax.{name} returns a pair: the output, then {what.split(' that')[0]}",
        why=(f"jax.{name}(f, x) runs f and returns two things: f's output and {what}. The "
             f"line called the pair itself, which is no function."),
        fix=(f"Unpack the pair first, out, {function} = {made}, then call {function}."),
        rewrite=(f"{indent}out, {function} = {made}    # f's output, and {what}\n"
                 f"{indent}{_replaced(tree, call, used).lstrip()}"),
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.{name}.html")


# ------------------------------------------------------------------ grad's results unpacked
_UNPACK = re.compile(r"^(?:not enough|too many) values to unpack \(expected (\d+)")
_RETURNS = ("grad", "value_and_grad")


def unused(name: str, statement) -> str:
    """`name` for a part the card's line unpacks, or `name_value` where `statement` already
    reads `name` (`(loss, aux), g = jax.value_and_grad(loss, ...)` would rebind the function
    `loss` to a number, and the cell would fail when run again).

        >>> unused("loss", ast.parse("g = jax.grad(loss)(p)")), unused("loss", ast.parse("g = 1"))
        ('loss_value', 'loss')
    """
    taken = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)}
    return f"{name}_value" if name in taken else name


def with_aux(call) -> bool:
    """Whether grad's (or value_and_grad's) `call` is written with has_aux=True."""
    return isinstance(call, ast.Call) and any(
        k.arg == "has_aux" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in call.keywords)


def _unpacked_call(e):
    """(the user's line parsed, its assignment, grad's call, has_aux) where the line unpacks
    what grad or value_and_grad returned into another number of names; None otherwise."""
    if not (isinstance(e, ValueError) and _UNPACK.match(str(e))):
        return None
    where, _ = _user_lines(e)
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Tuple) and isinstance(node.value, ast.Call) \
                and _called(node.value.func) in _RETURNS:
            return tree, node, node.value, with_aux(node.value.func)
    return None


def _returns_fix(node, kind, has_aux) -> str | None:
    """The assignment's targets as `kind` returns them, or None where the names do not say
    which is which: `loss, grads` of grad is value_and_grad's pair; three names of
    value_and_grad with has_aux are ((value, aux), grads), the gradient the one named so."""
    names = node.targets[0].elts
    node = _copied(node)
    names = node.targets[0].elts
    if any(not isinstance(n, ast.Name) for n in names):
        return None
    if kind == "grad" and not has_aux and len(names) == 2:
        node.value.func.func = ast.parse(
            ast.unparse(node.value.func.func).rsplit("grad", 1)[0] + "value_and_grad",
            mode="eval").body
        return ast.unparse(node)
    if kind == "value_and_grad" and has_aux and len(names) == 3:
        grads = [n for n in names if "grad" in n.id.lower()]
        last = grads[0] if len(grads) == 1 else names[2]
        rest = [n for n in names if n is not last]
        node.targets = [ast.Tuple([ast.Tuple(rest, ast.Store()), last], ast.Store())]
        return ast.unparse(node)
    return None


def _copied(node):
    """A copy of the statement `node` to rewrite (the card's line), the learner's kept."""
    return ast.parse(ast.unparse(node)).body[0]


def _call_text(call) -> str:
    """`jax.grad(loss, has_aux=True)`: the transformation's call as written (grad's function
    and keywords), its arguments left out."""
    return ast.unparse(call.func)


def _is_grad_unpacked(e) -> bool:
    return _unpacked_call(e) is not None


def _grad_unpacked_card(exc, where, called_from) -> ErrorCard:
    tree, node, call, has_aux = _unpacked_call(exc)
    kind = _called(call.func)
    returns = {("grad", False): "the gradient alone (an array, or a tree like the argument's)",
               ("grad", True): "(gradient, aux): a pair",
               ("value_and_grad", False): "(value, gradient): a pair",
               ("value_and_grad", True): "((value, aux), gradient): a pair whose first is a "
                                         "pair"}[kind, has_aux]
    given = len(node.targets[0].elts)
    line = _returns_fix(node, kind, has_aux)
    if line is not None and kind == "grad":
        fix = "Ask value_and_grad for the value and the gradient together."
        rewrite = f"{line}    # (value, gradient)"
    elif line is not None:
        fix = "Unpack it as it comes: the value and aux in a pair of their own, then the gradient."
        rewrite = f"{line}    # ((value, aux), gradient)"
    else:
        fix = f"Unpack it as it comes: {returns.split(':')[0]}."
        rewrite = _pattern({"grad": "grads = jax.grad(f)(x)",
                            "value_and_grad": "loss, grads = jax.value_and_grad(f)(x)"}[kind]
                           if not has_aux else
                           {"grad": "grads, aux = jax.grad(f, has_aux=True)(x)",
                            "value_and_grad": "(loss, aux), grads = jax.value_and_grad(f, "
                                              "has_aux=True)(x)"}[kind])
    made = _call_text(call)
    return ErrorCard(
        "grad-unpacked", f"{made} returns {returns.split(':')[0].split(' (')[0]}, "
        f"not {given} values",
        why=(f"{made} returns {returns}; the line unpacked it into {given} names (Python "
             f"unpacks an array along its first axis, a tuple by its entries)."),
        fix=fix, rewrite=rewrite,
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.{kind}.html")


# ------------------------------------------------------------------ has_aux's pair as the gradient
_ARITHMETIC = re.compile(r"^(?:unsupported operand type\(s\) for .+|can't multiply sequence by "
                         r"non-int of type '\w+'|bad operand type for unary .+)$")


def _aux_binding(e):
    """(the name, its statement in the cell) where the user's line computes
    with a name its cell bound, on an earlier line, to what grad or value_and_grad returned
    with has_aux=True: a pair (gradient and aux, or value-and-aux and gradient), used as the
    gradient alone; None otherwise."""
    if not (isinstance(e, TypeError) and _ARITHMETIC.match(str(e))):
        return None
    where, _ = _user_lines(e)
    line, frame = _parse_line(where), _user_frame(e)
    used = {n.id for n in ast.walk(line) if isinstance(n, ast.Name)} \
        if line is not None and frame is not None else set()
    found = None
    for name in used:
        node = _bound_above(where, name)
        if node is not None and _called(node.value.func) in _RETURNS and \
                with_aux(node.value.func):
            value = _named_value(frame, name)
            if isinstance(value, tuple) and len(value) == 2 and \
                    (found is None or node.lineno > found[1].lineno):
                found = (name, node)
    return found


def _misbound_used(e):
    """misbound_gradient's answer for a name the user's line computes with (Python refused
    the arithmetic: the aux a dict, the value and the aux a pair), or None."""
    if not (isinstance(e, TypeError) and _ARITHMETIC.match(str(e))):
        return None
    return misbound_on_line(_user_lines(e)[0])


def misbound_on_line(where) -> tuple | None:
    """misbound_gradient's answer for the first name of the user's line it has one for."""
    line = _parse_line(where)
    for node in ast.walk(line) if line is not None else ():
        found = misbound_gradient(where, node.id) if isinstance(node, ast.Name) else None
        if found is not None:
            return found
    return None


def _is_aux_pair_used(e) -> bool:
    return _aux_binding(e) is not None or _misbound_used(e) is not None


def _aux_pair_card(exc, where, called_from) -> ErrorCard:
    if _aux_binding(exc) is None:           # unpacked, in another order than it comes
        title, why, fix, rewrite = _misbound_used(exc)
        return ErrorCard("grad-order", title, why=why.strip(), fix=fix, rewrite=rewrite,
                         docs="https://docs.jax.dev/en/latest/_autosummary/jax.grad.html")
    name, node = _aux_binding(exc)
    call = node.value
    kind = _called(call.func)
    fixed = _copied(node)
    store = ast.Store()
    if kind == "grad":
        fixed.targets = [ast.Tuple([ast.Name(name, store), ast.Name(unused("aux", node), store)],
                                   store)]
        pair = "(gradient, aux)"
    else:
        fixed.targets = [ast.Tuple([ast.Tuple([ast.Name(unused("loss", node), store),
                                               ast.Name(unused("aux", node), store)],
                                              store), ast.Name(name, store)], store)]
        pair = "((value, aux), gradient)"
    return ErrorCard(
        "aux-pair", f"{name} holds {pair}: {_call_text(call)} returns a pair",
        why=(f"With has_aux=True, {kind} returns {pair}; line {node.lineno} bound the whole "
             f"pair to {name}, and this line computes with it as the gradient alone."),
        fix=f"Unpack the pair where it is made, so that {name} is the gradient.",
        rewrite=(f"{ast.unparse(fixed)}    # line {node.lineno}: {name} the gradient\n"
                 f"{where['code']}"),
        docs=f"https://docs.jax.dev/en/latest/_autosummary/jax.{kind}.html")


# ------------------------------------------------------------------ unpacked in another order
# what grad and value_and_grad return: the targets unpacking it in its order
_ORDER = {("grad", True): "{gradient}, {aux}",
          ("value_and_grad", False): "{value}, {gradient}",
          ("value_and_grad", True): "({value}, {aux}), {gradient}"}
# each part's place in it
_PLACES = {("grad", True): {(0,): "gradient", (1,): "aux"},
           ("value_and_grad", False): {(0,): "value", (1,): "gradient"},
           ("value_and_grad", True): {(0, 0): "value", (0, 1): "aux", (1,): "gradient"}}


def _places(target, at=()) -> dict | None:
    """{name: its place} in an unpacking's target (`(l, g), a`: {'l': (0, 0), 'g': (0, 1),
    'a': (1,)}); None where it holds other than names and tuples (a starred name, an index).

        >>> _places(ast.parse("(l, g), a = f()").body[0].targets[0])
        {'l': (0, 0), 'g': (0, 1), 'a': (1,)}
    """
    if isinstance(target, ast.Name):
        return {target.id: at}
    if not isinstance(target, (ast.Tuple, ast.List)):
        return None
    found = {}
    for i, part in enumerate(target.elts):
        inner = _places(part, at + (i,))
        if inner is None:
            return None
        found.update(inner)
    return found


def _held(place, parts) -> str:
    """What the name at `place` holds of the parts: one part, or a pair of them."""
    if place in parts:
        return f"the {parts[place]}"
    inside = [what for at, what in parts.items() if at[:len(place)] == place]
    return f"the ({', '.join(inside)}) pair" if inside else "no part of it"


def misbound_gradient(where, name) -> tuple | None:
    """(a title, why, fix, the rewrite) where the user's cell unpacked what grad or
    value_and_grad returned (with has_aux=True, or value_and_grad's pair) above `where`'s line
    in another order than it comes, `name` bound to another part than the gradient (`(loss,
    grads), aux = jax.value_and_grad(f, has_aux=True)(x)`: grads holds the aux), or to all of
    it; None otherwise. The names are written back in its order, the others where they stand,
    `_` for a part none held (all of it bound to `name`: the parts named)."""
    bound = _bound_above(where, name, unpacked=True)
    call = bound.value if bound is not None else None
    kind = (_called(call.func), with_aux(call.func)) \
        if call is not None and isinstance(call.func, ast.Call) else None
    places = _places(bound.targets[0]) if kind in _ORDER else None
    if places is None or name not in places:
        return None
    parts = _PLACES[kind]
    gradient = next(at for at, what in parts.items() if what == "gradient")
    if places[name][:len(gradient)] == gradient:        # bound where the gradient is
        return None
    others = [n for n in places if n != name]
    rest = [what for what in parts.values() if what != "gradient"]
    if len(others) > len(rest):
        return None
    whole = isinstance(bound.targets[0], ast.Name)      # all of it bound to one name
    others = [unused({"value": "loss"}.get(what, what), bound) for what in rest] if whole \
        else ["_"] * (len(rest) - len(others)) + others     # a part no name held: `_`
    targets = _ORDER[kind].format(gradient=name, **dict(zip(rest, others)))
    made = _call_text(call)
    holder = next((n for n, at in places.items() if parts.get(at) == "gradient"), None)
    returns = _ORDER[kind].format(value="value", aux="aux", gradient="gradient")
    written = ast.unparse(bound.targets[0])
    if isinstance(bound.targets[0], ast.Tuple):         # as written: `(l, g), a`, no parentheses
        written = written[1:-1]
    held = f"all of it, ({returns})" if whole else _held(places[name], parts)
    title = f"{name} holds {held}: {made} returns ({returns})"
    why = (f" {name} was {'bound' if whole else 'unpacked'} on line {bound.lineno} "
           f"({written} = ...), and {made} "
           f"returns ({returns}): so {name} holds {held}"
           + (f", and {holder} the gradient" if holder else "") + ".")
    fix = (f"Unpack it in the order it comes ({targets} = ...), so that {name} is the "
           f"gradient; the line then runs as written.")
    fixed = _copied(bound)
    fixed.targets = [ast.parse(f"{targets} = 0").body[0].targets[0]]
    rewrite = f"{ast.unparse(fixed)}    # line {bound.lineno}: {name} the gradient\n{where['code']}"
    return title, why, fix, rewrite
