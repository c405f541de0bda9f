"""jax.experimental.sparse cases run the same way with JAX and with jxkernel
(reference/make_sparse_reference.py records JAX 0.10.2's answers in
tests/data/sparse_reference.npz; tests/api/test_sparse.py compares).

`cases(jax, sparse)`: name -> a thunk returning a dict of arrays: a BCOO result gives its
`data`, `indices`, `shape`, `n_batch`, `n_dense`, dense value and `flags` (indices_sorted,
unique_indices) under "<name>.<field>"."""
import numpy as np

# a float result's ulp bound beside the exact ones (integers, indices, shapes): sums of a few
# products (dot_general, its cotangents), elementwise log1p; 0 where only data moves
ULPS = {"default": 4, "sparsify_log1p": 8, "sparsify_fori_loop": 8, "tracer": 8}
# cases whose floats are held to n epsilons of 1, absolute and relative, not to ulps: LOBPCG
# iterates eigh, QR and SVD, so an eigenvector's small entries carry the rounding of its
# largest (measured: at most 80 eps, under the suite's XLA code)
EPS_OF_ONE = {"lobpcg": 512}


def _fields(name, x):
    kind = type(x).__name__
    if kind in ("COO", "CSR", "CSC"):   # JAX's plain 2-D formats: their buffers by name
        bufs = ("data", "row", "col") if kind == "COO" else ("data", "indices", "indptr")
        return {**{f"{name}.{b}": getattr(x, b) for b in bufs},
                f"{name}.shape": np.array(x.shape), f"{name}.dense": x}
    if hasattr(x, "indptr"):            # a BCSR
        return {f"{name}.data": x.data, f"{name}.indices": x.indices,
                f"{name}.indptr": x.indptr, f"{name}.shape": np.array(x.shape),
                f"{name}.n_batch": np.array(x.n_batch), f"{name}.n_dense": np.array(x.n_dense),
                f"{name}.dense": x}
    if hasattr(x, "indices"):           # a BCOO
        return {f"{name}.data": x.data, f"{name}.indices": x.indices,
                f"{name}.shape": np.array(x.shape), f"{name}.n_batch": np.array(x.n_batch),
                f"{name}.n_dense": np.array(x.n_dense), f"{name}.dense": x,
                f"{name}.flags": np.array([x.indices_sorted, x.unique_indices])}
    if isinstance(x, (tuple, list)):
        return {k: v for i, item in enumerate(x) for k, v in _fields(f"{name}.{i}", item).items()}
    return {name: x}


def as_numpy(tree, densify=None) -> dict:
    """The fields of each result as NumPy arrays. `densify` gives the dense values of a list
    of sparse arrays (by default each one's todense(); the test computes them as one
    program)."""
    out = {}
    for name, value in tree.items():
        out.update(_fields(name, value))
    sparse_ones = [k for k, v in out.items() if k.endswith(".dense") and hasattr(v, "todense")]
    densify = densify or (lambda xs: [x.todense() for x in xs])
    out.update(zip(sparse_ones, densify([out[k] for k in sparse_ones])))
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

    def staged(thunk):
        """The thunk's results computed as one jitted program. Eagerly, each operation of a
        sparse method (an indexing's broadcasts, comparisons, gathers...) is a program of its
        own on its own shapes: 1,839 compiles in tests/api/test_sparse.py, 1,200 with the
        largest cases staged. What only eager code can do (an nse counted from the values:
        fromdense, sum_duplicates and an empty indexing without one) stays outside; JAX
        0.10.2 gives the same bits both ways for every staged result (checked, 2026-11-29)."""
        return jax.jit(thunk)()

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
        return {"m": S, "batch": SB, "dense_dim": BCSR.fromdense(B, n_dense=1),
                **staged(lambda: {
                "padded": BCSR.fromdense(M, nse=6), "matvec": S @ v4, "matmat": S @ D.T,
                "padded_matvec": BCSR.fromdense(M, nse=6) @ v4,
                "jit_matvec": jax.jit(lambda s, v: s @ v)(S, v4),
                "batched_matvec": SB @ v4,
                "vmap_matvec": jax.vmap(lambda s, v: s @ v)(SB, vs),
                "d_data": jax.grad(f_data)(S.data),
                "d_dense": jax.grad(lambda v: jnp.sin(S @ v).sum())(v4),
                "sparse_grad": sparse.grad(lambda s: (s @ v4).sum())(S),
                "from_bcoo": BCSR.from_bcoo(Msp), "to_bcoo": S.to_bcoo(),
                "extract": sparse.bcsr_extract(S.indices, S.indptr, D),
                "empty": sparse.empty((2, 3), sparse_format="bcsr", nse=2)})}

    # duplicates (two at [1, 0]), an explicit zero and a padding slot
    Dup = BCOO((jnp.array([1., 2., 3., 0., 5.]),
                jnp.array([[1, 0], [0, 2], [1, 0], [2, 3], [3, 4]])), shape=(3, 4))
    DupB = BCOO((jnp.array([[1., 2., 3.], [4., 0., 6.]]),
                 jnp.array([[[2], [0], [2]], [[1], [1], [3]]])), shape=(2, 4))

    def layout():
        # (summing duplicates without an nse counts them: not under jit)
        dense_dim, unbatched = BCOO.fromdense(M, n_dense=1), BCOO.fromdense(B)
        return {"sum_dup": sparse.bcoo_sum_duplicates(Dup),
                "method": Dup.sum_duplicates(), "method_keep0": Dup.sum_duplicates(
                    remove_zeros=False),
                "batched": sparse.bcoo_sum_duplicates(DupB),
                **staged(lambda: {
                "from_dense_dim": sparse.bcoo_update_layout(dense_dim, n_dense=0),
                "mul_mixed_batch": sparse.bcoo_multiply_sparse(Bsp, unbatched),
                "sum_dup_nse6": sparse.bcoo_sum_duplicates(Dup, nse=6),
                "sum_dup_nse1": sparse.bcoo_sum_duplicates(Dup, nse=1),
                "jit": jax.jit(lambda m: sparse.bcoo_sum_duplicates(m, nse=4))(Dup),
                "vmap": jax.vmap(lambda m: sparse.bcoo_sum_duplicates(m, nse=3))(DupB),
                "grad": jax.grad(lambda d: (sparse.bcoo_sum_duplicates(
                    BCOO((d, Dup.indices), shape=Dup.shape), nse=4).data *
                    jnp.arange(1., 5.)).sum())(Dup.data),
                "sort": sparse.bcoo_sort_indices(Dup), "sort_method": DupB.sort_indices(),
                "sort_grad": jax.grad(lambda d: (sparse.bcoo_sort_indices(
                    BCOO((d, Dup.indices), shape=Dup.shape)).data * jnp.arange(5.)).sum())(
                    Dup.data),
                "to_unbatched": sparse.bcoo_update_layout(Bsp, n_batch=0),
                "to_batched": sparse.bcoo_update_layout(Msp, n_batch=1, on_inefficient=None),
                "to_dense_dim": Msp.update_layout(n_dense=1, on_inefficient=None),
                "unary_on_dupes": sparse.sparsify(jnp.sin)(Dup)})}

    def shape_ops():
        B3 = BCOO.fromdense(B.reshape(2, 3, 2, 2), n_batch=1, n_dense=1)
        row, Dsp = BCOO.fromdense(M[None, 1:2]), BCOO.fromdense(D)
        return staged(lambda: {
                "slice": sparse.bcoo_slice(Msp, start_indices=(1, 0), limit_indices=(3, 3)),
                "slice_shrinks": sparse.bcoo_slice(Msp, start_indices=(0, 0),
                                                   limit_indices=(2, 1)),
                "slice_strided": sparse.bcoo_slice(Msp, start_indices=(0, 1),
                                                   limit_indices=(3, 4), strides=(2, 2)),
                "slice_batch_dense": sparse.bcoo_slice(B3, start_indices=(1, 1, 0, 1),
                                                       limit_indices=(2, 3, 2, 2)),
                "dynamic_slice": sparse.bcoo_dynamic_slice(Msp, (1, 2), (2, 2)),
                "dynamic_slice_clamped": sparse.bcoo_dynamic_slice(Msp, (2, -1), (2, 3)),
                "jit_dynamic_slice": jax.jit(lambda m, i: sparse.bcoo_dynamic_slice(
                    m, (i, 0), (1, 4)))(Msp, 2),
                "squeeze": sparse.bcoo_squeeze(row, dimensions=(0, 1)),
                "rev": sparse.bcoo_rev(Msp, (0, 1)), "rev_batch": sparse.bcoo_rev(Bsp, (0, 2)),
                "broadcast": sparse.bcoo_broadcast_in_dim(Msp, shape=(2, 3, 4),
                                                          broadcast_dimensions=(1, 2)),
                "broadcast_sparse": sparse.bcoo_broadcast_in_dim(Msp, shape=(3, 1, 4),
                                                                 broadcast_dimensions=(0, 2)),
                "concat_sparse": sparse.bcoo_concatenate([Msp, Dsp], dimension=1),
                "concat_batch": sparse.bcoo_concatenate([Bsp, BCOO.fromdense(B, n_batch=1,
                                                                             nse=5)], dimension=0),
                "reshape_perm": sparse.bcoo_reshape(Msp, new_sizes=(12,), dimensions=(1, 0)),
                "stack": sparse.sparsify(lambda a, b: jnp.stack([a, b]))(Msp, Msp),
                "concat_sparsify": sparse.sparsify(jnp.concatenate)([Msp, Msp]),
                "expand_dims": sparse.sparsify(lambda m: m[None])(Msp),
                "flip": sparse.sparsify(lambda m: m[::-1])(Msp)})

    def getitem():
        return staged(lambda: {
                "row": Msp[0], "last_row": Msp[-1], "rows": Msp[1:], "col": Msp[:, 1],
                "strided": Msp[::2], "element": Msp[1, 0], "batch": Bsp[1],
                "batch_col": Bsp[:, :, 3], "ellipsis": Msp[..., 2],
                "jit_row": jax.jit(lambda m, i: m[i])(Msp, 2),
                "iter": tuple(Msp)})

    def gather():
        ints = jnp.array([0, 2])
        dn = jax.lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                            start_index_map=(0,))
        f_data = lambda d: (BCOO((d, Msp.indices), shape=M.shape)[ints].todense() *
                            D[:2]).sum()
        rows_batched = BCOO.fromdense(M, n_batch=1)
        dense_dim = BCOO.fromdense(jnp.arange(24.).reshape(2, 3, 4), n_dense=1)
        return {"empty": Msp[jnp.array([], dtype=jnp.int32)], **staged(lambda: {
            "rows": Msp[ints], "cols": Msp[:, jnp.array([3, 0, 3])],
            "points": Msp[ints, jnp.array([1, 2])],
            "batch_rows": rows_batched[jnp.array([2, 0])],
            "batch_cols": rows_batched[:, jnp.array([2, 0])],
            "nd_index": Msp[jnp.array([[0, 2], [1, 1]])],
            "negative_and_slice": Msp[jnp.array([0, -1]), 1:],
            "dense_dim": dense_dim[:, jnp.array([1, 2]), 0],
            "batched_operand": Bsp[:, jnp.array([2, 0]), 1:],
            "jit": jax.jit(lambda s, i: s[i])(Msp, jnp.array([1, 1])),
            "vmap": jax.vmap(lambda s, i: s[i])(rows_batched, jnp.array([1, 2, 0])),
            "grad": jax.grad(f_data)(Msp.data),
            "function": sparse.bcoo_gather(Msp, ints[:, None], dn, (1, 4)),
            "sparsify": sparse.sparsify(lambda m, i: m[i] * 2)(Msp, ints)})}

    def extract_dupes():
        ones = jnp.ones_like(D)
        f = lambda x: sparse.bcoo_extract(Dup, x, assume_unique=False)
        # its gradient as a mask of the first slots times a gather (JAX 0.10.2 has no
        # transpose of assume_unique=False; jxkernel's is compared with this)
        first = f(ones).data
        rows, cols = Dup.indices[:, 0], Dup.indices[:, 1]
        masked = lambda x: (first * x.at[rows, cols].get(mode="fill", fill_value=0) *
                            jnp.arange(5.)).sum()
        DB = jnp.arange(8.).reshape(2, 4)
        none_sparse = BCOO((jnp.ones((2, 3)), jnp.zeros((2, 3, 0), jnp.int32)), shape=(2,))
        return staged(lambda: {
                "dupes": f(D), "default_from_flags": sparse.bcoo_extract(Dup, D),
                "unique_flag": sparse.bcoo_extract(Dup, D, assume_unique=True),
                "batched": sparse.bcoo_extract(DupB, DB, assume_unique=False),
                "repeat_in_col": sparse.bcoo_extract(BCOO(
                    (jnp.ones((3, 2)), jnp.array([[1], [1], [0]])), shape=(3, 2)), D[:, :2],
                    assume_unique=False),
                "no_sparse_dims": sparse.bcoo_extract(none_sparse, jnp.array([2., 3.]),
                                                      assume_unique=False),
                "jit": jax.jit(f)(D),
                "vmap_batched": jax.vmap(lambda m, x: sparse.bcoo_extract(
                    m, x, assume_unique=False))(DupB, DB),
                "jvp": jax.jvp(lambda x: f(x).data, (D,), (ones,))[1],
                "grad_by_mask": jax.grad(masked)(D),
                "dupes_2D": f(2 * D)})

    def tracer():
        sp = lambda f: sparse.sparsify(f, use_tracer=True)
        S = sparse.BCSR.fromdense(M)
        return staged(lambda: {
                "log1p": sp(lambda m, v: 2 * jnp.dot(jnp.log1p(m.T), v) + 1)(Msp, v3),
                "matvec": sp(lambda m, v: m @ v)(Msp, v4),
                "sin": sp(lambda m: jnp.sin(m) * 2)(Msp),
                "sum": sp(lambda m: m.sum(0))(Msp),
                "index": sp(lambda m: m[1:, jnp.array([0, 2])])(Msp),
                "add": sp(lambda m, n: m + n)(Msp, Msp),
                "gram": sp(lambda m: m.T @ m)(Msp),
                "mixed_out": sp(lambda m: (m, m * 3., jnp.ones(2)))(Msp),
                "jit": jax.jit(sp(lambda m, v: m @ v))(Msp, v4),
                "todense": sp(lambda m: sparse.todense(m) + 1)(Msp),
                "bcsr": sp(lambda m, v: m @ v)(S, v4)})

    def lobpcg():
        rng = np.random.RandomState(0)
        Q, _ = np.linalg.qr(rng.randn(20, 20))
        A = jnp.array((Q * np.linspace(1., 20., 20)) @ Q.T, dtype=np.float32)
        X = jnp.array(rng.randn(20, 3), dtype=np.float32)
        L = sparse.linalg
        # eigenvectors have no sign of their own: the columns made to start nonnegative
        signed = lambda r: (r[0], r[1] * jnp.sign(r[1][:1]), r[2])
        return {"matrix": signed(L.lobpcg_standard(A, X)),
                "callable": signed(L.lobpcg_standard(lambda x: A @ x, X, m=5)),
                "tol": signed(L.lobpcg_standard(A, X[:, :2], tol=1e-3)),
                "jit": jax.jit(lambda a, x: L.lobpcg_standard(a, x, m=10)[0])(A, X)}

    def spsolve():
        L = sparse.linalg
        A = jnp.array([[4., 1., 0.], [1., 3., .5], [0., .5, 2.]])
        S = sparse.CSR.fromdense(A)
        U = sparse.CSR.fromdense(jnp.array([[2., 1., 0.], [0., 3., 0.], [1., 0., 1.]]))
        b = jnp.array([1., 2., 3.])
        solve = lambda d, b: L.spsolve(d, S.indices, S.indptr, b)
        return {"x": solve(S.data, b), "jit": jax.jit(solve)(S.data, b),
                "unsymmetric": L.spsolve(U.data, U.indices, U.indptr, b),
                "grad_b": jax.grad(lambda b: (solve(S.data, b) * v3).sum())(b),
                "grad_data": jax.grad(lambda d: (solve(d, b) * v3).sum())(S.data),
                "jvp": jax.jvp(solve, (S.data, b), (jnp.ones_like(S.data), v3)),
                "unsymmetric_grad_b": jax.grad(lambda b: (L.spsolve(
                    U.data, U.indices, U.indptr, b) * v3).sum())(b)}

    def conv():
        x = jnp.array([0., 1., 0., 2., 0., 0., 3., 0.])
        k = jnp.array([1., 10., 100.])
        X = BCOO.fromdense(x[None, None])
        K, x1 = BCOO.fromdense(k[None, None]), BCOO.fromdense(x)
        C = lambda a, b, **kw: sparse.bcoo_conv_general_dilated(a, b, window_strides=(1,), **kw)
        return staged(lambda: {
                "same": C(X, k[None, None], padding="SAME"),
                "valid": C(X, k[None, None], padding="VALID"),
                "both_sparse": C(X, K, padding=[(2, 1)]),
                "dense_lhs": C(x[None, None], K, padding="SAME"),
                "padded_nse": C(BCOO.fromdense(x[None, None], nse=5), k[None, None],
                                padding="SAME"),
                "convolve": sparse.sparsify(lambda a: jnp.convolve(a, k, mode="same"))(x1),
                "convolve_full": sparse.sparsify(lambda a: jnp.convolve(a, k))(x1),
                "grad": jax.grad(lambda d: (C(BCOO((d, X.indices), shape=X.shape),
                                              k[None, None], padding="SAME").todense() *
                                            jnp.arange(8.)).sum())(X.data)})

    def spdot():
        N = BCOO.fromdense(D.T * (jnp.abs(D.T) > 2))
        dims = (((1,), (0,)), ((), ()))
        data, idx = Msp.data, Msp.indices
        f = lambda d: sparse.bcoo_dot_general(BCOO((d, idx), shape=M.shape), N,
                                              dimension_numbers=dims).data
        BT = BCOO.fromdense(B.transpose(0, 2, 1), n_batch=1)
        return staged(lambda: {
                "matmat": sparse.bcoo_dot_general(Msp, N, dimension_numbers=dims),
                "operator": Msp @ N, "outer": sparse.bcoo_dot_general(
                    Msp, Msp, dimension_numbers=(((), ()), ((), ()))),
                "contract_both": sparse.bcoo_dot_general(Msp, Msp, dimension_numbers=(
                    ((0, 1), (0, 1)), ((), ()))),
                "batched": sparse.bcoo_dot_general(Bsp, Bsp, dimension_numbers=(
                    ((2,), (2,)), ((0,), (0,)))),
                "batch_lhs": sparse.bcoo_dot_general(Bsp, N, dimension_numbers=(
                    ((2,), (0,)), ((), ()))),
                "sparsify": sparse.sparsify(lambda a, b: (a @ b) * 2)(Msp, N),
                "jit": jax.jit(lambda a, b: a @ b)(Msp, N),
                "vmap": jax.vmap(lambda a, b: a @ b)(Bsp, BT),
                "jvp": jax.jvp(f, (data,), (jnp.ones_like(data),))[1],
                "mul_sparse_grad": sparse.grad(
                    lambda X: sparse.bcoo_multiply_sparse(X, Msp).data.sum())(Msp)})

    def sampled():
        idx = jnp.array([[0, 1], [2, 0], [1, 1], [3, 3]])    # (the last is padding)
        d = (((1,), (0,)), ((), ()))
        f = lambda a, b: sparse.bcoo_dot_general_sampled(a, b, idx, dimension_numbers=d)
        outer = (((), ()), ((), ()))
        return {"matmat": f(M, D.T), "outer": sparse.bcoo_dot_general_sampled(
                    v3, v4, idx, dimension_numbers=outer),
                "batched": sparse.bcoo_dot_general_sampled(
                    B, B, Bsp.indices[..., :1], dimension_numbers=(((2,), (2,)), ((0,), (0,)))),
                "jit": jax.jit(f)(M, D.T),
                "grad_A": jax.grad(lambda a: (f(a, D.T) ** 2).sum())(M),
                "grad_B": jax.grad(lambda b: f(M, b).sum())(D.T),
                "vmap": jax.vmap(f)(jnp.stack([M, -M]), jnp.stack([D.T, D.T]))}

    def random():
        key = jax.random.key(3)
        return staged(lambda: {"default": sparse.random_bcoo(key, (3, 4)),
                "nse": sparse.random_bcoo(key, (5, 6), nse=7, sorted_indices=True),
                "batch_dense": sparse.random_bcoo(key, (2, 4, 3), n_batch=1, n_dense=1,
                                                  nse=2, dtype=jnp.float32),
                "repeats": sparse.random_bcoo(key, (4,), nse=3, unique_indices=False,
                                              indices_dtype=jnp.int16),
                "normal": sparse.random_bcoo(key, (3, 3), nse=4, generator=jax.random.normal,
                                             dtype=jnp.float32)})

    def plain_formats():
        out = {}
        for cls in (sparse.COO, sparse.CSR, sparse.CSC):
            fmt = cls.__name__.lower()
            S = cls.fromdense(M)
            out[fmt] = S
            out.update(staged(lambda cls=cls, fmt=fmt, S=S: {
                        f"{fmt}_padded": cls.fromdense(M, nse=6),
                        f"{fmt}_matvec": S @ v4, f"{fmt}_matmat": S @ D.T,
                        f"{fmt}_T_matvec": S.T @ v3,
                        f"{fmt}_jit": jax.jit(lambda s, x: s @ x)(S, v4),
                        f"{fmt}_d_dense": jax.grad(lambda x, S=S: jnp.sin(S @ x).sum())(v4),
                        f"{fmt}_todense_fn": sparse.todense(S),
                        f"{fmt}_eye": sparse.eye(3, 4, k=-1, sparse_format=fmt),
                        f"{fmt}_empty": sparse.empty((2, 3), sparse_format=fmt)}))
        # (CSC's is left out: JAX's coo/csr product transposes read ct[row] * B[col] even
        # for transpose=True, so its CSC data gradient is wrong; tests/api/test_sparse.py)
        formats = {cls: out[cls.__name__.lower()] for cls in (sparse.COO, sparse.CSR)}

        def more():
            got = {}
            for cls, S in formats.items():
                f = lambda d, cls=cls, S=S: (cls((d, *S._bufs[1:]), shape=S.shape) @ D.T).sum(0)
                got[f"{cls.__name__.lower()}_d_data"] = jax.jacrev(f)(S.data)
            got["coo_sorted"] = sparse.COO((jnp.array([1., 2., 3.]), jnp.array([2, 0, 0]),
                                            jnp.array([0, 3, 1])), shape=(3, 4))._sort_indices()
            got["coo_matvec_T"] = sparse.coo_matvec(formats[sparse.COO], v3, transpose=True)
            got["csr_matmat_T"] = sparse.csr_matmat(formats[sparse.CSR], D, transpose=True)
            return got
        out.update(staged(more))
        return out

    def bcsr_more():
        import scipy.sparse
        BCSR = sparse.BCSR
        S = BCSR.fromdense(M)
        dup = BCSR((jnp.array([1., 2., 3., 0.]), jnp.array([1, 1, 0, 2]),
                    jnp.array([0, 2, 3, 4])), shape=(3, 3))
        SD = BCSR.fromdense(D)
        return {"sum_dup": sparse.bcsr_sum_duplicates(dup), "method": dup.sum_duplicates(),
                **staged(lambda: {
                "concat_rows": sparse.bcsr_concatenate([S, S], dimension=0),
                "concat_cols": sparse.bcsr_concatenate([S, SD], dimension=1),
                "broadcast": sparse.bcsr_broadcast_in_dim(S, shape=(2, 3, 4),
                                                          broadcast_dimensions=(1, 2)),
                "stack": sparse.sparsify(lambda a, b: jnp.stack([a, b]))(S, SD),
                "method_keep0": dup.sum_duplicates(nse=4, remove_zeros=False)}),
                "from_unsorted_bcoo": BCSR.from_bcoo(BCOO(
                    (jnp.array([1., 2., 3.]), jnp.array([[2, 0], [0, 1], [0, 0]])),
                    shape=(3, 2))),
                "from_scipy": BCSR.from_scipy_sparse(scipy.sparse.csr_matrix(np.asarray(M))),
                "bcoo_from_scipy": BCOO.from_scipy_sparse(scipy.sparse.coo_matrix(
                    np.asarray(M)))}

    def jax_tests_gaps():
        # what JAX's sparse test files reached and jxkernel lacked (stop 81): sparse.util's
        # helpers, sparsify's buffer-reference form (sparse.transform), a non-linear unary
        # op on a BCSR with duplicate indices, bessel_i1e, reshape under rank promotion
        # 'raise', and the arguments of sparsify's tracer
        util, tr = sparse.util, sparse.transform
        BCSR = sparse.BCSR
        dup = BCSR((jnp.array([1., 2., 3.]), jnp.array([1, 1, 0]), jnp.array([0, 2, 3])),
                   shape=(2, 2))
        spenv = tr.SparsifyEnv([Msp.indices, Msp.data, 2 * Msp.data])
        shared = [spenv.sparse(M.shape, data_ref=1, indices_ref=0),
                  spenv.sparse(M.shape, data_ref=2, indices_ref=0)]
        outs, _ = tr.sparsify_raw(lambda a, b: a + b)(spenv, *shared)
        out, = tr.spvalues_to_arrays(spenv, outs)
        seen = []
        sparse.sparsify(lambda a, b: seen.extend(isinstance(x, sparse.SparseTracer)
                                                 for x in (a, b)), use_tracer=True)(v4, Msp)
        with jax.numpy_rank_promotion("raise"):
            reshaped = BCOO.fromdense(jnp.arange(6.)).reshape(2, 3)
        return {"count": util._count_stored_elements(B, n_batch=1),
                "count_dense": util._count_stored_elements(B, n_batch=0, n_dense=1),
                "count_per_batch": util._count_stored_elements_per_batch(B, n_batch=1),
                "nfold_vmap": util.nfold_vmap(lambda x, y: x * y, 2)(B, B[:1]),
                "broadcasting_vmap": util.broadcasting_vmap(jnp.add)(D[:1], D),
                "dot_shape": np.array(util._dot_general_validated_shape(
                    (2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,))))),
                "csr_to_coo": util._csr_to_coo(jnp.array([1, 1, 0]), jnp.array([0, 2, 3])),
                "bcsr_sin_dup": sparse.sparsify(jnp.sin)(dup).todense(),
                "bcoo_i1e_dup": sparse.sparsify(jax.lax.bessel_i1e)(Dup).todense(),
                "shared_add": out.todense(), "shared_nse": np.array(out.nse),
                "tracer_args": np.array(seen), "reshape_raise": reshaped}

    return {
        "jax_tests_gaps": jax_tests_gaps,
        "gather": gather,
        "extract_dupes": extract_dupes,
        "tracer": tracer,
        "lobpcg": lobpcg,
        "spsolve": spsolve,
        "conv": conv,
        "bcsr_more": bcsr_more,
        "plain_formats": plain_formats,
        "layout": layout,
        "shape_ops": shape_ops,
        "getitem": getitem,
        "spdot": spdot,
        "sampled": sampled,
        "random": random,
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
        "sparse_product": lambda: (lambda Dsp: staged(lambda: {
            "square": Msp * Msp, "batched": Bsp * Bsp,
            "mixed": sparse.bcoo_multiply_sparse(Msp, Dsp),
            "grad": sparse.grad(lambda X: (X * X).sum())(Msp)}))(BCOO.fromdense(D)),
        "constructors": lambda: {"eye": sparse.eye(3, 4, k=1), "eye_low": sparse.eye(4, k=-2),
                                 "empty": sparse.empty((2, 3), nse=2),
                                 "todense_fn": sparse.todense(Msp)},
        "grads": grads,
        "batched": batched,
        "sparsify_log1p": sparsified,
        "sparsify_fori_loop": loop,
    }


def error_cases(jax, sparse):
    """name -> a thunk that raises: JAX's class and the first line of its message are
    recorded as "errors/<name>" (a pair of strings)."""
    jnp = jax.numpy
    BCOO = sparse.BCOO
    M = BCOO.fromdense(jnp.array([[0., 1., 0., 2.], [3., 0., 0., 0.], [0., 0., 4., 0.]]))
    return {
        "jit_nse": lambda: jax.jit(lambda m: sparse.bcoo_sum_duplicates(m))(M),
        "inefficient": lambda: sparse.bcoo_update_layout(M, n_batch=1),
        "layout_negative": lambda: sparse.bcoo_update_layout(M, n_batch=-1),
        "layout_too_many": lambda: sparse.bcoo_update_layout(M, n_batch=2, n_dense=1),
        "slice_out_of_range": lambda: sparse.bcoo_slice(M, start_indices=(0, 0),
                                                        limit_indices=(4, 1)),
        "slice_zero_stride": lambda: sparse.bcoo_slice(M, start_indices=(0, 0),
                                                       limit_indices=(3, 1), strides=(0, 1)),
        "concat_dense_dim": lambda: sparse.bcoo_concatenate(
            [BCOO.fromdense(M.todense(), n_dense=1)] * 2, dimension=1),
        "concat_shapes": lambda: sparse.bcoo_concatenate([M, M.T], dimension=0),
        "squeeze_not_one": lambda: sparse.bcoo_squeeze(M, dimensions=(0,)),
        "broadcast_new_sparse": lambda: sparse.bcoo_broadcast_in_dim(
            M, shape=(3, 2, 4), broadcast_dimensions=(0, 2)),
        "random_nse": lambda: sparse.random_bcoo(jax.random.key(0), (2, 2), nse=4),
        "dynamic_slice_size": lambda: sparse.bcoo_dynamic_slice(M, (0, 0), (4, 1)),
        "rev_out_of_range": lambda: sparse.bcoo_rev(M, (2,)),
        "multiply_ndim": lambda: sparse.bcoo_multiply_sparse(M, BCOO.fromdense(jnp.ones(4))),
        "spdot_unused_batch": lambda: sparse.bcoo_dot_general(
            M, BCOO.fromdense(jnp.ones((2, 4, 3)), n_batch=1),
            dimension_numbers=(((1,), (1,)), ((), ()))),
        "jit_spdot_dense_dims": lambda: jax.jit(lambda a, b: a @ b)(
            BCOO.fromdense(M.todense(), n_dense=1), M.T),
        "gather_fill_mode": lambda: sparse.bcoo_gather(
            M, jnp.array([[0], [2]]), jax.lax.GatherDimensionNumbers(
                offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)), (1, 4),
            mode="fill"),
        "tracer_densifying": lambda: sparse.sparsify(jnp.exp, use_tracer=True)(M),
        "tracer_unimplemented": lambda: sparse.sparsify(jax.nn.relu, use_tracer=True)(M),
        "lobpcg_k_zero": lambda: sparse.linalg.lobpcg_standard(jnp.eye(20), jnp.ones((20, 0))),
        "lobpcg_k_large": lambda: sparse.linalg.lobpcg_standard(jnp.eye(20), jnp.eye(20, 4)),
        "lobpcg_dtype": lambda: sparse.linalg.lobpcg_standard(
            lambda x: x.astype(jnp.int32), jnp.eye(20, 2)),
        "lobpcg_shape": lambda: sparse.linalg.lobpcg_standard(
            lambda x: x[:3], jnp.eye(20, 2)),
        "spsolve_dtype": lambda: sparse.linalg.spsolve(
            jnp.ones(2), jnp.array([0, 1]), jnp.array([0, 1, 2]), jnp.ones(2, jnp.int32)),
        "spsolve_reorder": lambda: sparse.linalg.spsolve(
            jnp.ones(2), jnp.array([0, 1]), jnp.array([0, 1, 2]), jnp.ones(2), reorder=5),
        "spsolve_sizes": lambda: sparse.linalg.spsolve(
            jnp.ones(2), jnp.array([0, 1]), jnp.array([0, 1, 2]), jnp.ones(3)),
        "spsolve_vmap": lambda: jax.vmap(sparse.linalg.spsolve, (None, None, None, 0))(
            jnp.ones(2), jnp.array([0, 1]), jnp.array([0, 1, 2]), jnp.ones((2, 2))),
        "cond_structure": lambda: sparse.sparsify(lambda x, y: jax.lax.cond(
            False, lambda x: x[0], lambda x: x[1], (x, y)))(M, M.todense()),
        "broadcasting_vmap_sizes": lambda: sparse.util.broadcasting_vmap(jnp.add)(
            jnp.ones((2, 3)), jnp.ones((3, 3))),
        "conv_strides": lambda: sparse.bcoo_conv_general_dilated(
            BCOO.fromdense(jnp.ones((1, 1, 8))), jnp.ones((1, 1, 3)), window_strides=(2,),
            padding="SAME"),
        "conv_dilation": lambda: sparse.bcoo_conv_general_dilated(
            BCOO.fromdense(jnp.ones((1, 1, 8))), jnp.ones((1, 1, 3)), window_strides=(1,),
            padding="SAME", rhs_dilation=(2,)),
        "conv_leading": lambda: sparse.bcoo_conv_general_dilated(
            BCOO.fromdense(jnp.ones((2, 1, 8))), jnp.ones((1, 1, 3)), window_strides=(1,),
            padding="SAME"),
    }


def error_of(thunk):
    """(class name, first line of the message) of what `thunk` raises."""
    try:
        thunk()
    except Exception as e:          # the error is the answer recorded
        return np.array([type(e).__name__, (str(e).splitlines() or [""])[0]])
    return np.array(["no error", ""])

