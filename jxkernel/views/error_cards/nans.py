"""The debug-nans card: jax_debug_nans (or jax_debug_infs) raised FloatingPointError at the
operation that made a NaN, `invalid value (nan) encountered in log`, after jit's
de-optimized rerun. JAX's message names the primitive and its traceback the learner's line;
what neither says is which values made it. The core attaches the operation's operands and
results (`invalid_operation`, xla/dispatch.py's check_values), and the card says: the first
element that is NaN, the inputs there (named as the learner's line writes them, where the
line has that one operation), and why that input has no answer (log of a negative number,
0 / 0), with the guard that keeps such inputs out (the inner jnp.where keeps grad clean too).
"""
from __future__ import annotations

import ast

import numpy as np

from ...core.source_info import JaxStackTraceBeforeTransformation
from .card import ErrorCard
from .rewrites import _called, _operand, _parse_line, _pattern, _replaced, _whole_statement

# how the learner's line writes each primitive: a call's last name, or an operator
_WRITTEN = {
    "log": ({"log"}, None), "log1p": ({"log1p"}, None), "sqrt": ({"sqrt"}, None),
    "rsqrt": ({"rsqrt"}, None), "exp": ({"exp"}, None),
    "pow": ({"power", "pow", "float_power"}, ast.Pow),
    "div": ({"divide", "true_divide", "div"}, ast.Div),
    "rem": ({"remainder", "mod", "fmod", "rem"}, ast.Mod),
    "mul": ({"multiply", "mul"}, ast.Mult), "add": ({"add"}, ast.Add),
    "sub": ({"subtract", "sub"}, ast.Sub),
    "asin": ({"arcsin", "asin"}, None), "acos": ({"arccos", "acos"}, None),
    "atanh": ({"arctanh", "atanh"}, None), "acosh": ({"arccosh", "acosh"}, None),
}
# a one-operand function's domain: (the test an input in it passes, the input's words, the
# guard's test, the safe value put in where that fails: inside the domain, where the
# derivative is finite, so that grad through the guard has no NaN either)
_DOMAINS = {
    "log": (lambda a: a >= 0, "a negative number", "{e} > 0", "1.0"),
    "log1p": (lambda a: a >= -1, "a number below -1", "{e} > -1", "0.0"),
    "sqrt": (lambda a: a >= 0, "a negative number", "{e} >= 0", "1.0"),
    "rsqrt": (lambda a: a >= 0, "a negative number", "{e} > 0", "1.0"),
    "asin": (lambda a: abs(a) <= 1, "a number outside [-1, 1]", "jnp.abs({e}) <= 1", "0.0"),
    "acos": (lambda a: abs(a) <= 1, "a number outside [-1, 1]", "jnp.abs({e}) <= 1", "0.0"),
    "atanh": (lambda a: abs(a) <= 1, "a number outside [-1, 1]", "jnp.abs({e}) < 1", "0.0"),
    "acosh": (lambda a: a >= 1, "a number below 1", "{e} >= 1", "2.0"),
}


def _is_debug_nans(e) -> bool:
    return isinstance(e, FloatingPointError) and \
        isinstance(getattr(e, "invalid_operation", None), dict)


def _debug_nans_card(exc, where, called_from) -> ErrorCard:
    seen = exc.invalid_operation
    prim, kind = seen["primitive"], seen["kind"]
    index, total, bad, inputs = _first_invalid(seen)
    function, exprs = _written_operands(where, prim, len(inputs))
    named = [f"{e} = {_number(v)}" if e else _number(v) for e, v in zip(exprs, inputs)]
    at = "" if index is None else f" at index {index} ({bad} of its {total} elements " \
                                  f"{'is' if bad == 1 else 'are'} {kind})"
    given = f"{prim} gave {kind}{at}, given {' and '.join(named)}" if named else \
        f"{prim} gave {kind}{at}"
    reason = _reason(prim, kind, inputs)
    written = function is not None or any(exprs)
    # raised running a staged equation (grad's backward pass): JAX's cause names the line
    transformed = isinstance(exc.__cause__, JaxStackTraceBeforeTransformation)
    inside = "" if written or where is None else (
        f" The line writes no {prim}: JAX ran a transformed form of it (under jax.grad, its "
        f"derivative), or a function it calls runs {prim} inside." if transformed else
        f" The line writes no {prim}: a function it calls runs it inside.")
    return ErrorCard(
        "debug-nans", f"{prim} made a {kind}" + (f": {reason}" if reason else ""),
        why=(f"With jax_debug_{kind}s on, JAX checks each operation's result (a jit's, by "
             f"running it again one operation at a time) and raises at the first that makes "
             f"a {kind}: {given}." + (f" That is {reason}." if reason else "") + inside),
        fix=("Find why the input has that value there (print it outside jit, or "
             "jax.debug.print inside). Where such inputs are expected, give the operation a "
             "safe input with jnp.where, under the condition that picks its result: an "
             "outer jnp.where alone still computes the operation (and its derivative) "
             "for every element."),
        rewrite=_where_guarded(where, prim if written else None) or
        _guard(prim, function, exprs),
        docs="https://docs.jax.dev/en/latest/debugging/flags.html")


def _first_invalid(seen) -> tuple:
    """(the index of the first NaN/inf result element, or None for a scalar; how many
    elements the result has; how many are invalid; each operand's value there, or () where
    the operands do not broadcast to the result)."""
    result = next((r for r in seen["results"] if r is not None and r.dtype.kind in "fc" and
                   _invalid(r, seen["kind"]).any()), None)
    if result is None:
        return None, 0, 0, ()
    bad = _invalid(result, seen["kind"])
    where = tuple(int(i) for i in np.argwhere(bad)[0]) if result.ndim else ()
    try:
        inputs = tuple(np.broadcast_to(a, result.shape)[where].item()
                       for a in seen["operands"])
    except (TypeError, ValueError, AttributeError):   # (a None, or another shape)
        inputs = ()
    index = None if not result.ndim else (where if len(where) > 1 else where[0])
    return index, result.size, int(bad.sum()), inputs


def _invalid(values, kind):
    return np.isnan(values) if kind == "nan" else np.isinf(values)


def _number(v) -> str:
    return repr(v) if not isinstance(v, float) or np.isfinite(v) else \
        ("nan" if np.isnan(v) else ("inf" if v > 0 else "-inf"))


def _reason(prim, kind, inputs) -> str | None:
    """Why these inputs make the NaN (or inf), checked on the values; None where no rule
    says (the caller then gives the values alone)."""
    if not inputs or any(isinstance(v, complex) for v in inputs):
        return None
    if kind == "nan" and any(np.isnan(v) for v in inputs):
        return "its input was NaN already (from outside: an argument, a constant, data read in)"
    if kind == "inf":
        if prim == "log" and inputs[0] == 0:
            return "the log of 0, -inf"
        if prim == "div" and len(inputs) == 2 and inputs[1] == 0:
            return "a division by 0"
        return None
    if prim in _DOMAINS and not _DOMAINS[prim][0](inputs[0]):
        return f"{prim} of {_DOMAINS[prim][1]}"
    if len(inputs) != 2:
        return None
    a, b = inputs
    infinite = np.isinf(a) and np.isinf(b)
    rules = {"div": (a == 0 and b == 0, "0 / 0") if not infinite else (True, "inf / inf"),
             "mul": ((a == 0 and np.isinf(b)) or (b == 0 and np.isinf(a)), "0 * inf"),
             "add": (infinite and (a > 0) != (b > 0), "inf + (-inf)"),
             "sub": (infinite and (a > 0) == (b > 0), "inf - inf"),
             "rem": (b == 0, "a remainder of a division by 0"),
             "pow": (a < 0 and not float(b).is_integer(), "a negative number to a fractional "
                                                           "power")}
    holds, words = rules.get(prim, (False, None))
    return words if holds else None


def _written_operands(where, prim, count) -> tuple:
    """(the function as the learner's line calls it, `jnp.arcsin`, or None for an operator;
    its operands' expressions, `y` of `jnp.log(y)`, `a` and `b` of `a / b`) where the line
    has exactly one such operation; (None, Nones) otherwise, and a Python number's
    expression is None (its value says it)."""
    tree = _parse_line(_whole_statement(where)) if where else None
    names, op = _WRITTEN.get(prim, (set(), None))
    found = []
    for node in ast.walk(tree) if tree is not None else ():
        if _called(node) in names and len(node.args) == count and not node.keywords:
            found.append((ast.unparse(node.func), node.args))
        elif op is not None and isinstance(node, ast.BinOp) and isinstance(node.op, op) \
                and count == 2:
            found.append((None, [node.left, node.right]))
    if len(found) != 1:
        return None, [None] * count
    function, args = found[0]
    return function, [None if _is_number(n) else ast.unparse(n) for n in args]


def _is_number(node) -> bool:
    """Whether `node` is a number written out (`2.0`, `-1.0`)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex))


def _guard(prim, function, exprs) -> str:
    """The operation of the learner's line given a safe input where its own is out of the
    domain, its result picked by jnp.where (a pattern: `fallback` is the learner's choice);
    "" where there is no such guard."""
    if prim in _DOMAINS and function and exprs and exprs[0]:
        _, _, test, safe = _DOMAINS[prim]
        e = exprs[0]
        ok = test.format(e=_operand(ast.parse(e, mode="eval").body))
        return _pattern(f"ok = {ok}\nresult = jnp.where(ok, {function}(jnp.where(ok, {e}, "
                        f"{safe})), fallback)    # fallback: the value wanted where not ok")
    if prim == "div" and len(exprs) == 2 and all(exprs):
        a, b = exprs
        return _pattern(f"ok = {_operand(ast.parse(b, mode='eval').body)} != 0\n"
                        f"result = jnp.where(ok, {a} / jnp.where(ok, {b}, 1.0), fallback)"
                        f"    # fallback: the value wanted where not ok")
    return ""


def _where_guarded(where, prim) -> str | None:
    """The learner's line with the one domain function (of `prim`, or any where None) that a
    jnp.where branch computes given a safe input under that where's own condition:
    `jnp.where(x > 0, jnp.sqrt(x), 0.0)` as `jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x,
    1.0)), 0.0)`: the same values, and neither the function nor its derivative sees an
    input outside its domain. None where the line has no such where."""
    tree = _parse_line(_whole_statement(where)) if where else None
    found = []
    for node in ast.walk(tree) if tree is not None else ():
        if not (_called(node) == "where" and len(node.args) == 3 and not node.keywords):
            continue
        for k, branch in ((1, node.args[1]), (2, node.args[2])):
            found += [(node, k, call) for call in ast.walk(branch)
                      if isinstance(call, ast.Call) and len(call.args) == 1 and
                      not call.keywords and _primitive_of(call) in _DOMAINS and
                      (prim is None or _primitive_of(call) == prim)]
    if len(found) != 1:
        return None
    outer, k, call = found[0]
    safe = ast.parse(_DOMAINS[_primitive_of(call)][3], mode="eval").body
    picks = [outer.args[0], call.args[0], safe] if k == 1 else [outer.args[0], safe,
                                                                 call.args[0]]
    inner = ast.Call(outer.func, picks, [])
    guarded = ast.Call(call.func, [inner], [])
    return (f"{_replaced(tree, call, guarded)}    # the same values; {_primitive_of(call)} "
            f"(and grad's derivative of it) sees no input outside its domain")


def _primitive_of(call) -> str | None:
    """The primitive a call of the learner's line runs (`jnp.arcsin` -> asin), by its name."""
    name = _called(call)
    return next((p for p, (names, _) in _WRITTEN.items() if name in names), None)
