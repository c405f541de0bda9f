"""check_grads: compare derivatives with finite differences, as jax.test_util does.

    >>> check_grads(jnp.sin, (0.5,), order=2)        # raises AssertionError on a mismatch

JAX 0.10.2's check, step for step, so a function passes or fails as under JAX: the numerical
JVP is the central difference (f(x + eps t) - f(x - eps t)) / (2 eps), eps = 1e-4 unless given,
computed in each input's and output's own dtype, along the tangent `RandomState(0).randn` draws
leaf by leaf. Forward mode compares jvp's tangent with it; reverse mode compares
<t, vjp(ct)> with <numerical jvp(t), ct> (ct drawn next from the same stream). Tolerances
are JAX's per dtype, scaled by the number of elements compared. Order n checks the
derivative functions: `partial(jvp, f)` at (args, args) and `vjp(f, *args)[1](f(*args))`.
"""
from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes
from ..core.config import config
from ..core.avals import get_aval
from ..transforms.ad import jvp, vjp
from ..transforms.ad.linearization import linearize
from ..transforms.ad_util import float0
from ..tree_util import tree_flatten, tree_map

EPS = 1e-4


def _by_dtype(**table):
    return {np.dtype(getattr(dtypes, k, None) or getattr(np, k)): v for k, v in table.items()
            if getattr(dtypes, k, None) is not None or hasattr(np, k)}


_FLOAT8 = dict.fromkeys(("float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
                         "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz"), 1e-1)
# JAX's default_gradient_tolerance: the defaults of check_grads' atol and rtol
default_gradient_tolerance = _by_dtype(
    **_FLOAT8, float4_e2m1fn=1e0, float8_e8m0fnu=1e0, bfloat16=1e-1, float16=1e-2,
    float32=2e-3, float64=1e-5, complex64=1e-3, complex128=1e-5)
# JAX's default_tolerance: what a dtype absent from the table above gets (exact for integers)
_default_tolerance = {
    **_by_dtype(**_FLOAT8, float4_e2m1fn=1e0, float8_e8m0fnu=1e0, bfloat16=1e-2,
                float16=1e-3, float32=1e-6, float64=1e-15, complex64=1e-6, complex128=1e-15),
    **{np.dtype(k): 0 for k in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                np.uint16, np.uint32, np.uint64)},
    np.dtype(float0): 0}


def _dtype(x) -> np.dtype:
    # a Python scalar's own dtype (float64 for a float), not its canonical one, as JAX's
    return x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype


def _is_float0(x) -> bool:
    return _dtype(x) == float0


def _tolerance(dtype, tol):
    if not isinstance(tol, dict):
        return tol
    dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
    return tol.get(dtype, _default_tolerance.get(dtype, 0))


def _merge_tolerance(tol):
    if tol is None:
        return default_gradient_tolerance
    if not isinstance(tol, dict):
        return tol
    return {**default_gradient_tolerance, **{np.dtype(k): v for k, v in tol.items()}}


def _assert_close(a, b, atol, rtol, err_msg):
    """JAX's check_close of one leaf: the loosest tolerance of the two dtypes, times the
    number of elements (a zero tolerance is NumPy's default)."""
    if _is_float0(a) or _is_float0(b):      # no derivative (an integer output): nothing to compare
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{err_msg}: shapes {a.shape} and {b.shape} differ"
    atol = max(_tolerance(a.dtype, atol), _tolerance(b.dtype, atol))
    rtol = max(_tolerance(a.dtype, rtol), _tolerance(b.dtype, rtol))
    upcast = lambda x: x.astype(np.float32) if x.dtype.kind == "V" or (
        x.dtype.kind == "f" and x.dtype.itemsize < 2) or x.dtype == dtypes.bfloat16 else x
    kw = {k: v for k, v in (("atol", atol * a.size), ("rtol", rtol * b.size)) if v}
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(upcast(a), upcast(b), **kw, err_msg=err_msg)


def _check_close(xs, ys, atol, rtol, err_msg):
    tree_map(lambda x, y: _assert_close(x, y, atol, rtol, err_msg), xs, ys)


def _check_dtypes_match(xs, ys):
    def same(x, y):
        if _is_float0(x) or _is_float0(y):
            return
        if config.jax_enable_x64:
            assert _dtype(x) == _dtype(y), f"dtypes {_dtype(x)} and {_dtype(y)} differ"
        else:
            assert dtypes.canonicalize_dtype(_dtype(x)) == dtypes.canonicalize_dtype(_dtype(y)), (
                f"dtypes {_dtype(x)} and {_dtype(y)} differ")
    tree_map(same, xs, ys)


def rand_like(rng, x):
    """Standard normal values (complex: both parts) of `x`'s shape and dtype from
    `rng.randn`, as JAX's tests draw a tangent for `x`; a Python scalar for a Python scalar.

    >>> rand_like(np.random.RandomState(0), np.zeros(2, np.float32))
    array([1.7640524, 0.4001572], dtype=float32)
    """
    shape, dtype = np.shape(x), _dtype(x)
    randn = lambda: np.asarray(rng.randn(*shape), dtype=dtype)
    result = randn() + dtype.type(1j) * randn() if dtypes.is_complex(dtype) else randn()
    return result.item() if dtypes.is_python_scalar(x) else result


def _tangent_like(rng, x):
    """rand_like's draw, float0 zeros for an integer or bool value (its tangent type, where
    JAX's check would pass the integers drawn and fail): later leaves get JAX's numbers."""
    drawn = rand_like(rng, x)
    return drawn if dtypes.is_inexact(_dtype(x)) else np.zeros(np.shape(x), float0)


def _scalar_mul(x, a):
    if _is_float0(x):
        return x
    dtype = _dtype(x)
    result = np.multiply(np.asarray(x), np.array(np.asarray(a), dtype=dtype), dtype=dtype)
    return result.item() if dtypes.is_python_scalar(x) else result


def _step(x, delta, sign):
    """x + sign * delta in x's dtype (a Python scalar stays one), as JAX's add/sub."""
    if _is_float0(delta):
        return x
    result = np.array(np.asarray(x) + sign * np.asarray(delta), dtype=_dtype(x))
    return result.item() if dtypes.is_python_scalar(x) and dtypes.is_python_scalar(delta) \
        else result


def _safe_sub(x, y):
    """x - y in x's dtype, with inf - inf == 0: an output that stays infinite has no change."""
    if _is_float0(x):                       # an integer output's tangent: no change
        return x
    dtype = _dtype(x)
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(invalid="ignore"):
        return np.where(np.equal(x, y), np.array(0, dtype), np.subtract(x, y, dtype=dtype))


def numerical_jvp(f, primals, tangents, eps=EPS):
    """(f(x + eps t) - f(x - eps t)) * (0.5 / eps), each step in its value's own dtype.

        >>> numerical_jvp(lambda x: x * x, (np.float32(3),), (np.float32(1),))  # float32's noise
        np.float32(5.993843)
    """
    delta = tree_map(lambda t: _scalar_mul(t, eps), tangents)
    f_pos = f(*tree_map(lambda x, d: _step(x, d, 1), primals, delta))
    f_neg = f(*tree_map(lambda x, d: _step(x, d, -1), primals, delta))
    half = np.divide(0.5, np.asarray(eps))
    return tree_map(lambda d: _scalar_mul(d, half), tree_map(_safe_sub, f_pos, f_neg))


def _inner_prod(xs, ys):
    """sum over leaves of Re <x, y> (x conjugated), skipping integer (float0) leaves."""
    total = 0
    for x, y in zip(tree_flatten(xs)[0], tree_flatten(ys)[0]):
        if not (_is_float0(x) or _is_float0(y)):
            total = np.add(total, np.real(np.dot(np.conj(np.asarray(x)).reshape(-1),
                                                 np.asarray(y).reshape(-1))))
    return np.asarray(total)


def _conj(x):
    if _is_float0(x):
        return x
    result = np.array(np.conj(np.asarray(x)), dtype=_dtype(x))
    return result.item() if dtypes.is_python_scalar(x) else result


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """`f_jvp(args, tangents)` (typically `partial(jax.jvp, f)`) matches f at `args` and the
    numerical JVP along JAX's random tangent."""
    atol, rtol = _merge_tolerance(atol), _merge_tolerance(rtol)
    rng = np.random.RandomState(0)
    tangent = tree_map(functools.partial(_tangent_like, rng), args)
    v_out, t_out = f_jvp(args, tangent)
    _check_dtypes_match(v_out, t_out)
    v_out_expected = f(*args)
    _check_dtypes_match(v_out, v_out_expected)
    t_out_expected = numerical_jvp(f, args, tangent, eps=eps)
    _check_close(v_out, v_out_expected, atol, rtol, f"{err_msg} primal" if err_msg else "primal")
    _check_close(t_out, t_out_expected, atol, rtol,
                 f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """`f_vjp(*args)` (typically `partial(jax.vjp, f)`) passes the dot-product test against the
    numerical JVP: <t, conj(vjp(conj(ct)))> == <numerical jvp(t), ct>."""
    atol, rtol = _merge_tolerance(atol), _merge_tolerance(rtol)
    rand_like = functools.partial(_tangent_like, np.random.RandomState(0))
    v_out, vjpfun = f_vjp(*args)
    v_out_expected = f(*args)
    _check_close(v_out, v_out_expected, atol, rtol, f"{err_msg} primal" if err_msg else "primal")
    tangent = tree_map(rand_like, args)
    tangent_out = numerical_jvp(f, args, tangent, eps=eps)
    cotangent = tree_map(rand_like, v_out)
    cotangent_out = tree_map(_conj, vjpfun(tree_map(_conj, cotangent)))
    ip = _inner_prod(tangent, cotangent_out)
    ip_expected = _inner_prod(tangent_out, cotangent)
    _check_close(ip, ip_expected, atol, rtol,
                 f"{err_msg} cotangent projection" if err_msg else "cotangent projection")


def _jvp_from_lin(f, primals, tangents):
    primal_out, f_lin = linearize(f, *primals)
    return primal_out, f_lin(*tangents)


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check derivatives of `f` at `args` up to `order` in `modes` ('fwd', 'rev', 'lin')."""
    args = tuple(args)
    eps = eps or EPS
    for mode in modes:
        if mode not in ("fwd", "rev", "lin"):
            raise ValueError(f"check_grads: unknown mode {mode!r} in modes={modes!r}; "
                             "expected 'fwd', 'rev' or 'lin'")
    check_fwd = functools.partial(check_jvp, atol=atol, rtol=rtol, eps=eps)
    check_rev = functools.partial(check_vjp, atol=atol, rtol=rtol, eps=eps)

    def check(f, args, order, err_msg=""):
        if "fwd" in modes:
            fwd_msg = f"JVP of {err_msg}" if err_msg else "JVP"
            check_fwd(f, functools.partial(jvp, f), args, err_msg=fwd_msg)
            if order > 1:
                check(functools.partial(jvp, f), (args, args), order - 1, fwd_msg)
        if "rev" in modes:
            rev_msg = f"VJP of {err_msg}" if err_msg else "VJP"
            check_rev(f, functools.partial(vjp, f), args, err_msg=rev_msg)
            if order > 1:
                def f_vjp(*args):
                    out, pullback = vjp(f, *args)
                    return pullback(out)
                check(f_vjp, args, order - 1, rev_msg)
        if "lin" in modes:
            lin_msg = f"LIN of {err_msg}" if err_msg else "LIN"
            check_fwd(f, functools.partial(_jvp_from_lin, f), args, err_msg=lin_msg)
            if order > 1:
                check(functools.partial(_jvp_from_lin, f), (args, args), order - 1, lin_msg)
    check(f, args, order)
