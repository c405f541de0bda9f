"""The card for a while_loop whose condition is one bool per element (`lambda c: c < 3` of a
vector carry): the loop runs as one, so its condition is one bool. The rewrite keeps each
element's own loop: jnp.any to go on while one element is not done, jnp.where so a finished
element stays as it is; or, for named functions, vmap of the loop (JAX's batching rule for
while_loop does the same); a tuple carry (jnp.where takes no tuple) steps whole while any
element's test holds. The same error of a fori_loop given a bound of shape (1,) (the loop
it runs as, `i < upper`): the bound squeezed, or one loop per element by vmap. And the card
for a condition that gives one number, not a bool
(`lambda c: c`, as Python's `while c:` reads): the rewrite says what Python means by it,
`c != 0`."""
from __future__ import annotations

import ast
import re

from .card import ErrorCard
from .rewrites import _first_call, _parse_line, _pattern, _replaced, _whole_statement

_PER_ELEMENT = re.compile(r"^cond_fun must return a boolean scalar, but got output type\(s\) "
                          r"\[ShapedArray\(bool\[([\d,]+)\]\)\]\.$")


_NOT_BOOL = re.compile(r"^cond_fun must return a boolean scalar, but got output type\(s\) "
                       r"\[ShapedArray\((\w+)\[\](?:, weak_type=True)?\)\]\.$")
# a condition's code that needs parentheses before `!= 0` (the rest binds tighter)
_LOOSE = (ast.BoolOp, ast.Compare, ast.IfExp, ast.Lambda, ast.NamedExpr)


def _is_while_not_bool(e) -> bool:
    return isinstance(e, TypeError) and _NOT_BOOL.match(str(e)) is not None


def _while_not_bool_card(exc, where, called_from) -> ErrorCard:
    dtype = _NOT_BOOL.match(str(exc)).group(1)
    return ErrorCard(
        "while-condition", f"while_loop's condition gave a {dtype} number, not a bool",
        why=(f"lax.while_loop runs its body while cond_fun returns True, and it takes only a "
             f"bool of shape (); this one returns a {dtype}[]. Python's `while c:` would read "
             f"a number as true when it is not zero; lax does not guess."),
        fix=("Compare to say when to go on: `c != 0` is what Python's `while c:` means; a "
             "test such as `c > tol` or `i < n` is usually what the loop is for."),
        rewrite=_not_bool_rewrite(where),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.while_loop.html")


def _not_bool_rewrite(where) -> str:
    tree = _parse_line(_whole_statement(where))
    call = _while_call(tree)
    if call is not None:
        cond = call.args[0]
        if isinstance(cond, ast.Lambda) and len(cond.args.args) == 1:
            test = ast.unparse(cond.body)
            test = f"({test})" if isinstance(cond.body, _LOOSE) else test
            fixed = f"lambda {cond.args.args[0].arg}: {test} != 0"
        elif not isinstance(cond, ast.Lambda):
            fixed = f"lambda c: {_called_on(cond, 'c')} != 0"
        else:
            fixed = None
        if fixed is not None:
            return f"{_replaced(tree, cond, fixed)}    # Python's `while c:` reads c != 0"
    # (names the learner's code may not have: a pattern, not code to paste)
    return _pattern("state = lax.while_loop(lambda c: c != 0, body, state)    "
                    "# or c > tol, i < n, ...")


def _while_call(tree):
    """The line's `lax.while_loop(cond, body, init)` call, or None."""
    return _first_call(tree, {"while_loop"}, 3)


def _is_while_per_element(e) -> bool:
    return isinstance(e, TypeError) and _PER_ELEMENT.match(str(e)) is not None


def _while_per_element_card(exc, where, called_from) -> ErrorCard:
    dims = _PER_ELEMENT.match(str(exc)).group(1).split(",")
    shape = f"({', '.join(dims)}{',' if len(dims) == 1 else ''})"
    where = _whole_statement(where)
    tree = _parse_line(where)
    fori = _fori_call(tree)
    if fori is not None:
        return _fori_bound_card(tree, fori, dims, shape)
    return ErrorCard(
        "while-per-element", "while_loop's condition gave one bool per element",
        why=(f"A while_loop runs its body for the whole carry until its condition is False, so "
             f"cond_fun returns one bool, of shape (); this one has shape {shape}."),
        fix=("To run each element until its own condition fails: go on while any element is "
             "not done (jnp.any), and leave finished elements as they are (jnp.where(cond, "
             "step, c) in the body); or vmap the loop over the elements, which does the same. "
             "For one decision for the whole carry, reduce the condition with jnp.all or "
             "jnp.any alone."),
        rewrite=_rewrite(where),
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.while_loop.html")


def _fori_call(tree):
    """The line's `lax.fori_loop(lower, upper, body, init)` where the line has no while_loop
    of its own: JAX's while_loop error is then fori_loop's, run as one (`i < upper`)."""
    if tree is None or _while_call(tree) is not None:
        return None
    return _first_call(tree, {"fori_loop"}, 4)


def _fori_bound_card(tree, call, dims, shape) -> ErrorCard:
    """fori_loop given a bound of shape (1,) or (3,) (`jnp.array([3])`): JAX says
    "cond_fun must return a boolean scalar", of the loop it runs fori_loop as, whose
    condition `i < upper` takes the bound's shape. One element: the bound made a scalar
    (jnp.squeeze); several: one loop per element, by vmap over the bound."""
    bounds = [b for b in call.args[:2] if not isinstance(b, ast.Constant)]
    one = all(d.strip() == "1" for d in dims)
    rewrite = _squeezed(tree, call, bounds) if one else _vmapped(tree, call, bounds)
    return ErrorCard(
        "while-per-element", f"fori_loop was given a bound of shape {shape}, not one number",
        why=(f"lax.fori_loop(lower, upper, body, init) runs as a while_loop whose condition is "
             f"i < upper: each bound must be one number, of shape (), and one here has shape "
             f"{shape}, so the condition is one bool per element (JAX's cond_fun is that "
             f"loop's)."),
        fix=("Give the bound as one number: " + (
            "jnp.squeeze(bound) (or bound[0]) of its one element." if one else
            "its element for one loop; for one loop per element, vmap over the bounds.")),
        rewrite=rewrite,
        docs="https://docs.jax.dev/en/latest/_autosummary/jax.lax.fori_loop.html")


def _squeezed(tree, call, bounds) -> str:
    """The line (`tree`, holding `call`) with each bound that is not a number literal as
    jnp.squeeze(bound)."""
    if not bounds:
        return _pattern("lax.fori_loop(0, jnp.squeeze(n), body, init)")
    loop = ast.parse(ast.unparse(call), mode="eval").body
    for bound in bounds:
        at = call.args.index(bound)
        loop.args[at] = ast.parse(f"jnp.squeeze({ast.unparse(bound)})", mode="eval").body
    return (f"{_replaced(tree, call, ast.unparse(loop))}    # one number: "
            f"fori_loop's bounds are scalars")


def _vmapped(tree, call, bounds) -> str:
    """One fori_loop per element of the one array bound, by vmap (JAX batches the loop's
    condition); a pattern where both bounds are arrays."""
    if len(bounds) != 1:
        return _pattern("lax.fori_loop(0, n[0], body, init)    # one loop: one number each")
    bound = ast.unparse(bounds[0])
    loop = ast.parse(ast.unparse(call), mode="eval").body
    loop.args[call.args.index(bounds[0])] = ast.Name("n_")
    fixed = f"jax.vmap(lambda n_: {ast.unparse(loop)})({bound})"
    return f"{_replaced(tree, call, fixed)}    # one loop per element of {bound}"


def _rewrite(where) -> str:
    tree = _parse_line(where)
    call = _while_call(tree)
    if call is not None:
        cond, body, init = call.args[:3]
        if all(isinstance(f, (ast.Name, ast.Attribute)) for f in (cond, body)) and \
                _one_array(body, init):
            fixed = (f"jax.vmap(lambda c: {ast.unparse(call.func)}({ast.unparse(cond)}, "
                     f"{ast.unparse(body)}, c))({ast.unparse(init)})")
            return f"{_replaced(tree, call, fixed)}    # one loop per element"
        test, step, name = _test_and_step(cond, body)
        if test is not None and _one_array(body, init):
            fixed = (f"{ast.unparse(call.func)}(lambda {name}: jnp.any({test}), "
                     f"lambda {name}: jnp.where({test}, {step}, {name}), {ast.unparse(init)})")
            return f"{_replaced(tree, call, fixed)}    # each element until its own test fails"
        if test is not None:
            # a tuple carry: jnp.where takes no tuple (JAX's TypeError), and a leaf of another
            # shape than the test's would change shape; the whole carry steps together
            fixed = (f"{ast.unparse(call.func)}(lambda {name}: jnp.any({test}), "
                     f"{ast.unparse(body)}, {ast.unparse(init)})")
            return (f"{_replaced(tree, call, fixed)}    # the whole carry steps while any "
                    f"element's test holds (jnp.all: while every one does)")
    # (names the learner's code may not have: a pattern, not code to paste)
    return _pattern("state = lax.while_loop(lambda c: jnp.any(test(c)), "
                    "lambda c: jnp.where(test(c), step(c), c), state)")


def _test_and_step(cond, body):
    """The condition's and the body's code on one parameter name, each a one-argument lambda
    or another function (`not_done`, `partial(below, 5.0)`: called on it): (test, step,
    name), or Nones where a lambda takes other than one parameter or the two lambdas name
    theirs differently."""
    lambdas = [f for f in (cond, body) if isinstance(f, ast.Lambda)]
    if any(len(f.args.args) != 1 or f.args.vararg for f in lambdas):
        return None, None, None
    names = {f.args.args[0].arg for f in lambdas}
    if len(names) > 1:
        return None, None, None
    name = names.pop() if names else "c"
    return _called_on(cond, name), _called_on(body, name), name


def _called_on(f, name) -> str:
    """The code of function `f` applied to `name`: a lambda's body, else a call of it.

        >>> _called_on(ast.parse("partial(below, 5.0)", mode="eval").body, "c")
        'partial(below, 5.0)(c)'
    """
    if isinstance(f, ast.Lambda):
        return ast.unparse(f.body)
    code = ast.unparse(f)
    simple = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)
    return f"{code}({name})" if isinstance(f, simple) else f"({code})({name})"


def _one_array(body, init) -> bool:
    """Whether the carry is one array as far as the line shows: the start not written as a
    tuple, list or dict, nor the body a lambda building one (a named function's return, a
    name's value are not read: taken as one array)."""
    built = (ast.Tuple, ast.List, ast.Dict)
    return not isinstance(init, built) and not (isinstance(body, ast.Lambda) and
                                                isinstance(body.body, built))
