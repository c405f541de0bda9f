"""check_grads with every evaluation it makes compiled as one program (issue 45).

`jxkernel.test_util.check_grads(f, args, order)` evaluates f, its jvps, vjps and their own
derivatives op by op: each primitive on each new shape is a compile of its own (30 to 70 per
gradient test of a small function, ~25 ms of CPU each). `check_grads_together` makes
jxkernel's earlier checks (a central difference over x +- eps/2 in float64, the VJP by the
dot-product test against jvp, tangents from default_rng; not JAX 0.10.2's, which
jxkernel.test_util.check_grads now makes) on evaluations planned first and computed
together by `compiled.jit_together`: one compile per call. Under jit XLA fuses the
operations and may round the last bits differently from eager evaluation; the tolerances
(2e-2 for float32) are far above that.

It pays only where the derivatives are small programs: XLA's compile time grows with the
program (svd's second derivatives compile in 1.6 s as one program, where op by op their
primitives' compiles are shared with other tests), and tracing a derivative rule that builds
a long jaxpr (cumlogsumexp's prefix scan) costs more than running it eagerly. Measured per
test (CPU seconds, op by op -> together): reduce_prod 1.30 -> 0.62, reduce_pair 1.71 -> 0.36,
cumprod 1.57 -> 0.67, qr's first order 1.00 -> 0.47; but svd 1.41 -> 2.58, cumlogsumexp
0.91 -> 1.65. So a test file uses it where its gradient tests were measured to pay.
"""
import numpy as np

import jxkernel as jax
from compiled import LOOP_EMITTERS, jit_together
from jxkernel.core import dtypes
from jxkernel.core.avals import get_aval
from jxkernel.transforms.ad_util import float0
from jxkernel.tree_util import tree_flatten, tree_map, tree_unflatten

# jxkernel's check before it took JAX 0.10.2's (a central difference over x +- eps/2 in
# float64, default_rng tangents, looser tolerances): the files that use check_grads_together
# were measured against it, and it is kept here, not in jxkernel, until they move over.
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


def check_grads_together(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """check_grads(f, args, order, modes) with its evaluations compiled together.

    >>> import jxkernel.numpy as jnp
    >>> check_grads_together(jnp.sin, (np.float32([0.5, 1.0]),), order=2)
    """
    args = tuple(args)
    for mode in modes:
        if mode not in ("fwd", "rev"):
            raise ValueError(f"Unknown mode {mode!r}; expected 'fwd' or 'rev'")
    plan = _Plan()
    _plan_checks(plan, f, args, order, modes, atol, rtol, eps)
    plan.run()


class _Plan:
    """Evaluations to make (key -> (fun, args)) and the checks that read them, in order."""

    def __init__(self):
        self.calls, self.checks = {}, []

    def call(self, fun, *call_args):
        key = len(self.calls)
        self.calls[key] = (fun, list(call_args))
        return key

    def run(self):
        # each check compares values of this one program (a jvp with its finite differences)
        results = jit_together(jax, self.calls, chunk=max(1, len(self.calls)),
                               compiler_options=LOOP_EMITTERS)
        for check in self.checks:
            check(results)


def _plan_checks(plan, fun, args, order_left, modes, atol, rtol, eps):
    # the recursion of check_grads, with the same random draws in the same order
    if "fwd" in modes:
        _plan_jvp(plan, fun, args, atol, rtol, eps)
    if "rev" in modes:
        _plan_vjp(plan, fun, args, atol, rtol)
    if order_left > 1:
        rng = np.random.default_rng(order_left)
        if "fwd" in modes:
            tangents = tree_map(lambda x: _random_like(rng, x), args)
            _plan_checks(plan, _jvp_of(fun, tangents), args, order_left - 1, modes, atol, rtol,
                         eps)
        if "rev" in modes:
            ct = tree_map(lambda x: _random_like(rng, x), _zeros_like_output(fun, args))
            _plan_checks(plan, _vjp_of(fun, ct), args, order_left - 1, modes, atol, rtol, eps)


def _jvp_of(fun, tangents):
    return lambda *xs: jax.jvp(fun, xs, tangents)[1]


def _vjp_of(fun, ct):
    return lambda *xs: jax.vjp(fun, *xs)[1](ct)


def _zeros_like_output(fun, args):
    """Arrays of fun(*args)'s shapes and dtypes (only those decide a random draw), traced
    instead of computed."""
    return tree_map(lambda s: np.zeros(s.shape, s.dtype), jax.eval_shape(fun, *args))


def _plan_jvp(plan, fun, args, atol, rtol, eps):
    """check_jvp: the JVP along a random direction against a central difference."""
    rng = np.random.default_rng(0)
    eps = _tol(args, eps, _EPS)
    atol, rtol = _tol(args, atol, _TOL), _tol(args, rtol, _TOL)
    tangents = tree_map(lambda x: _random_like(rng, x), args)
    leaves, tree = tree_flatten(args)
    t_leaves = tree_flatten(tangents)[0]
    plus = tree_unflatten(tree, [_np(x) + eps / 2 * _np(t) for x, t in zip(leaves, t_leaves)])
    minus = tree_unflatten(tree, [_np(x) - eps / 2 * _np(t) for x, t in zip(leaves, t_leaves)])
    cast = lambda tr: tree_map(lambda v, x: np.asarray(v, get_aval(x).dtype), tr, args)
    out_t = plan.call(_jvp_of(fun, tangents), *args)
    f_plus, f_minus = (plan.call(fun, *cast(p)) for p in (plus, minus))

    def check(results):
        hi_lo = zip(tree_flatten(results[f_plus])[0], tree_flatten(results[f_minus])[0])
        for got, (hi, lo) in zip(tree_flatten(results[out_t])[0], hi_lo):
            numeric = (_np(hi) - _np(lo)) / eps
            np.testing.assert_allclose(_np(got), numeric, atol=atol, rtol=rtol,
                                       err_msg="JVP does not match finite differences")
    plan.checks.append(check)


def _plan_vjp(plan, fun, args, atol, rtol):
    """check_vjp: <t, vjp(ct)> == <jvp(t), ct> (real part, JAX's conjugation convention)."""
    rng = np.random.default_rng(1)
    atol, rtol = _tol(args, atol, _TOL), _tol(args, rtol, _TOL)
    cotangent = tree_map(lambda x: _random_like(rng, x), _zeros_like_output(fun, args))
    tangents = tree_map(lambda x: _random_like(rng, x), args)
    out_t = plan.call(_jvp_of(fun, tangents), *args)
    pulled = plan.call(_vjp_of(fun, tree_map(_conj, cotangent)), *args)

    def check(results):
        lhs = _inner(tree_flatten(tangents)[0],
                     [np.conj(_np(c)) for c in tree_flatten(results[pulled])[0]])
        rhs = _inner(tree_flatten(results[out_t])[0], tree_flatten(cotangent)[0])
        np.testing.assert_allclose(lhs, rhs, atol=atol * max(1.0, abs(rhs)), rtol=rtol,
                                   err_msg="VJP disagrees with JVP (dot-product test)")
    plan.checks.append(check)
