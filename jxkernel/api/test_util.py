"""check_grads: compare derivatives with finite differences, as jax.test_util does.

    >>> check_grads(jnp.sin, (0.5,), order=2)        # raises AssertionError on a mismatch

Forward mode: the JVP along a random direction against a central difference.
Reverse mode: the VJP against the JVP by the dot-product test
<vjp(ct), t> == <ct, jvp(t)>. check_jvp and check_vjp take JAX's arguments: the function, its
`partial(jax.jvp, f)` or `partial(jax.vjp, f)`, and the arguments. Higher orders apply the same checks to the
derivative functions themselves.
"""
from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes
from ..core.avals import get_aval
from ..transforms.ad_util import float0
from ..transforms.ad import jvp, vjp
from ..tree_util import tree_flatten, tree_map, tree_unflatten

_EPS = {np.dtype(np.float16): 2e-2, dtypes.bfloat16: 2e-1, np.dtype(np.float32): 1e-3,
        np.dtype(np.float64): 1e-5}
_TOL = {np.dtype(np.float16): 5e-2, dtypes.bfloat16: 3e-1, np.dtype(np.float32): 2e-2,
        np.dtype(np.float64): 1e-5}


def _np(x):
    dtype = np.asarray(x).dtype
    if dtype == float0:                     # the tangent of an integer value: zero
        return np.zeros(np.shape(x))
    return np.asarray(x, dtype=np.result_type(dtype, np.float64)
                      if dtype.kind not in "c" else np.complex128)


def _conj(x):
    return x if np.asarray(x).dtype == float0 else np.conj(x)


def _random_like(rng, x):
    if not dtypes.is_inexact(np.asarray(x).dtype):  # integer/bool values have float0 tangents
        return np.zeros(np.shape(x), float0)
    aval = get_aval(x)
    value = rng.standard_normal(aval.shape)
    if dtypes.is_complex(aval.dtype):
        value = value + 1j * rng.standard_normal(aval.shape)
    return np.asarray(value, dtype=aval.dtype)


def _inner(xs, ys):
    return sum(np.vdot(_np(x).ravel(), _np(y).ravel()).real for x, y in zip(xs, ys))


def _tol(args, given, table):
    """A tolerance for `args`: `given` if a number; else the loosest over the arguments'
    dtypes of `given` (a dict by dtype, as JAX's tests pass) over `table`. A given number may
    be a 0-d array (JAX's eigh tests scale eps by a norm): taken as a Python float, so it
    scales complex steps with no dtype promotion (JAX's check casts it to each input's dtype)."""
    if given is not None and not isinstance(given, dict):
        return float(np.asarray(given))
    if given:
        table = {**table, **{np.dtype(k): v for k, v in given.items()}}
    kinds = [np.dtype(get_aval(a).dtype) for a in tree_flatten(args)[0]]
    return max((table.get(k, table[np.dtype(np.float32)]) for k in kinds), default=1e-3)


def _numerical_jvp(f, args, tangents, eps):
    """The central difference of `f` at `args` along `tangents`, in float64 (the inputs
    rounded to their own dtypes, so `f` sees the values it is defined on)."""
    leaves, tree = tree_flatten(args)
    t_leaves = tree_flatten(tangents)[0]
    cast = lambda tr: tree_map(lambda v, x: np.asarray(v, get_aval(x).dtype), tr, args)
    plus = tree_unflatten(tree, [_np(x) + eps / 2 * _np(t) for x, t in zip(leaves, t_leaves)])
    minus = tree_unflatten(tree, [_np(x) - eps / 2 * _np(t) for x, t in zip(leaves, t_leaves)])
    f_plus, f_minus = (tree_flatten(f(*cast(p)))[0] for p in (plus, minus))
    return [_safe_sub(_np(hi), _np(lo)) / eps for hi, lo in zip(f_plus, f_minus)]


def _safe_sub(hi, lo):
    """hi - lo with inf - inf == 0, as JAX's difference: an output that stays infinite (a
    max over padding only) has no change, not a NaN."""
    with np.errstate(invalid="ignore"):
        return np.where(hi == lo, np.zeros_like(hi), hi - lo)


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=None, err_msg=""):
    """`f_jvp(args, tangents)` (typically `partial(jax.jvp, f)`) along a random direction
    matches a central difference of `f`, as JAX's check_jvp."""
    rng = np.random.default_rng(0)
    eps = _tol(args, eps, _EPS)
    atol, rtol = _tol(args, atol, _TOL), _tol(args, rtol, _TOL)
    tangents = tree_map(lambda x: _random_like(rng, x), args)
    _, out_t = f_jvp(args, tangents)
    numeric = _numerical_jvp(f, args, tangents, eps)
    for got, want in zip(tree_flatten(out_t)[0], numeric):
        # JAX's check_close: the tolerances grow with the number of elements compared
        n = max(np.size(want), 1)
        np.testing.assert_allclose(_np(got), want, atol=atol * n, rtol=rtol * n,
                                   err_msg=f"{err_msg} JVP does not match finite differences")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=None, err_msg=""):
    """`f_vjp(*args)` (typically `partial(jax.vjp, f)`) agrees with the JVP of `f` by the
    dot-product test <t, vjp(ct)> == <jvp(t), ct> (real part of the complex inner product,
    with JAX's conjugation convention). JAX's check_vjp takes the JVP from a central
    difference; here it is jax.jvp's where `f` has one, which check_jvp holds to the central
    difference: exact where the difference loses digits (erfcx far out, where f'' is huge)."""
    rng = np.random.default_rng(1)
    eps = _tol(args, eps, _EPS)
    atol, rtol = _tol(args, atol, _TOL), _tol(args, rtol, _TOL)
    out, pullback = f_vjp(*args)
    cotangent = tree_map(lambda x: _random_like(rng, x), out)
    tangents = tree_map(lambda x: _random_like(rng, x), args)
    # JAX's convention for complex values: the cotangent map is conj(vjp(conj(ct)))
    pulled = tree_flatten(pullback(tree_map(_conj, cotangent)))[0]
    lhs = _inner(tree_flatten(tangents)[0], [np.conj(_np(c)) for c in pulled])
    try:
        reference = tree_flatten(jvp(f, args, tangents)[1])[0]
    except TypeError:
        # no forward mode (a custom_vjp function, as odeint): the central difference, JAX's
        # own reference for check_vjp
        reference = _numerical_jvp(f, args, tangents, eps)
    rhs = _inner(reference, tree_flatten(cotangent)[0])
    np.testing.assert_allclose(lhs, rhs, atol=atol * max(1.0, abs(rhs)), rtol=rtol,
                               err_msg=f"{err_msg} VJP disagrees with JVP (dot-product test)")


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check derivatives of `f` at `args` up to `order` in the given modes."""
    args = tuple(args)
    for mode in modes:
        if mode not in ("fwd", "rev"):
            raise ValueError(f"Unknown mode {mode!r}; expected 'fwd' or 'rev'")

    def check(fun, order_left):
        if "fwd" in modes:
            check_jvp(fun, functools.partial(jvp, fun), args, atol, rtol, eps)
        if "rev" in modes:
            check_vjp(fun, functools.partial(vjp, fun), args, atol, rtol, eps)
        if order_left > 1:
            rng = np.random.default_rng(order_left)
            if "fwd" in modes:
                tangents = tree_map(lambda x: _random_like(rng, x), args)
                check(lambda *xs: jvp(fun, xs, tangents)[1], order_left - 1)
            if "rev" in modes:
                out = fun(*args)
                ct = tree_map(lambda x: _random_like(rng, x), out)
                check(lambda *xs: vjp(fun, *xs)[1](ct), order_left - 1)
    check(f, order)
