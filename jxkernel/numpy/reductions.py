"""Reductions: sum, prod, max, min, any, all, trace (a sum along diagonals), mean, var, std,
argmax, cumulative sums, quantiles and their nan- variants, with JAX's dtype rules.

    >>> jnp.sum(jnp.ones((2, 3), jnp.int8), axis=0)      # narrow ints sum as the default int
    Array([2, 2, 2], dtype=int32)
    >>> jnp.mean(jnp.arange(4))                           # integer means are floats
    Array(1.5, dtype=float32)

Every reduction goes through `_reduction`, JAX's recipe: cast to the computation dtype,
mask with `where` (filling the identity), `lax.reduce` (which becomes reduce_sum etc.),
apply `initial` afterwards, re-insert kept axes and cast to the result dtype.
"""
from __future__ import annotations

import builtins
import functools
import inspect
import math
import operator

import numpy as np

from .. import lax
from ..core import dtypes
from ..core.errors import ConcretizationTypeError
from ..core.interpreter_primitives import typed_constant
from ..core.sharding_types import ShardingTypeError
from ..core.symbolic import is_symbolic
from ..core.traceback_util import filter_as_jaxs_c_call
from ..core.trace import Tracer, _ctx, eval_trace
from ..lax import conversion
from ..lax.sharding import canonicalize_sharding, run_auto_axes
from ..transforms.jit import jit
from ..transforms.jit.namesakes import jax_jitted, running_as
from ..xla.array import Array
from . import util
from .indexing import getitem
from .creation import traced_offset
from .index_tricks import take_along_axis
from .manipulation import _shape, _zeros_like, broadcast_arrays, broadcast_to, moveaxis, ravel
from .manipulation import expand_dims, reshape, squeeze, transpose
from .ufuncs import clip, less, multiply
from .util import aval_of, canonicalize_axis, check_arraylike, ensure_array

__all__ = ["sum", "prod", "max", "min", "amax", "amin", "all", "any", "mean", "average", "var",
           "std", "ptp", "count_nonzero", "argmax", "argmin", "nanargmax", "nanargmin", "cumsum",
           "cumprod", "cumulative_sum", "cumulative_prod", "nancumsum", "nancumprod", "nansum",
           "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd", "median", "nanmedian",
           "quantile", "nanquantile", "percentile", "nanpercentile", "trace"]


# ------------------------------------------------------------------ helpers
def _asarray(name, a):
    check_arraylike(name, a)
    return ensure_array(a)


def _aval(x):
    return aval_of(x)


def _convert(x, dtype, weak_type=False):
    """x as `dtype` (a no-op when it already is, strong-typed)."""
    a = aval_of(x)
    if a.dtype == dtype and a.weak_type == weak_type:
        return x
    return conversion._convert_element_type(x, dtype, weak_type)


def _user_dtype(dtype, name: str = ""):
    """A reduction's dtype argument checked as JAX's (int64 without x64 warns, naming
    `name`, and narrows; kept under ALLOW)."""
    return None if dtype is None else dtypes.canonicalize_user_dtype(dtype, name)


def _isnan(x):
    return lax.ne(x, x)


_where = util._where          # jnp.where(cond, x, y) inlined, as JAX's reductions call it


def _upcast_f16(dtype):
    return np.dtype(np.float32) if dtype in (dtypes.float16, dtypes.bfloat16) else dtype


def _promote_integer_dtype(dtype):
    """bool and narrow integers widen to the default (u)int, as NumPy's sum does (JAX stops
    at the default width)."""
    if dtype == np.bool_:
        return dtypes.default_int_dtype()
    if dtypes.is_unsigned(dtype):
        d = dtypes.default_uint_dtype()
        return d if dtype.itemsize < d.itemsize else dtype
    if dtypes.is_int(dtype):
        d = dtypes.default_int_dtype()
        return d if dtype.itemsize < d.itemsize else dtype
    return dtype


def _check_where(name, where):
    if where is None:
        return None
    check_arraylike(name, where)
    if aval_of(where).dtype != np.bool_:
        raise ValueError(f"jnp.{name}: where must be None or a boolean array; got "
                         f"where.dtype={aval_of(where).dtype!r}.")
    return where


def _axes_arg(axis):
    """`axis` as None, an int or a tuple of ints (it must be static)."""
    if axis is None:
        return None
    if isinstance(axis, Tracer):     # JAX 0.10.2's words, every reduction's alike
        raise ConcretizationTypeError(axis, "The axis argument must be known statically.\n")
    try:
        return operator.index(axis)
    except TypeError:
        return tuple(operator.index(i) for i in axis)


def _axis_index(axis):
    """`axis` as None or one int: operator.index's (a 0-d integer array is one; a float, a
    vector and a traced value get its errors, as JAX's argmax gives them)."""
    return None if axis is None else operator.index(axis)


def _reduction_dims(ndim: int, axis, error=ValueError) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    dims = tuple(canonicalize_axis(a, ndim, error) for a in axes)
    if len(set(dims)) != len(dims):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return dims


def _init_val(dtype, value) -> np.ndarray:
    """`value` (0, 1, +-inf, True, ...) as a scalar of `dtype`: infinities of int types
    become their extreme values, as in JAX (lax.reduce recognizes these identities)."""
    if dtype == np.bool_:
        return np.array(value > 0, dtype)
    if np.isinf(value) and dtypes.is_int(dtype):
        info = dtypes.iinfo(dtype)
        return np.array(info.min if value < 0 else info.max, dtype)
    return np.array(value, dtype)


def _reduction(a, name, op, init_val, *, has_identity=True, preproc=None, bool_op=None,
               upcast_f16_for_computation=False, axis=None, dtype=None, out=None,
               keepdims=False, initial=None, where_=None, promote_integers=False):
    bool_op = bool_op or op
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    a = _asarray(name, a)
    where_ = _check_where(name, where_)
    axis = _axes_arg(axis)
    if initial is None and not has_identity and where_ is not None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                         f"where mask one has to specify 'initial'")
    a = preproc(a) if preproc else a
    shape = aval_of(a).shape
    dims = _reduction_dims(len(shape), axis)
    if initial is None and not has_identity and not builtins.all(shape[d] >= 1 for d in dims):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    if dtype is None:
        result_dtype = aval_of(a).dtype
        if promote_integers:
            result_dtype = _promote_integer_dtype(result_dtype)
    else:
        result_dtype = _user_dtype(dtype, name)
    computation_dtype = _upcast_f16(result_dtype) if upcast_f16_for_computation and \
        dtypes.is_inexact(result_dtype) else result_dtype
    a = conversion.convert_element_type(a, computation_dtype)
    op = op if computation_dtype != np.bool_ else bool_op
    init = _init_val(computation_dtype, init_val)
    if where_ is not None:
        a = util._where_jit(where_, a, init)     # (JAX's jit[name=_where] equation)
    # init is op's identity, so this is lax.reduce's own reduce_* (called directly: faster);
    # a 64-bit dtype without x64 ('allow' mode) goes through lax.reduce, as in JAX: the init,
    # a NumPy value, is narrowed to 32 bits, so max's int64 identity no longer is one and
    # reduce's dtype check refuses it (float64's -inf still is, and is reduce_max)
    result = _REDUCERS[op](a, dims) if op in _REDUCERS and \
        dtypes.is_canonical(computation_dtype) else lax.reduce(a, init, op, dims)
    if initial is not None:
        # a Python number is converted on the host, as JAX's literals are: no operation runs
        # (softmax's initial=-inf is no inf produced under jax_debug_infs)
        init_arr = np.asarray(initial, computation_dtype) if type(initial) in (int, float) \
            and dtypes.is_inexact(computation_dtype) else \
            conversion.convert_element_type(ensure_array(initial), computation_dtype)
        if aval_of(init_arr).shape != ():
            raise ValueError(f"initial value must be a scalar. Got array of shape "
                             f"{aval_of(init_arr).shape}")
        result = op(init_arr, result)
    if keepdims:
        result = lax.expand_dims(result, dims)
    # the dtype as given, as JAX's (whose lax.convert_element_type checks it a second time)
    return conversion.convert_element_type(result, result_dtype if dtype is None else dtype)


_REDUCERS = {lax.add: lax.reduce_sum, lax.mul: lax.reduce_prod, lax.max: lax.reduce_max,
             lax.min: lax.reduce_min, lax.bitwise_and: lax.reduce_and,
             lax.bitwise_or: lax.reduce_or}


def _cast_to_numeric(x):
    return util.promote_dtypes_numeric(x)[0]


def _cast_to_bool(x):
    if dtypes.is_complex(aval_of(x).dtype):
        x = lax.real(x)
    return conversion.convert_element_type(x, np.bool_)


# ------------------------------------------------------------------ eager dispatch
def _jit_when_eager(*static_argnames, dynamic=(), axes=False, index_axis=False, jaxname=None,
                    private=None, jit_name=None):
    """Run a reduction as one jitted (inline) call when given an Array eagerly, as JAX jits
    them: one XLA dispatch (~5 µs) instead of several eager ops and Python checks. Traced,
    the function runs as written (inline=True: the jaxpr is the same either way).

    Parameters in `dynamic` (like var's ddof) are traced, not static, as in JAX: a Python
    number there becomes a cached device scalar, so XLA cannot fold it into a constant
    (folding `x / 3` into `x * (1/3)` would change the last bit of the result).

    `axes`: `axis` may be any sequence of ints (a list too), made a tuple first, as JAX's
    sum, prod, max, min, all, any, mean, var and std take it (_ensure_optional_axes).
    `index_axis`: `axis` is one integer, operator.index(axis) before the jit, as JAX's argmax
    passes it to its jit `_argmax` (a 0-d integer array is taken, not refused as unhashable).

    `jaxname`: where JAX wraps the function in a jit that is not inline (var's `_var`,
    cumsum's `cumsum`), traced calls go through the jit too, named so: a learner's jaxpr then
    shows the same `jit[name=_var ...]` equation as JAX's, dynamic parameters (correction) as its
    traced arguments.

    `private`: the name of the inline jit JAX's function calls (sum's `_reduce_sum`): what
    its jits are named, and the jit whose error an argument that is no array gets.
    `jit_name`: that jit's name alone, where JAX's function checks its argument before
    calling it (argmax's `_argmax`: "Compiling jit(_argmax)" in jax_log_compiles' log).

    Too many positional arguments get Python's error from `fun`'s signature, as JAX's plain
    functions do; where JAX's function is the jit itself (`jaxname` is its name: cumsum), an
    unhashable static argument is refused first, as that jit's cache key refuses it."""
    def deco(fun):
        params = list(inspect.signature(fun).parameters.values())[1:]
        names = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
        accepted = frozenset(p.name for p in params)
        statics = set(static_argnames)
        is_jit = jaxname == fun.__name__
        named = running_as(fun, private, static_argnames) if private else fun
        axis_of = _axes_arg if axes else _axis_index if index_axis else None

        def inner(a, *dyn, **kwargs):
            return fun(a, **dict(zip(dynamic, dyn)), **kwargs)
        # named for what it runs: jax_log_compiles says "Compiling sum(a: f32[4])", not "inner"
        inner.__name__ = inner.__qualname__ = jaxname or jit_name or named.__name__
        jitted = jit(inner, static_argnames=static_argnames, inline=not jaxname)
        # `initial` and `where` traced as well (JAX's jit takes them so): the eager call is
        # then one computation, so jax_debug_infs sees max's -inf identity only inside it
        masked = jit(named, static_argnames=static_argnames, inline=not jaxname)

        @functools.wraps(fun)
        def call(a, *args, **kwargs):
            if is_jit and (args or kwargs):
                given = {k: v for k, v in zip(names, args) if k in statics}
                given.update((k, v) for k, v in kwargs.items() if k in statics)
                if axis_of is not None and "axis" in given:
                    given["axis"] = axis_of(given["axis"])   # (JAX's var: before its jit)
                try:
                    hash(tuple(given.values()))
                except TypeError:
                    try:
                        jitted._split((a,), given)      # JAX's error (args.Arguments.split)
                    except ValueError as e:     # raised as by JAX's C++ jit call: no frames
                        filter_as_jaxs_c_call(e)
                        raise
            if len(args) > len(names) or kwargs and not accepted.issuperset(kwargs):
                return fun(a, *args, **kwargs)      # Python's TypeError, naming `fun`
            if axis_of is not None and (args or kwargs.get("axis") is not None):
                if args:
                    kwargs, args = dict(zip(names, args), **kwargs), ()
                kwargs["axis"] = axis_of(kwargs.get("axis"))
            eager = type(a) is Array and a._sharding is None and _ctx.trace is eval_trace
            if not (eager or jaxname and isinstance(a, _JIT_OPERANDS)) or \
                    kwargs.get("out") is not None:
                return fun(a, *args, **kwargs)
            if args:
                kwargs = dict(zip(names, args), **kwargs)
            if not statics.union(dynamic).issuperset(
                    k for k, v in kwargs.items() if v is not None):
                # (traced too where JAX's is a jit of its own: its equation, as JAX's)
                return masked(a, **kwargs) if eager or jaxname else fun(a, **kwargs)
            dyn = []
            for name in dynamic:
                value = kwargs.get(name, 0)
                if eager and type(value) in (int, float):
                    value = util.scalar_array(value, dtypes.python_scalar_dtype(value), True)
                dyn.append(value)
            return jitted(a, *dyn, **{k: v for k, v in kwargs.items() if k in statics})
        call.jitted = jitted
        return call
    return deco


# what a traced call passes through a named jit (others, lists say, raise as written)
_JIT_OPERANDS = (Array, Tracer, np.ndarray, np.generic)


# ------------------------------------------------------------------ basic reductions
@_jit_when_eager("axis", "dtype", "keepdims", "promote_integers", axes=True,
                 private="_reduce_sum")
def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
        promote_integers=True):
    """Sum over `axis` (all axes by default); bools and narrow ints give the default int.

    >>> jnp.sum(jnp.array([[1, 2], [3, 4]]), axis=1)
    Array([3, 7], dtype=int32)
    """
    return _reduction(a, "sum", lax.add, 0, preproc=_cast_to_numeric, bool_op=lax.bitwise_or,
                      upcast_f16_for_computation=dtype is None, axis=axis, dtype=dtype,
                      out=out, keepdims=keepdims, initial=initial, where_=where,
                      promote_integers=promote_integers)


@_jit_when_eager("axis", "dtype", "keepdims", "promote_integers", axes=True,
                 private="_reduce_prod")
def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    """Product over `axis`.  ``jnp.prod(jnp.array([2, 3]))`` is 6."""
    return _reduction(a, "prod", lax.mul, 1, preproc=_cast_to_numeric, bool_op=lax.bitwise_and,
                      upcast_f16_for_computation=dtype is None, axis=axis, dtype=dtype,
                      out=out, keepdims=keepdims, initial=initial, where_=where,
                      promote_integers=promote_integers)


@_jit_when_eager("axis", "keepdims", axes=True, private="_reduce_max")
def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Maximum over `axis` (NaN if any element is NaN); `where` needs `initial`.

    >>> jnp.max(jnp.array([[1, 5], [3, 2]]), axis=0)
    Array([3, 5], dtype=int32)
    """
    return _reduction(a, "max", lax.max, -np.inf, has_identity=False, axis=axis, out=out,
                      keepdims=keepdims, initial=initial, where_=where)


@_jit_when_eager("axis", "keepdims", axes=True, private="_reduce_min")
def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Minimum over `axis` (NaN if any element is NaN)."""
    return _reduction(a, "min", lax.min, np.inf, has_identity=False, axis=axis, out=out,
                      keepdims=keepdims, initial=initial, where_=where)


def amax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Alias of `max` (a function of its own, as JAX's: a wrong call's error says amax)."""
    return max(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


def amin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Alias of `min` (a function of its own, as JAX's: a wrong call's error says amin)."""
    return min(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


@_jit_when_eager("axis", "keepdims", axes=True, private="_reduce_all")
def all(a, axis=None, out=None, keepdims=False, *, where=None):
    """Whether every element along `axis` is true (nonzero).  ``jnp.all(jnp.array([1, 0]))``"""
    return _reduction(a, "all", lax.bitwise_and, True, preproc=_cast_to_bool, axis=axis,
                      out=out, keepdims=keepdims, where_=where)


@_jit_when_eager("axis", "keepdims", axes=True, private="_reduce_any")
def any(a, axis=None, out=None, keepdims=False, *, where=None):
    """Whether any element along `axis` is true (nonzero)."""
    return _reduction(a, "any", lax.bitwise_or, False, preproc=_cast_to_bool, axis=axis,
                      out=out, keepdims=keepdims, where_=where)


# jitted as JAX's (`jit[name=trace]`); an offset passed is traced, as there
@jax_jitted
@util.jnp_jit(static_argnames=("axis1", "axis2", "dtype"))
def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
    """The sum along the `offset`-th diagonal in the plane (axis1, axis2).

    >>> jnp.trace(jnp.eye(3))
    Array(3., dtype=float32)
    """
    a = _asarray("trace", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    shp = _shape(a)
    ax1, ax2 = canonicalize_axis(axis1, len(shp)), canonicalize_axis(axis2, len(shp))
    if ax1 == ax2:
        raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    a = moveaxis(a, (ax1, ax2), (-2, -1))
    n, m = _shape(a)[-2:]
    rows = lax.broadcasted_iota(np.int32, (n, m), 0)
    cols = lax.broadcasted_iota(np.int32, (n, m), 1)
    offset = conversion.convert_element_type(traced_offset(offset), np.int32) \
        if isinstance(offset, Tracer) else np.int32(operator.index(offset))
    mask = lax.eq(lax.add(rows, offset), cols)
    # jnp.where, as JAX's (its `jit[name=_where]` broadcasts the mask over leading axes)
    return sum(util._where_jit(mask, a, _zeros_like(a)), axis=(-2, -1),
               dtype=_user_dtype(dtype, "trace"))


# ------------------------------------------------------------------ statistics
def _count(a, axis, keepdims, where, dtype):
    """How many elements each output of a reduction over `axis` sees (as `dtype`)."""
    if where is None:
        shape = aval_of(a).shape
        # IndexError, as JAX's (it indexes the shape before any check): mean, var, std
        n = math.prod(shape[d] for d in _reduction_dims(len(shape), _axes_arg(axis), IndexError))
        if is_symbolic(n):                   # jax.export: the size is computed in the program
            return conversion.convert_element_type(n.__jax_array__(), dtype)
        return typed_constant(n, dtype)
    return sum(broadcast_to(where, aval_of(a).shape), axis, dtype=dtype, keepdims=keepdims)


@_jit_when_eager("axis", "dtype", "keepdims", axes=True, private="_mean")
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over `axis`, in a float type (integers give the default float).
    float16/bfloat16 are summed in float32 unless `dtype` is given (as JAX's: then the
    reduction runs in `dtype` itself).

    >>> jnp.mean(jnp.array([[1., 2.], [3., 5.]]), axis=0)
    Array([2. , 3.5], dtype=float32)
    """
    a = _asarray("mean", a)
    where = _check_where("mean", where)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.mean is not supported.")
    result_dtype = dtypes.to_inexact_dtype(aval_of(a).dtype) if dtype is None else \
        _user_dtype(dtype, "mean")
    computation_dtype = _upcast_f16(result_dtype) if dtype is None and \
        dtypes.is_inexact(result_dtype) else result_dtype
    normalizer = _count(a, axis, keepdims, where, computation_dtype)
    total = sum(a, axis, dtype=computation_dtype, keepdims=keepdims, where=where)
    return conversion.convert_element_type(lax.div(total, normalizer), result_dtype)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """Weighted mean over `axis`; with returned=True also the sum of the weights.

    >>> jnp.average(jnp.array([1., 2., 4.]), weights=jnp.array([3., 1., 0.]))
    Array(1.25, dtype=float32)
    """
    a = _asarray("average", a)
    axis = _axes_arg(axis)
    ndim = len(aval_of(a).shape)
    axis_tuple = _reduction_dims(ndim, axis)
    if weights is None:
        a, = util.promote_dtypes_inexact(a)
        avg = mean(a, axis=axis, keepdims=keepdims)
        shape = aval_of(a).shape
        weights_sum = typed_constant(math.prod(shape[d] for d in axis_tuple), aval_of(avg).dtype)
        weights_sum = ensure_array(weights_sum)
    else:
        check_arraylike("average", weights)
        a, weights = util.promote_dtypes_inexact(a, ensure_array(weights))
        ashape, wshape = aval_of(a).shape, aval_of(weights).shape
        if ashape != wshape:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            if wshape != tuple(ashape[ax] for ax in axis_tuple):
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            new_shape = tuple(d if i in axis_tuple else 1 for i, d in enumerate(ashape))
            weights = lax.reshape(weights, new_shape, tuple(np.argsort(axis_tuple)))
        weights_sum = sum(weights, axis=axis, keepdims=keepdims)
        aw = lax.mul(*broadcast_arrays(a, weights))
        avg = lax.div(sum(aw, axis=axis, keepdims=keepdims), weights_sum)
    if returned:
        if aval_of(avg).shape != aval_of(weights_sum).shape:
            weights_sum = broadcast_to(weights_sum, aval_of(avg).shape)
        return avg, weights_sum
    return avg


running_as(average, "_average", ("axis", "returned", "keepdims"))    # (JAX's jit of it)


def _var_promote_types(a_dtype, dtype):
    if dtype is not None:
        if not dtypes.is_complex(dtype) and dtypes.is_complex(a_dtype):
            raise ValueError("jax.numpy.var does not yet support real dtype parameters when "
                             "computing the variance of an array of complex values. The "
                             "semantics of numpy.var seem unclear in this case. Please comment "
                             "on https://github.com/jax-ml/jax/issues/2283 if this behavior is "
                             "important to you.")
        computation_dtype = dtype
    elif not dtypes.is_inexact(a_dtype):
        dtype = computation_dtype = dtypes.to_inexact_dtype(a_dtype)
    else:
        dtype = np.array(0, a_dtype).real.dtype
        computation_dtype = a_dtype
    return _upcast_f16(computation_dtype), np.dtype(dtype)


def _correction(ddof, correction):
    """What var and std subtract from N: `correction`, else `ddof`. Checked before their jit,
    as JAX does, while `ddof` is still the caller's value (inside, a default 0 is traced).

    >>> _correction(1, None), _correction(0, 2)
    (1, 2)
    """
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """Variance over `axis`: mean of squared deviations, divided by N - ddof (NaN if that
    is not positive).

    >>> jnp.var(jnp.array([1., 2., 3., 4.]), ddof=1)
    Array(1.6666666, dtype=float32)
    """
    return _var(a, axis=axis, dtype=dtype, out=out, correction=_correction(ddof, correction),
                keepdims=keepdims, where=where, mean=mean)


@_jit_when_eager("axis", "dtype", "keepdims", dynamic=("correction",), axes=True,
                 jaxname="_var")
def _var(a, axis=None, dtype=None, out=None, correction=0, keepdims=False, *, where=None,
         mean=None):
    """var's computation, JAX's jit `_var` (named so in jaxprs and the compile log)."""
    a = _asarray("var", a)
    where = _check_where("var", where)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.var is not supported.")
    computation_dtype, dtype = _var_promote_types(aval_of(a).dtype, _user_dtype(dtype, "var"))
    a = conversion.convert_element_type(a, computation_dtype)
    a_mean = _mean(a, axis, dtype=computation_dtype, keepdims=True, where=where) \
        if mean is None else conversion.convert_element_type(ensure_array(mean),
                                                             computation_dtype)
    centered = lax.sub(a, a_mean)          # lax broadcasts a_mean's kept size-1 axes
    if dtypes.is_complex(computation_dtype):
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
        computation_dtype = aval_of(centered).dtype
    else:
        centered = lax.square(centered)
    normalizer = _count(a, axis, keepdims, where, computation_dtype)
    corr = conversion.convert_element_type(correction, computation_dtype) \
        if isinstance(correction, Tracer) else typed_constant(correction, computation_dtype)
    normalizer = lax.sub(normalizer, corr)
    result = sum(centered, axis, dtype=computation_dtype, keepdims=keepdims, where=where)
    result = conversion.convert_element_type(lax.div(result, normalizer), dtype)
    # JAX's util._where, a jit of its own (`jit[name=_where]` in var's jaxpr), given NaN as
    # a Python float (weak: it takes the result's type)
    return util._where_jit(lax.gt(normalizer, typed_constant(0, computation_dtype)), result, np.nan)


_mean = mean


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """Standard deviation over `axis`: sqrt(var(...)).  ``jnp.std(x, ddof=1)``"""
    return _std(a, axis=axis, dtype=dtype, out=out, correction=_correction(ddof, correction),
                keepdims=keepdims, where=where, mean=mean)


@_jit_when_eager("axis", "dtype", "keepdims", dynamic=("correction",), axes=True,
                 jaxname="_std")
def _std(a, axis=None, dtype=None, out=None, correction=0, keepdims=False, *, where=None,
         mean=None):
    """std's computation, JAX's jit `_std`."""
    dtype = _user_dtype(dtype, "std")
    if dtype is not None and not dtypes.is_inexact(dtype):
        raise ValueError(f"dtype argument to jnp.std must be inexact; got {dtype}")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.std is not supported.")
    where = _check_where("std", where)       # (var would name itself)
    return lax.sqrt(_var(a, axis=axis, dtype=dtype, correction=correction, keepdims=keepdims,
                         where=where, mean=mean))


def ptp(a, axis=None, out=None, keepdims=False):
    """Range (max - min) over `axis`.  ``jnp.ptp(jnp.array([3, 9, 4]))`` is 6."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.ptp is not supported.")
    a = _asarray("ptp", a)
    return lax.sub(max(a, axis=axis, keepdims=keepdims), min(a, axis=axis, keepdims=keepdims))


@jax_jitted
@_jit_when_eager("axis", "keepdims", jaxname="count_nonzero")
def count_nonzero(a, axis=None, keepdims=False):
    """Number of nonzero elements over `axis` (in the default int type)."""
    a = _asarray("count_nonzero", a)
    return sum(lax.ne(a, typed_constant(0, aval_of(a).dtype)), axis=axis,
               dtype=dtypes.default_int_dtype(), keepdims=keepdims)


# ------------------------------------------------------------------ argmax / argmin
def _argminmax(name, lax_fn, a, axis, out, keepdims):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    a = _asarray(name, a)
    shape = aval_of(a).shape
    if axis is None:
        dims, a, ax = tuple(range(len(shape))), ravel(a), 0
    else:
        ax = canonicalize_axis(operator.index(axis), len(shape), IndexError)    # as JAX's
        dims = (ax,)
    if aval_of(a).shape[ax] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    result = lax_fn(a, ax, dtypes.default_int_dtype())
    return lax.expand_dims(result, dims) if keepdims else result


@_jit_when_eager("axis", "keepdims", index_axis=True, jit_name="_argmax")
def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the maximum along `axis` (of the flattened array if None); the first on
    ties, the first NaN if any.

    >>> jnp.argmax(jnp.array([[1, 9], [7, 3]]), axis=1)
    Array([1, 0], dtype=int32)
    """
    return _argminmax("argmax", lax.argmax, a, axis, out, bool(keepdims))


@_jit_when_eager("axis", "keepdims", index_axis=True, jit_name="_argmin")
def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the minimum along `axis`; the first on ties, the first NaN if any."""
    return _argminmax("argmin", lax.argmin, a, axis, out, bool(keepdims))


def _nanarg(name, fn, fill, a, axis, out, keepdims):
    a = _asarray(name, a)
    if not dtypes.is_inexact(aval_of(a).dtype):
        return fn(a, axis=axis, out=out, keepdims=keepdims)
    nan_mask = _isnan(a)
    res = fn(lax.select(nan_mask, lax.broadcast_in_dim(typed_constant(fill, aval_of(a).dtype),
                                                         aval_of(a).shape, ()), a),
             axis=axis, out=out, keepdims=keepdims)
    return _where(all(nan_mask, axis=axis, keepdims=bool(keepdims)),
                  typed_constant(-1, aval_of(res).dtype), res)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """argmax ignoring NaNs (-1 where all are NaN)."""
    return _nanargmax(a, axis=axis, out=out, keepdims=keepdims)


# (JAX's jit of nanargmax)
@_jit_when_eager("axis", "keepdims", index_axis=True, jaxname="_nanargmax")
def _nanargmax(a, axis=None, out=None, keepdims=None):
    return _nanarg("nanargmax", argmax, -np.inf, a, axis, out, keepdims)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """argmin ignoring NaNs (-1 where all are NaN)."""
    return _nanargmin(a, axis=axis, out=out, keepdims=keepdims)


# (JAX's jit of nanargmin)
@_jit_when_eager("axis", "keepdims", index_axis=True, jaxname="_nanargmin")
def _nanargmin(a, axis=None, out=None, keepdims=None):
    return _nanarg("nanargmin", argmin, np.inf, a, axis, out, keepdims)


# ------------------------------------------------------------------ cumulative reductions
def _check_replicated(name, a) -> None:
    """JAX's refusal to flatten a value split over devices for a cumulative reduction."""
    aval = aval_of(a)
    if aval.split is not None and builtins.any(aval.split.spec._axes(len(aval.shape))):
        raise ShardingTypeError(f"The input should be fully replicated when axis is not "
                                f"specified to {name}. Got input type={aval}")


def _cumulative(name, reduction, a, axis, dtype, out=None, fill_nan=False, fill_value=0,
                promote_integers=False):
    a = _asarray(name, a)
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported")
    shape = aval_of(a).shape
    if axis is None or not shape:
        _check_replicated(name, a)
    if axis is None:
        a = lax.reshape(a, (math.prod(shape),))
    # as JAX: only axis=None flattens; an axis of a 0-d array is out of bounds (NumPy would
    # flatten it too)
    axis = canonicalize_axis(0 if axis is None else operator.index(axis), len(aval_of(a).shape))
    if fill_nan and dtypes.is_inexact(aval_of(a).dtype):
        a = _where(_isnan(a), typed_constant(fill_value, aval_of(a).dtype), a)
    a_dtype = aval_of(a).dtype
    if dtype is None:
        result_type = _promote_integer_dtype(a_dtype) if promote_integers or a_dtype == np.bool_ \
            else a_dtype
        computation_type = result_type
    elif np.dtype(dtype) == np.bool_:
        # lax only accumulates numbers: count the nonzeros, then compare
        result_type = np.dtype(np.bool_)
        if a_dtype != np.bool_:
            a = lax.ne(a, typed_constant(0, a_dtype))
        computation_type = _promote_integer_dtype(result_type)
    else:
        result_type = computation_type = _user_dtype(dtype, name)
    a = conversion.convert_element_type(a, computation_type)
    return conversion.convert_element_type(reduction(a, axis), result_type)


@jax_jitted
@_jit_when_eager("axis", "dtype", jaxname="cumsum")
def cumsum(a, axis=None, dtype=None, out=None):
    """Running sum along `axis` (of the flattened array if None).

    >>> jnp.cumsum(jnp.array([1, 2, 3]))
    Array([1, 3, 6], dtype=int32)
    """
    return _cumulative("cumsum", lax.cumsum, a, axis, dtype, out)


@jax_jitted
@_jit_when_eager("axis", "dtype", jaxname="cumprod")
def cumprod(a, axis=None, dtype=None, out=None):
    """Running product along `axis`."""
    return _cumulative("cumprod", lax.cumprod, a, axis, dtype, out)


@jax_jitted
@_jit_when_eager("axis", "dtype", jaxname="nancumsum")
def nancumsum(a, axis=None, dtype=None, out=None):
    """Running sum treating NaN as 0."""
    return _cumulative("nancumsum", lax.cumsum, a, axis, dtype, out, fill_nan=True, fill_value=0)


@jax_jitted
@_jit_when_eager("axis", "dtype", jaxname="nancumprod")
def nancumprod(a, axis=None, dtype=None, out=None):
    """Running product treating NaN as 1."""
    return _cumulative("nancumprod", lax.cumprod, a, axis, dtype, out, fill_nan=True,
                       fill_value=1)


def _cumulative_api(name, reduction, x, axis, dtype, include_initial, identity,
                    promote_integers):
    x = _asarray(name, x)
    shape = aval_of(x).shape
    if not shape:
        raise ValueError(f"The input must be non-scalar to take a cumulative {name[11:]}, "
                         f"however a scalar value or scalar array was given.")
    if axis is None:
        if len(shape) > 1:
            raise ValueError(f"The input array has rank {len(shape)}, however axis was not set "
                             f"to an explicit value. The axis argument is only optional for "
                             f"one-dimensional arrays.")
        axis = 0
    axis = canonicalize_axis(axis, len(shape))
    out = _cumulative(name, reduction, x, axis, dtype, promote_integers=promote_integers)
    if include_initial:
        zshape = list(shape)
        zshape[axis] = 1
        od = aval_of(out).dtype
        first = lax.broadcast_in_dim(typed_constant(identity, od), tuple(zshape), ())
        out = lax.concatenate([first, out], axis)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array API cumulative sum (optionally starting with 0); small integers sum in the
    default integer type, as `sum` does."""
    return _cumulative_api("cumulative_sum", lax.cumsum, x, axis, dtype, include_initial, 0,
                           promote_integers=True)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array API cumulative product (optionally starting with 1). Unlike `cumulative_sum`,
    integers keep their type, as JAX's do: ``cumulative_prod(int8 array).dtype`` is int8."""
    return _cumulative_api("cumulative_prod", lax.cumprod, x, axis, dtype, include_initial, 1,
                           promote_integers=False)


# ------------------------------------------------------------------ nan-reductions
def _nan_reduction(a, name, reduction, init_val, nan_if_all_nan, axis=None, keepdims=False,
                   where=None, **kwargs):
    a = _asarray(name, a)
    where = _check_where(name, where)
    if not dtypes.is_inexact(aval_of(a).dtype):
        return reduction(a, axis=axis, keepdims=keepdims, where=where, **kwargs)
    nan = _isnan(a)
    out = reduction(_where(nan, _init_val(aval_of(a).dtype, init_val), a), axis=axis,
                    keepdims=keepdims, where=where, **kwargs)
    if nan_if_all_nan:
        return _where(all(nan, axis=axis, keepdims=keepdims),
                      typed_constant(np.nan, aval_of(a).dtype), out)
    return out


@jax_jitted
@_jit_when_eager("axis", "keepdims", jaxname="nanmax")
def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """max ignoring NaNs (NaN where every element is NaN)."""
    return _nan_reduction(a, "nanmax", max, -np.inf, initial is None, axis=axis, out=out,
                          keepdims=keepdims, initial=initial, where=where)


@jax_jitted
@_jit_when_eager("axis", "keepdims", jaxname="nanmin")
def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """min ignoring NaNs (NaN where every element is NaN)."""
    return _nan_reduction(a, "nanmin", min, np.inf, initial is None, axis=axis, out=out,
                          keepdims=keepdims, initial=initial, where=where)


@jax_jitted
@_jit_when_eager("axis", "dtype", "keepdims", jaxname="nansum")
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """sum treating NaN as 0.  ``jnp.nansum(jnp.array([1., jnp.nan]))`` is 1."""
    dtype = _user_dtype(dtype, "nanprod")          # (JAX's name for nansum's too)
    return _nan_reduction(a, "nansum", sum, 0, False, axis=axis, dtype=dtype, out=out,
                          keepdims=keepdims, initial=initial, where=where)


@jax_jitted
@_jit_when_eager("axis", "dtype", "keepdims", jaxname="nanprod")
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """prod treating NaN as 1."""
    dtype = _user_dtype(dtype, "nanprod")
    return _nan_reduction(a, "nanprod", prod, 1, False, axis=axis, dtype=dtype, out=out,
                          keepdims=keepdims, initial=initial, where=where)


@jax_jitted
@_jit_when_eager("axis", "dtype", "keepdims", jaxname="nanmean")
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """mean of the non-NaN elements (NaN where there are none)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanmean is not supported.")
    where = _check_where("nanmean", where)   # (the sums would name themselves)
    a = _asarray("nanmean", a)
    if not dtypes.is_inexact(aval_of(a).dtype):
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    dtype = dtypes.to_inexact_dtype(aval_of(a).dtype) if dtype is None else \
        _user_dtype(dtype, "mean")
    normalizer = sum(lax.bitwise_not(_isnan(a)), axis=axis, dtype=dtype, keepdims=keepdims,
                     where=where)
    return lax.div(nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where), normalizer)


@jax_jitted
@_jit_when_eager("axis", "dtype", "keepdims", dynamic=("ddof",), jaxname="nanvar")
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """var of the non-NaN elements."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanvar is not supported.")
    where = _check_where("nanvar", where)
    a = _asarray("nanvar", a)
    computation_dtype, dtype = _var_promote_types(aval_of(a).dtype, _user_dtype(dtype, "nanvar"))
    a = conversion.convert_element_type(a, computation_dtype)
    a_mean = nanmean(a, axis, dtype=computation_dtype, keepdims=True, where=where) \
        if mean is None else conversion.convert_element_type(ensure_array(mean),
                                                             computation_dtype)
    nan = _isnan(a)
    centered = _where(nan, typed_constant(0, computation_dtype), lax.sub(a, a_mean))
    centered = lax.real(lax.mul(centered, lax.conj(centered))) \
        if dtypes.is_complex(computation_dtype) else lax.square(centered)
    normalizer = sum(lax.bitwise_not(nan), axis=axis, keepdims=keepdims, where=where)
    nd = aval_of(normalizer).dtype
    # ddof may be traced, as in JAX (scipy.stats.sem jits nanstd with ddof dynamic)
    ddof = typed_constant(ddof, nd) if isinstance(ddof, (int, np.integer)) else \
        conversion.convert_element_type(ensure_array(ddof), nd)
    normalizer = lax.sub(normalizer, ddof)
    bad = lax.le(normalizer, typed_constant(0, aval_of(normalizer).dtype))
    result = sum(centered, axis, keepdims=keepdims, where=where)
    rd = aval_of(result).dtype
    result = _where(bad, typed_constant(np.nan, rd), result)
    divisor = _where(bad, typed_constant(1, aval_of(normalizer).dtype), normalizer)
    return conversion.convert_element_type(
        lax.div(result, conversion.convert_element_type(divisor, rd)), dtype)


@jax_jitted
@_jit_when_eager("axis", "dtype", "keepdims", dynamic=("ddof",), jaxname="nanstd")
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """std of the non-NaN elements."""
    where = _check_where("nanstd", where)
    dtype = _user_dtype(dtype, "nanstd")
    return lax.sqrt(nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                           where=where, mean=mean))


# ------------------------------------------------------------------ quantiles
_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(a, q, axis, method, keepdims, squash_nans, weights=None):
    """JAX's algorithm: sort along the axis, gather the two neighbours of q*(n-1) and
    interpolate; NaN anywhere (squash_nans: everywhere) along the axis gives NaN.
    ``inverted_cdf`` (the one method with ``weights``): the first sorted value whose
    cumulative weight reaches q times the total."""
    if method not in _METHODS + ("inverted_cdf",):
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', "
                         "'nearest' or 'inverted_cdf'")
    if weights is not None:
        if dtypes.is_complex(aval_of(weights).dtype):
            raise ValueError("Weights cannot be complex types.")
        if method != "inverted_cdf":
            raise NotImplementedError(f"{method} doesn't support weights. Only method "
                                      f"'inverted_cdf' supports weights.")
        a, weights = util.promote_dtypes_inexact(a, weights)
        ws, as_ = aval_of(weights).shape, aval_of(a).shape
        if ws != as_:
            if axis is None:
                raise ValueError("Weights shape must match 'a' shape when axis is None.")
            axes = tuple(canonicalize_axis(ax, len(as_))
                         for ax in (axis if isinstance(axis, tuple) else (axis,)))
            if ws != tuple(as_[ax] for ax in axes):
                raise ValueError(f"Weights shape {ws} must match reduction axes "
                                 f"{tuple(as_[ax] for ax in axes)}")
            weights = lax.broadcast_in_dim(weights, as_, axes)
    else:
        a, = util.promote_dtypes_inexact(a)
    ad = aval_of(a).dtype
    if dtypes.is_complex(ad):
        raise ValueError("quantile does not support complex input, as the operation is "
                         "poorly defined.")
    keepdim = []
    shape = aval_of(a).shape
    if axis is None:
        if keepdims:
            keepdim = [1] * len(shape)
        a, axis = ravel(a), 0
        if weights is not None:
            weights = ravel(weights)
    elif isinstance(axis, tuple):
        nd = len(shape)
        axis = tuple(canonicalize_axis(ax, nd) for ax in axis)
        if len(set(axis)) != len(axis):
            raise ValueError("repeated axis")
        keepdim = [1 if i in axis else d for i, d in enumerate(shape)]
        keep = [i for i in range(nd) if i not in axis]
        dims = list(range(nd))
        for i, s in enumerate(sorted(keep)):
            dims[i], dims[s] = dims[s], dims[i]
        kept = tuple(shape[i] for i in range(nd) if i not in axis)
        a = lax.reshape(a, kept + (math.prod(shape[i] for i in axis),), tuple(dims))
        if weights is not None:
            weights = lax.reshape(weights, kept + (math.prod(shape[i] for i in axis),),
                                  tuple(dims))
        axis = len(kept)
    else:
        axis = canonicalize_axis(operator.index(axis), len(shape))
    q = ensure_array(q)
    qa = aval_of(q)
    if qa.ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {qa.shape}")
    qd, q_ndim = qa.dtype, qa.ndim
    a_shape = aval_of(a).shape
    if method == "inverted_cdf":
        result = _inverted_cdf(a, q, axis, keepdims, squash_nans, weights)
        if keepdims and keepdim:
            if q_ndim > 0:
                keepdim = [qa.shape[0], *keepdim]
            result = lax.reshape(result, tuple(keepdim))
        return conversion.convert_element_type(result, ad)
    if squash_nans:
        # NaNs sort last; count the others and index within them
        a = util._where_jit(_isnan(a), np.nan, a)      # (JAX's `jit[name=_where]`)
        a = lax.sort(a, dimension=axis)
        counts = sum(lax.bitwise_not(_isnan(a)), axis=axis, dtype=qd, keepdims=keepdims)
        after = aval_of(counts).shape
        q = lax.expand_dims(q, tuple(range(q_ndim, len(after) + q_ndim)))
        counts = lax.expand_dims(counts, tuple(range(q_ndim)))
        # (lax's ops stretch the size-1 dims of q and counts, as JAX's `mul n p`)
        q = lax.mul(q, lax.sub(counts, typed_constant(1, qd)))
        low, high = lax.floor(q), lax.ceil(q)
        high_weight = lax.sub(q, low)
        low_weight = lax.sub(typed_constant(1, qd), high_weight)
        # counts - 1 once per bound, as JAX's (a `sub` each in its jaxpr)
        low = lax.max(typed_constant(0, qd), lax.min(low, lax.sub(counts, typed_constant(1, qd))))
        high = lax.max(typed_constant(0, qd), lax.min(high, lax.sub(counts, typed_constant(1, qd))))
        it = dtypes.default_int_dtype()
        low = conversion.convert_element_type(low, it)
        high = conversion.convert_element_type(high, it)
        out_shape = qa.shape + after
        index = [lax.broadcasted_iota(it, out_shape, d + q_ndim) for d in range(len(after))]
        if keepdims:
            index[axis] = low
        else:
            index.insert(axis, low)
        low_value = getitem(a, tuple(index))
        index[axis] = high
        high_value = getitem(a, tuple(index))
    else:
        # JAX's util._where, a jit of its own (`jit[name=_where]` in quantile's jaxpr)
        a = util._where_jit(any(_isnan(a), axis=axis, keepdims=True), np.nan, a)
        a = lax.sort(a, dimension=axis)
        n = typed_constant(a_shape[axis], qd)
        q = lax.mul(q, lax.sub(n, typed_constant(1, qd)))
        low, high = lax.floor(q), lax.ceil(q)
        high_weight = lax.sub(q, low)
        low_weight = lax.sub(typed_constant(1, qd), high_weight)
        # n - 1 once per clamp, as JAX's (two `sub` equations in its jaxpr)
        low = lax.clamp(typed_constant(0, qd), low, lax.sub(n, typed_constant(1, qd)))
        high = lax.clamp(typed_constant(0, qd), high, lax.sub(n, typed_constant(1, qd)))
        it = dtypes.default_int_dtype()
        low = conversion.convert_element_type(low, it)
        high = conversion.convert_element_type(high, it)
        sizes = list(a_shape)
        sizes[axis] = 1
        dnums = lax.GatherDimensionNumbers(
            offset_dims=tuple(range(q_ndim, len(a_shape) + q_ndim - (0 if keepdims else 1))),
            collapsed_slice_dims=() if keepdims else (axis,), start_index_map=(axis,))
        low_value = lax.gather(a, lax.expand_dims(low, (q_ndim,)), dnums, sizes)
        high_value = lax.gather(a, lax.expand_dims(high, (q_ndim,)), dnums, sizes)
        if q_ndim == 1:
            low_weight = lax.broadcast_in_dim(low_weight, aval_of(low_value).shape, (0,))
            high_weight = lax.broadcast_in_dim(high_weight, aval_of(high_value).shape, (0,))
    # a scalar weight multiplies (and a scalar predicate selects) the values directly, as in
    # JAX's `mul y q`
    if method == "linear":
        result = lax.add(lax.mul(conversion.convert_element_type(low_value, qd), low_weight),
                         lax.mul(conversion.convert_element_type(high_value, qd), high_weight))
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        result = lax.select(lax.le(high_weight, typed_constant(0.5, qd)), low_value, high_value)
    else:
        half = typed_constant(0.5, aval_of(low_value).dtype)
        result = lax.mul(lax.add(low_value, high_value), half)
    if keepdims and keepdim:
        if q_ndim > 0:
            keepdim = [qa.shape[0], *keepdim]
        result = lax.reshape(result, tuple(keepdim))
    return conversion.convert_element_type(result, ad)


def _inverted_cdf(a, q, axis, keepdims, squash_nans, weights):
    """JAX's weighted quantile: sort the values with their weights, and take for each q the
    first value whose cumulative weight is not below q times the total weight (NaN where a
    weight is negative or NaN, and where the data has NaN: all of it under squash_nans)."""
    q_ndim = aval_of(q).ndim
    qd = aval_of(q).dtype
    n = aval_of(a).shape[axis]
    if weights is None:
        weights = lax.full_like(a, 1.0)
    if squash_nans:
        a = util._where_jit(_isnan(a), np.nan, a)
    else:
        a = util._where_jit(any(_isnan(a), axis=axis, keepdims=True), np.nan, a)
    a, weights = lax.sort_key_val(a, weights, dimension=axis)
    zeros = lax.full_like(weights, 0)
    bad_weights = lax.bitwise_or(lax.lt(weights, zeros), _isnan(weights))
    nan_data = _isnan(a)
    clean = lax.select(lax.bitwise_or(bad_weights, nan_data), zeros, weights)
    cum = cumsum(clean, axis=axis)
    total = lax.index_in_dim(cum, -1, axis=axis, keepdims=keepdims)
    target = multiply(reshape(q, aval_of(q).shape + (1,) * aval_of(total).ndim),
                      expand_dims(total, tuple(range(q_ndim))))
    if not keepdims:
        target = expand_dims(target, (axis + q_ndim,))
    is_less = less(expand_dims(cum, tuple(range(q_ndim))), target)
    it = dtypes.default_int_dtype()
    idx = sum(conversion.convert_element_type(is_less, it), axis=axis + q_ndim, keepdims=keepdims)
    if squash_nans:
        valid = sum(lax.bitwise_not(nan_data), axis=axis, dtype=qd, keepdims=keepdims)
    else:
        valid = lax.full_like(total, n, dtype=qd)
    max_idx = conversion.convert_element_type(lax.sub(valid, lax.full_like(valid, 1)), it)
    idx = clip(idx, 0, expand_dims(max_idx, tuple(range(q_ndim))))
    take = squeeze(idx, (q_ndim + axis,)) if keepdims else idx
    if q_ndim == 0:
        result = squeeze(take_along_axis(a, expand_dims(take, (axis,)), axis=axis), (axis,))
    else:
        perm = [*range(q_ndim, q_ndim + axis), *range(q_ndim),
                *range(q_ndim + axis, aval_of(take).ndim)]
        result = take_along_axis(a, transpose(take, perm), axis=axis)
        result = transpose(result, [perm.index(i) for i in range(len(perm))])
    if keepdims:
        result = expand_dims(result, (q_ndim + axis,))
    all_nan = lax.eq(valid, lax.full_like(valid, 0))
    any_bad = any(bad_weights, axis=axis, keepdims=keepdims)
    force_nan = lax.bitwise_or(any_bad, all_nan if squash_nans
                               else any(nan_data, axis=axis, keepdims=keepdims))
    force_nan = expand_dims(force_nan, tuple(range(q_ndim)))
    return util._where_jit(force_nan, np.nan, result)


def _quantile_args(name, a, q, out, overwrite_input, weights):
    check_arraylike(name, a, q)
    if overwrite_input or out is not None:
        raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or out != None")
    if weights is not None:
        check_arraylike(name, weights)


def _named_jit(name, fun, *static_argnames):
    """`fun` jitted under `name` (its jaxpr's `jit[name=...]`), as JAX jits quantile,
    nanquantile, percentile, nanpercentile, median and nanmedian: the axis, method and
    keepdims static, the array and q traced."""
    fun.__name__ = fun.__qualname__ = name
    return util.jnp_jit(fun, static_argnames=static_argnames)


_quantile_jit = _named_jit(
    "quantile", lambda a, q, axis, method, keepdims, weights=None: _quantile(
        ensure_array(a), q, axis, method, keepdims, False, weights),
    "axis", "method", "keepdims")
_nanquantile_jit = _named_jit(
    "nanquantile", lambda a, q, axis, method, keepdims, weights=None: _quantile(
        ensure_array(a), q, axis, method, keepdims, True, weights),
    "axis", "method", "keepdims")
_percentile_jit = _named_jit(
    "percentile", lambda a, q, axis, method, keepdims, weights=None: _quantile_jit(
        a, _percent(q), axis, method, keepdims, weights),
    "axis", "method", "keepdims")
_nanpercentile_jit = _named_jit(
    "nanpercentile", lambda a, q, axis, method, keepdims, weights=None: _nanquantile_jit(
        a, _percent(q), axis, method, keepdims, weights),
    "axis", "method", "keepdims")
_median_jit = _named_jit(
    "median", lambda a, axis, keepdims: _quantile_jit(a, 0.5, axis, "midpoint", keepdims),
    "axis", "keepdims")
_nanmedian_jit = _named_jit(
    "nanmedian", lambda a, axis, keepdims: _nanquantile_jit(a, 0.5, axis, "midpoint", keepdims),
    "axis", "keepdims")


@jax_jitted(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False,
             *, weights=None):
    """The q-th quantiles (q in [0, 1], scalar or 1-D) along `axis`, interpolated as
    `method` says (linear, lower, higher, midpoint, nearest).

    >>> jnp.quantile(jnp.array([1., 2., 3., 4.]), 0.5)
    Array(2.5, dtype=float32)
    """
    _quantile_args("quantile", a, q, out, overwrite_input, weights)
    return _quantile_jit(a, q, _axes_arg(axis), method, keepdims, weights)


@jax_jitted(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
    """quantile of the non-NaN elements."""
    _quantile_args("nanquantile", a, q, out, overwrite_input, weights)
    return _nanquantile_jit(a, q, _axes_arg(axis), method, keepdims, weights)


def _percent(q):
    q, = util.promote_dtypes_inexact(ensure_array(q))
    return lax.div(q, typed_constant(100, aval_of(q).dtype))


@jax_jitted(static_argnames=("axis", "overwrite_input", "keepdims", "method", "out_sharding"))
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, out_sharding=None):
    """quantile with q in percent (0 to 100); with `out_sharding`, computed with the mesh's
    Explicit axes Auto and laid out so (JAX's auto_axes)."""
    _quantile_args("quantile", a, q, out, overwrite_input, weights)
    axis = _axes_arg(axis)
    out_sharding = canonicalize_sharding(out_sharding, "jnp.percentile")
    if out_sharding is not None:
        return run_auto_axes(lambda a, q, w: _percentile_jit(a, q, axis, method, keepdims, w),
                             (a, q, weights), {}, None, out_sharding)
    return _percentile_jit(a, q, axis, method, keepdims, weights)


@jax_jitted(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    """nanquantile with q in percent."""
    _quantile_args("nanquantile", a, q, out, overwrite_input, weights)
    return _nanpercentile_jit(a, q, _axes_arg(axis), method, keepdims, weights)


@jax_jitted(static_argnames=("axis", "overwrite_input", "keepdims"))
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle value along `axis` (mean of the two middle ones for even lengths).

    >>> jnp.median(jnp.array([3., 1., 2., 10.]))
    Array(2.5, dtype=float32)
    """
    check_arraylike("median", a)
    _quantile_args("quantile", a, 0.5, out, overwrite_input, None)
    return _median_jit(a, _axes_arg(axis), keepdims)


@jax_jitted(static_argnames=("axis", "overwrite_input", "keepdims"))
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """median of the non-NaN elements."""
    check_arraylike("nanmedian", a)
    _quantile_args("nanquantile", a, 0.5, out, overwrite_input, None)
    return _nanmedian_jit(a, _axes_arg(axis), keepdims)
