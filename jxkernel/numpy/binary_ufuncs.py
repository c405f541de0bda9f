"""jnp.add, jnp.multiply, ... as JAX 0.10.2 has them: `jnp.ufunc` objects (with `nin`,
`identity`, `reduce`, `accumulate`, `at`, `reduceat`, `outer`) whose call is the elementwise
function of jxkernel.numpy.ufuncs; and jnp.negative, JAX's one unary ufunc object (only
`at` of the methods: the others are for binary ufuncs).

    >>> jnp.add.reduce(jnp.arange(4)), jnp.multiply.accumulate(jnp.arange(1, 4))
    (Array(6, dtype=int32), Array([1, 2, 6], dtype=int32))

As in JAX, the methods use the matching reductions where there is one (`add.reduce` is
`sum`, `multiply.accumulate` is `cumprod`, `add.at` is `x.at[i].add`); the others loop
over the axis with the ufunc (ufunc_api). jxkernel's own code calls the plain functions in
ufuncs.py (the operators of arrays too): only the public names are these objects.
"""
import numpy as np

from .. import lax
from ..transforms.jit.namesakes import runs_jitted
from . import reductions, ufuncs
from .manipulation import expand_dims
from .reductions import max as max_, sum as sum_
from .ufuncs import exp, log
from .ufunc_api import ufunc
from .util import check_arraylike, passing_text

__all__ = ["add", "multiply", "subtract", "minimum", "maximum", "bitwise_and", "bitwise_or",
           "bitwise_xor", "logical_and", "logical_or", "logical_xor", "logaddexp", "logaddexp2",
           "negative"]


def _with_dtype(reduction):
    """A reduction without a `dtype` argument (min, max) given one: the input cast first."""
    def reduce(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        if dtype is not None:
            a = reductions.ensure_array(a).astype(dtype)
        return reduction(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    return reduce


def _bool_at(method):
    """`x.at[i].add` / `.mul` (as JAX: bools go through int32 and back)."""
    def at(a, indices, b):
        a = reductions.ensure_array(a)
        if a.dtype == np.bool_:
            b = reductions.ensure_array(b).astype(np.bool_).astype(np.int32)
            return getattr(a.astype(np.int32).at[indices], method)(b).astype(np.bool_)
        return getattr(a.at[indices], method)(b)
    return at


def _logsumexp(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
    """logaddexp.reduce as JAX computes it: log(sum(exp(a - max))) + max (the max of the
    finite maxima, 0 elsewhere, without a derivative); `dtype` is not used, as in JAX."""
    a = reductions.ensure_array(a)
    a, = reductions.util.promote_dtypes_inexact(a)
    dims = tuple(range(a.ndim)) if axis is None else \
        tuple(reductions.canonicalize_axis(d, a.ndim)
              for d in (axis if isinstance(axis, tuple) else (axis,)))
    amax = max_(a.real, axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = lax.stop_gradient(lax.select(lax.is_finite(amax), amax, lax.full_like(amax, 0)))
    amax_dims = amax if keepdims else expand_dims(amax, dims)
    sumexp = sum_(exp(lax.sub(a, amax_dims.astype(a.dtype))), axis=dims, keepdims=keepdims,
                  where=where)
    result = lax.add(log(sumexp), amax.astype(sumexp.dtype))
    return result if initial is None else ufuncs.logaddexp(initial, result)


def _logsumexp2(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
    """logaddexp2.reduce: logsumexp of a * ln 2, over ln 2 (JAX's)."""
    ln2 = float(np.log(2))
    if initial is not None:
        initial = initial * ln2
    return ufuncs.true_divide(_logsumexp(ufuncs.multiply(reductions.ensure_array(a), ln2),
                                         axis=axis, keepdims=keepdims, initial=initial,
                                         where=where), ln2)


def _binary(func, identity, checked=False, **methods):
    """The ufunc object of `func`. JAX's ufunc objects check their arguments, then call a
    jitted function: its jit refuses a string first. `checked`: `func` is a jit here too (a
    token would reach its check traced), so the ufunc's check runs first, as JAX's."""
    runs_jitted(func)

    def checked_call(x1, x2, /):
        check_arraylike(func.__name__, *passing_text((x1, x2)))
        return func(x1, x2)
    return ufunc(func, name=func.__name__, nin=2, nout=1, call=checked_call if checked else func,
                 identity=identity, **methods)


add = _binary(ufuncs.add, 0, reduce=reductions.sum, accumulate=reductions.cumsum,
              at=_bool_at("add"))
multiply = _binary(ufuncs.multiply, 1, reduce=reductions.prod, accumulate=reductions.cumprod,
                   at=_bool_at("multiply"))
subtract = _binary(ufuncs.subtract, None,
                   at=lambda a, indices, b: reductions.ensure_array(a).at[indices].subtract(b))
minimum = _binary(ufuncs.minimum, None, reduce=_with_dtype(reductions.min))
maximum = _binary(ufuncs.maximum, None, reduce=_with_dtype(reductions.max))
bitwise_and = _binary(ufuncs.bitwise_and, -1)
bitwise_or = _binary(ufuncs.bitwise_or, 0)
bitwise_xor = _binary(ufuncs.bitwise_xor, 0)
logical_and = _binary(ufuncs.logical_and, True)
logical_or = _binary(ufuncs.logical_or, False)
logical_xor = _binary(ufuncs.logical_xor, False)
logaddexp = _binary(ufuncs.logaddexp, -np.inf, reduce=_logsumexp, checked=True)
logaddexp2 = _binary(ufuncs.logaddexp2, -np.inf, reduce=_logsumexp2, checked=True)
negative = ufunc(runs_jitted(ufuncs.negative), name="negative", nin=1, nout=1,
                 call=ufuncs.negative)
