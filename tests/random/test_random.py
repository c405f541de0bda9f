"""jxkernel.random beyond the recorded references (tests/random/test_random_reference.py): the
threefry2x32 primitive and its rules, typed keys, argument errors, and distribution sanity
(sample moments) for every sampler.

Compiles dominate the cost here (~0.1-4 s each), so the statistics reuse few signatures:
one large sample per cheap sampler, and for the rejection samplers many calls with the
signature the reference test already compiled.
"""
import functools
import math

import numpy as np
import pytest
from numerics import LAPACK, REDUCTION, assert_allclose_ulp

import jxkernel
import jxkernel.random as r
from jxkernel.random import prng
from jxkernel.random.keys import KeyArray


@functools.cache
def _k():
    """The tests' key, made on first use (making it compiles, which collection must not), and
    outside any trace: a test that closes over it in a traced function takes it first."""
    return r.PRNGKey(0)


N = 8192


# ------------------------------------------------------------------ threefry2x32
def threefry_np(k0, k1, x0, x1):
    """Random123's Threefry-2x32-20 on NumPy uint32 arrays."""
    rotl = lambda v, d: (v << np.uint32(d)) | (v >> np.uint32(32 - d))
    k0, k1, x0, x1 = (np.asarray(v, np.uint32) for v in (k0, k1, x0, x1))
    ks = [k0, k1, k0 ^ k1 ^ np.uint32(0x1BD11BDA)]
    x = [x0 + ks[0], x1 + ks[1]]
    rots = [(13, 15, 26, 6), (17, 29, 16, 24)]
    with np.errstate(over="ignore"):
        for i in range(5):
            for rot in rots[i % 2]:
                x[0] = x[0] + x[1]
                x[1] = x[0] ^ rotl(x[1], rot)
            x[0] = x[0] + ks[(i + 1) % 3]
            x[1] = x[1] + ks[(i + 2) % 3] + np.uint32(i + 1)
    return x


def test_threefry_known_answer():
    # Random123's known-answer vector for threefry2x32_20 (key/counter from pi's digits)
    u = lambda v: np.array([v], np.uint32)
    y0, y1 = prng.threefry2x32(u(0x13198a2e), u(0x03707344), u(0x243f6a88), u(0x85a308d3))
    assert (int(np.asarray(y0)[0]), int(np.asarray(y1)[0])) == (0xc4923a9c, 0x483df7a0)


def _random_u32(seed, *shape):
    return np.random.RandomState(seed).randint(0, 2 ** 32, size=shape, dtype=np.uint64).astype(np.uint32)


@pytest.mark.parametrize("rounds", ["rolled", "unrolled"])
def test_threefry_matches_numpy(rounds):
    k0, k1, x0, x1 = _random_u32(0, 4, 16)
    fn = prng.threefry2x32 if rounds == "rolled" else prng.threefry2x32_rounds  # CPU lowers rolled
    got = jxkernel.jit(lambda *a: fn(*a))(k0, k1, x0, x1)
    for g, w in zip(got, threefry_np(k0, k1, x0, x1)):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_threefry_broadcasts_scalars_and_size_one_dims():
    x0, x1 = _random_u32(1, 2, 3, 4)
    k0, k1 = np.uint32(7), _random_u32(2, 3, 1)
    for g, w in zip(prng.threefry2x32(k0, k1, x0, x1), threefry_np(k0, k1, x0, x1)):
        assert g.shape == (3, 4)
        np.testing.assert_array_equal(np.asarray(g), w)


@pytest.mark.parametrize("in_axes", [(None, None, 0, 0), (0, 0, None, None), (0, None, 1, None),
                                     (None, 0, 1, 0)])
def test_threefry_vmap(in_axes):
    args = [_random_u32(3, 3), _random_u32(4, 3), _random_u32(5, 3, 5), _random_u32(6, 3, 5)]
    args = [a if ax is not None else a[0] for a, ax in zip(args, in_axes)]
    args = [np.moveaxis(a, 0, ax) if ax else a for a, ax in zip(args, in_axes)]
    got = jxkernel.vmap(prng.threefry2x32, in_axes=in_axes)(*args)
    per = [threefry_np(*[np.take(a, i, ax) if ax is not None else a
                         for a, ax in zip(args, in_axes)]) for i in range(3)]
    for j in range(2):
        np.testing.assert_array_equal(np.asarray(got[j]), np.stack([p[j] for p in per]))


def test_threefry_abstract_eval_errors():
    with pytest.raises(TypeError, match="must have uint32 type"):
        prng.threefry2x32(np.int32(0), np.uint32(0), np.zeros(2, np.uint32), np.zeros(2, np.uint32))
    with pytest.raises(TypeError, match="incompatible shapes"):
        prng.threefry2x32(np.uint32(0), np.uint32(0), np.zeros(2, np.uint32), np.zeros(3, np.uint32))


def test_jaxpr_shows_the_primitives():
    # the traced jaxpr shows random_bits on typed keys (as JAX's); made physical for lowering
    # (core/physical.py) it shows threefry's primitives on the key data
    from jxkernel.core.physical import physicalize
    jaxpr = jxkernel.make_jaxpr(lambda k: r.bits(k, (3,)))(r.key(0)).jaxpr
    assert "random_bits[bit_width=32 shape=(3,)]" in str(jaxpr)
    text = str(physicalize(jaxpr))
    assert "iota_2x32_shape" in text and "threefry2x32" in text and "key<" not in text


def test_gradients_flow_around_the_bits():
    # keys and bits have zero tangents; the float transformations are differentiable
    K = _k()
    u = r.uniform(K, (4,))
    g = jxkernel.grad(lambda lo: r.uniform(K, (4,), minval=lo, maxval=lo + 2.0).sum())(0.5)
    assert_allclose_ulp(g, np.float32(4.0), 0)                # four ones: exact
    g = jxkernel.grad(lambda s: (s * r.normal(K, (4,))).sum())(2.0)
    n = np.asarray(r.normal(K, (4,)), np.float64)
    # the sum of the four normals, measured at the sum of their |values| (worst 0.5)
    assert_allclose_ulp(g, np.float32(n.sum()), REDUCTION, scale=np.abs(n).sum())
    _, t = jxkernel.jvp(lambda lo: r.uniform(K, (4,), minval=lo), (0.0,), (1.0,))
    assert_allclose_ulp(t, np.float32(1) - np.asarray(u), 0)   # 1 - u in float32 both ways


# ------------------------------------------------------------------ keys
def test_typed_keys():
    k = r.key(42)
    assert k.shape == () and str(k.dtype) == "key<fry>" and r.key_impl(k) == "threefry2x32"
    assert repr(k) == "Array((), dtype=key<fry>) overlaying:\n[ 0 42]"
    np.testing.assert_array_equal(np.asarray(r.key_data(k)), np.asarray(r.PRNGKey(42)))
    assert bool(r.wrap_key_data(r.PRNGKey(42)) == k)
    ks = r.split(k, 4)
    assert isinstance(ks, KeyArray) and ks.shape == (4,) and len(ks) == 4
    np.testing.assert_array_equal(np.asarray(r.key_data(ks)), np.asarray(r.split(r.PRNGKey(42), 4)))
    assert [kk.shape for kk in ks] == [()] * 4
    np.testing.assert_array_equal(np.asarray(r.key_data(ks[2])), np.asarray(r.key_data(ks)[2]))
    assert r.split(k, (2, 3)).shape == (2, 3)
    assert np.asarray(r.split(k, (2, 3))[..., 1] == r.split(k, (2, 3))[:, 1]).all()
    # clone: the same key data in a new key array (the key-reuse checker takes it as fresh)
    assert r.clone(k) is not k and bool(r.clone(k) == k)


def test_typed_keys_through_jit_and_vmap():
    k = r.key(7)
    np.testing.assert_array_equal(np.asarray(jxkernel.jit(lambda kk: r.uniform(kk, (3,)))(k)),
                                  np.asarray(r.uniform(k, (3,))))
    out = jxkernel.jit(lambda kk: r.split(kk))(k)
    assert isinstance(out, KeyArray) and out.shape == (2,)
    xs = jxkernel.vmap(lambda kk: r.uniform(kk, (3,)))(r.split(k, 4))
    want = np.stack([np.asarray(r.uniform(kk, (3,))) for kk in r.split(k, 4)])
    np.testing.assert_array_equal(np.asarray(xs), want)


@pytest.mark.parametrize("seed", [0, 1, -1, 2 ** 32 + 3, 2 ** 63 - 1, -2 ** 63])
def test_seeds_in_both_modes(seed):
    with jxkernel.config.override("jax_enable_x64", False):
        assert np.asarray(r.PRNGKey(seed)).tolist() == [0, seed % 2 ** 32]
    with jxkernel.config.override("jax_enable_x64", True):
        assert np.asarray(r.PRNGKey(seed)).tolist() == [(seed >> 32) % 2 ** 32, seed % 2 ** 32]


def test_seed_errors():
    with pytest.raises(OverflowError):
        r.PRNGKey(2 ** 64)
    with pytest.raises(TypeError, match="accepts a scalar seed, but was given an array"):
        r.PRNGKey(np.zeros(3, np.int32))
    with pytest.raises(TypeError, match="accepts a scalar seed, but was given a PRNG key"):
        r.PRNGKey(r.key(0))
    with pytest.raises(TypeError, match="PRNG key seed must be an integer"):
        r.PRNGKey(1.5)
    with pytest.raises(ValueError, match="unrecognized PRNG implementation"):
        r.key(0, impl="foo")


@pytest.mark.parametrize("bad, err, msg", [
    (np.zeros(3, np.uint32), TypeError, r"key_data.shape to end with \(2,\)"),
    (np.zeros(2, np.int32), TypeError, "key_data.dtype = uint32; got dtype=int32"),
    (np.uint32(0), TypeError, "key_data.ndim >= 1"),
    ([0, 0], TypeError, "unexpected PRNG key type"),
    # JAX 0.10.2 names the raw array's shape, its key data axis with it
    (np.zeros((4, 2), np.uint32), ValueError, r"uniform accepts a single key, but was given a key "
                                              r"array of shape \(4, 2\) != \(\). Use jax.vmap"),
])
def test_bad_keys(bad, err, msg):
    with pytest.raises(err, match=msg):
        r.uniform(bad)


def test_64_bit_dtypes_without_x64_warn_and_shrink():
    with jxkernel.config.override("jax_enable_x64", False):
        with pytest.warns(UserWarning, match="Explicitly requested dtype uint64"):
            assert r.bits(_k(), (2,), np.uint64).dtype == np.uint32
        with pytest.warns(UserWarning, match="Explicitly requested dtype float64"):
            assert r.uniform(_k(), (2,), np.float64).dtype == np.float32


def test_dtype_objects_and_python_types_with_x64():
    # np.dtype('float64') == float is True in NumPy: a dtype object must not be read as `float`
    with jxkernel.config.override("jax_enable_x64", True):
        key = r.PRNGKey(0)
        for given, want in [(np.dtype("float64"), np.float64), (np.dtype("float32"), np.float32),
                            (np.dtype("complex128"), np.complex128), (float, np.float64)]:
            assert r.normal(key, (2,), given).dtype == want


def test_traced_shape_is_an_error():
    K = _k()
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
        jxkernel.jit(lambda n: r.uniform(K, (n,)))(3)
    # split's count is random_split's parameter: JAX 0.10.2's bind refuses a tracer there
    # with its hash TypeError (tests/data/card_gaps_reference.json's split_lambda)
    with pytest.raises(TypeError, match="In a call to primitive random_split, the value of "
                                        "parameter shape was not hashable"):
        jxkernel.jit(lambda n: r.split(K, n))(3)


@pytest.mark.parametrize("call, err, msg", [
    (lambda: r.uniform(_k(), dtype=np.int32), ValueError, "must be a float dtype, got int32"),
    (lambda: r.bits(_k(), dtype=np.float32), ValueError, "must be an unsigned int dtype"),
    (lambda: r.randint(_k(), (2,), 0, 1, np.float32), TypeError, "only accepts integer dtypes"),
    (lambda: r.normal(_k(), dtype=np.int32), ValueError, "must be a float or complex dtype"),
    (lambda: r.bernoulli(_k(), 1), TypeError, "must have a floating dtype"),
    (lambda: r.bernoulli(_k(), 0.5, mode="mid"), ValueError, "expected 'high' or 'low'"),
    (lambda: r.gumbel(_k(), mode="x"), ValueError, "valid mode for gumbel"),
    (lambda: r.truncated_normal(_k(), np.zeros(3, np.float32), 1.0, (2,)), ValueError, "broadcast"),
    (lambda: r.choice(_k(), 3, (5,), replace=False), ValueError, "Cannot take a larger sample"),
    (lambda: r.choice(_k(), 3, (2,), p=np.ones(4, np.float32)), ValueError, "p must be None or"),
    (lambda: r.choice(_k(), 3, 2), TypeError, "must be a sequence"),
    (lambda: r.categorical(_k(), np.zeros(3, np.float32), shape=(5,), replace=False), ValueError,
     "cannot exceed number of categories"),
    (lambda: r.fold_in(_k(), np.arange(3)), TypeError, "fold_in accepts a scalar"),
    (lambda: r.fold_in(_k(), -1), OverflowError, "out of bounds for uint32"),
    (lambda: r.permutation(_k(), 2.5), TypeError, "x must be an integer or at least 1-dimensional"),
    (lambda: r.multivariate_normal(_k(), np.zeros(3, np.float32), np.eye(2, dtype=np.float32)),
     ValueError, r"cov.shape == \(..., n, n\)"),
    (lambda: r.dirichlet(_k(), 1.0), ValueError, "alpha.ndim >= 1"),
    (lambda: r.poisson(_k(), 1.0, dtype=np.float32), ValueError, "int dtype"),
    (lambda: r.uniform(_k(), out_sharding="x"), TypeError,
     "`out_sharding` argument of uniform only supports instances of `NamedSharding`"),
])
def test_argument_errors(call, err, msg):
    with pytest.raises(err, match=msg):
        call()


# ------------------------------------------------------------------ distribution sanity
def _moments(x):
    x = np.asarray(x, np.float64)
    return x.mean(), x.var()


def _close(value, want, sd, n):
    """value within 6 standard errors of `want` (the samples are deterministic: no flakes)."""
    assert abs(value - want) < 6 * sd / math.sqrt(n) + 1e-6, (value, want)


@pytest.mark.parametrize("name, sample, mean, var", [
    ("uniform", lambda k: r.uniform(k, (N,)), 0.5, 1 / 12),
    ("uniform_range", lambda k: r.uniform(k, (N,), minval=-2.0, maxval=4.0), 1.0, 3.0),
    ("normal", lambda k: r.normal(k, (N,)), 0.0, 1.0),
    ("randint", lambda k: r.randint(k, (N,), 0, 10), 4.5, 8.25),
    ("bernoulli", lambda k: r.bernoulli(k, 0.3, (N,)), 0.3, 0.21),
    ("rademacher", lambda k: r.rademacher(k, (N,)), 0.0, 1.0),
    ("exponential", lambda k: r.exponential(k, (N,)), 1.0, 1.0),
    ("laplace", lambda k: r.laplace(k, (N,)), 0.0, 2.0),
    ("logistic", lambda k: r.logistic(k, (N,)), 0.0, math.pi ** 2 / 3),
    ("gumbel", lambda k: r.gumbel(k, (N,)), 0.5772156649, math.pi ** 2 / 6),
    ("gumbel_high", lambda k: r.gumbel(k, (N,), mode="high"), 0.5772156649, math.pi ** 2 / 6),
])
def test_moments(name, sample, mean, var):
    m, v = _moments(sample(r.PRNGKey(3)))
    _close(m, mean, math.sqrt(var), N)
    assert abs(v - var) < 0.1 * var


def test_ranges_and_supports():
    u = np.asarray(r.uniform(r.PRNGKey(1), (N,), minval=-2.0, maxval=4.0))
    assert u.min() >= -2.0 and u.max() < 4.0
    t = np.asarray(r.truncated_normal(r.PRNGKey(1), -1.0, 2.0, (N,)))
    assert t.min() > -1.0 and t.max() < 2.0
    # mean of a standard normal truncated to (-1, 2): (phi(-1) - phi(2)) / (Phi(2) - Phi(-1))
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    Phi = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))
    _close(t.mean(), (phi(-1) - phi(2)) / (Phi(2) - Phi(-1)), 0.8, N)
    i = np.asarray(r.randint(r.PRNGKey(1), (N,), 0, 10))
    assert set(np.unique(i)) == set(range(10))
    assert set(np.unique(np.asarray(r.rademacher(r.PRNGKey(1), (N,))))) == {-1, 1}
    c = np.asarray(r.cauchy(r.PRNGKey(1), (N,)))
    q1, med, q3 = np.percentile(c, [25, 50, 75])       # Cauchy: quartiles at -1 and 1
    assert abs(med) < 0.1 and abs(q1 + 1) < 0.1 and abs(q3 - 1) < 0.1


def test_discrete_frequencies():
    p = np.array([0.1, 0.2, 0.7], np.float32)
    c = np.asarray(r.categorical(r.PRNGKey(2), np.log(p), shape=(N,)))
    # statistical: 0.02 is 4 standard errors of a frequency near 0.7 (sqrt(.21 / N) = 0.005)
    np.testing.assert_allclose(np.bincount(c, minlength=3) / N, p, atol=0.02)
    ch = np.asarray(r.choice(r.PRNGKey(2), 3, (N,), p=p))
    np.testing.assert_allclose(np.bincount(ch, minlength=3) / N, p, atol=0.02)  # statistical
    perm = np.asarray(r.permutation(r.PRNGKey(2), 2000))
    assert sorted(perm.tolist()) == list(range(2000)) and (perm != np.arange(2000)).any()
    draws = np.asarray(r.choice(r.PRNGKey(2), 10, (3,), replace=False))
    assert len(set(draws.tolist())) == 3


def _many(fn, n):
    """Stack fn(key) over n keys: the jitted sampler is compiled once and called n times."""
    return np.stack([np.asarray(fn(r.fold_in(_k(), i))) for i in range(n)])


ALPHAS = np.array([0.01, 0.1, 0.5, 1.0, 1.5, 2.0, 3.5, 10.0], np.float32)  # the reference's


def test_gamma_family_moments():
    g = _many(lambda k: r.gamma(k, ALPHAS), 400)               # Gamma(a): mean = var = a
    for j, a in enumerate(ALPHAS[2:], 2):
        _close(g[:, j].mean(), a, math.sqrt(a), 400)
    assert (g >= 0).all()
    b = _many(lambda k: r.beta(k, ALPHAS, ALPHAS[::-1]), 300)  # Beta(a, b): mean a / (a + b)
    for j in range(2, 6):
        a_, b_ = ALPHAS[j], ALPHAS[::-1][j]
        sd = math.sqrt(a_ * b_ / ((a_ + b_) ** 2 * (a_ + b_ + 1)))
        _close(b[:, j].mean(), a_ / (a_ + b_), sd, 300)
    alpha = np.array([[0.5, 1.0, 2.0], [1.0, 1.0, 1.0]], np.float32)
    d = _many(lambda k: r.dirichlet(k, alpha), 300)
    # gammas over their float32 sum: each share rounds, and their sum in float64 is 1 within
    # a few ulps of 1 (worst 1)
    total = d.astype(np.float64).sum(-1).astype(np.float32)
    assert_allclose_ulp(total, np.ones_like(total), REDUCTION)
    # statistical: 0.06 is about 4.5 standard errors of a mean of 300 (sd at most 0.23 here)
    np.testing.assert_allclose(d.mean(0), alpha / alpha.sum(-1, keepdims=True), atol=0.06)


def test_poisson_moments():
    lam = np.array([0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 100.0, 1000.0], np.float32)
    x = _many(lambda k: r.poisson(k, lam), 300)
    assert x.dtype == np.int32 and (x[:, 0] == 0).all()
    for j in range(1, 8):                                       # mean = var = lam
        _close(x[:, j].mean(), lam[j], math.sqrt(lam[j]), 300)
        assert abs(x[:, j].var() - lam[j]) < 0.35 * lam[j] + 0.1


def test_multivariate_normal_and_orthogonal():
    cov = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.5, 1.0]], np.float32)
    mean = np.array([1.0, -1.0, 0.5], np.float32)
    x = np.asarray(r.multivariate_normal(_k(), mean, cov, (N,)))
    # statistical: 6 standard errors of the mean (sd <= sqrt(2), N samples: 0.016) and about
    # 5 of the covariance (sd of a sample variance of 2: sqrt(2 * 4 / N) = 0.03)
    np.testing.assert_allclose(x.mean(0), mean, atol=0.1)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.15)
    # Q Q^T in float64, rounded once to float32, is the identity within a QR's rounding (at
    # the scale of its unit rows; worst 1.5, AVX-512)
    q = np.asarray(r.orthogonal(_k(), 3, (4,)), np.float64)
    assert_allclose_ulp((q @ np.swapaxes(q, -1, -2)).astype(np.float32),
                        np.broadcast_to(np.eye(3, dtype=np.float32), (4, 3, 3)), LAPACK,
                        scale=1.0)
    w = np.asarray(r.orthogonal(_k(), 2, m=3), np.float64)      # n < m: orthonormal rows
    assert_allclose_ulp((w @ w.T).astype(np.float32), np.eye(2, dtype=np.float32), LAPACK,
                        scale=1.0)


# the recorded answers name the samples' sharding: SingleDeviceSharding(CpuDevice(id=0))
@pytest.mark.cpu_only("CPU text")
def test_a_numpy_integer_is_no_shape_as_in_jax():
    # JAX's samplers read `shape` with tuple(): a Python int is one size, a NumPy integer
    # (or a 0-d array) is refused in Python's words, a tuple of NumPy integers taken; and
    # categorical's axis out of the logits' bounds is JAX's IndexError (it drew along another)
    from surface_gaps_cases import recorded, run_mistakes
    from backend_tier import devices_named_here
    assert run_mistakes(jxkernel, "random") == devices_named_here(recorded("mistakes", "random"))
