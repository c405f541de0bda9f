"""The branch or iteration of a `cond`, `scan` or `while` equation whose outputs first hold a
NaN, for the stepper's `first_nan()` to enter (views/stepper.py). The stepper runs these
equations whole; where one's outputs hold a NaN, the line that made it is inside its body
(a `jnp.where` in a scan's step, on a line of its own), and the NaN note under a cell names
that line only if the stepper goes in.

Each body is run again here with the reference interpreter, on the host's copies of the
operands: a cond's taken branch once; a scan's or a while's body iteration by iteration, in
the loop's own order, until one iteration's outputs hold a NaN.

    >>> from jxkernel import lax, make_jaxpr, numpy as jnp
    >>> body = lambda c, x: (c + jnp.log(x), None)
    >>> eqn = make_jaxpr(lambda xs: lax.scan(body, 0., xs))(jnp.ones(3)).eqns[0]
    >>> where, closed, operands = nan_step(eqn, [0., np.array([1., -1., 2.], np.float32)])
    >>> where
    'iteration 1'
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.interpret import eval_jaxpr

# the most iterations of a loop run again to find the one that made the NaN: past these,
# none is named (the NaN is told at the loop's own line)
ITERATIONS = 1000


def nan_step(eqn, operands):
    """(where: 'branch 1', 'iteration 3', the body as a ClosedJaxpr, its operands there) for
    the branch or the first iteration of `eqn` whose outputs hold a NaN, given the equation's
    operands; None for another primitive, or where no iteration within ITERATIONS makes one."""
    rule = _RULES.get(str(eqn.primitive))
    return None if rule is None else rule(eqn.params, [_host(x) for x in operands])


def _cond(params, operands):
    branches = params["branches"]
    # lax.cond clamps its index into range, as XLA's conditional does
    k = min(max(int(operands[0]), 0), len(branches) - 1)
    return f"branch {k}", branches[k], operands[1:]


def _scan(params, operands):
    body, length = params["jaxpr"], params["length"]
    consts_at, carry_at = params["num_consts"], params["num_consts"] + params["num_carry"]
    consts, carry, xs = operands[:consts_at], operands[consts_at:carry_at], operands[carry_at:]
    order = range(length - 1, -1, -1) if params["reverse"] else range(length)
    for t in list(order)[:ITERATIONS]:
        ins = [*consts, *carry, *(x[t] for x in xs)]
        outs = eval_jaxpr(body.jaxpr, body.consts, *ins)
        if _holds_nan(outs):
            return f"iteration {t}", body, ins
        carry = [_host(v) for v in outs[:params["num_carry"]]]
    return None


def _while(params, operands):
    cond, body = params["cond_jaxpr"], params["body_jaxpr"]
    cond_at, body_at = params["cond_nconsts"], params["cond_nconsts"] + params["body_nconsts"]
    cond_consts, body_consts, carry = operands[:cond_at], operands[cond_at:body_at], \
        operands[body_at:]
    for t in range(ITERATIONS):
        if not np.all(_host(eval_jaxpr(cond.jaxpr, cond.consts, *cond_consts, *carry)[0])):
            return None
        ins = [*body_consts, *carry]
        outs = eval_jaxpr(body.jaxpr, body.consts, *ins)
        if _holds_nan(outs):
            return f"iteration {t}", body, ins
        carry = [_host(v) for v in outs]
    return None


_RULES = {"cond": _cond, "scan": _scan, "while": _while}


def _host(x):
    """A value as a NumPy array (a Python scalar stays one: the body types it; a typed key
    array stays as it is: NumPy has no dtype for it)."""
    if isinstance(x, (bool, int, float, complex)) or dtypes.is_extended(getattr(x, "dtype", None)):
        return x
    return np.asarray(x)


def _holds_nan(values) -> bool:
    for v in map(_host, values):
        dtype = getattr(v, "dtype", None)
        if dtype is None:               # a Python scalar
            if isinstance(v, (float, complex)) and v != v:
                return True
        elif not dtypes.is_extended(dtype) and dtypes.is_inexact(dtype) and np.isnan(v).any():
            return True
    return False
