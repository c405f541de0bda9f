"""jxkernel.scipy.stats: values, dtypes and weak types equal to JAX 0.10.2's (committed
reference; floats within the ulps scipy_cases.py gives, which XLA's per-CPU code generation
needs), against scipy.stats, derivatives by finite differences, jit and vmap, and JAX's
errors."""
import os
import warnings
import zlib

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.scipy import stats
from jxkernel.tree_util import tree_leaves
from compiled import constants_as_arguments, jit_together
from grads_together import check_grads_together
from recorded_calls import recorder
from numerics import ELEMENTWISE, LAPACK, REDUCTION, assert_allclose_ulp

from scipy_cases import STATS_AT_LARGEST, STATS_ULPS, stats_cases, stats_log_space
import locations  # tests/support: the repository's folders

REF = np.load(os.path.join(locations.DATA, "scipy_reference.npz"))
x64 = lambda: jxkernel.config.override("jax_enable_x64", True)
# Against scipy.stats in float64: scipy's series, continued fractions and argument reductions
# are not JAX's, so results differ by more than a rounding (worst seen 84, truncnorm.logpdf;
# 52, beta.cdf on AVX; the CPU changes them by a few ulps at most)
SCIPY_ULPS = 256
# JAX's betaln (and so its betabinom.logpmf) is good to ~2e-7 relative here: worst seen
# 1.05e9 ulps, on every CPU; jxkernel follows JAX's algorithm
BETALN_ULPS = 2 * 10**9
# jit against eager: XLA fuses the transcendentals differently (worst seen 4, AVX-512 and AVX2)
FUSED_ULPS = 2 * ELEMENTWISE


def _compare(tag, group, cases):
    """Each case's leaves against JAX's "<tag>:<group>/<name>#<i>": dtype, shape and weak
    type exactly, values within the case's ulps (scipy_cases.STATS_ULPS; sem reads jnp.std,
    whose fused HLO differs from JAX's by an ulp in float32 on every CPU)."""
    for name, value in cases.items():
        for i, leaf in enumerate(tree_leaves(value)):
            key = f"{tag}:{group}/{name}#{i}"
            got, want = np.asarray(leaf), REF[key]
            assert bool(jxkernel.typeof(leaf).weak_type) == bool(REF[key + "@weak"]), key
            if name in STATS_AT_LARGEST:
                scale = np.abs(want[np.isfinite(want)]).max(initial=0)
            else:
                scale = 1.0 if stats_log_space(name) else None
            assert_allclose_ulp(got, want, STATS_ULPS.get(name, REDUCTION), scale=scale,
                                err_msg=key)
    return len(cases)


# The float32 cases whose values XLA's fused program moves out of their bounds, at one point
# each (it fuses tan/atan and exp differently from the operations one by one): cauchy.sf(inf)
# 6.3e-9 and logsf(inf) -18.9 instead of 0 and -inf, cauchy.ppf/isf 395 ulps near q = 1,
# gumbel_l.pdf/logpdf(inf) inf instead of NaN. JAX's values are eager ones.
EAGER_IN_F32 = {"cauchy": {"sf", "logsf", "ppf", "isf"}, "gumbel_l": {"pdf", "logpdf"}}
# In float64 the same happens to cauchy at XLA's default level (JAX_DISABLE_MOST_OPTIMIZATIONS=0,
# not the suite's): logsf(inf) NaN instead of -inf, isf 396 ulps near q = 1. JAX's jit gives
# the same NaN (checked with JAX 0.10.2); its recorded values are eager ones.
EAGER_IN_F64 = {"cauchy": {"sf", "logsf", "ppf", "isf"}}


class _EagerWhereListed:
    """`namespace` (jax.scipy.stats or one of its distributions) whose `listed` functions
    compute eagerly while the rest is traced: their arguments are constants (NumPy arrays and
    Python scalars), so under jit their results are the eager values, as constants."""

    def __init__(self, namespace, listed):
        self._namespace, self._listed = namespace, listed

    def __getattr__(self, name):
        attr = getattr(self._namespace, name)
        if isinstance(self._listed, dict):
            return _EagerWhereListed(attr, self._listed[name]) if name in self._listed else attr
        return _eager(attr) if name in self._listed else attr


def _eager(fun):
    def call(*args, **kwargs):
        with jxkernel.ensure_compile_time_eval():
            return fun(*args, **kwargs)
    return call


@pytest.mark.parametrize("tag,dtype", [("f32", np.float32), ("f64", np.float64)])
def test_values_dtypes_and_weak_types_match_jax(tag, dtype):
    """The cases computed under jit (_PARTS compiles instead of ~250 in float64, 10.6 -> 7.8
    CPU s; instead of ~340 in float32, 21.8 -> 14 s): jit keeps the weak types of its outputs,
    and test_jit_and_vmap compares jit with eager. The EAGER_IN_F32 / EAGER_IN_F64 cases are
    evaluated eagerly inside the trace."""
    namespace = _EagerWhereListed(stats, EAGER_IN_F32 if dtype == np.float32 else EAGER_IN_F64)
    make = lambda: stats_cases(jxkernel, jnp, namespace, dtype)
    with jxkernel.enable_x64(dtype == np.float64):
        with constants_as_arguments():
            # in _PARTS programs, each the whole trace with a part of its outputs kept (jit
            # drops the rest): XLA's compile of one program grows faster than the program
            cases = {}
            for part in range(_PARTS):
                cases.update(jxkernel.jit(lambda part=part: _part(make(), part))())
        assert _compare(tag, "stats", cases) > 100


# (stop 102: the float32 cases in one program 8.0 s of CPU, 7.5 of it XLA's compile; in 2, 4,
# 6 and 8 programs 7.1-7.5, 6.8-7.0, 6.9 and 6.9-7.0 s. -k test_values, back to back: one
# program each 14.5-14.6 s of the tests' CPU, four 12.7-13.3 s)
_PARTS = 4


def _part(cases, part):
    """The cases of one part, by a hash of their names."""
    return {name: v for name, v in cases.items() if zlib.crc32(name.encode()) % _PARTS == part}


def test_against_scipy():
    ss = pytest.importorskip("scipy.stats")
    rng = np.random.RandomState(1)
    x = rng.uniform(-4, 4, 16)
    pos = rng.uniform(0.2, 6, 16)
    u = rng.uniform(0.01, 0.99, 16)
    k = np.floor(rng.uniform(0, 12, 16))

    checks = []       # (our call, scipy's value, bound in ulps, at the largest |value|?)

    def close(call, want, ulps=SCIPY_ULPS, at_largest=False):
        """Within `ulps` of scipy's, measured at each value's own magnitude, or at the largest
        |value| for results of cancellation (log(1 - p) near 0, a log density near 0)."""
        checks.append((call, np.asarray(want), ulps, at_largest))
    # every call jitted, the programs compiled as one (op by op: 112 compiles; one program
    # per call: 29 compiles, 7.0 CPU s; together: 1, 5.5 s)
    ours = recorder(stats)
    with x64():
        for f in ("logpdf", "cdf", "logcdf", "sf", "logsf"):   # logsf: JAX's log(ndtr) near 1
            close(getattr(ours.norm, f)(x, 0.3, pos), getattr(ss.norm, f)(x, 0.3, pos),
                  at_largest=f in ("logcdf", "logsf"))
        close(ours.norm.ppf(u, 1.0, 2.0), ss.norm.ppf(u, 1.0, 2.0))
        close(ours.t.logpdf(x, pos), ss.t.logpdf(x, pos))
        close(ours.beta.logpdf(u, pos, pos[::-1]), ss.beta.logpdf(u, pos, pos[::-1]),
              at_largest=True)
        close(ours.beta.cdf(u, pos, pos[::-1]), ss.beta.cdf(u, pos, pos[::-1]))
        close(ours.gamma.logpdf(pos, pos[::-1]), ss.gamma.logpdf(pos, pos[::-1]))
        close(ours.gamma.sf(pos, pos[::-1]), ss.gamma.sf(pos, pos[::-1]))
        close(ours.chi2.cdf(pos, pos[::-1]), ss.chi2.cdf(pos, pos[::-1]))
        close(ours.poisson.logpmf(k, pos), ss.poisson.logpmf(k, pos))
        close(ours.poisson.cdf(k, pos), ss.poisson.cdf(k, pos))
        close(ours.binom.logpmf(k, 12.0, u), ss.binom.logpmf(k, 12, u))
        close(ours.nbinom.logpmf(k, pos, u), ss.nbinom.logpmf(k, pos, u))
        close(ours.betabinom.logpmf(k, 12.0, pos, pos[::-1]),
              ss.betabinom.logpmf(k, 12, pos, pos[::-1]), BETALN_ULPS)
        close(ours.geom.logpmf(k + 1, u), ss.geom.logpmf(k + 1, u))
        close(ours.truncnorm.logpdf(x / 4, -0.5, pos), ss.truncnorm.logpdf(x / 4, -0.5, pos))
        close(ours.truncnorm.logcdf(x / 4, -0.5, pos), ss.truncnorm.logcdf(x / 4, -0.5, pos))
        close(ours.vonmises.logpdf(x, pos), ss.vonmises.logpdf(x, pos))
        # (1 + sign(x) P(1/beta, |x|^beta)) / 2 cancels to 0 in the far left tail, as JAX's
        close(ours.gennorm.cdf(x, pos), ss.gennorm.cdf(x, pos), at_largest=True)
        close(ours.pareto.logpdf(pos + 1, pos), ss.pareto.logpdf(pos + 1, pos))
        close(ours.logistic.logpdf(x), ss.logistic.logpdf(x))
        close(ours.gumbel_l.logcdf(x), ss.gumbel_l.logcdf(x), at_largest=True)  # log(-expm1(-e^z))
        close(ours.wrapcauchy.logpdf(u * 6, u), ss.wrapcauchy.logpdf(u * 6, u))
        alpha = np.array([0.5, 2.0, 3.0])
        simplex = np.array([0.2, 0.3, 0.5])
        close(ours.dirichlet.logpdf(simplex, alpha), ss.dirichlet.logpdf(simplex, alpha))
        cov = np.array([[2.0, 0.3], [0.3, 1.0]])
        pts = rng.randn(5, 2)
        close(ours.multivariate_normal.logpdf(pts, np.ones(2), cov),
              ss.multivariate_normal.logpdf(pts, np.ones(2), cov))
        rankdata = ours.rankdata(np.array([3., 1., 3., 2.]), "min")
        got = jit_together(jxkernel, {i: (call, call.arrays()) for i, (call, *_) in
                                      enumerate(checks + [(rankdata,)])})
        for i, (call, want, ulps, at_largest) in enumerate(checks):
            assert_allclose_ulp(np.asarray(got[i]), want, ulps,
                                scale=np.abs(want).max() if at_largest else None,
                                err_msg=f"{call.fun.__module__}.{call.fun.__name__}")
        np.testing.assert_array_equal(got[len(checks)], ss.rankdata([3., 1., 3., 2.], "min"))


def test_gradients():
    # each check's evaluations compiled as one program (grads_together.py; the same checks):
    # 2.8 -> 1.1 CPU s (multivariate_normal's op by op: 1.9 s)
    with x64():
        x, loc, scale = np.array([-1.5, 0.2, 2.0]), np.array([0.1, -0.3, 0.5]), np.array(
            [0.7, 1.2, 2.0])
        for f in (stats.norm.logpdf, stats.norm.cdf):
            check_grads_together(f, (x, loc, scale), order=2, modes=("fwd", "rev"))
        check_grads_together(stats.norm.logcdf, (x,), order=1, modes=("fwd", "rev"))
        cov = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
        pts = np.array([[0.0, 0.5, -1.0], [1.0, 1.0, 2.0]])
        check_grads_together(lambda m, c: stats.multivariate_normal.logpdf(pts, m, c),
                             (np.array([0.1, 0.2, 0.3]), cov), order=1, modes=("fwd", "rev"))


def test_jit_and_vmap():
    # inputs built with NumPy (float32, as jnp builds them with x64 off): an eager jnp op
    # compiles for each new shape
    f32 = np.float32
    x = np.linspace(-2.0, 2.0, 5, dtype=f32)
    for fun in (lambda x: stats.norm.logcdf(x, 0.5, 2.0), lambda x: stats.gamma.logpdf(
            x + 3, 2.0), lambda x: stats.truncnorm.logpdf(x, -1.0, 1.5)):
        assert_allclose_ulp(jxkernel.jit(fun)(x), fun(x), FUSED_ULPS)
    mean = np.zeros(2, f32)
    covs = np.stack([np.eye(2, dtype=f32), np.array([[2.0, 0.5], [0.5, 1.0]], f32)])
    pts = np.array([[0.3, -0.2], [1.0, 2.0]], f32)
    batched = jxkernel.vmap(lambda p, c: stats.multivariate_normal.logpdf(p, mean, c))(pts, covs)
    one_by_one = [stats.multivariate_normal.logpdf(pts[i], mean, covs[i]) for i in range(2)]
    assert_allclose_ulp(batched, np.stack(one_by_one), LAPACK)    # through Cholesky
    rows = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 1.0]], f32)
    rates = np.array([1.0, 2.5], f32)
    # xlogy and gammaln: programs of other shapes, whose vector code may round otherwise
    assert_allclose_ulp(jxkernel.vmap(stats.poisson.logpmf)(rows, rates),
                        np.stack([stats.poisson.logpmf(rows[0], 1.0),
                                  stats.poisson.logpmf(rows[1], 2.5)]), ELEMENTWISE)


def test_errors():
    with pytest.raises(ValueError, match="`alpha` must be one-dimensional"):
        stats.dirichlet.logpdf(jnp.ones(2) / 2, jnp.ones((2, 2)))
    with pytest.raises(ValueError, match="one entry fewer"):
        stats.dirichlet.logpdf(jnp.ones(5) / 5, jnp.ones(2))
    with pytest.raises(ValueError, match="must be of integer type"):
        stats.multinomial.logpmf(jnp.array([1.0, 2.0]), 3, jnp.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="incompatible shapes"):
        stats.multivariate_normal.logpdf(jnp.zeros(3), jnp.zeros(3), jnp.eye(2))
    with pytest.raises(NotImplementedError, match="allow_singular"):
        stats.multivariate_normal.logpdf(jnp.zeros(2), jnp.zeros(2), jnp.eye(2),
                                         allow_singular=True)
    with pytest.raises(ValueError, match="unknown method 'mean'"):
        stats.rankdata(jnp.ones(3), "mean")
    with pytest.raises(ValueError, match="Illegal nan_policy"):
        stats.mode(jnp.ones(3), nan_policy="skip")
    with pytest.raises(NotImplementedError, match="nan_policy"):
        stats.rankdata(jnp.ones(3), nan_policy="omit")
    with pytest.raises(TypeError):
        stats.norm.logpdf("a")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(stats.rankdata(jnp.array([1.0, np.nan]))).all()
