"""jax.experimental.sparse against JAX 0.10.2's recorded answers
(reference/make_sparse_reference.py over tests/data/sparse_cases.py): BCOO's layout
(data, indices, nse, batch and dense dims) exactly, its products, reductions and
elementwise methods, jit, grad, vmap over batch dims, and sparsify; then the primitives'
rules (check_grads, vmap against stacking) and the errors JAX raises."""
import os

import numpy as np
import pytest
from doc_examples import check_docstring_examples
from numerics import assert_allclose_ulp
from sparse_cases import ULPS, as_numpy, cases

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.api.test_util import check_grads
from jxkernel.experimental import sparse
import locations  # tests/support: the repository's folders

pytestmark = pytest.mark.cpu_only("recorded CPU values")

REFERENCE = np.load(os.path.join(locations.DATA, "sparse_reference.npz"))
CASES = cases(jax, sparse)


@pytest.mark.parametrize("case", sorted(CASES))
def test_sparse_matches_jax(case):
    got = as_numpy(CASES[case]())
    want = {k.split("/", 1)[1]: REFERENCE[k] for k in REFERENCE if k.startswith(case + "/")}
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name].dtype == want[name].dtype, name
        assert got[name].shape == want[name].shape, name
        if np.issubdtype(want[name].dtype, np.inexact):
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


@pytest.mark.parametrize("module", ["", "._base", ".bcoo", ".bcsr", ".transform", ".ad",
                                    ".api"])
def test_docstring_examples(module):
    check_docstring_examples("jxkernel.api.sparse" + module)
