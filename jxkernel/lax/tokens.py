"""XLA tokens: create_token and after_all (JAX's lax.create_token, lax.after_all).

    >>> jax.make_jaxpr(lambda: lax.after_all(lax.create_token(), lax.create_token()))()
    { lambda ; . let
        a:Tok = create_token 
        b:Tok = create_token 
        c:Tok = after_all a b
      in (c,) }

A token has no data; it orders side effects that take and give one (XLA's send/recv, infeed,
outfeed). A compiled program takes and returns tokens as `!stablehlo.token` values; outside
one a token is a `Token` holding an empty bool array, as JAX's.
"""
from __future__ import annotations

import numpy as np

from ..core.avals import Token, abstract_token
from ..core.primitive import Primitive, abstract_eval_rules, lowering_rules, numpy_rules
from ..core.trace import Tracer

create_token_p = Primitive("create_token")
after_all_p = Primitive("after_all")


def create_token(_=None):
    """A token with no preconditions for sequencing effects (experimental, as JAX's). The
    argument is ignored: it exists for backward compatibility. Traced, it is a tracer of the
    token type (`Tok` in a jaxpr), as JAX's."""
    return as_token(create_token_p.bind())


def after_all(*operands):
    """A token after all the token `operands` (XLA's AfterAll; experimental, as JAX's)."""
    return as_token(after_all_p.bind(*[t._buf if type(t) is Token else t for t in operands]))


def as_token(x):
    """A value of the token type as JAX gives it: a Token around its carrier (an Array of the
    token type), a tracer as it is. A Token is a pytree leaf, as JAX's: jit takes its carrier
    (transforms/jit/args.token_carriers) and wraps a token result again (api_util's
    tokens_outside, as JAX's result handler does)."""
    return x if isinstance(x, Tracer) else Token(x)


def eager_tokens(outs) -> list:
    """A control-flow primitive's results (cond's, scan's, while's, checkpoint's) as JAX's
    result handlers give them: a token's carrier (an Array of the token type, what an eager
    bind returns) as a Token; tracers and arrays as they are.

    >>> lax.cond(True, lambda x: (lax.create_token(), x), lambda x: (lax.create_token(), x),
    ...          1.0)[0]                                          # doctest: +ELLIPSIS
    <...Token object at ...>
    """
    return [Token(o) if getattr(o, "aval", None) is abstract_token and
            not isinstance(o, (Token, Tracer)) else o for o in outs]


def _after_all_abstract_eval(*avals):
    if any(a is not abstract_token for a in avals):
        raise TypeError("Arguments to after_all must be tokens")
    return abstract_token


abstract_eval_rules[create_token_p] = lambda *_: abstract_token
abstract_eval_rules[after_all_p] = _after_all_abstract_eval
lowering_rules[create_token_p] = lambda ctx, *_: ctx.op1("stablehlo.create_token", [])
lowering_rules[after_all_p] = lambda ctx, *tokens: ctx.op1("stablehlo.after_all", list(tokens))
# the NumPy backend's token: the empty bool array a compiled program's token travels as
numpy_rules[create_token_p] = lambda *_: np.zeros((0,), np.bool_)
numpy_rules[after_all_p] = lambda *tokens: np.zeros((0,), np.bool_)
