"""jax.experimental.sparse cases run the same way with JAX and with jxkernel
(reference/make_sparse_reference.py records JAX 0.10.2's answers in
tests/data/sparse_reference.npz; tests/api/test_sparse.py compares).

`cases(jax, sparse)`: name -> a thunk returning a dict of arrays: a BCOO result gives its
`data`, `indices`, `shape`, `n_batch`, `n_dense` and dense value under "<name>.<field>"."""
import numpy as np

# a float result's ulp bound beside the exact ones (integers, indices, shapes): sums of a few
# products (dot_general, its cotangents), elementwise log1p; 0 where only data moves
ULPS = {"default": 4, "sparsify_log1p": 8, "sparsify_fori_loop": 8}


def _fields(name, x):
    if hasattr(x, "indptr"):            # a BCSR
        return {f"{name}.data": x.data, f"{name}.indices": x.indices,
                f"{name}.indptr": x.indptr, f"{name}.shape": np.array(x.shape),
                f"{name}.n_batch": np.array(x.n_batch), f"{name}.n_dense": np.array(x.n_dense),
                f"{name}.dense": x.todense()}
    if hasattr(x, "indices"):           # a BCOO
        return {f"{name}.data": x.data, f"{name}.indices": x.indices,
                f"{name}.shape": np.array(x.shape), f"{name}.n_batch": np.array(x.n_batch),
                f"{name}.n_dense": np.array(x.n_dense), f"{name}.dense": x.todense()}
    if isinstance(x, tuple):
        return {k: v for i, item in enumerate(x) for k, v in _fields(f"{name}.{i}", item).items()}
    return {name: x}


def as_numpy(tree) -> dict:
    out = {}
    for name, value in tree.items():
        out.update(_fields(name, value))
    return {k: np.asarray(v) for k, v in out.items()}


def cases(jax, sparse):
    jnp = jax.numpy
    BCOO = sparse.BCOO
    M = jnp.array([[0., 1., 0., 2.], [3., 0., 0., 0.], [0., 0., 4., 0.]])
    B = jnp.array([[[0., 1., 0., 0.], [2., 0., 0., 3.], [0., 0., 0., 0.]],
                   [[0., 0., 5., 0.], [0., 0., 0., 0.], [6., 0., 7., 0.]]])   # (2, 3, 4)
    v4 = jnp.array([1., -2., 0.5, 3.])
    v3 = jnp.array([3., 6., 5.])
    D = jnp.arange(12.).reshape(3, 4) - 5.
    Msp = BCOO.fromdense(M)
    Bsp = BCOO.fromdense(B, n_batch=1)

    def grads():
        data, idx = Msp.data, Msp.indices
        f_data = lambda d: (BCOO((d, idx), shape=M.shape) @ v4 * jnp.arange(3.)).sum()
        f_dense = lambda v: jnp.sin(Msp.T @ v).sum()
        val, g = sparse.value_and_grad(lambda X, y: (X @ y) ** 2, argnums=0)(
            BCOO.fromdense(jnp.arange(6.)), jnp.linspace(0., 1., 6))
        return {"d_data": jax.grad(f_data)(data), "d_dense": jax.grad(f_dense)(v3),
                "jit_d_dense": jax.jit(jax.grad(f_dense))(v3),
                "sparse_grad": sparse.grad(lambda X, y: (X @ y).sum())(Msp, v4),
                "vg_value": val, "vg_grad": g,
                "d_both": jax.grad(lambda d, v: (BCOO((d, idx), shape=M.shape).T @ v).sum(),
                                   argnums=(0, 1))(data, v3)}

    def batched():
        vs = jnp.stack([v4, 2 * v4])
        return {"matvec": jax.vmap(lambda m, v: m @ v)(Bsp, vs),
                "todense": jax.vmap(lambda m: m.todense())(Bsp),
                "fromdense": jax.vmap(lambda m: BCOO.fromdense(m, nse=3).data)(B),
                "fromdense_indices": jax.vmap(lambda m: BCOO.fromdense(m, nse=3).indices)(B),
                "batched_dot": Bsp @ v4,
                "batched_T": Bsp.transpose((0, 2, 1)),
                "grad_vmap": jax.grad(lambda d: jax.vmap(lambda m, v: m @ v)(
                    BCOO((d, Bsp.indices), shape=B.shape), vs).sum())(Bsp.data)}

    def sparsified():
        f = lambda m, v: 2 * jnp.dot(jnp.log1p(m.T), v) + 1
        return {"log1p": sparse.sparsify(f)(Msp, v3)}

    def loop():
        def f(m, v):
            return jax.lax.fori_loop(0, 3, lambda i, x: m @ (x * 0.5) + 1., v)
        return {"fori_loop": sparse.sparsify(f)(BCOO.fromdense(jnp.eye(4) + 0.25 * jnp.roll(
            jnp.eye(4), 1, 1)), v4)}

    def bcsr():
        BCSR = sparse.BCSR
        S = BCSR.fromdense(M)
        SB = BCSR.fromdense(B, n_batch=1)
        vs = jnp.stack([v4, 2 * v4])
        f_data = lambda d: (BCSR((d, S.indices, S.indptr), shape=M.shape) @ v4).sum()
        return {"m": S, "padded": BCSR.fromdense(M, nse=6), "batch": SB,
                "dense_dim": BCSR.fromdense(B, n_dense=1),
                "matvec": S @ v4, "matmat": S @ D.T, "padded_matvec": BCSR.fromdense(M, nse=6) @ v4,
                "jit_matvec": jax.jit(lambda s, v: s @ v)(S, v4),
                "batched_matvec": SB @ v4,
                "vmap_matvec": jax.vmap(lambda s, v: s @ v)(SB, vs),
                "d_data": jax.grad(f_data)(S.data),
                "d_dense": jax.grad(lambda v: jnp.sin(S @ v).sum())(v4),
                "sparse_grad": sparse.grad(lambda s: (s @ v4).sum())(S),
                "from_bcoo": BCSR.from_bcoo(Msp), "to_bcoo": S.to_bcoo(),
                "extract": sparse.bcsr_extract(S.indices, S.indptr, D),
                "empty": sparse.empty((2, 3), sparse_format="bcsr", nse=2)}

    return {
        "bcsr": bcsr,
        "fromdense": lambda: {"m": Msp, "batch": Bsp,
                              "padded": BCOO.fromdense(M, nse=6),
                              "dense_dim": BCOO.fromdense(M, n_dense=1),
                              "int": BCOO.fromdense(jnp.arange(12).reshape(3, 4) % 3),
                              "jit_nse": jax.jit(lambda m: BCOO.fromdense(m, nse=5))(M)},
        "dot": lambda: {"matvec": Msp @ v4, "T_matvec": Msp.T @ v3,
                        "rmatvec": v3 @ Msp, "matmat": Msp @ D.T,
                        "dense_dim_rdot": v3 @ BCOO.fromdense(M, n_dense=1),
                        "dot_general": sparse.bcoo_dot_general(
                            Msp, D, dimension_numbers=(((1,), (1,)), ((), ()))),
                        "jit_matvec": jax.jit(lambda m, v: m @ v)(Msp, v4),
                        "int_sparsify": sparse.sparsify(lambda m, v: 2 * m.T @ v)(
                            BCOO.fromdense(jnp.arange(12).reshape(3, 4)), jnp.array([3, 4, 2]))},
        "elementwise": lambda: {"T": Msp.T, "scaled": 2 * Msp, "neg": -Msp,
                                "times_dense": Msp * D, "times_row": Msp * v4,
                                "astype": Msp.astype(jnp.int32),
                                "div": Msp / 4.,
                                "plus_dense": Msp + D, "sum_same": Msp + Msp},
        "reductions": lambda: {"sum": Msp.sum(), "sum0": Msp.sum(0), "sum1": Msp.sum(1),
                               "batch_sum": Bsp.sum(0), "batch_sum_all": Bsp.sum(),
                               "reshape": Msp.reshape(12), "reshape2": Msp.reshape(2, 6)},
        "sparse_product": lambda: {
            "square": Msp * Msp, "batched": Bsp * Bsp,
            "mixed": sparse.bcoo_multiply_sparse(Msp, BCOO.fromdense(D)),
            "grad": sparse.grad(lambda X: (X * X).sum())(Msp)},
        "constructors": lambda: {"eye": sparse.eye(3, 4, k=1), "eye_low": sparse.eye(4, k=-2),
                                 "empty": sparse.empty((2, 3), nse=2),
                                 "todense_fn": sparse.todense(Msp)},
        "grads": grads,
        "batched": batched,
        "sparsify_log1p": sparsified,
        "sparsify_fori_loop": loop,
    }
