"""XLA's division rewrites, made on a jaxpr before the NumPy backend runs it.

XLA's algebraic simplifier rewrites a float division by what produced its divisor before its
CPU code runs (measured on the optimized HLO, float32 and float64, at either optimization
level): A / exp(B) is A * exp(-B), A / sqrt(B) is A * rsqrt(B), A / rsqrt(B) is A * sqrt(B),
A / pow(B, C) is A * pow(B, -C), A / (B / C) is (A * C) / B, (A / B) / C is A / (B * C), a
division by a constant a product with its reciprocal, and one of constants is folded (an
exact division). Each rounds differently from the division, and a loop or a series carries
the difference on. `simplify_divisions` makes the same rewrites, in the jaxprs a jaxpr holds
too, so the NumPy rules compute what XLA computes. (A / Broadcast(B), which needs to know how a
value is laid out, is the div rule's own: lax/elementwise.py.)

    >>> import jxkernel, jxkernel.numpy as jnp
    >>> closed = jxkernel.make_jaxpr(lambda a, b: a / jnp.exp(b))(1.0, 2.0)
    >>> [e.primitive.name for e in simplify_divisions(closed.jaxpr).eqns]   # (exp(b) unread)
    ['exp', 'neg', 'exp', 'mul']
"""
from __future__ import annotations

import numpy as np

from .avals import ShapedArray
from .ir import ClosedJaxpr, DropVar, Eqn, Jaxpr, Literal, Var, rewrite_param_jaxprs
from .primitive import all_primitives, numpy_rules

_FLOATS = frozenset(map(np.dtype, ("float32", "float64")))
_INVERSE = {"sqrt": "rsqrt", "rsqrt": "sqrt"}      # A / f(B) is A * inverse-f(B)


def simplify_divisions(jaxpr: Jaxpr, _done=None) -> Jaxpr:
    """`jaxpr` with XLA's division rewrites made (the module docstring); the jaxprs its
    equations hold (jit, while, cond, scan bodies) rewritten alike."""
    done = {} if _done is None else _done
    made, eqns = {}, []                       # var -> the equation that now makes it
    constant = set()                          # values made of literals alone: XLA folds them
    for eqn in jaxpr.eqns:
        eqn = _with_nested(eqn, done)
        for new in _rewritten(eqn, made, constant) or [eqn]:
            eqns.append(new)
            made.update((v, new) for v in new.outvars)
            if not new.effects and new.primitive.name != "iota" and \
                    all(type(v) is Literal or v in constant for v in new.invars):
                constant.update(new.outvars)        # (XLA's folding leaves iota be)
    return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns)


def inline_calls(jaxpr: Jaxpr) -> Jaxpr:
    """`jaxpr` with the calls whose NumPy rule just runs a body (jit, custom_jvp_call's primal,
    remat, ...: `numpy_eval.call_rule`'s, body without consts) replaced by the body's
    equations, on fresh variables, as XLA's compiler inlines its calls before it simplifies or
    runs: a rewrite or a subnormal's path (xla/numpy_backend.py) then sees across them.

        >>> import jxkernel, jxkernel.numpy as jnp
        >>> f = jxkernel.jit(lambda x: jnp.sin(x) * 2)
        >>> closed = jxkernel.make_jaxpr(lambda x: f(x) + 1)(1.0)
        >>> [e.primitive.name for e in inline_calls(closed.jaxpr).eqns]
        ['sin', 'mul', 'add']
    """
    eqns, sub = [], {}
    atom = lambda v: v if type(v) is Literal else sub.get(v, v)
    for eqn in jaxpr.eqns:
        param = getattr(numpy_rules.get(eqn.primitive), "calls", None)
        body = eqn.params.get(param) if param is not None else None
        if not isinstance(body, ClosedJaxpr) or len(body.consts) or body.jaxpr.constvars:
            invars = [atom(v) for v in eqn.invars]
            eqns.append(eqn if invars == eqn.invars else eqn.replace(invars=invars))
            continue
        inner = inline_calls(body.jaxpr)
        fresh = dict(zip(inner.invars, map(atom, eqn.invars)))
        for e in inner.eqns:
            new = [v if type(v) is DropVar else Var(v.aval) for v in e.outvars]
            fresh.update(zip(e.outvars, new))
            eqns.append(e.replace(invars=[v if type(v) is Literal else fresh[v]
                                          for v in e.invars], outvars=new))
        for out, v in zip(eqn.outvars, inner.outvars):
            sub[out] = v if type(v) is Literal else fresh[v]
    return Jaxpr(jaxpr.constvars, jaxpr.invars, [atom(v) for v in jaxpr.outvars], eqns)


def _with_nested(eqn: Eqn, done: dict) -> Eqn:
    """`eqn` with the jaxprs in its params rewritten (each once: bodies are shared)."""
    params = {k: rewrite_param_jaxprs(v, simplify_divisions, done)
              for k, v in eqn.params.items()}
    if all(params[k] is eqn.params[k] for k in params):
        return eqn
    return eqn.replace(params=params)


def _rewritten(eqn: Eqn, made: dict, constant: set) -> list | None:
    """The equations XLA computes a float division `eqn` with, or None to keep it. A division
    of constants is folded (divided exactly); one by a constant is a product with its
    reciprocal."""
    if eqn.primitive.name == "mul" and eqn.outvars[0].aval.dtype in _FLOATS:
        return _scalars_first(eqn, made, constant)
    if eqn.primitive.name != "div" or eqn.outvars[0].aval.dtype not in _FLOATS:
        return None
    (a, b), out = eqn.invars, eqn.outvars[0]
    fixed = lambda v: type(v) is Literal or v in constant
    if fixed(a):
        return None
    if fixed(b):                                              # A * (1 / constant)
        one = Literal(b.aval.dtype.type(1), ShapedArray((), b.aval.dtype))
        inverse = _eqn("div", [one, b])
        product = _eqn("mul", [a, inverse.outvars[0]], out=out)     # (a product as any other)
        scaled = _scalars_first(product, made, constant | {inverse.outvars[0]})
        return [inverse, *(scaled or [product])]
    divisor = made.get(b) if type(b) is Var else None
    dividend = made.get(a) if type(a) is Var else None
    name = divisor.primitive.name if divisor is not None else None
    if name == "exp":                                         # A * exp(-B)
        minus = _eqn("neg", [divisor.invars[0]])
        power = _eqn("exp", [minus.outvars[0]], divisor.params)
        return [minus, power, _eqn("mul", [a, power.outvars[0]], out=out)]
    if name in _INVERSE:                                      # A * rsqrt(B), A * sqrt(B)
        inverse = _eqn(_INVERSE[name], [divisor.invars[0]], divisor.params)
        return [inverse, _eqn("mul", [a, inverse.outvars[0]], out=out)]
    if name == "pow":                                         # A * pow(B, -C)
        minus = _eqn("neg", [divisor.invars[1]])
        power = _eqn("pow", [divisor.invars[0], minus.outvars[0]], divisor.params)
        return [minus, power, _eqn("mul", [a, power.outvars[0]], out=out)]
    if name == "div":                                         # (A * C) / B
        product = _eqn("mul", [a, divisor.invars[1]])
        return [product, _eqn("div", [product.outvars[0], divisor.invars[0]], out=out)]
    if dividend is not None and dividend.primitive.name == "div":     # A / (B * C)
        product = _eqn("mul", [dividend.invars[1], b])
        return [product, _eqn("div", [dividend.invars[0], product.outvars[0]], out=out)]
    return None


def _scalars_first(eqn: Eqn, made: dict, constant: set) -> list | None:
    """XLA's S * (W * K), S a scalar (broadcast) and K a constant one: W * (S * K), the
    scalars multiplied first, where W is an array or S a constant too (measured: linspace's
    stop * (iota / n) is iota * (stop * (1 / n)) there, geomspace's (log(b) * log10(e)) * (1 /
    n) log(b) * (log10(e) / n)); looked for through a reshape of a one-element W * K. Not
    where K is not constant (d * (x * e) stays), nor for K * (W * S)."""
    scalar = lambda v: all(d == 1 for d in v.aval.shape)
    fixed = lambda v: type(v) is Literal or v in constant
    for s, y in (eqn.invars, eqn.invars[::-1]):
        inner = made.get(y) if type(y) is Var and scalar(s) else None
        shaped = None
        if inner is not None and inner.primitive.name == "reshape" and scalar(inner.invars[0]):
            shaped, inner = inner, made.get(inner.invars[0]) if type(inner.invars[0]) is Var \
                else None
        if inner is None or inner.primitive.name != "mul":
            continue
        for w, k in (inner.invars, inner.invars[::-1]):
            # (W made of constants counts: XLA's simplifier rewrites before it folds them)
            if not (scalar(k) and fixed(k)) or type(w) is Literal or \
                    (scalar(w) and not fixed(s)) or \
                    w.aval.shape != inner.outvars[0].aval.shape:
                continue
            new = []
            if shaped is not None:        # W reshaped as W * K was
                new.append(shaped.replace(invars=[w], outvars=[Var(shaped.outvars[0].aval)]))
                w = new[-1].outvars[0]
            both = _eqn("mul", [s, k])              # (itself such a product, maybe)
            new += _scalars_first(both, made, constant) or [both]
            return [*new, _eqn("mul", [w, both.outvars[0]], out=eqn.outvars[0])]
    return None


def _eqn(name: str, invars: list, params=None, out=None) -> Eqn:
    """An equation of the primitive `name` (lax's, looked up: core does not import lax) on
    `invars`, the result shaped as their broadcast."""
    if out is None:
        shape = np.broadcast_shapes(*(v.aval.shape for v in invars))
        dtype = next(v.aval.dtype for v in invars if v.aval.dtype in _FLOATS)
        out = Var(ShapedArray(shape, dtype))
    return Eqn(invars, [out], all_primitives[name], dict(params or {}))
