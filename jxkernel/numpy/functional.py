"""Functions of functions: vectorize, piecewise, select, apply_along_axis, apply_over_axes,
fromfunction. All are built on vmap (and lax.switch), as in JAX.

    >>> jnp.vectorize(jnp.dot, signature="(n),(n)->()")(jnp.ones((4, 3)), jnp.ones(3))
    Array([3., 3., 3., 3.], dtype=float32)
    >>> jnp.fromfunction(lambda i, j: i + j, (2, 2))
    Array([[0., 1.],
           [1., 2.]], dtype=float32)
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from .. import lax
from ..core.config import config
from ..core.source_info import user_stacklevel
from ..transforms.batching import vmap
from . import reductions, util
from .gufunc_signature import context as gufunc_context, parse_signature, record_core_sizes
from .creation import _shape, arange, array, asarray, zeros_like
from .manipulation import broadcast_arrays, concatenate, expand_dims, squeeze, stack
from .util import aval_of, canonicalize_axis, check_arraylike, ensure_arraylike, jnp_jit

__all__ = ["vectorize", "piecewise", "select", "apply_along_axis", "apply_over_axes",
           "fromfunction"]


# ------------------------------------------------------------------ vectorize
def _checking_outputs(func, sizes: dict, out_cores: list, context: str):
    """`func`, checking that its outputs have the signature's core dimensions."""
    def checked(*args):
        out = func(*args)
        outs = out if isinstance(out, tuple) else [out]
        if len(out_cores) > 1 and not isinstance(out, tuple):
            raise TypeError(f"output must be a tuple when multiple outputs are expected, got: "
                            f"{out!r}\n{context}")
        if len(outs) != len(out_cores):
            raise TypeError(f"wrong number of output arguments: expected {len(out_cores)!r}, "
                            f"got {len(outs)!r} {context}")
        known = dict(sizes)
        for o, core in zip(outs, out_cores):
            record_core_sizes(known, np.shape(o), core, context, is_input=False)
        return out
    return checked


def _bind_excluded(func, excluded, args, kwargs):
    """(func with the excluded arguments bound, the other args, the other kwargs)."""
    if not excluded:
        return func, args, kwargs
    fixed = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int))
             if i < len(args)]
    fixed_kw = {k: v for k, v in kwargs.items() if k in excluded}

    def bound(*rest, **kw):
        full = list(rest)
        for i, v in fixed:
            full.insert(i, v)
        return func(*full, **kw, **fixed_kw)
    return (bound, [a for i, a in enumerate(args) if i not in excluded],
            {k: v for k, v in kwargs.items() if k not in excluded})


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """`pyfunc` mapped over the leading (broadcast) dimensions of its array arguments with
    vmap; `signature` ("(n),(n)->()") names the core dimensions each call sees, `excluded`
    the positions/names of arguments passed through unchanged.

    >>> jnp.vectorize(lambda a, b: a * b)(jnp.arange(3), jnp.arange(2)[:, None])
    Array([[0, 0, 0],
           [0, 1, 2]], dtype=int32)
    """
    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError(f"jax.numpy.vectorize can only exclude integer or string arguments, "
                        f"but excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        context = gufunc_context(excluded, signature)
        func, args, kwargs = _bind_excluded(pyfunc, excluded, args, kwargs)
        if signature is not None:
            in_cores, out_cores = parse_signature(signature)
        else:
            in_cores, out_cores = [()] * len(args), None
        nones = {i for i, a in enumerate(args) if a is None}
        if nones:                            # None arguments pass through as excluded ones
            if any(in_cores[i] != () for i in nones):
                raise ValueError(f"Cannot pass None at locations {nones} with "
                                 f"signature={signature!r}")
            func, args, _ = _bind_excluded(func, nones, args, {})
            in_cores = [c for i, c in enumerate(in_cores) if i not in nones]
        args = [asarray(a) for a in args]
        if len(args) != len(in_cores):
            raise TypeError(f"wrong number of positional arguments: expected "
                            f"{len(in_cores)!r}, got {len(args)!r} {context}")
        sizes: dict = {}
        loop_shapes = []
        for a, core in zip(args, in_cores):
            record_core_sizes(sizes, a.shape, core, context, is_input=True)
            loop_shapes.append(a.shape[:a.ndim - len(core)])
        _check_rank_promotion(args, in_cores, signature)
        loop_shape = util.broadcast_shapes(*loop_shapes)
        if out_cores is not None:
            func = _checking_outputs(func, sizes, out_cores, context)
        # vmap over each loop dimension only the arguments that vary along it (size-1
        # dimensions are squeezed away, not broadcast), so batching rules see unbatched
        # operands where they can; dimensions no argument varies along are added back.
        squeezed, padded = [], []
        for a, s in zip(args, loop_shapes):
            padded.append((1,) * (len(loop_shape) - len(s)) + s)
            squeezed.append(squeeze(a, axis=tuple(i for i, d in enumerate(s) if d == 1)))
        mapped, missing = func, []
        for back in range(len(loop_shape)):
            in_axes = tuple(None if p[-1 - back] == 1 else 0 for p in padded)
            if all(ax is None for ax in in_axes):
                missing.append(len(loop_shape) - 1 - back)
            else:
                mapped = vmap(mapped, in_axes)
        out = mapped(*squeezed)
        if not missing:
            return out
        if isinstance(out, tuple):
            return tuple(expand_dims(o, missing) for o in out)
        return expand_dims(out, missing)
    return wrapped


def _check_rank_promotion(args, in_cores, signature):
    """JAX's jax_numpy_rank_promotion for vectorize: arguments (other than 0-d ones) whose
    loop dimensions differ in number are promoted implicitly, which 'warn' and 'raise'
    report as JAX does."""
    if config.jax_numpy_rank_promotion == "allow":
        return
    ranks = {a.ndim - len(core) for a, core in zip(args, in_cores) if a.ndim != 0}
    if len(ranks) > 1:
        msg = (f"operands with shapes {[a.shape for a in args]} require rank promotion for "
               f"jnp.vectorize function with signature {signature}. Set the "
               "jax_numpy_rank_promotion config option to 'allow' to disable this message; "
               "for more information, see "
               "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")
        if config.jax_numpy_rank_promotion == "raise":
            raise ValueError(msg)
        warnings.warn(msg, stacklevel=user_stacklevel())


# ------------------------------------------------------------------ select, piecewise
def select(condlist, choicelist, default=0):
    """The entry of the first choice whose condition holds, else `default`.

    >>> x = jnp.arange(4)
    >>> jnp.select([x < 1, x < 3], [x, -x], default=9)
    Array([ 0, -1, -2,  9], dtype=int32)
    """
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist "
                         f"({len(condlist)} vs {len(choicelist)})")
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    conds = [asarray(c) for c in condlist]
    # the default goes first with an always-false condition: argmax of all-False is 0
    choices = util.promote_dtypes(asarray(default), *(asarray(c) for c in choicelist))
    which = reductions.argmax(stack(broadcast_arrays(False, *conds)).astype(bool), axis=0)
    return lax.select_n(*broadcast_arrays(which, *choices))


def piecewise(x, condlist, funclist, *args, **kw):
    """funclist[i](x) (or the constant funclist[i]) where condlist[i] holds (the last
    matching condition wins); an extra last entry of funclist is the otherwise value.

    >>> x = jnp.array([-2., 0., 3.])
    >>> jnp.piecewise(x, [x < 0, x > 0], [lambda v: -v, lambda v: v ** 2])
    Array([2., 0., 9.], dtype=float32)
    """
    x = ensure_arraylike("piecewise", x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = funclist[-1:] + funclist[:-1]
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are "
                         f"expected; got {nf}")
    consts = {i: c for i, c in enumerate(funclist) if not callable(c)}
    funcs = frozenset((i, f) for i, f in enumerate(funclist) if callable(f))
    return _piecewise(x, asarray(condlist, dtype=bool), consts, funcs, *args, **kw)


@jnp_jit(static_argnames=("funcs",))
def _piecewise(x, condlist, consts, funcs, *args, **kw):
    funcs = dict(funcs)
    table = [consts.get(i, funcs.get(i)) for i in range(aval_of(condlist).shape[0] + 1)]
    # branch index: how many conditions hold up to the last true one (0 when none does)
    first = zeros_like(condlist[:1])
    which = reductions.argmax(reductions.cumsum(concatenate([first, condlist], 0), 0), 0)
    dtype = aval_of(x).dtype

    def branch(f):
        if callable(f):
            return lambda v: f(v, *args, **kw).astype(dtype)
        return lambda v: array(f, dtype=dtype)
    return vectorize(lax.switch, excluded=(1,))(which, [branch(f) for f in table], x)


# ------------------------------------------------------------------ apply_*, fromfunction
def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
    """func1d applied to each 1-D slice of `arr` along `axis` (vmapped over the others);
    its output dimensions take the place of `axis`.

    >>> jnp.apply_along_axis(jnp.sum, 1, jnp.arange(6).reshape(2, 3))
    Array([ 3, 12], dtype=int32)
    """
    check_arraylike("apply_along_axis", arr)
    ndim = np.ndim(arr)
    axis = canonicalize_axis(axis, ndim)
    def func(a):
        return func1d(a, *args, **kwargs)

    for i in range(1, ndim - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(arr)


def apply_over_axes(func, a, axes):
    """func(a, axis) for each axis in turn, keeping the rank (a reduced axis stays as 1).

    >>> jnp.apply_over_axes(jnp.sum, jnp.ones((2, 3)), [0, 1])
    Array([[6.]], dtype=float32)
    """
    a = ensure_arraylike("apply_over_axes", a)
    for axis in axes:
        b = func(a, axis)
        if b.ndim == a.ndim:
            a = b
        elif b.ndim == a.ndim - 1:
            a = expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return a


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """function(i0, i1, ...) over the index grid of `shape`, called once with vmapped
    index vectors (so `function` must be traceable).

    >>> jnp.fromfunction(lambda i: i * 2, (3,), dtype=int)
    Array([0, 2, 4], dtype=int32)
    """
    shape = _shape(shape, "shape argument of jnp.fromfunction()")
    for i in range(len(shape)):
        in_axes = tuple(0 if i == j else None for j in range(len(shape)))
        function = vmap(function, in_axes=in_axes[::-1])
    return function(*(arange(s, dtype=dtype) for s in shape), **kwargs)
