"""Which public functions JAX makes jit objects (PjitFunction), and a sample to export, lower
and eval_shape, shared by reference/make_jitted_names_reference.py (real JAX) and
tests/numpy/test_jitted_names.py (jxkernel). `jax` is either library's top module."""
import numpy as np

# every public module whose functions users reach as `jax.<module>.<name>`
MODULES = (
    "numpy", "numpy.linalg", "numpy.fft", "nn", "nn.initializers", "lax", "lax.linalg",
    "random", "image", "ops",
    "scipy.special", "scipy.linalg", "scipy.signal", "scipy.fft", "scipy.ndimage",
    "scipy.integrate", "scipy.interpolate", "scipy.optimize", "scipy.sparse.linalg",
    "scipy.spatial.transform", "scipy.cluster.vq", "scipy.stats",
    "scipy.stats.bernoulli", "scipy.stats.beta", "scipy.stats.betabinom", "scipy.stats.binom",
    "scipy.stats.cauchy", "scipy.stats.chi2", "scipy.stats.dirichlet", "scipy.stats.expon",
    "scipy.stats.gamma", "scipy.stats.gennorm", "scipy.stats.geom", "scipy.stats.gumbel_l",
    "scipy.stats.gumbel_r", "scipy.stats.laplace", "scipy.stats.logistic",
    "scipy.stats.multinomial", "scipy.stats.multivariate_normal", "scipy.stats.nbinom",
    "scipy.stats.norm", "scipy.stats.pareto", "scipy.stats.poisson", "scipy.stats.t",
    "scipy.stats.truncnorm", "scipy.stats.uniform", "scipy.stats.vonmises",
    "scipy.stats.wrapcauchy",
)


def _f32(*shape, seed=0):
    return np.random.default_rng(seed).uniform(0.1, 0.9, shape).astype(np.float32)


def samples():
    """(module, name, args, static kwargs): exported, lowered and eval_shaped on both sides."""
    m = _f32(3, 3) + 3 * np.eye(3, dtype=np.float32)
    return [
        ("numpy", "sin", (_f32(4),), {}),
        ("numpy", "abs", (np.array([-2, 3], np.int32),), {}),
        ("numpy", "arctan2", (_f32(3), _f32(3, seed=1)), {}),
        ("numpy", "clip", (_f32(5),), {"min": 0.3, "max": 0.6}),
        ("numpy", "dot", (_f32(2, 3), _f32(3, 4, seed=1)), {}),
        ("numpy", "matmul", (_f32(2, 3), _f32(3, 2, seed=1)), {}),
        ("numpy", "sort", (_f32(2, 5),), {"axis": 0}),
        ("numpy", "cumsum", (_f32(2, 3),), {"axis": 1}),
        ("numpy", "round", (_f32(4),), {"decimals": 2}),
        ("numpy", "isclose", (_f32(3), _f32(3)), {}),
        ("numpy.linalg", "det", (m,), {}),
        ("numpy.linalg", "inv", (m,), {}),
        ("nn", "celu", (_f32(4),), {"alpha": 0.5}),
        ("nn", "log_softmax", (_f32(2, 3),), {"axis": 0}),
        ("nn", "sigmoid", (_f32(4),), {}),
        ("scipy.special", "gammasgn", (_f32(3),), {}),
        ("scipy.linalg", "expm", (m * 0.1,), {}),
        ("scipy.stats.truncnorm", "logpdf", (_f32(3), np.float32(0.0), np.float32(1.0)), {}),
        ("lax", "dynamic_index_in_dim", (_f32(4, 2), np.int32(1)), {"axis": 0}),
        ("numpy", "around", (_f32(4),), {"decimals": 1}),
        ("numpy", "acos", (_f32(3),), {}),
    ]
