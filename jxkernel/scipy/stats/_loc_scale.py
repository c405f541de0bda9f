"""What the location-scale distributions share: arguments promoted and standardized (or,
for the discrete ones, shifted), a positive scale, and the survival functions of the
symmetric ones by reflection.

    >>> x, z, scale = standardized("norm.cdf", 3.0, 1.0, 2.0)
    >>> z
    Array(1., dtype=float32, weak_type=True)
"""
from ... import lax
from ...numpy.ufuncs import _const
from ...numpy.util import promote_args_inexact


def standardized(name: str, x, loc, scale):
    """(x, z, scale): x, loc and scale promoted together (errors say `name`), and
    z = (x - loc) / scale."""
    x, loc, scale = promote_args_inexact(name, x, loc, scale)
    return x, lax.div(lax.sub(x, loc), scale), scale


def shifted(name: str, k, p, loc):
    """(k - loc, p, 0, 1): k, the parameter p and loc promoted together (errors say `name`),
    and the constants 0 and 1 of their type."""
    k, p, loc = promote_args_inexact(name, k, p, loc)
    return lax.sub(k, loc), p, _const(k, 0), _const(k, 1)


def positive(scale):
    """scale > 0, where a distribution is defined (NaN elsewhere)."""
    return lax.gt(scale, _const(scale, 0))


def reflected(name: str, fn, doc: str):
    """`name` (an sf or logsf) of a distribution symmetric about loc, from its cdf or
    logcdf `fn`: P(X > x) is P(X' <= -x) for X' = -X, which has location -loc."""
    def survival(x, loc=0, scale=1):
        x, loc, scale = promote_args_inexact(name, x, loc, scale)
        return fn(-x, -loc, scale)
    survival.__name__ = survival.__qualname__ = name.rpartition(".")[2]
    survival.__doc__ = doc
    return survival
