"""Composite jnp functions (numpy/calculus.py, statistics.py, functional.py, editing.py,
polynomial.py, windows.py and the grids of index_tricks.py): values, dtypes and weak types
against real JAX (committed reference data), values against NumPy, jit == eager, numerical
gradients, vmap, and the errors JAX raises where a shape would depend on traced values."""
import functools
import os
import warnings

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.test_util import check_grads

from compiled import jit_together
from grads_together import check_grads_together
from composites_cases import PARTS, cases, concrete_cases, ulps
from doc_examples import check_docstring_examples
from numerics import ELEMENTWISE, LAPACK, REDUCTION, assert_allclose_ulp
import locations  # tests/support: the repository's folders

_REF = os.path.join(locations.DATA, "composites_reference.npz")
rng = np.random.RandomState(1)
M = rng.randn(3, 5).astype(np.float32)
V = np.array([1., 4., 9., 16., 20.], np.float32)


def _f32(want):
    """A NumPy reference (computed in float64) rounded once to float32, jnp's default."""
    return np.asarray(want, np.float64).astype(np.float32)


# density = count / (n * width), the width a difference of rounded edges: its cancellation
# adds a few ulps to the quotient (worst 6 on AVX-512, 1 on AVX2 and AVX)
HISTOGRAM = 4 * ELEMENTWISE


# Each part's cases run as one jitted program: op by op they cost hundreds of small XLA
# compiles (three times the time). Their inputs are constants of the program, so the functions
# still see concrete arguments, as eagerly; jit against eager is test_jit_equals_eager's. The
# few that need concrete intermediate values (composites_cases.concrete_cases) run eagerly.
@pytest.mark.parametrize("part", PARTS)
def test_values_dtypes_weak_types_match_jax(part):
    """Every case of composites_cases.py as JAX 0.10.2 gives it: dtype, shape and weak type
    exactly, values bit for bit or within the case's bound in ulps (composites_cases.ulps)."""
    ref = np.load(_REF)
    with jxkernel.config.override("jax_enable_x64", part == "x64"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = jxkernel.jit(lambda: cases(jxkernel, jnp, part == "x64", part, concrete=False))()
        out.update(concrete_cases(jnp, part))
        got = {f"{part}/{k}#{i}": leaf for k, v in out.items()
               for i, leaf in enumerate(jxkernel.tree_util.tree_leaves(v))}
    keys = [k for k in ref.files if k.startswith(f"{part}/") and not k.endswith("#weak")]
    assert set(got) == set(keys)
    bad = []
    for key in sorted(keys):
        want, want_weak, leaf = ref[key], bool(ref[key + "#weak"]), got[key]
        have, weak = np.asarray(leaf), bool(leaf.aval.weak_type)
        if (have.dtype, have.shape, weak) != (want.dtype, want.shape, want_weak):
            bad.append(f"{key}: got {have.dtype}{have.shape} weak={weak}, JAX "
                       f"{want.dtype}{want.shape} weak={want_weak}")
            continue
        bound = ulps(key)
        # measured at the largest |value|: differences, covariances and fits cancel
        scale = np.nanmax(np.abs(want), initial=0) if bound else None
        try:
            assert_allclose_ulp(have, want, bound, scale=scale, err_msg=key)
        except AssertionError as e:
            bad.append(f"{key}: {e}")
    assert not bad, "\n".join(bad)


# ------------------------------------------------------------------ against NumPy
_DIFF_DTYPES = [np.float32, np.int32]
_DIFF_SHAPES = [(7,), (3, 6), (2, 3, 4)]


@functools.cache
def _difference_inputs():
    """{(shape, dtype): input} of test_differences_match_numpy's cases, drawn from `rng` at
    first use in the cases' order (as each case drew its own before they were compiled
    together)."""
    return {(shape, dtype): (rng.randn(*shape) * 4).astype(dtype)
            for shape in _DIFF_SHAPES for dtype in _DIFF_DTYPES}


@functools.cache
def _differences_jitted():
    """Every jnp call of test_differences_match_numpy's cases compiled together
    (compiled.jit_together): one by one, eagerly, they cost ~55 small compiles; their eager
    path is test_jit_equals_eager's."""
    calls = {}
    for (shape, dtype), a in _difference_inputs().items():
        for axis in range(len(shape)):
            calls[shape, dtype, "diff", axis] = (lambda a, axis=axis: jnp.diff(a, axis=axis), [a])
            calls[shape, dtype, "diff2", axis] = (
                lambda a, axis=axis: jnp.diff(a, 2, axis=axis, append=1), [a])
            calls[shape, dtype, "gradient", axis] = (
                lambda a, axis=axis: jnp.gradient(a, axis=axis), [a])
            calls[shape, dtype, "trapezoid", axis] = (
                lambda a, axis=axis: jnp.trapezoid(a, axis=axis), [a])
        calls[shape, dtype, "ediff1d"] = (jnp.ediff1d, [a])
    return jit_together(jxkernel, calls)


@pytest.mark.parametrize("dtype", _DIFF_DTYPES)
@pytest.mark.parametrize("shape", _DIFF_SHAPES)
def test_differences_match_numpy(shape, dtype):
    a = _difference_inputs()[shape, dtype]
    got = lambda *key: _differences_jitted()[(shape, dtype, *key)]
    for axis in range(len(shape)):
        np.testing.assert_array_equal(got("diff", axis), np.diff(a, axis=axis))
        # the same subtractions in a's dtype as NumPy's, each rounded once: exact
        assert_allclose_ulp(got("diff2", axis), np.diff(a, 2, axis=axis, append=dtype(1)), 0)
        # a difference, then halved: measured at |a|'s scale (the difference cancels)
        a64 = a.astype(np.float64)
        assert_allclose_ulp(got("gradient", axis), _f32(np.gradient(a64, axis=axis)),
                            ELEMENTWISE, scale=np.abs(a64).max())
        assert_allclose_ulp(got("trapezoid", axis), _f32(np.trapezoid(a64, axis=axis)),
                            REDUCTION, scale=np.trapezoid(np.abs(a64), axis=axis))
    np.testing.assert_array_equal(got("ediff1d"), np.ediff1d(a))


def test_interp_unwrap_match_numpy():
    xp = np.sort(rng.uniform(0, 10, 12)).astype(np.float32)
    fp = rng.randn(12).astype(np.float32)
    x = rng.uniform(-2, 12, 40).astype(np.float32)
    # np.interp works in float64; jnp's slope and offset round in float32 and cancel
    # (fp[i] + slope * (x - xp[i])), so measured at |fp|'s scale
    scale = np.abs(fp).max()
    assert_allclose_ulp(jnp.interp(x, xp, fp), _f32(np.interp(x, xp, fp)), ELEMENTWISE,
                        scale=scale)
    assert_allclose_ulp(jnp.interp(x, xp, fp, left=-5, right=5),
                        _f32(np.interp(x, xp, fp, left=-5, right=5)), ELEMENTWISE, scale=5.0)
    assert_allclose_ulp(jnp.interp(x, xp, fp, period=3), _f32(np.interp(x, xp, fp, period=3)),
                        ELEMENTWISE, scale=scale)
    p = np.cumsum(rng.randn(4, 30), 1).astype(np.float32) * 2
    for axis in (0, 1):
        # p plus a running sum of whole turns: measured at |p|'s largest
        assert_allclose_ulp(jnp.unwrap(p, axis=axis), _f32(np.unwrap(p.astype(np.float64),
                                                                     axis=axis)),
                            REDUCTION, scale=np.abs(p).max())


def test_statistics_match_numpy():
    # the calls compiled together (compiled.jit_together), their inputs constants of the
    # program, as test_values_dtypes_weak_types_match_jax's: one by one, eagerly, they cost
    # ~75 small compiles; their eager path is test_jit_equals_eager's
    x = rng.randint(0, 9, 30)
    bins = np.array([1., 3., 5.])
    s = rng.randn(50, 3).astype(np.float32)
    fw, aw = np.array([1, 2, 1, 1, 3]), np.array([.1, .2, .3, .4, .5])
    calls = {
        "bincount": lambda: jnp.bincount(x),
        "bincount_w": lambda: jnp.bincount(x, V.repeat(6), minlength=12),
        **{("digitize", right, k): (lambda right=right, b=b: jnp.digitize(x, b, right))
           for right in (False, True) for k, b in enumerate((bins, bins[::-1]))},
        **{("histogram", b): (lambda b=b: jnp.histogram(s[:, 0], b, density=True))
           for b in (3, 7)},
        "histogramdd": lambda: jnp.histogramdd(s, bins=(2, 3, 4)),
        "histogram2d": lambda: jnp.histogram2d(s[:, 0], s[:, 1], bins=4,
                                               range=[(-2, 2), (-1, 1)]),
        **{("cov", rowvar): (lambda rowvar=rowvar: jnp.cov(M, rowvar=rowvar))
           for rowvar in (True, False)},
        **{("corrcoef", rowvar): (lambda rowvar=rowvar: jnp.corrcoef(M, rowvar=rowvar))
           for rowvar in (True, False)},
        "cov_weights": lambda: jnp.cov(M, fweights=fw, aweights=aw, ddof=2),
    }
    got = jit_together(jxkernel, {k: (f, []) for k, f in calls.items()})
    np.testing.assert_array_equal(got["bincount"], np.bincount(x))
    # sums of a few small integer-valued weights: exact
    assert_allclose_ulp(got["bincount_w"], _f32(np.bincount(x, V.repeat(6), minlength=12)), 0)
    for right in (False, True):
        np.testing.assert_array_equal(got["digitize", right, 0], np.digitize(x, bins, right))
        np.testing.assert_array_equal(got["digitize", right, 1],
                                      np.digitize(x, bins[::-1], right))
    for b in (3, 7):
        c, e = got["histogram", b]
        wc, we = np.histogram(s[:, 0], b, density=True)
        # counts / (n * width): a few roundings; edges by linspace, measured at their scale
        assert_allclose_ulp(c, _f32(wc), HISTOGRAM)
        assert_allclose_ulp(e, _f32(we), ELEMENTWISE, scale=np.abs(we).max())
    h, edges = got["histogramdd"]
    wh, wedges = np.histogramdd(s, bins=(2, 3, 4))
    np.testing.assert_array_equal(h, wh)
    for a, b in zip(edges, wedges):
        assert_allclose_ulp(a, _f32(b), ELEMENTWISE, scale=np.abs(b).max())
    wh2 = np.histogram2d(s[:, 0], s[:, 1], bins=4, range=[(-2, 2), (-1, 1)])
    np.testing.assert_array_equal(got["histogram2d"][0], wh2[0])
    # np.cov works in float64; covariances cancel, so measured at the largest variance
    # (no entry exceeds it) and correlations at 1
    for rowvar in (True, False):
        want = np.cov(M, rowvar=rowvar)
        assert_allclose_ulp(got["cov", rowvar], _f32(want), REDUCTION, scale=np.abs(want).max())
        assert_allclose_ulp(got["corrcoef", rowvar], _f32(np.corrcoef(M, rowvar=rowvar)),
                            REDUCTION, scale=1.0)
    want = np.cov(M, fweights=fw, aweights=aw, ddof=2)
    assert_allclose_ulp(got["cov_weights"], _f32(want), REDUCTION, scale=np.abs(want).max())


def test_editing_matches_numpy():
    # the calls compiled together (compiled.jit_together): one by one, eagerly, they cost ~150
    # small compiles; their eager path is test_jit_equals_eager's, and `obj`, the values and
    # the axes stay Python and NumPy constants, as they are eagerly
    a = np.arange(24).reshape(4, 6)
    inserts = [(2, 9, None), (np.array([0, 3, 3, 6]), np.arange(4), 1), (slice(1, 3), -1, 0),
               (-1, np.array([[5], [6], [7], [8]]), 1),
               (np.array([1]), np.array([[1, 2, 3, 4, 5, 6]]), 0)]
    deletes = [(0, 0), (-1, 1), (np.array([0, 2, 2]), 1), (slice(None, None, 2), 1),
               (np.array([True, False, False, True]), 0), (np.array([3, 20]), None)]
    mask = a % 3 == 0
    bits = rng.randint(0, 2, (3, 13)).astype(bool)
    packs = [(axis, order) for axis in (0, 1, None) for order in ("big", "little")]
    calls = {("insert", k): (lambda a, obj=obj, vals=vals, axis=axis: jnp.insert(
        a, obj, vals, axis=axis), [a]) for k, (obj, vals, axis) in enumerate(inserts)}
    calls.update({("delete", k): (lambda a, obj=obj, axis=axis: jnp.delete(a, obj, axis=axis),
                                  [a]) for k, (obj, axis) in enumerate(deletes)})
    calls["place"] = (lambda a: jnp.place(a, mask, np.array([-1, -2, -3]), inplace=False), [a])
    calls["fill_diagonal"] = (lambda d: jnp.fill_diagonal(d, np.array([7., 8.]), inplace=False),
                              [a.astype(np.float32)])
    blocks = [[np.ones((2, 2)), np.zeros((2, 3))], [np.full((1, 5), 2.)]]
    calls["block"] = (lambda: jnp.block(blocks), [])
    for axis, order in packs:
        packed = np.packbits(bits, axis=axis, bitorder=order)
        calls[("packbits", axis, order)] = (
            lambda b, axis=axis, order=order: jnp.packbits(b, axis, order), [bits])
        calls[("unpackbits", axis, order)] = (
            lambda p, axis=axis, order=order: jnp.unpackbits(p, axis, bitorder=order), [packed])
    got = jit_together(jxkernel, calls)
    for k, (obj, vals, axis) in enumerate(inserts):
        np.testing.assert_array_equal(got["insert", k], np.insert(a, obj, vals, axis=axis))
    for k, (obj, axis) in enumerate(deletes):
        np.testing.assert_array_equal(got["delete", k], np.delete(a, obj, axis))
    want = a.copy()
    np.place(want, mask, [-1, -2, -3])
    np.testing.assert_array_equal(got["place"], want)
    want = a.astype(np.float32)
    np.fill_diagonal(want, [7, 8])
    np.testing.assert_array_equal(got["fill_diagonal"], want)
    np.testing.assert_array_equal(got["block"], np.block(blocks))
    for axis, order in packs:
        packed = np.packbits(bits, axis=axis, bitorder=order)
        np.testing.assert_array_equal(got["packbits", axis, order], packed)
        np.testing.assert_array_equal(got["unpackbits", axis, order],
                                      np.unpackbits(packed, axis, bitorder=order))
    np.testing.assert_array_equal(jnp.trim_zeros(np.array([0, 0, 3, 0, 4, 0, 0]), "f"),
                                  np.trim_zeros(np.array([0, 0, 3, 0, 4, 0, 0]), "f"))
    for fn in (np.triu, np.tril):
        want = np.mask_indices(4, fn, -1)
        got = jnp.mask_indices(4, getattr(jnp, fn.__name__), -1)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_index_tricks_match_numpy():
    for key in [np.s_[0:3], np.s_[0:3, 1:7:2], np.s_[-1:1:5j, 0:2], np.s_[0:1:0.25]]:
        # integers, and steps of 0.5 and 0.25 from exact starts: exact
        np.testing.assert_array_equal(jnp.mgrid[key], np.mgrid[key])
        got, want = jnp.ogrid[key], np.ogrid[key]
        for g, w in zip(got if isinstance(got, list) else [got],
                        want if isinstance(want, tuple | list) else [want]):
            np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(jnp.r_[1:4, [7, 8], 0], np.r_[1:4, [7, 8], 0])
    np.testing.assert_array_equal(jnp.r_["1,2,0", np.ones((2, 2)), np.zeros(2)],
                                  np.r_["1,2,0", np.ones((2, 2)), np.zeros(2)])
    np.testing.assert_array_equal(jnp.c_[np.arange(3), np.arange(3) * 2],
                                  np.c_[np.arange(3), np.arange(3) * 2])
    assert jnp.s_ is np.s_ and jnp.index_exp is np.index_exp
    assert jnp.s_[1:2, ::3] == (slice(1, 2), slice(None, None, 3))
    assert jnp.iterable(jnp.ones(2)) and not jnp.iterable(3)
    assert jnp.array_str(jnp.arange(3)) == "[0 1 2]"
    assert jnp.array_repr(jnp.arange(2)).endswith("([0, 1], dtype=int32)")


def test_polynomials_and_windows_match_numpy():
    # the calls (but polydiv, which trims zeros by value) compiled together, their inputs
    # constants of the program (compiled.jit_together): one by one, eagerly, ~40 small
    # compiles; their eager path is test_jit_equals_eager's
    p, q = np.array([3., -1., 2., 5.]), np.array([1., 4.])
    x = rng.randn(2, 3)
    x32 = x.astype(np.float32).astype(np.float64)     # what jnp computes with, x64 off
    xs = np.linspace(-1, 1, 9)
    ys = np.stack([np.polyval(p, xs), np.polyval(p[1:], xs)], 1)
    windows = ("bartlett", "blackman", "hamming", "hanning", "kaiser")
    calls = {
        "polyval": lambda: jnp.polyval(p, x), "polyadd": lambda: jnp.polyadd(p, q),
        "polysub": lambda: jnp.polysub(q, p), "polymul": lambda: jnp.polymul(p, q),
        **{("polyder", m): (lambda m=m: jnp.polyder(p, m)) for m in (1, 2, 4)},
        **{("polyint", m): (lambda m=m: jnp.polyint(p, m, k=0.5)) for m in (1, 2, 4)},
        "vander": lambda: jnp.vander(x[0], 4), "polyfit": lambda: jnp.polyfit(xs, ys, 3),
        **{(name, n): (lambda name=name, n=n: jnp.kaiser(n, 4.) if name == "kaiser"
                       else getattr(jnp, name)(n)) for n in (0, 1, 2, 9) for name in windows},
    }
    got = jit_together(jxkernel, {k: (f, []) for k, f in calls.items()})
    # Horner's multiply-adds (fused or not by CPU), measured at the sum of |terms|
    assert_allclose_ulp(got["polyval"], _f32(np.polyval(p, x32)), ELEMENTWISE,
                        scale=np.polyval(np.abs(p), np.abs(x32)))
    # small integer-valued coefficients: sums, products, quotients by 1 and derivatives exact
    assert_allclose_ulp(got["polyadd"], _f32(np.polyadd(p, q)), 0)
    assert_allclose_ulp(got["polysub"], _f32(np.polysub(q, p)), 0)
    assert_allclose_ulp(got["polymul"], _f32(np.polymul(p, q)), 0)
    qd, rd = jnp.polydiv(p, q, trim_leading_zeros=True)
    wq, wr = np.polydiv(p, q)
    assert_allclose_ulp(qd, _f32(wq), 0)
    assert_allclose_ulp(rd, _f32(wr), 0)
    for m in (1, 2, 4):
        assert_allclose_ulp(got["polyder", m], _f32(np.polyder(p, m)), 0)
        assert_allclose_ulp(got["polyint", m], _f32(np.polyint(p, m, k=0.5)), ELEMENTWISE)
    assert_allclose_ulp(got["vander"], _f32(np.vander(x32[0], 4)), ELEMENTWISE)
    want = np.polyfit(xs, ys, 3)
    # a least-squares solve in float32, measured at the largest coefficient (worst 11, AVX-512)
    assert_allclose_ulp(got["polyfit"], _f32(want), LAPACK, scale=np.abs(want).max())
    for n in (0, 1, 2, 9):
        # cosines (and kaiser's Bessel i0) of the window's angles, measured at the peak, 1
        for name in ("bartlett", "blackman", "hamming", "hanning"):
            assert_allclose_ulp(got[name, n], _f32(getattr(np, name)(n)), ELEMENTWISE,
                                scale=1.0, err_msg=name)
        assert_allclose_ulp(got["kaiser", n], _f32(np.kaiser(n, 4.)), ELEMENTWISE, scale=1.0)


def test_functional_matches_numpy():
    x = np.linspace(-3, 3, 13).astype(np.float32)
    conds = [x < -1, x > 1]
    x64 = x.astype(np.float64)
    conds64 = [x64 < -1, x64 > 1]
    assert_allclose_ulp(jnp.piecewise(x, conds, [jnp.sin, lambda t: t ** 2, 0.5]),
                        _f32(np.piecewise(x64, conds64, [np.sin, lambda t: t ** 2, 0.5])),
                        ELEMENTWISE)
    # a choice between x, x * 2 and -7: exact
    assert_allclose_ulp(jnp.select(conds, [x, x * 2], -7.), np.select(conds, [x, x * 2], -7.),
                        0)
    a = rng.randn(2, 3, 4).astype(np.float32)
    a64 = a.astype(np.float64)
    # running sums and sums, measured at the sums of |a|
    for axis in range(3):
        assert_allclose_ulp(jnp.apply_along_axis(jnp.cumsum, axis, a),
                            _f32(np.apply_along_axis(np.cumsum, axis, a64)), REDUCTION,
                            scale=np.cumsum(np.abs(a64), axis))
    assert_allclose_ulp(jnp.apply_over_axes(jnp.sum, a, (0, 2)),
                        _f32(np.apply_over_axes(np.sum, a64, (0, 2))), REDUCTION,
                        scale=np.apply_over_axes(np.sum, np.abs(a64), (0, 2)))
    np.testing.assert_array_equal(jnp.fromfunction(lambda i, j: i * j, (3, 4), dtype=int),
                                  np.fromfunction(lambda i, j: i * j, (3, 4), dtype=int))
    f = jnp.vectorize(lambda u, w: jnp.linalg.norm(u - w), signature="(k),(k)->()")
    assert_allclose_ulp(f(a, a[0, 0]), _f32(np.linalg.norm(a64 - a64[0, 0], axis=-1)),
                        REDUCTION)


# ------------------------------------------------------------------ transformations
def _jit_equals_eager(f, *args):
    want = f(*args)
    got = jxkernel.jit(f)(*args)
    for w, g in zip(jxkernel.tree_util.tree_leaves(want), jxkernel.tree_util.tree_leaves(got)):
        # jit fuses what eager runs op by op (FMA contraction, reassociated sums may differ),
        # measured at the leaf's largest |value|
        w = np.asarray(w)
        assert_allclose_ulp(np.asarray(g), w, REDUCTION,
                            scale=np.abs(w).max(initial=0) if w.dtype.kind in "fc" else None)


def test_jit_equals_eager():
    """The traceable ones, traced: one program each (fused into a few jits to stay fast)."""
    i = np.array([0, 2, 2, 5, 1], np.int32)
    _jit_equals_eager(lambda a, v, i: (
        jnp.diff(a, axis=0, prepend=0.), jnp.ediff1d(v), jnp.gradient(a), jnp.trapezoid(a),
        jnp.interp(v * 1.5, v, v ** 2, left="extrapolate"), jnp.unwrap(a * 3),
        jnp.bincount(i, v, length=7), jnp.digitize(v, v[1:4]),
        jnp.histogram(a, 4), jnp.histogramdd(a.T, bins=(2, 2, 3)), jnp.cov(a), jnp.corrcoef(a),
        jnp.select([v > 5], [v]), jnp.piecewise(v, [v > 5], [jnp.cos, 2.]),
        jnp.vectorize(jnp.outer, signature="(n),(m)->(n,m)")(a, v[:2]),
        jnp.apply_along_axis(jnp.sort, 1, a), jnp.block([[a, a], [a, a]]),
        jnp.insert(a, i[:2], 5., axis=1), jnp.delete(a, i[:2], axis=1,
                                                     assume_unique_indices=True),
        jnp.place(a, a > 0, v, inplace=False), jnp.fill_diagonal(a, v, inplace=False),
        jnp.packbits(a > 0, axis=0), jnp.unpackbits(i.astype(np.uint8)),
        jnp.mask_indices(3, jnp.triu, size=6), jnp.vander(v, 3), jnp.polyval(v, a),
        jnp.polyadd(v, v[:2]), jnp.polysub(v[:2], v), jnp.polyder(v, 2), jnp.polyint(v, 2),
        jnp.polyfit(v, a.T, 2), jnp.polymul(v, v[:3]), jnp.kaiser(5, v[0]) + jnp.hanning(5)),
        M, V, i)


_XS = np.array([0., 1., 3., 4., 7.], np.float32)
_GRAD_CASES = {
    "diff": (lambda a: jnp.diff(a, 2, append=a[:, :1] ** 2), (M,), 2),
    "interp": (lambda x, fp: jnp.interp(x, V, fp),
               (np.array([-1., 2., 5.5, 12., 19., 30.], np.float32), _XS), 2),
    "trapezoid": (lambda y, x: jnp.trapezoid(y, x), (M, _XS * 0.5), 2),
    "polyval": (lambda p, x: jnp.polyval(p, x), (V[:3] * 0.1, M), 2),
    "cov": (jnp.cov, (M,), 2),
    "gradient": (lambda a, h: jnp.gradient(a, h, axis=1), (M, _XS), 1),
}


@pytest.mark.parametrize("name", list(_GRAD_CASES))
def test_grads_numerically(name):
    f, args, order = _GRAD_CASES[name]
    check_grads_together(f, args, order=order, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)


def test_vmap():
    f = jnp.vectorize(lambda a, b: jnp.dot(a, b) * 2, signature="(n),(n)->()")
    batched = jxkernel.vmap(f, in_axes=(0, None))(M.reshape(3, 1, 5), V)
    M64, V64 = M.astype(np.float64), V.astype(np.float64)
    assert_allclose_ulp(batched, _f32(M64 @ V64 * 2)[:, None], REDUCTION,
                        scale=(np.abs(M64) @ V64 * 2)[:, None])
    assert_allclose_ulp(jxkernel.vmap(jnp.diff)(M), np.diff(M), 0)   # float32 subtractions
    assert_allclose_ulp(jxkernel.vmap(lambda y: jnp.interp(V * 0.7, V, y))(M),
                        _f32([np.interp(V64 * 0.7, V64, m) for m in M64]), ELEMENTWISE,
                        scale=np.abs(M).max())
    assert_allclose_ulp(jxkernel.vmap(jnp.polyval, (None, 0))(V[:3], M),
                        _f32(np.polyval(V64[:3], M64)), ELEMENTWISE,
                        scale=np.polyval(V64[:3], np.abs(M64)))
    np.testing.assert_array_equal(
        jxkernel.vmap(lambda i: jnp.bincount(i, length=6))(np.array([[0, 1, 1], [5, 5, 2]])),
        [[1, 2, 0, 0, 0, 0], [0, 0, 1, 0, 0, 2]])


# ------------------------------------------------------------------ errors
def test_value_dependent_shapes_raise_under_jit():
    i = np.array([0, 2, 2], np.int32)
    cte = jxkernel.ConcretizationTypeError
    with pytest.raises(cte, match="pass a static `length`"):
        jxkernel.jit(jnp.bincount)(i)
    with pytest.raises(cte):
        jxkernel.jit(lambda a, b: jnp.histogram(a, b))(M, 3)
    with pytest.raises(cte):
        jxkernel.jit(jnp.trim_zeros)(i)
    with pytest.raises(cte, match="assume_unique_indices"):
        jxkernel.jit(lambda a, o: jnp.delete(a, o))(V, i)
    with pytest.raises(cte):
        jxkernel.jit(lambda n: jnp.hanning(n))(3)
    with pytest.raises(cte):
        jxkernel.jit(lambda a: jnp.mgrid[0:a])(3)


def test_argument_errors():
    with pytest.raises(ValueError, match="inplace=False"):
        jnp.place(V, V > 2, 1.)
    with pytest.raises(NotImplementedError, match="inplace=False"):
        jnp.fill_diagonal(M, 1.)
    with pytest.raises(NotImplementedError, match="wrap=True"):
        jnp.fill_diagonal(M, 1., wrap=True, inplace=False)
    with pytest.raises(ValueError, match="order must be non-negative"):
        jnp.diff(V, -1)
    with pytest.raises(ValueError, match="at least one dimensional"):
        jnp.diff(1.)
    with pytest.raises(TypeError, match="integer type"):
        jnp.bincount(V)
    with pytest.raises(ValueError, match="'extrapolate'"):
        jnp.interp(V, V, V, left="nope")
    with pytest.raises(NotImplementedError, match="edge_order"):
        jnp.gradient(V, edge_order=2)
    with pytest.raises(ValueError, match="condlist must have length"):
        jnp.select([V > 1], [V, V])
    with pytest.raises(ValueError, match="either 1 or 2 functions"):
        jnp.piecewise(V, [V > 1], [1., 2., 3.])
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        jnp.vectorize(jnp.dot, signature="(n)(n)->()")(V, V)
    with pytest.raises(ValueError, match="inconsistent size for core dimension"):
        jnp.vectorize(jnp.dot, signature="(n),(n)->()")(V, V[:2])
    with pytest.raises(ValueError, match="does not allow tuples"):
        jnp.block((V, V))
    with pytest.raises(ValueError, match="Mismatched list depths"):
        jnp.block([[V], V])
    with pytest.raises(TypeError, match="unsigned byte"):
        jnp.unpackbits(np.array([1], np.int32))
    with pytest.raises(ValueError, match="m has more than 2 dimensions"):
        jnp.cov(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="string directive"):
        jnp.r_[V, "0"]


@pytest.mark.parametrize("module", ["calculus", "statistics", "functional", "editing",
                                    "polynomial", "windows"])
def test_docstring_examples(module):
    # the windows and unwrap print results of XLA's cos and of fused arithmetic
    check_docstring_examples(f"jxkernel.numpy.{module}")


# --- found by JAX 0.10.2's own tests/lax_numpy_vectorize_test.py (conformance/jax_tests)
def test_vectorize_none_argument_error_quotes_the_signature():
    f = jnp.vectorize(lambda a, b: a, signature="(k),(k)->(k)")
    with pytest.raises(ValueError, match=r"^Cannot pass None at locations \{1\} with "
                                         r"signature='\(k\),\(k\)->\(k\)'$"):
        f(jnp.arange(10), None)


def test_vectorize_honours_rank_promotion():
    f = jnp.vectorize(jnp.add, signature="(),()->()")
    rank2, rank1 = jnp.zeros((10, 10)), jnp.zeros(10)
    msg = r"operands with shapes \[\(10, 10\), \(10,\)\] require rank promotion"
    with jxkernel.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError, match=msg):
            f(rank2, rank1)
        assert f(rank2, jnp.zeros(())).shape == (10, 10)      # a 0-d argument is not promoted
    with jxkernel.numpy_rank_promotion("warn"):
        with pytest.warns(UserWarning, match=msg):
            f(rank2, rank1)
    assert f(rank2, rank1).shape == (10, 10)                  # 'allow', the default
