"""jax.experimental.sparse against JAX 0.10.2's recorded answers
(reference/make_sparse_reference.py over tests/data/sparse_cases.py): BCOO's layout
(data, indices, nse, batch and dense dims) exactly, its products, reductions and
elementwise methods, jit, grad, vmap over batch dims, and sparsify; then the primitives'
rules (check_grads, vmap against stacking) and the errors JAX raises."""
import functools
import os

import numpy as np
import pytest
from doc_examples import check_docstring_examples
from grads_together import check_grads_together
from numerics import assert_allclose_ulp
from sparse_cases import EPS_OF_ONE, ULPS, as_numpy, cases, error_cases, error_of

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.api.test_util import check_grads
from jxkernel.experimental import sparse
import locations  # tests/support: the repository's folders

REFERENCE = np.load(os.path.join(locations.DATA, "sparse_reference.npz"))
# the cases are made on first use, not while pytest collects (every xdist worker collects
# every file: making them compiled 10 programs there); their names are the reference's
CASES = functools.cache(lambda: cases(jax, sparse))
ERRORS = functools.cache(lambda: error_cases(jax, sparse))
CASE_NAMES = sorted({k.split("/", 1)[0] for k in REFERENCE if not k.startswith("errors/")})
ERROR_NAMES = sorted(k.split("/", 1)[1] for k in REFERENCE if k.startswith("errors/"))


def test_every_case_has_its_reference():
    assert sorted(CASES()) == CASE_NAMES and sorted(ERRORS()) == ERROR_NAMES


# a case's dense values as one program (each todense of another shape was a compile of its own)
DENSIFY = jax.jit(lambda xs: [x.todense() for x in xs])


@pytest.mark.parametrize("case", CASE_NAMES)
def test_sparse_matches_jax(case):
    got = as_numpy(CASES()[case](), densify=DENSIFY)
    want = {k.split("/", 1)[1]: REFERENCE[k] for k in REFERENCE if k.startswith(case + "/")}
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name].dtype == want[name].dtype, name
        assert got[name].shape == want[name].shape, name
        if case in EPS_OF_ONE and np.issubdtype(want[name].dtype, np.inexact):
            tol = EPS_OF_ONE[case] * np.finfo(want[name].dtype).eps
            np.testing.assert_allclose(got[name], want[name], rtol=tol, atol=tol,
                                       err_msg=f"{case}/{name}")
        elif np.issubdtype(want[name].dtype, np.inexact):
            assert_allclose_ulp(got[name], want[name], ULPS.get(case, ULPS["default"]),
                                err_msg=f"{case}/{name}")
        else:       # indices, shapes, integer data: exact
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{case}/{name}")


M = jnp.array([[0., 1., 0., 2.], [3., 0., 0., 0.], [0., 0., 4., 0.]])


def test_bcoo_is_a_pytree_with_jaxs_aux_data():
    m = sparse.BCOO.fromdense(M)
    leaves, tree = jax.tree_util.tree_flatten(m)
    assert [x.shape for x in leaves] == [(4,), (4, 2)]
    back = jax.tree_util.tree_unflatten(tree, leaves)
    assert (back.shape, back.indices_sorted, back.unique_indices) == ((3, 4), True, True)
    assert repr(sparse.BCOO.fromdense(M.reshape(3, 2, 2), n_batch=1, n_dense=1)) == \
        "BCOO(float32[3, 2, 2], nse=2, n_batch=1, n_dense=1)"


def test_rules_of_the_primitives():
    m = sparse.BCOO.fromdense(M)
    v = jnp.array([1., -2., 0.5, 3.])
    dot = lambda d, x: sparse.bcoo_dot_general(
        sparse.BCOO((d, m.indices), shape=m.shape), x,
        dimension_numbers=(((1,), (0,)), ((), ())))
    check_grads(dot, (m.data, v), order=2, modes=["fwd", "rev"])
    todense = lambda d: sparse.BCOO((d, m.indices), shape=m.shape).todense()
    check_grads(todense, (m.data,), order=2, modes=["fwd", "rev"])
    transposed = lambda d: sparse.BCOO((d, m.indices), shape=m.shape).T.data
    check_grads(transposed, (m.data,), order=1, modes=["fwd", "rev"])
    extract = lambda x: sparse.bcoo_extract(m, x).data
    check_grads(extract, (M + 1,), order=1, modes=["fwd", "rev"])
    # (no zeros in the point, so finite differences keep the pattern)
    fromdense = lambda x: sparse.BCOO.fromdense(x, nse=12).data
    check_grads(fromdense, (M + 1,), order=1, modes=["fwd"])


def test_rules_of_the_bcsr_primitives():
    s = sparse.BCSR.fromdense(M)
    v = jnp.array([1., -2., 0.5, 3.])
    dot = lambda d, x: sparse.bcsr_dot_general(
        sparse.BCSR((d, s.indices, s.indptr), shape=s.shape), x,
        dimension_numbers=(((1,), (0,)), ((), ())))
    check_grads(dot, (s.data, v), order=2, modes=["fwd", "rev"])
    todense = lambda d: sparse.BCSR((d, s.indices, s.indptr), shape=s.shape).todense()
    check_grads(todense, (s.data,), order=2, modes=["fwd", "rev"])
    extract = lambda x: sparse.bcsr_extract(s.indices, s.indptr, x)
    check_grads(extract, (M + 1,), order=1, modes=["fwd", "rev"])
    fromdense = lambda x: sparse.BCSR.fromdense(x, nse=12).data
    check_grads(fromdense, (M + 1,), order=1, modes=["fwd"])
    # vmap of todense and extract over a batch dim equals stacking
    ms = jnp.stack([M, 2 * M[::-1]])
    b = sparse.BCSR.fromdense(ms, n_batch=1)
    np.testing.assert_array_equal(jax.vmap(lambda x: x.todense())(b), ms)
    np.testing.assert_array_equal(
        jax.vmap(lambda i, p, x: sparse.bcsr_extract(i, p, x))(b.indices, b.indptr, ms), b.data)


def test_vmap_of_the_primitives_equals_stacking():
    ms = jnp.stack([M, 2 * M[::-1]])
    vs = jnp.stack([jnp.arange(4.), jnp.ones(4)])
    one = lambda x, v: sparse.BCOO.fromdense(x, nse=5) @ v
    batched = jax.vmap(one)(ms, vs)
    np.testing.assert_array_equal(batched, jnp.stack([one(ms[i], vs[i]) for i in range(2)]))
    # a dense operand batched, the sparse one not; in_axes=1 of the dense one
    m = sparse.BCOO.fromdense(M)
    np.testing.assert_array_equal(jax.vmap(lambda v: m @ v, in_axes=1)(vs.T),
                                  jnp.stack([m @ vs[i] for i in range(2)]))
    # todense and transpose of a BCOO mapped over its batch dim
    b = sparse.BCOO.fromdense(ms, n_batch=1)
    np.testing.assert_array_equal(jax.vmap(lambda x: x.T.todense())(b), ms.transpose(0, 2, 1))


def test_numpy_backend_runs_the_primitives():
    # each primitive's numpy rule is its lowering's traced definition run with NumPy
    from jxkernel.core.numpy_eval import eval_jaxpr_numpy
    m = sparse.BCOO.fromdense(M)
    f = lambda x, v: (sparse.BCOO.fromdense(x, nse=4).T @ v, sparse.bcoo_extract(m, x).data)
    closed = jax.make_jaxpr(f)(M, jnp.ones(3))
    got = eval_jaxpr_numpy(closed.jaxpr, closed.consts, np.asarray(M), np.ones(3, np.float32))
    want = f(M, jnp.ones(3))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_errors_as_in_jax():
    m = sparse.BCOO.fromdense(M)
    with pytest.raises(jax.errors.ConcretizationTypeError, match="nse argument"):
        jax.jit(lambda x: sparse.BCOO.fromdense(x))(M)
    with pytest.raises(NotImplementedError, match="sparse rule for exp is not implemented "
                                                  "because it would result in dense output"):
        sparse.sparsify(jnp.exp)(m)
    with pytest.raises(NotImplementedError, match="Subtraction between sparse and dense"):
        m - M
    with pytest.raises(NotImplementedError, match="contracting over dense dimensions"):
        sparse.BCOO.fromdense(M, n_dense=1) @ jnp.ones(4)
    with pytest.raises(ValueError, match="data batch dimensions not compatible"):
        sparse.BCOO((jnp.ones((3, 2)), jnp.zeros((2, 2, 1), jnp.int32)), shape=(2, 4))


@pytest.mark.parametrize("name", ERROR_NAMES)
def test_errors_match_jax(name):
    # the class and the first line of the message JAX 0.10.2 raised
    assert error_of(ERRORS()[name]).tolist() == REFERENCE[f"errors/{name}"].tolist()


DUP = sparse.BCOO((jnp.array([1., 2., 3., 0., 5.]),
                   jnp.array([[1, 0], [0, 2], [1, 0], [2, 3], [3, 4]])), shape=(3, 4))


def test_rules_of_the_layout_primitives():
    from jxkernel.api.sparse.bcoo_layout import bcoo_sort_indices_p, bcoo_sum_duplicates_p
    idx, info = DUP.indices, DUP._info
    # both are linear in the data: check_grads in both modes, to second order
    summed = lambda d: bcoo_sum_duplicates_p.bind(d, idx, spinfo=info, nse=3)[0]
    check_grads(summed, (DUP.data,), order=2, modes=["fwd", "rev"])
    cut = lambda d: bcoo_sum_duplicates_p.bind(d, idx, spinfo=info, nse=1)[0]   # drops slots
    check_grads(cut, (DUP.data,), order=1, modes=["fwd", "rev"])
    ordered = lambda d: bcoo_sort_indices_p.bind(d, idx, spinfo=info)[0]
    check_grads(ordered, (DUP.data,), order=2, modes=["fwd", "rev"])
    # vmap over data and indices, or data alone (shared indices stay unbatched), = stacking
    ds = jnp.stack([DUP.data, -2 * DUP.data])
    ids = jnp.stack([idx, idx[::-1]])
    for prim, params in ((bcoo_sum_duplicates_p, {"nse": 4}), (bcoo_sort_indices_p, {})):
        f = lambda d, i: prim.bind(d, i, spinfo=info, **params)
        for in_axes in ((0, 0), (0, None)):
            got = jax.vmap(f, in_axes=in_axes)(ds, ids if in_axes[1] == 0 else idx)
            for k in range(2):
                want = f(ds[k], ids[k] if in_axes[1] == 0 else idx)
                for g, w in zip(got, want):
                    np.testing.assert_array_equal(g[k] if g.ndim > w.ndim else g, w)


def test_rules_of_spdot_general():
    # bilinear in the two data buffers: forward and reverse (JAX has no transpose rule)
    a = sparse.BCOO.fromdense(M)
    b = sparse.BCOO.fromdense(M.T * jnp.array([1., -1., 2.]) + jnp.eye(4, 3))
    dims = (((1,), (0,)), ((), ()))
    f = lambda da, db: sparse.bcoo_dot_general(
        sparse.BCOO((da, a.indices), shape=a.shape), sparse.BCOO((db, b.indices), shape=b.shape),
        dimension_numbers=dims).data
    check_grads(f, (a.data, b.data), order=2, modes=["fwd", "rev"])
    g = sparse.grad(lambda x: (x @ b).todense().sum())(a)
    np.testing.assert_allclose(g.data, jax.grad(lambda d: (
        sparse.BCOO((d, a.indices), shape=a.shape) @ b.todense()).sum())(a.data), rtol=1e-6)
    # vmap of batched operands equals stacking
    ms = jnp.stack([M, 2 * M[::-1]])
    bs = sparse.BCOO.fromdense(ms, n_batch=1)
    out = jax.vmap(lambda x, y: (x @ y.T).todense())(bs, bs)
    want = jnp.stack([(sparse.BCOO.fromdense(ms[k]) @ sparse.BCOO.fromdense(ms[k]).T).todense()
                      for k in range(2)])
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_rules_of_dot_general_sampled():
    idx = jnp.array([[0, 1], [2, 0], [1, 1], [3, 3]])
    d = (((1,), (0,)), ((), ()))
    f = lambda a, b: sparse.bcoo_dot_general_sampled(a, b, idx, dimension_numbers=d)
    check_grads(f, (M, M.T + 1), order=2, modes=["fwd", "rev"])
    ms = jnp.stack([M, -2 * M])
    np.testing.assert_array_equal(jax.vmap(f, in_axes=(0, None))(ms, M.T),
                                  jnp.stack([f(ms[k], M.T) for k in range(2)]))


def test_numpy_backend_runs_the_new_primitives():
    from jxkernel.core.numpy_eval import eval_jaxpr_numpy
    b = sparse.BCOO.fromdense(M.T)

    def f(d):
        x = sparse.BCOO((d, DUP.indices), shape=DUP.shape)
        s = sparse.bcoo_sum_duplicates(x, nse=4)
        return s.data, sparse.bcoo_sort_indices(x).data, (s @ b).data
    closed = jax.make_jaxpr(f)(DUP.data)
    got = eval_jaxpr_numpy(closed.jaxpr, closed.consts, np.asarray(DUP.data))
    for g, w in zip(got, f(DUP.data)):
        np.testing.assert_array_equal(g, w)


def test_plain_formats_data_gradients_where_jax_errs():
    # a transposed product's data cotangent is ct[col] * x[row]; JAX 0.10.2 reads
    # ct[row] * x[col] whatever `transpose` says (its CSC gradients are wrong): compare with
    # the dense product's instead
    D = jnp.arange(12.).reshape(3, 4) - 5.
    C = sparse.CSC.fromdense(M)
    csc = lambda d: sparse.CSC((d, C.indices, C.indptr), shape=C.shape)
    np.testing.assert_allclose(jax.jacrev(lambda d: (csc(d) @ D.T).sum(0))(C.data),
                               jax.jacrev(lambda d: (csc(d).todense() @ D.T).sum(0))(C.data),
                               rtol=1e-6)
    S = sparse.COO.fromdense(M)
    coo = lambda d: sparse.COO((d, S.row, S.col), shape=S.shape)
    for x in (jnp.ones(3), D[:, :2]):
        product = sparse.coo_matvec if x.ndim == 1 else sparse.coo_matmat
        check_grads_together(lambda d: product(coo(d), x, transpose=True), (S.data,), order=1,
                             modes=["fwd", "rev"])


def test_rules_of_the_plain_format_primitives():
    v = jnp.array([1., -2., 0.5, 3.])
    for cls in (sparse.COO, sparse.CSR):
        S = cls.fromdense(M)
        rest = S._bufs[1:]
        check_grads(lambda d, x: cls((d, *rest), shape=S.shape) @ x, (S.data, v), order=2,
                    modes=["fwd", "rev"])
        check_grads(lambda d, x: cls((d, *rest), shape=S.shape) @ x, (S.data, M.T), order=1,
                    modes=["fwd", "rev"])
        check_grads(lambda d: cls((d, *rest), shape=S.shape).todense(), (S.data,), order=1,
                    modes=["fwd", "rev"])
        check_grads(lambda x: cls.fromdense(x, nse=12).data, (M + 1,), order=1,
                    modes=["fwd"])
        # vmap (JAX has no batching rules for these) equals stacking
        ds = jnp.stack([S.data, -S.data])
        vs = jnp.stack([v, 2 * v])
        got = jax.vmap(lambda d, x: cls((d, *rest), shape=S.shape) @ x)(ds, vs)
        np.testing.assert_array_equal(got, jnp.stack([cls((ds[k], *rest), shape=S.shape) @ vs[k]
                                                      for k in range(2)]))
        ms = jnp.stack([M, 2 * M])
        got = jax.vmap(lambda m: cls.fromdense(m, nse=4).todense())(ms)
        np.testing.assert_array_equal(got, ms)


def test_getitem_with_a_traced_index_and_iteration():
    m = sparse.BCOO.fromdense(M)
    for i in range(3):
        np.testing.assert_array_equal(jax.jit(lambda x, i: x[i].todense())(m, i), M[i])
    assert [r.shape for r in m] == [(4,)] * 3
    np.testing.assert_array_equal(m[1:, ::2].todense(), M[1:, ::2])


@pytest.mark.parametrize("module", ["", "._base", ".bcoo", ".bcsr", ".transform", ".ad",
                                    ".api", ".bcoo_layout", ".bcoo_shape", ".bcoo_spdot", ".coo", ".csr", ".bcsr_ops", ".methods",
                                    ".linalg", ".util", ".cusparse", ".spvalues"])
def test_docstring_examples(module):
    check_docstring_examples("jxkernel.api.sparse" + module)


@pytest.mark.parametrize("module", ["jxkernel.random.sparse_bcoo",
                                    "jxkernel._jax.experimental.sparse",
                                    "jxkernel._jax.experimental.sparse.transform"])
def test_docstring_examples_beyond_the_package(module):
    check_docstring_examples(module)


def test_the_submodules_import_by_jaxs_paths():
    # jax.experimental.sparse is a package: `from jax.experimental.sparse.bcoo import BCOO`
    # (and JAX's docstrings, run in their module) failed once it became a module here
    import importlib
    from jxkernel.api.sparse import bcoo, csr
    base = "jxkernel._jax.experimental.sparse"
    assert importlib.import_module(base + ".bcoo").BCOO is bcoo.BCOO
    assert importlib.import_module(base + ".csr") is csr
    assert importlib.import_module(base).random_bcoo is importlib.import_module(
        base + ".random").random_bcoo
    # linalg loads on first use (it loads SciPy), by attribute or by path alike
    assert importlib.import_module(base + ".linalg") is importlib.import_module(base).linalg
    assert "linalg" in dir(importlib.import_module(base))


DUP_EXTRACT = sparse.BCOO((jnp.array([1., 2., 3., 0., 5.]),
                           jnp.array([[1, 0], [0, 2], [1, 0], [2, 3], [3, 4]])), shape=(3, 4))


def test_extract_summing_duplicates_differentiates_where_jax_cannot():
    # JAX 0.10.2 has no transpose of bcoo_extract(assume_unique=False): its gradient is
    # compared with JAX's of the same function written as a mask of the first slots
    D = jnp.arange(12.).reshape(3, 4) - 5.
    f = lambda x: (sparse.bcoo_extract(DUP_EXTRACT, x, assume_unique=False).data *
                   jnp.arange(5.)).sum()
    np.testing.assert_array_equal(jax.grad(f)(D), REFERENCE["extract_dupes/grad_by_mask"])
    check_grads(lambda x: sparse.bcoo_extract(DUP_EXTRACT, x, assume_unique=False).data,
                (D,), order=2, modes=["fwd", "rev"])
    # vmap over the dense operand alone (JAX's batching of it fails on the unbatched
    # indices) equals stacking
    xs = jnp.stack([D, 2 * D])
    one = lambda x: sparse.bcoo_extract(DUP_EXTRACT, x, assume_unique=False).data
    np.testing.assert_array_equal(jax.vmap(one)(xs), jnp.stack([one(D), one(2 * D)]))
    np.testing.assert_array_equal(one(2 * D), REFERENCE["extract_dupes/dupes_2D.data"])


def test_gather_rules_through_indexing():
    m = sparse.BCOO.fromdense(M)
    rows = jnp.array([2, 0, 2])
    index = lambda d: sparse.BCOO((d, m.indices), shape=m.shape)[rows, 1:].todense()
    # its evaluations as one program: op by op, the indexing's jvps and transposes were ~70
    # compiles of their own
    check_grads_together(index, (m.data,), order=2, modes=["fwd", "rev"])
    # vmap over the start indices and over a batched operand equals stacking
    idx = jnp.array([[0, 2], [1, 1], [2, 0]])
    got = jax.vmap(lambda i: m[i].todense())(idx)
    np.testing.assert_array_equal(got, jnp.stack([M[i] for i in idx]))
    b = sparse.BCOO.fromdense(jnp.stack([M, -M]), n_batch=1)
    got = jax.vmap(lambda x: x[:, jnp.array([3, 1])].todense())(b)
    np.testing.assert_array_equal(got, jnp.stack([M, -M])[:, :, jnp.array([3, 1])])
    dn = jax.lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                        start_index_map=(0,))
    with pytest.raises(NotImplementedError, match="sparse start_indices"):
        sparse.sparsify(lambda x, i: jax.lax.gather(x, i, dn, (1, 4)))(
            m, sparse.BCOO.fromdense(jnp.array([[0], [1]])))


def test_sparsify_with_tracers_sees_sparse_tracers_and_differentiates():
    m = sparse.BCOO.fromdense(M)
    v = jnp.array([1., -2., 0.5, 3.])
    seen = []

    def f(x, y):
        seen.append(type(x))
        return (jnp.sin(x) @ y).sum()
    # JAX 0.10.2's grad through the tracer version raises UnexpectedTracerError; jxkernel's
    # equals the interpreter's
    by_tracer = jax.grad(lambda d: sparse.sparsify(f, use_tracer=True)(
        sparse.BCOO((d, m.indices), shape=m.shape), v))(m.data)
    by_interpreter = jax.grad(lambda d: sparse.sparsify(f)(
        sparse.BCOO((d, m.indices), shape=m.shape), v))(m.data)
    np.testing.assert_array_equal(by_tracer, by_interpreter)
    assert sparse.SparseTracer in seen
    # dense arguments alone run as the function does
    np.testing.assert_array_equal(sparse.sparsify(f, use_tracer=True)(M, v), f(M, v))


def test_spsolve_rules_and_numpy_backend():
    from jxkernel.core.numpy_eval import eval_jaxpr_numpy
    A = sparse.CSR.fromdense(jnp.array([[4., 1., 0.], [1., 3., .5], [0., .5, 2.]]))
    solve = lambda d, b: sparse.linalg.spsolve(d, A.indices, A.indptr, b)
    b = jnp.array([1., 2., 3.])
    check_grads(lambda b: solve(A.data, b), (b,), order=2, modes=["fwd", "rev"],
                atol=1e-2, rtol=1e-2)
    check_grads(lambda d: solve(d, b), (A.data,), order=1, modes=["fwd", "rev"],
                atol=1e-2, rtol=1e-2)
    closed = jax.make_jaxpr(solve)(A.data, b)
    got, = eval_jaxpr_numpy(closed.jaxpr, closed.consts, np.asarray(A.data), np.asarray(b))
    assert_allclose_ulp(got, REFERENCE["spsolve/x"], 4)


def test_lobpcg_finds_the_top_eigenpairs():
    rng = np.random.RandomState(1)
    Q, _ = np.linalg.qr(rng.randn(30, 30))
    A = (Q * np.arange(1., 31.)) @ Q.T
    theta, U, i = sparse.linalg.lobpcg_standard(jnp.array(A, jnp.float32),
                                                jnp.array(rng.randn(30, 4), jnp.float32))
    np.testing.assert_allclose(theta, [30., 29., 28., 27.], rtol=1e-5)
    np.testing.assert_allclose(np.abs(np.asarray(U).T @ Q[:, -4:][:, ::-1]), np.eye(4),
                               atol=1e-3)
    assert 0 < int(i) <= 100


def test_cusparse_primitives_have_shapes_but_no_kernel():
    # JAX's sparse._lowerings: the primitives its GPU tests bind. Their shapes are JAX's; run,
    # each raises NotImplementedError, as JAX 0.10.2's coo_spmv does on the CPU (its message
    # there: "MLIR translation rule for primitive 'coo_spmv' not found for platform cpu")
    from jxkernel._jax.experimental.sparse import _lowerings
    data, x = jnp.ones(2), jnp.ones(3)
    row, indptr = jnp.array([0, 1], jnp.int32), jnp.array([0, 1, 2], jnp.int32)
    col = jnp.array([0, 2], jnp.int32)
    for prim, args in ((_lowerings.coo_spmv_p, (data, row, col, x)),
                       (_lowerings.csr_spmv_p, (data, col, indptr, x))):
        bind = lambda *a, p=prim: p.bind(*a, transpose=False, shape=(2, 3))
        assert jax.eval_shape(bind, *args).shape == (2,)
        with pytest.raises(NotImplementedError, match=r"cuSPARSE kernel.*@ x"):
            bind(*args)
    with pytest.raises(TypeError, match="col must be int32"):
        jax.eval_shape(lambda: _lowerings.coo_spmv_p.bind(
            data, row, col.astype(jnp.int16), x, transpose=False, shape=(2, 3)))


def test_bcoo_cusparse_lowering_option_has_one_value():
    # JAX's switch to cuSPARSE kernels (default False, read by JAX's sparse tests): jxkernel
    # has no cuSPARSE call, so True is refused rather than kept and ignored
    assert jax.config.jax_bcoo_cusparse_lowering is False
    with pytest.raises(ValueError, match="jax_bcoo_cusparse_lowering=True is not supported"):
        jax.config.update("jax_bcoo_cusparse_lowering", True)
    assert jax.config.jax_bcoo_cusparse_lowering is False


def test_sparsify_raw_shares_an_indices_buffer():
    # two values with one indices reference add their data in place (JAX's nse: 4, as the
    # recorded jax_tests_gaps/shared_nse); distinct buffers concatenate (nse 8)
    tr = sparse.transform
    m = sparse.BCOO.fromdense(M)
    spenv = tr.SparsifyEnv([m.indices, m.data, m.data])
    a, b = (spenv.sparse(M.shape, data_ref=i, indices_ref=0) for i in (1, 2))
    out, = tr.spvalues_to_arrays(spenv, tr.sparsify_raw(lambda a, b: a + b)(spenv, a, b)[0])
    assert out.nse == 4
    spenv = tr.SparsifyEnv()
    a, b = tr.arrays_to_spvalues(spenv, (m, m))
    assert a.indices_ref != b.indices_ref
    out, = tr.spvalues_to_arrays(spenv, tr.sparsify_raw(lambda a, b: a + b)(spenv, a, b)[0])
    assert out.nse == 8
    np.testing.assert_array_equal(out.todense(), 2 * M)
    with pytest.raises(ValueError, match=r"indices_ref=50 is not one of the \d+ buffers"):
        spenv.sparse(M.shape, data_ref=0, indices_ref=50)


def test_buffer_level_functions_are_the_formats_own():
    # JAX's private buffer-level forms (its sparse tests call them): the buffers and products
    # of the public functions, taking the buffers and a shape (or spinfo) in place of a matrix
    from jxkernel.api.sparse import bcoo, bcsr, coo, csr
    v, B = jnp.array([1., -2., .5, 3.]), jnp.arange(12.).reshape(4, 3)
    nse = (M != 0).sum()
    for bufs, whole in ((coo._coo_fromdense(M, nse=nse), sparse.COO.fromdense(M)),
                        (csr._csr_fromdense(M, nse=nse), sparse.CSR.fromdense(M)),
                        (bcoo._bcoo_fromdense(M, nse=4), sparse.BCOO.fromdense(M)),
                        (bcsr._bcsr_fromdense(M, nse=4), sparse.BCSR.fromdense(M))):
        assert len(bufs) == len(whole._bufs)
        for got, want in zip(bufs, whole._bufs):
            np.testing.assert_array_equal(got, want)
    c = sparse.COO.fromdense(M)
    np.testing.assert_array_equal(coo._coo_matvec(*c._bufs, v, spinfo=c._info), c @ v)
    np.testing.assert_array_equal(coo._coo_matmat(*c._bufs, B, spinfo=c._info), c @ B)
    r = sparse.CSR.fromdense(M)
    np.testing.assert_array_equal(csr._csr_matvec(*r._bufs, v, shape=M.shape), r @ v)
    np.testing.assert_array_equal(
        csr._csr_matmat(*r._bufs, jnp.ones((3, 2)), shape=M.shape, transpose=True),
        r.T @ jnp.ones((3, 2)))


def test_sum_duplicates_to_no_slot_transposes_to_zeros():
    # nse=0 keeps no slot: every element is dropped, so the data's cotangent is zero (JAX
    # 0.10.2: vjp gives [0., 0., 0.], jacrev an empty (0, 3)); it gathered from the empty
    # slot axis and raised. JAX's bcoo_slice and bcoo_dynamic_slice tests meet it when a
    # slice leaves no sparse position
    idx, d = jnp.array([[0], [2], [0]]), jnp.array([1., 2., 3.])
    f = lambda d: sparse.bcoo_sum_duplicates(sparse.BCOO((d, idx), shape=(3,)), nse=0).data
    np.testing.assert_array_equal(jax.vjp(f, d)[1](jnp.zeros(0))[0], np.zeros(3, np.float32))
    assert jax.jacrev(f)(d).shape == (0, 3)


def test_sparsify_takes_muls_out_dtype_param():
    # (mul's equation always carries out_dtype, as JAX 0.10.2's: None, or the dtype given)
    from jxkernel.experimental import sparse
    m = sparse.BCOO.fromdense(np.float32([[0., 2.], [3., 0.]]))
    want = np.float32([[0., 4.], [9., 0.]])
    plain = sparse.sparsify(lambda a, b: a * b)(m, np.float32([[1., 2.], [3., 4.]]))
    mixed = sparse.sparsify(lambda a, b: jax.lax.mul(a, b, out_dtype=np.float32))(
        m, np.float16([[1., 2.], [3., 4.]]))
    for out in (plain, mixed):
        np.testing.assert_array_equal(np.asarray(out.todense()), want)
        assert out.dtype == np.float32
