"""jax.export with symbolic shapes through LAPACK's decompositions (their result shapes as
operands of the custom calls), a dynamic_slice of symbolic size, the random samplers
(threefry's halves of a size not known to be even, random bits of a symbolic shape, choice's
top_k of a symbolic k, gamma's scan of symbolic length), the gradient of a padded max pool
(select_and_scatter_add), and jnp.average/percentile, approx_max_k, one_hot, jnp.repeat and lax's
slicing helpers over a symbolic axis. `run(jax)` gives,
per case, the exported results' shapes as text and their values at one concrete size;
recorded on real JAX by reference/make_export_symbolic_linalg_reference.py, compared by
tests/export/test_export_symbolic_linalg.py. Also `gamma under both threefry modes`: two
fresh jits of one sampler, the second after switching jax_threefry_partitionable."""
import numpy as np


def _lax(jax):
    return jax.lax


def _spd(n, batch=()):
    rng = np.random.RandomState(0)
    a = rng.randn(*batch, n, n).astype(np.float32)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=np.float32)


def _randn(*shape):
    return np.random.RandomState(1).randn(*shape).astype(np.float32)


# (name, spec, constraints, function of the operands and jax, concrete operands)
CASES = [
    ("cholesky", "n, n", (), lambda x, jax: jax.numpy.linalg.cholesky(x), [_spd(3)]),
    ("lu m,n", "m, n", (), lambda x, jax: jax.lax.linalg.lu(x), [_randn(5, 4)]),
    ("qr b,m,n n<=m", "b, m, n", ("n <= m",),
     lambda x, jax: jax.lax.linalg.qr(x, full_matrices=False), [_randn(2, 5, 3)]),
    ("svd b,...", "b, ...", (), lambda x, jax: jax.lax.linalg.svd(x, compute_uv=False),
     [_randn(2, 4, 3)]),
    ("eigh n,n", "n, n", (), lambda x, jax: jax.lax.linalg.eigh(x)[1], [_spd(4)]),
    ("triangular_solve b,k,k", "b, k, k", (),
     lambda x, jax: jax.lax.linalg.triangular_solve(
         jax.numpy.tril(x) + 5 * jax.numpy.eye(x.shape[-1], dtype=x.dtype), x,
         left_side=True, lower=True), [_randn(2, 3, 3)]),
    ("lu_pivots_to_permutation b", "b", ("b <= 8",),
     lambda x, jax: jax.lax.linalg.lu_pivots_to_permutation(x, 8),
     [np.array([3, 1, 5, 3], np.int32)]),
    ("dynamic_slice b,...", "b, ...", (),
     lambda x, jax: jax.lax.dynamic_slice(x, (0, 1), (x.shape[0], 2)), [_randn(3, 4)]),
    ("select_and_scatter_add (max pool grad, padded)", "b, ...", (),
     lambda x, jax: jax.grad(lambda y: jax.lax.reduce_window(
         y, -np.inf, jax.lax.max, (2, 2), (1, 1), ((1, 0), (0, 1))).sum())(x),
     [_randn(3, 4)]),
    ("approx_max_k of k = b", "b, ...", (),
     lambda x, jax: jax.lax.approx_max_k(x.T, x.shape[0]), [_randn(3, 4)]),
    ("dynamic_slice_in_dim, index_in_dim, slice_in_dim (symbolic)", "b, ...", ("b >= 2",),
     lambda x, jax: (jax.lax.dynamic_slice_in_dim(x, 0, x.shape[0], axis=0),
                     jax.lax.index_in_dim(x, x.shape[0] - 1, axis=0, keepdims=False),
                     jax.lax.dynamic_slice(x, (-2, 0), (2, 4)),
                     jax.lax.slice_in_dim(x, 0, x.shape[0], stride=1 + x.shape[0] // 4)),
     [_randn(13, 4)]),
    ("repeat b times", "b, ...", (),
     lambda x, jax: (jax.numpy.repeat(x, x.shape[0], axis=0),
                     jax.numpy.repeat(x[0, 0], x.shape[0])), [_randn(3, 2)]),
    ("one_hot of b classes", "b, ...", (),
     lambda x, jax: jax.nn.one_hot(jax.numpy.arange(3), x.shape[0]), [_randn(5, 2)]),
    ("average and percentile", "b, ...", (),
     lambda x, jax: (jax.numpy.average(x, axis=0), jax.numpy.percentile(x, 50., axis=0)),
     [_randn(5, 3)]),
]

# random: the key's data (2 words), an operand whose shape the draw takes
RANDOM_CASES = [
    ("uniform b0,b1 (evenness unknown), not partitionable", "b0, b1", (), False,
     lambda k, a, jax: jax.random.uniform(jax.random.wrap_key_data(k), a.shape)),
    ("bits b0,4,5, partitionable", "b0, 4, 5", (), True,
     lambda k, a, jax: jax.random.bits(jax.random.wrap_key_data(k), a.shape)),
    ("choice of b0*b1 without replacement, with p", "b0, b1", ("12 >= b0*b1",), True,
     lambda k, a, jax: jax.random.choice(jax.random.wrap_key_data(k), 12, shape=a.shape,
                                         replace=False, p=jax.numpy.full((12,), 1 / 12.))),
]

GAMMA_KEYS = np.array([[0, 1], [2, 3], [4, 5]], np.uint32)
GAMMA_ALPHAS = np.abs(_randn(3, 4)) + 0.5


def _values(out):
    return [np.asarray(v).tolist() for v in (out if isinstance(out, (tuple, list)) else [out])]


def run(jax):
    export = jax.export
    out = {}
    for name, spec, constraints, f, args in CASES:
        specs = export.symbolic_args_specs(args, [spec] + [None] * (len(args) - 1),
                                           constraints=list(constraints))
        exp = export.export(jax.jit(lambda *a, f=f: f(*a, jax)))(*specs)
        out[name] = {"shapes": [str(a.shape) for a in exp.out_avals],
                     "values": _values(exp.call(*args))}
    key = np.array([7, 42], np.uint32)
    for name, spec, constraints, partitionable, f in RANDOM_CASES:
        with jax.threefry_partitionable(partitionable):
            a = np.zeros((3, 4), np.float32) if spec != "b0, 4, 5" else \
                np.zeros((3, 4, 5), np.float32)
            specs = export.symbolic_args_specs((key, a), [None, spec],
                                               constraints=list(constraints))
            exp = export.export(jax.jit(lambda k, a, f=f: f(k, a, jax)))(*specs)
            out[name] = {"shapes": [str(a.shape) for a in exp.out_avals],
                         "values": _values(exp.call(key, a))}
    # gamma over a batch of keys: a scan of symbolic length inside random_gamma's rule
    gamma = lambda k, a: jax.vmap(lambda k, a: jax.random.gamma(
        jax.random.wrap_key_data(k), a))(k, a)
    b, = export.symbolic_shape("b")
    exp = export.export(jax.jit(gamma))(jax.ShapeDtypeStruct((b, 2), np.uint32),
                                        jax.ShapeDtypeStruct((b, 4), np.float32))
    out["gamma vmapped over keys"] = {"shapes": [str(exp.out_avals[0].shape)],
                                      "values": _values(exp.call(GAMMA_KEYS, GAMMA_ALPHAS))}
    # two fresh jits of one sampler, under each threefry mode in turn
    modes = []
    for partitionable in (False, True):
        with jax.threefry_partitionable(partitionable):
            modes.append(np.asarray(jax.jit(lambda k, a: gamma(k, a))(
                GAMMA_KEYS, GAMMA_ALPHAS)).tolist())
    out["gamma under both threefry modes"] = {"shapes": [], "values": modes}
    return out
