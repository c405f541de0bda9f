"""lax.reduce_window and its primitives (reduce_window_{sum,max,min}, the generic reduce_window,
select_and_gather_add, select_and_scatter_add): pooling against NumPy loops, derivatives against
finite differences and against JAX 0.10.2's recorded values (max pooling with ties: JAX credits
the first maximal element of each window), vmap against stacking, jit against eager, the printed
jaxpr and the argument errors."""
import functools
import itertools
import os

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.core import check_jaxpr
import locations  # tests/support: the repository's folders

DATA = locations.DATA
from compiled import constants_as_arguments, jit_together, xla_default_code
from grads_together import check_grads_together
from lowered import run_lowered
from numerics import ELEMENTWISE, REDUCTION, assert_allclose_ulp
from windowed_cases import ULPS, cases

INF = np.float32(np.inf)


# ------------------------------------------------------------------ NumPy reference
def np_reduce_window(x, init, op, window, strides=None, padding=None, base=None, wdil=None):
    """Windows of `x` dilated by `base` and padded, each reduced by `op` (a binary NumPy
    function) from `init` in row-major window order. Padding and dilation holes are skipped,
    as XLA does (for a monoid the same as filling them with `init`)."""
    x = np.asarray(x)
    n = x.ndim
    strides, base, wdil = (v or (1,) * n for v in (strides, base, wdil))
    padding = padding or [(0, 0)] * n
    size = [(0 if d == 0 else 1 + b * (d - 1)) + lo + hi
            for d, b, (lo, hi) in zip(x.shape, base, padding)]
    span = [1 + d * (w - 1) for w, d in zip(window, wdil)]
    out_shape = [max(0, (p - s) // st + 1) for p, s, st in zip(size, span, strides)]
    out = np.empty(out_shape, x.dtype)
    for idx in np.ndindex(*out_shape):
        acc = np.asarray(init, x.dtype)
        for k in np.ndindex(*window):
            pos = [i * st + j * d - lo for i, st, j, d, (lo, _) in
                   zip(idx, strides, k, wdil, padding)]
            if all(p >= 0 and p % b == 0 and p // b < d for p, b, d in zip(pos, base, x.shape)):
                acc = op(acc, x[tuple(p // b for p, b in zip(pos, base))])
        out[idx] = acc
    return out


def assert_windows_match(got, x, kind, *args):
    """got against np_reduce_window(x, ...) of the `kind` monoid: max and min exactly; sums
    against float64's rounded once, within REDUCTION ulps at the windows' sums of |x|
    (worst 1)."""
    _, init, np_op = MONOIDS[kind]
    if kind != "sum":
        assert_allclose_ulp(np.asarray(got), np_reduce_window(x, init, np_op, *args), 0)
        return
    x64 = np.asarray(x, np.float64)
    want = np_reduce_window(x64, 0., np.add, *args).astype(np.float32)
    assert_allclose_ulp(np.asarray(got), want, REDUCTION,
                        scale=np_reduce_window(np.abs(x64), 0., np.add, *args))


def np_same_pads(shape, window, strides, lower=False):
    pads = []
    for d, w, s in zip(shape, window, strides):
        total = max(0, (-(-d // s) - 1) * s + w - d)
        pads.append((total - total // 2, total // 2) if lower else (total // 2, total - total // 2))
    return pads


rng = np.random.RandomState(0)
X1 = rng.randn(11).astype(np.float32)
NHWC = rng.randn(2, 6, 7, 3).astype(np.float32)
NCHW = rng.randn(2, 3, 6, 5).astype(np.float32)

MONOIDS = {"max": (lax.max, -INF, np.maximum), "min": (lax.min, INF, np.minimum),
           "sum": (lax.add, np.float32(0), np.add)}

# name, operand, monoid, window, strides, padding, base_dilation, window_dilation
POOLS = [
    ("1d", X1, "max", (3,), (2,), "VALID", None, None),
    ("1d_same", X1, "min", (4,), (3,), "SAME", None, None),
    ("1d_pad_dil", X1, "sum", (3,), (2,), [(2, 1)], (2,), (2,)),
    ("1d_negative_pad", X1, "max", (2,), (1,), [(-2, 1)], None, None),
    ("nhwc", NHWC, "max", (1, 3, 3, 1), (1, 2, 2, 1), "SAME", None, None),
    ("nhwc_sum", NHWC, "sum", (1, 2, 3, 1), (1, 1, 2, 1), [(0, 0), (1, 0), (1, 1), (0, 0)],
     None, None),
    ("nchw", NCHW, "max", (1, 1, 2, 2), (1, 1, 2, 2), "VALID", None, None),
    ("nchw_min_dil", NCHW, "min", (1, 1, 2, 3), (1, 1, 1, 2), [(0, 0), (0, 0), (1, 2), (0, 1)],
     (1, 1, 2, 1), (1, 1, 1, 2)),
    ("nchw_sum_dil", NCHW, "sum", (1, 1, 3, 2), (1, 1, 2, 1), "SAME", (1, 1, 1, 2), (1, 1, 2, 1)),
]


def _pads_for(x, window, strides, padding, wdil):
    if not isinstance(padding, str):
        return padding
    span = [1 + d * (w - 1) for w, d in zip(window, wdil or (1,) * x.ndim)]
    return np_same_pads(x.shape, span, strides) if padding == "SAME" else [(0, 0)] * x.ndim


def _pool_fun(kind, window, strides, padding, base, wdil):
    op, init, _ = MONOIDS[kind]
    return lambda x: lax.reduce_window(x, init, op, window, strides, padding, base, wdil)


@functools.cache
def _pools_jitted():
    """jit(f)(x) of every case of test_pooling_matches_numpy_eager_and_jit, compiled together
    (compiled.jit_together)."""
    return jit_together(jax, {p[0]: (_pool_fun(*p[2:]), [p[1]]) for p in POOLS})


@pytest.mark.parametrize("name,x,kind,window,strides,padding,base,wdil", POOLS,
                         ids=[p[0] for p in POOLS])
def test_pooling_matches_numpy_eager_and_jit(name, x, kind, window, strides, padding, base, wdil):
    f = _pool_fun(kind, window, strides, padding, base, wdil)
    got = f(x)
    assert got.dtype == np.float32
    assert_windows_match(got, x, kind, window, strides,
                         _pads_for(x, window, strides, padding, wdil), base, wdil)
    np.testing.assert_array_equal(np.asarray(_pools_jitted()[name]), np.asarray(got))
    prim = {"max": "reduce_window_max", "min": "reduce_window_min", "sum": "reduce_window_sum"}
    assert jax.make_jaxpr(f)(x).eqns[0].primitive.name == prim[kind]


def test_avg_pool_1d_and_2d():
    def avg(x, window, strides, padding):
        s = lax.reduce_window(x, 0., lax.add, window, strides, padding)
        n = lax.reduce_window(jnp.ones_like(x), 0., lax.add, window, strides, padding)
        return s / n
    got = avg(X1, (3,), (2,), "SAME")
    pads = np_same_pads(X1.shape, (3,), (2,))
    # window sums over counts: float64's rounded once, at the windows' mean |x|
    x1, n = X1.astype(np.float64), np_reduce_window(np.ones(X1.shape), 0, np.add, (3,), (2,),
                                                    pads)
    want = np_reduce_window(x1, 0, np.add, (3,), (2,), pads) / n
    assert_allclose_ulp(np.asarray(got), want.astype(np.float32), REDUCTION,
                        scale=np_reduce_window(np.abs(x1), 0, np.add, (3,), (2,), pads) / n)
    got = jax.jit(lambda x: avg(x, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"))(NHWC)
    blocks = NHWC[:, :6, :6].astype(np.float64).reshape(2, 3, 2, 3, 2, 3)
    assert_allclose_ulp(np.asarray(got), blocks.mean(axis=(2, 4)).astype(np.float32), REDUCTION,
                        scale=np.abs(blocks).mean(axis=(2, 4)))


def test_integer_and_weak_operands():
    x = np.int32([[3, -1, 7], [2, 9, -4]])
    got = lax.reduce_window(x, np.int32(np.iinfo(np.int32).min), lax.max, (2, 2), (1, 1), "VALID")
    np.testing.assert_array_equal(np.asarray(got), [[9, 9]])
    assert got.dtype == np.int32
    s = lax.reduce_window(np.arange(5), 0, lax.add, (2,), (1,), "SAME")
    np.testing.assert_array_equal(np.asarray(s), [1, 3, 5, 7, 4])
    # the monoid keeps the operand's weak type; the generic reduce_window does not (as JAX)
    assert lax.reduce_window(3.0, 0.0, lax.add, (), (), "VALID").weak_type
    assert not lax.reduce_window(3.0, 1.0, lax.mul, (), (), "VALID").weak_type


def test_generic_computation_and_init_that_is_not_an_identity():
    x = rng.uniform(0.5, 1.5, (4, 5)).astype(np.float32)
    f = lambda x: lax.reduce_window(x, np.float32(1), lax.mul, (2, 2), (1, 2), [(1, 0), (0, 1)])
    # products of up to 4 values (no cancellation): float64's rounded once, in any order
    want = np_reduce_window(x.astype(np.float64), 1., np.multiply, (2, 2), (1, 2),
                            [(1, 0), (0, 1)]).astype(np.float32)
    assert_allclose_ulp(np.asarray(f(x)), want, ELEMENTWISE)
    assert_allclose_ulp(np.asarray(jax.jit(f)(x)), want, ELEMENTWISE)
    assert jax.make_jaxpr(f)(x).eqns[0].primitive.name == "reduce_window"
    # lax.add from 1 is not the sum monoid: each window starts at 1, and padding and dilation
    # holes add nothing (JAX 0.10.2 gives these numbers)
    g = lambda x: lax.reduce_window(x, np.float32(1), lax.add, (3,), (1,), [(2, 2)])
    x3 = np.float32([10, 20, 30])
    np.testing.assert_array_equal(np.asarray(g(x3)), [11, 31, 61, 51, 31])
    np.testing.assert_array_equal(np.asarray(g(x3)), np_reduce_window(x3, 1, np.add, (3,), (1,),
                                                                      [(2, 2)]))
    assert jax.make_jaxpr(g)(x3).eqns[0].primitive.name == "reduce_window"
    d = lax.reduce_window(x3, np.float32(1), lax.add, (2,), (1,), [(0, 0)], base_dilation=(2,))
    np.testing.assert_array_equal(np.asarray(d), [11, 21, 21, 31])


def test_pytree_of_two_operands():
    """(argmax-like) running max with the sum of the other operand in the same windows."""
    a, b = rng.randn(4, 5).astype(np.float32), rng.randn(4, 5).astype(np.float32)
    f = lambda a, b: lax.reduce_window({"m": a, "s": b}, {"m": -INF, "s": np.float32(0)},
                                       lambda p, q: {"m": lax.max(p["m"], q["m"]),
                                                     "s": p["s"] + q["s"]},
                                       (2, 3), (1, 2), "SAME")
    out = f(a, b)
    pads = np_same_pads(a.shape, (2, 3), (1, 2))
    assert set(out) == {"m", "s"}
    assert_windows_match(out["m"], a, "max", (2, 3), (1, 2), pads)
    assert_windows_match(out["s"], b, "sum", (2, 3), (1, 2), pads)
    jit_out = jax.jit(f)(a, b)
    np.testing.assert_array_equal(np.asarray(jit_out["s"]), np.asarray(out["s"]))


# ------------------------------------------------------------------ JAX's recorded values
@pytest.fixture(scope="module")
def computed():
    # as one program (a third of the time of op-by-op; the eager results are bit-identical
    # to JAX's, fusion may move a last bit here)
    # at XLA's default code: which tied element a padded pooling's tangent follows is its
    # loop order (XLA_TIE_ORDER below), another under the suite's loop emitters
    with xla_default_code(), constants_as_arguments():
        out = jax.jit(lambda: cases(jax, lax, jnp))()
    return {f"{k}#{i}": np.asarray(leaf) for k, v in out.items()
            for i, leaf in enumerate(jax.tree_util.tree_leaves(v))}


REFERENCE = np.load(os.path.join(DATA, "windowed_reference.npz"))


# Tangents of padded max/min pooling with ties: which tied element XLA's CPU credits follows
# its code generation's loop order (column-major in these padded windows, row-major without
# padding); the NumPy backend credits the first in row-major order, as the cotangents do
XLA_TIE_ORDER = ("max_nhwc_same_jvp#0", "max_overlap_pad_jvp#0", "min_2d_stride_jvp#0")


def _assert_equals_recorded(computed, k):
    want, got = REFERENCE[k], computed[k]
    ulps = ULPS.get(k.split("#")[0], 0)
    # sums of random signs cancel: their error is measured at the result's largest |value|
    assert_allclose_ulp(got, want, ulps, scale=np.abs(want).max(initial=0) if ulps else None,
                        err_msg=k)


@pytest.mark.parametrize("group", ["max", "min", "avg", "sum", "mul", "pytree"])
def test_values_and_derivatives_equal_jax(computed, group):
    keys = [k for k in REFERENCE.files if k.startswith(group) and k not in XLA_TIE_ORDER]
    assert keys and set(REFERENCE.files) == set(computed)
    for k in keys:
        _assert_equals_recorded(computed, k)


@pytest.mark.xla_only("XLA tie order")
@pytest.mark.parametrize("key", XLA_TIE_ORDER)
def test_tangents_of_padded_pooling_with_ties_equal_jax(computed, key):
    _assert_equals_recorded(computed, key)


def test_max_pool_gradient_credits_the_first_tied_maximum():
    """The rule JAX's recorded gradients follow, written out: each window's cotangent goes to
    its first maximal element in row-major order (padding is never chosen)."""
    x = np.float32([[1, 2, 2, 0], [2, 1, 2, 2], [0, 2, 1, 1]])
    w = np.float32([[1, 10, 100, 1e3], [1e4, 1e5, 1e6, 1e7]])
    f = lambda x: (lax.reduce_window(x, -INF, lax.max, (2, 2), (1, 1), [(0, 0), (0, 1)]) * w).sum()
    want = np.zeros_like(x)
    for i, j in itertools.product(range(2), range(4)):
        cells = [(i + a, j + b) for a in range(2) for b in range(2) if j + b < 4]
        best = max(x[c] for c in cells)
        want[next(c for c in cells if x[c] == best)] += w[i, j]
    assert (want != 0).sum() < x.size                  # some elements lost every tie
    np.testing.assert_array_equal(np.asarray(jax.grad(f)(x)), want)
    np.testing.assert_array_equal(np.asarray(jax.jit(jax.grad(f))(x)), want)


# ------------------------------------------------------------------ derivatives
# check_grads' checks with each call's evaluations compiled as one program (grads_together):
# 37 -> 7 compiles, 1.16 -> 0.61 s CPU for the three tests. (Its loop emitters pick another
# element of a window among ties; the max and min pooling points here have none.)
def test_check_grads_sum_and_avg_pooling_order_2():
    x = rng.randn(2, 5, 4).astype(np.float32)
    f = lambda x: lax.reduce_window(x, 0., lax.add, (1, 3, 2), (1, 2, 1), [(0, 0), (1, 1), (0, 1)],
                                    (1, 1, 2), (1, 1, 2))
    check_grads_together(f, (x,), order=2, modes=("fwd", "rev"))

    def avg(x):
        return lax.reduce_window(x, 0., lax.add, (2, 2), (1, 2), "SAME") / \
            lax.reduce_window(jnp.ones_like(x), 0., lax.add, (2, 2), (1, 2), "SAME")
    check_grads_together(lambda x: jnp.sin(avg(x)), (x[0],), order=2, modes=("fwd", "rev"))


def test_check_grads_max_and_min_pooling_away_from_ties():
    x = (rng.permutation(30).reshape(5, 6) * 0.1).astype(np.float32)   # no two values equal
    mx = lambda x: lax.reduce_window(x, -INF, lax.max, (2, 3), (2, 1), [(1, 0), (1, 1)],
                                     (1, 2), None)
    mn = lambda x: lax.reduce_window(x, INF, lax.min, (3, 2), (1, 2), "SAME")
    for f in (mx, mn):
        check_grads_together(f, (x,), order=1, modes=("fwd", "rev"), eps=1e-2)
    # its derivative is piecewise constant: second order holds too (the jvp and transpose of
    # select_and_gather_add / select_and_scatter_add)
    check_grads_together(lambda x: mx(x) ** 2, (x,), order=2, modes=("fwd", "rev"), eps=1e-2)


def test_check_grads_generic_forward_mode():
    x = rng.uniform(0.5, 1.5, (4, 5)).astype(np.float32)
    f = lambda x: lax.reduce_window(x, np.float32(1), lax.mul, (2, 2), (1, 1), "SAME")
    check_grads_together(f, (x,), order=2, modes=("fwd",))
    g = lambda x, y: lax.reduce_window((x, y), (np.float32(0), np.float32(1)),
                                       lambda p, q: (p[0] + q[0] * q[1], p[1] * q[1]),
                                       (3,), (1,), "VALID")
    check_grads_together(g, (x[0], x[1]), order=1, modes=("fwd",))


def test_jvp_and_vjp_agree_for_max_pooling():
    x = rng.randint(0, 3, (5, 6)).astype(np.float32)          # with ties
    f = lambda x: lax.reduce_window(x, -INF, lax.max, (2, 2), (1, 2), "SAME")
    t = rng.randn(5, 6).astype(np.float32)
    y, ft = jax.jvp(f, (x,), (t,))
    ct = rng.randn(*y.shape).astype(np.float32)
    (bt,) = jax.vjp(f, x)[1](ct)
    # <ft, ct> = <bt, t>, summed in float64 and rounded once to float32: bt's scatter-adds of
    # overlapping windows round in float32, so at the scale of the sum of |terms|
    fwd = np.asarray(ft, np.float64) * ct
    bwd = np.asarray(bt, np.float64) * t
    assert_allclose_ulp(np.float32(fwd.sum()), np.float32(bwd.sum()), REDUCTION,
                        scale=np.abs(bwd).sum())


# ------------------------------------------------------------------ the GPU lowering
def _pooling_jvp(kind, base):
    init, op = (-np.inf, lax.max) if kind == "max" else (np.inf, lax.min)
    pool = lambda x: lax.reduce_window(x, np.asarray(init, x.dtype), op, (2, 3), (1, 2), "SAME",
                                       base_dilation=base)
    return lambda x, t: jax.jvp(pool, (x,), (t,))[1]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, jnp.bfloat16])
@pytest.mark.parametrize("kind, base", [("max", (1, 1)), ("min", (2, 1))])
@pytest.mark.xla_only("XLA text")
def test_gpu_lowering_packs_each_pair_into_one_word(kind, base, dtype):
    """XLA's CUDA backend has no two-operand reduce_window: for the GPU, as JAX lowers it
    there, (operand, tangent) pairs are packed into words of twice the width. It picks the
    same element of each window (the first of tied ones) and keeps the tangent's bits."""
    x = rng.randint(0, 3, (5, 7)).astype(dtype)                   # with ties
    t = rng.randn(5, 7).astype(dtype)
    f = _pooling_jvp(kind, base)
    gpu_text, got = run_lowered(f, (x, t), "gpu")
    cpu_text, want = run_lowered(f, (x, t), "cpu")
    wide = {np.dtype(np.float32): "ui64"}.get(np.dtype(dtype), "ui32")
    assert f"tensor<{want.shape[0]}x{want.shape[1]}x{wide}>" in gpu_text       # the windows
    assert "shift_left" in gpu_text
    assert "shift_left" not in cpu_text
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint16 if got.itemsize == 2 else np.uint32),
                                  want.view(np.uint16 if want.itemsize == 2 else np.uint32))


@pytest.mark.xla_only("XLA text")
def test_gpu_lowering_of_float64_rounds_both_halves_and_warns():
    """No word holds two float64s: both are rounded to 32 bits (11 exponent, 20 mantissa
    bits) and packed into one uint64, with JAX's warning."""
    with jax.enable_x64(True):
        x = rng.randn(5, 7) * 100
        t = rng.randn(5, 7)
        f = _pooling_jvp("max", (1, 1))
        with pytest.warns(UserWarning, match="Using reduced precision for gradient of "
                                             "reduce-window min/max operator"):
            gpu_text, got = run_lowered(f, (x, t), "gpu")
        _, want = run_lowered(f, (x, t), "cpu")
    assert "stablehlo.reduce_precision" in gpu_text and got.dtype == np.float64
    # the tangent keeps 20 of its 52 mantissa bits: within half a unit of the 21st bit
    np.testing.assert_allclose(got, want, rtol=2.0 ** -20, atol=0)
    assert not np.array_equal(got, want)            # rounded: not the exact tangents


# ------------------------------------------------------------------ vmap
def _stack(f, xs):
    return np.stack([np.asarray(f(x)) for x in xs])


def test_vmap_matches_stacking():
    xs = rng.randint(0, 4, (3, 5, 6)).astype(np.float32)
    mx = lambda x: lax.reduce_window(x, -INF, lax.max, (2, 3), (2, 1), "SAME")
    sm = lambda x: lax.reduce_window(x, 0., lax.add, (3, 2), (1, 1), [(1, 0), (0, 1)], (2, 1))
    gen = lambda x: lax.reduce_window(x, np.float32(1), lax.mul, (2, 2), (1, 1), "VALID")
    gmx = jax.grad(lambda x: (mx(x) ** 2).sum())
    jmx = lambda x: jax.jvp(mx, (x,), (jnp.cos(x),))[1]
    # small integers: maxima, sums, products and 2 max exact; jmx's cos(x) is vectorized
    # differently batched and not (worst 0 on all four CPUs tried)
    for f, ulps in ((mx, 0), (sm, 0), (gen, 0), (gmx, 0), (jmx, ELEMENTWISE)):
        want = _stack(f, xs)
        assert_allclose_ulp(np.asarray(jax.vmap(f)(xs)), want, ulps)
        moved = jax.vmap(f, in_axes=2, out_axes=1)(np.moveaxis(xs, 0, 2))
        assert_allclose_ulp(np.asarray(moved), np.moveaxis(want, 0, 1), ulps)


def test_vmap_of_the_pullback_over_cotangents_only():
    """select_and_scatter_add with a batched source and an unbatched operand."""
    x = rng.randint(0, 3, (4, 4)).astype(np.float32)
    f = lambda x: lax.reduce_window(x, -INF, lax.max, (2, 2), (2, 2), "VALID")
    pullback = jax.vjp(f, x)[1]
    cts = rng.randn(3, 2, 2).astype(np.float32)
    # disjoint windows: each value moved, none summed, so exact
    assert_allclose_ulp(np.asarray(jax.vmap(pullback)(cts)[0]),
                        _stack(lambda c: pullback(c)[0], cts), 0)
    tangents = rng.randn(3, 4, 4).astype(np.float32)
    push = lambda t: jax.jvp(f, (x,), (t,))[1]
    assert_allclose_ulp(np.asarray(jax.vmap(push)(tangents)), _stack(push, tangents), 0)


def test_vmap_of_the_pytree_form_over_one_operand():
    a = rng.randn(2, 6).astype(np.float32)
    b = rng.randn(6).astype(np.float32)
    f = lambda a, b: lax.reduce_window((a, b), (-INF, np.float32(0)),
                                       lambda p, q: (lax.max(p[0], q[0]), p[1] + q[1]),
                                       (3,), (2,), "SAME")
    got = jax.vmap(f, in_axes=(0, None))(a, b)
    for i in range(2):
        for g, w in zip(got, f(a[i], b)):
            # the unbatched b's window sums, the same order batched or not
            assert_allclose_ulp(np.asarray(g[i]), np.asarray(w), 0)


# ------------------------------------------------------------------ printing
MAX_POOL_GRAD_JAXPR = """\
{ lambda ; a:f32[1,4,6,1]. let
    b:f32[1,2,3,1] = reduce_window_max[
      base_dilation=(1, 1, 1, 1)
      padding=((0, 0), (0, 0), (0, 0), (0, 0))
      window_dilation=(1, 1, 1, 1)
      window_dimensions=(1, 2, 2, 1)
      window_strides=(1, 2, 2, 1)
    ] a
    _:f32[] = reduce_sum[axes=(0, 1, 2, 3) out_sharding=None] b
    c:f32[1,2,3,1] = broadcast_in_dim 1.0:f32[]
    d:f32[1,4,6,1] = select_and_scatter_add[
      padding=((0, 0), (0, 0), (0, 0), (0, 0))
      select_prim=ge
      window_dimensions=(1, 2, 2, 1)
      window_strides=(1, 2, 2, 1)
    ] c a
  in (d,) }"""

GENERIC_JVP_JAXPR = """\
{ lambda ; a:f32[1,4,6,1] b:f32[1,4,6,1]. let
    c:f32[1,3,5,1] d:f32[1,3,5,1] = reduce_window[
      base_dilation=(1, 1, 1, 1)
      consts=()
      jaxpr={ lambda ; e:f32[] f:f32[] g:f32[] h:f32[]. let
          i:f32[] = mul e g
          j:f32[] = mul f g
          k:f32[] = mul e h
          l:f32[] = add_any j k
        in (i, l) }
      padding=((0, 0), (0, 0), (0, 0), (0, 0))
      window_dilation=(1, 1, 1, 1)
      window_dimensions=(1, 2, 2, 1)
      window_strides=(1, 1, 1, 1)
    ] a b 1.0:f32[] 0.0:f32[]
  in (c, d) }"""


def test_jaxprs_print_as_jax():
    """Texts from jax.make_jaxpr in JAX 0.10.2."""
    x = np.zeros((1, 4, 6, 1), np.float32)
    f = lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    assert str(jax.make_jaxpr(jax.grad(lambda x: f(x).sum()))(x)) == MAX_POOL_GRAD_JAXPR
    h = lambda x: lax.reduce_window(x, 1., lax.mul, (1, 2, 2, 1), (1, 1, 1, 1), "VALID")
    assert str(jax.make_jaxpr(lambda x, t: jax.jvp(h, (x,), (t,)))(x, x)) == GENERIC_JVP_JAXPR
    jvp_text = str(jax.make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))(x, x))
    assert "select_and_gather_add[\n      base_dilation=(1, 1, 1, 1)" in jvp_text
    assert "select_prim=ge" in jvp_text and "] b a\n" in jvp_text


def test_transformed_jaxprs_typecheck():
    x = rng.randint(0, 3, (2, 5, 6)).astype(np.float32)
    mx = lambda x: lax.reduce_window(x, -INF, lax.max, (1, 2, 3), (1, 2, 1), "SAME", (1, 2, 1))
    gen = lambda x: lax.reduce_window(x, np.float32(1), lax.mul, (1, 2, 2), (1, 1, 1), "SAME")
    sm = lambda x: lax.reduce_window(x, 0., lax.add, (1, 2, 2), (1, 2, 1), "SAME", None, (1, 1, 2))
    gmx = jax.grad(lambda x: (mx(x) ** 2).sum())
    two = lambda x: jnp.stack([x, x + 1])
    for f in (jax.grad(lambda x: sm(x).sum()), gmx, lambda x: jax.vmap(gmx)(two(x)),
              lambda x: jax.jvp(gmx, (x,), (x,)), lambda x: jax.jvp(gen, (x,), (x,)),
              lambda x: jax.vmap(lambda y: jax.jvp(gen, (y,), (y,)))(two(x)),
              jax.grad(lambda x: (gmx(x) * x).sum())):
        check_jaxpr(jax.make_jaxpr(f)(x))


def test_shape_tuple():
    assert lax.reduce_window_shape_tuple((4, 6), (2, 2), (2, 2), ((0, 0), (1, 1))) == (2, 4)
    assert lax.reduce_window_shape_tuple((5,), (2,), (1,), ((0, 0),), (2,), (3,)) == (6,)
    assert lax.reduce_window_shape_tuple((3,), (5,), (1,), ((0, 0),)) == (0,)


# ------------------------------------------------------------------ errors
X33 = np.ones((3, 3), np.float32)


@pytest.mark.parametrize("args,kwargs,error,message", [
    ((X33, 0., lax.add, (2,), (1,)), {}, TypeError,
     ("reduce_window got the wrong number of window_dimensions for operand: got operand shape "
      "(3, 3) with window_dimensions (2,).")),
    ((X33, 0., lax.add, (2, 2), (1,)), {}, TypeError,
     ("reduce_window got inconsistent window_strides and window_dimensions: got window_strides "
      "(1,) and window_dimensions (2, 2).")),
    ((X33, 0., lax.add, (2, 2), (1, 1), "FOO"), {}, RuntimeError,
     "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got FOO."),
    ((X33, 0., lax.add, (2, 2), (1, 1), [(0, 0)]), {}, TypeError,
     ("reduce_window got inconsistent padding and window_dimensions: got padding ((0, 0),) and "
      "window_dimensions (2, 2).")),
    ((X33, 0., lax.add, (2, 2), (1, 1), [0, 0]), {}, TypeError,
     "reduce_window padding must be 'VALID', 'SAME', 'SAME_LOWER' or a sequence of (low, high)"),
    ((X33, 0., lax.add, (2, 0), (1, 1)), {}, TypeError,
     "reduce_window window_dimensions must have every element be strictly positive, got (2, 0)."),
    ((X33, 0., lax.add, (2, 2), (0, 1)), {}, TypeError,
     "reduce_window window_strides must have every element be strictly positive, got (0, 1)."),
    ((X33, 0., lax.add, (2, 2), (1, 1)), {"base_dilation": (1,)}, TypeError,
     ("reduce_window got inconsistent base_dilation and window_dimensions: got base_dilation (1,) "
      "and window_dimensions (2, 2).")),
    ((X33, 0, lax.mul, (2, 2), (1, 1)), {}, TypeError,
     ("reduce_window got inconsistent dtypes for operands and init_values: got operand dtypes "
      "[dtype('float32')] and init_value dtypes [dtype('int32')].")),
    ((X33, np.ones(2, np.float32), lax.mul, (2, 2), (1, 1)), {}, TypeError,
     "reduce_window expected init_values to be scalars but init_values have shapes [(2,)]."),
    (((X33, X33), 0., lax.add, (2, 2)), {}, ValueError,
     "Operands must have the same tree structure as init_values"),
    ((np.ones(3, bool), False, lax.add, (2,), (1,)), {}, TypeError,
     "operand to reduce_window_sum must have a number dtype, got bool"),
])
def test_argument_errors(args, kwargs, error, message):
    with pytest.raises(error) as info:
        lax.reduce_window(*args, **kwargs)
    assert message in str(info.value)


def test_unsupported_derivatives_and_batching_say_so():
    x = np.arange(6, dtype=np.float32)
    f = lambda x: lax.reduce_window(x, -INF, lax.max, (2,), (1,), "VALID", window_dilation=(2,))
    with pytest.raises(NotImplementedError, match="VJP not implemented for select_and_gather "
                                                  r"\(MaxPool\) with window dilation"):
        jax.grad(lambda x: f(x).sum())(x)
    g = lambda x, i: lax.reduce_window(x, i, lax.mul, (2,), (1,), "VALID")
    with pytest.raises(NotImplementedError, match="reduce_window batching is not implemented "
                                                  "for initial values"):
        jax.vmap(g)(np.ones((2, 3), np.float32), np.ones(2, np.float32))
    with pytest.raises(TypeError, match="reduce_window jvp does not support non-zero "
                                        "init_value_tangent"):
        jax.jvp(g, (x, np.float32(1)), (x, np.float32(1)))
