"""What JAX's own linalg_test.py, lax_scipy_test.py and lax_scipy_sparse_test.py found jxkernel
doing differently, as cases run by both real JAX (reference/make_jax_tests_linalg_reference.py
records them into jax_tests_linalg_reference.npz and .json) and jxkernel
(tests/jax_compat/test_jax_tests_linalg.py compares). `linalg` is jax._src.lax.linalg, JAX's
private module (it holds `_lu_python`); `jax._src.test_util` is `jtu`.

The bounds, and why, are in the test.
"""
import functools

import numpy as np


def _data(x64):
    rng = np.random.default_rng(3)
    f = np.float64 if x64 else np.float32
    c = np.complex128 if x64 else np.complex64
    square = rng.normal(size=(2, 4, 4)).astype(f)
    wide = rng.normal(size=(3, 5)).astype(f)
    tall = (rng.normal(size=(5, 3)) + 1j * rng.normal(size=(5, 3))).astype(c)
    return f, c, square, wide, tall


def cases(jax, linalg, x64):
    jnp = jax.numpy
    f, c, square, wide, tall = _data(x64)
    out = {}
    # LU in lax operations alone: the same pivots as getrf, factors within rounding
    # (JAX's takes Arrays: it is a lowering's helper)
    lu = lambda a: linalg._lu_python(jnp.asarray(a))
    out["lu_python_batched"] = lu(square)
    out["lu_python_zero"] = lu(np.zeros((2, 2), f))
    out["lu_python_wide"] = lu(wide)
    out["lu_python_tall_complex"] = lu(tall)
    out["lu_python_jit"] = jax.jit(linalg._lu_python)(square[0])
    # a reduction's -inf identity is no invalid value: it never leaves the computation
    with jax.debug_infs(True):
        out["logsumexp_ones_debug_infs"] = jax.scipy.special.logsumexp(np.ones(4, f))
        x = jnp.arange(4, dtype=f)
        out["max_initial_debug_infs"] = jnp.max(x, initial=-np.inf)
        out["max_where_debug_infs"] = jnp.max(x, where=np.array([True, False, True, False]),
                                              initial=-np.inf)
        out["sum_where_debug_infs"] = jnp.sum(x, where=x > 1)
    # det's derivative of a batch, under the rank promotion JAX's tests make raise
    with jax.numpy_rank_promotion("raise"):
        singular_first = square.copy()
        singular_first[0] = 0
        det_sum = lambda a: jnp.linalg.det(a).sum()
        out["det_grad_batched_rank_raise"] = jax.grad(det_sum)(singular_first)
        out["slogdet_batched_rank_raise"] = jnp.linalg.slogdet(square)
    # the derivatives of a batch of factorizations, under the same rank promotion: each
    # rule's identity matrix meets the batch with JAX's leading unit dims
    with jax.numpy_rank_promotion("raise"):
        ones = np.ones_like(square)
        spd = square @ np.swapaxes(square, -1, -2) + 4 * np.eye(4, dtype=f)
        sym = ones + np.swapaxes(ones, -1, -2)
        tall_batch = np.stack([tall, 2 * tall])
        out["qr_jvp_batched_rank_raise"] = jax.jvp(jnp.linalg.qr, (square,), (ones,))
        out["qr_complete_jvp_batched_rank_raise"] = jax.jvp(
            lambda a: jnp.linalg.qr(a, mode="complete"), (tall_batch,),
            (np.ones_like(tall_batch),))
        out["svd_jvp_batched_rank_raise"] = jax.jvp(
            lambda a: jnp.linalg.svd(a, full_matrices=False), (square,), (ones,))
        out["cholesky_jvp_batched_rank_raise"] = jax.jvp(jnp.linalg.cholesky, (spd,), (sym,))
        out["eigh_jvp_batched_rank_raise"] = jax.jvp(jnp.linalg.eigh, (spd,), (sym,))
        out["lu_jvp_batched_rank_raise"] = jax.jvp(lambda a: jax.lax.linalg.lu(a)[0],
                                                   (square,), (ones,))
    # float16: no LAPACK trsm, XLA's own triangular_solve (JAX's CPU fallback)
    lower = (np.tri(3) + 2 * np.eye(3)).astype(np.float16)
    out["triangular_solve_float16"] = jax.lax.linalg.triangular_solve(
        lower, np.ones((3, 2), np.float16), left_side=True, lower=True)
    # eigenvalues' gradient where eigenvalues repeat: the eigenvectors' 1/(w_j - w_i) factor
    # meets only a zero cotangent, which a jit's transpose prunes
    eig_sum = lambda a: jnp.real(jnp.sum(jnp.linalg.eigh(a)[0]))
    eye = np.eye(3, dtype=c)
    out["eigh_grad_repeated"] = jax.grad(eig_sum)(eye)
    out["eigh_grad_repeated_jit"] = jax.jit(jax.grad(jax.jit(eig_sum)))(eye)
    out["eigh_grad_repeated_real"] = jax.grad(eig_sum)(np.eye(3, dtype=f))
    # slogdet's second derivative of a complex 1x1 or 2x2 matrix: its custom rule's primal
    # is the rule's own function, so the sign's tangent has a derivative (sign's own is zero)
    for n in (1, 2):
        a = tall[:n, :n]
        t = np.conj(tall[1:n + 1, 1:n + 1])
        jvp1 = lambda x, tx: jax.jvp(jnp.linalg.slogdet, (x,), (tx,))
        out[f"slogdet_second_jvp_complex_{n}x{n}"] = jax.jvp(jvp1, (a, t), (t, a))
    return out


def dot_checks(jax, jtu):
    """name -> a thunk calling jtu's dot_general checks (None when it passes)."""
    jnp, lax = jax.numpy, jax.lax
    a = 2 * np.eye(3, dtype=np.float32)
    highest, default = lax.Precision.HIGHEST, lax.Precision.DEFAULT
    cholesky_jvp = functools.partial(jax.jvp, jnp.linalg.cholesky)
    return {
        "cholesky_jvp_highest": lambda: jtu.assert_dot_precision(highest, cholesky_jvp, (a,),
                                                                 (a,)),
        "cholesky_jvp_default": lambda: jtu.assert_dot_precision(default, cholesky_jvp, (a,),
                                                                 (a,)),
        "dot_highest": lambda: jtu.assert_dot_precision(
            highest, lambda x: jnp.dot(x, x, precision="highest"), a),
        "matmul_none": lambda: jtu.assert_dot_precision(None, jnp.matmul, a, a),
        "matmul_highest": lambda: jtu.assert_dot_precision(highest, jnp.matmul, a, a),
        "no_dot": lambda: jtu.assert_dot_precision(highest, jnp.sin, a),
        "preferred_f32": lambda: jtu.assert_dot_preferred_element_type(
            np.float32, jnp.dot, a, a, preferred_element_type=np.float32),
        "preferred_none": lambda: jtu.assert_dot_preferred_element_type(
            np.float32, jnp.dot, a, a),
        "preferred_int": lambda: jtu.assert_dot_preferred_element_type(
            np.int32, jnp.dot, a.astype(np.int8), a.astype(np.int8),
            preferred_element_type=np.int32),
    }


def half_precision(jax):
    """name -> a thunk: linear algebra in float16, which traces (JAX's shape rules take any
    inexact dtype) and which LAPACK refuses as it is lowered on the CPU."""
    jnp, linalg = jax.numpy, jax.lax.linalg
    wide, square = np.ones((5, 6), np.float16), np.eye(3, dtype=np.float16)
    run_ = lambda f, x: lambda: jax.block_until_ready(f(x))
    shape = lambda f, x: lambda: [[list(r.shape), str(r.dtype)]
                                  for r in jax.tree_util.tree_leaves(jax.eval_shape(f, x))]
    return {"qr": run_(jnp.linalg.qr, wide), "svd": run_(jnp.linalg.svd, wide),
            "cholesky": run_(jnp.linalg.cholesky, square), "eigh": run_(jnp.linalg.eigh, square),
            "inv": run_(jnp.linalg.inv, square), "lu": run_(linalg.lu, square),
            "schur": run_(linalg.schur, square), "hessenberg": run_(linalg.hessenberg, square),
            "qr_shape": shape(jnp.linalg.qr, wide), "lu_shape": shape(linalg.lu, square),
            "svd_shape": shape(jnp.linalg.svd, wide)}


def errors(jax):
    """name -> a thunk that JAX refuses."""
    jsl = jax.scipy.linalg
    return {"invpascal_kind": lambda: jsl.invpascal(3, kind="bad"),
            "pascal_kind": lambda: jsl.pascal(3, kind="bad")}


def _outcomes(thunks):
    """Each thunk's outcome: what it returns (None for a check that passes), or its error's
    class and words."""
    outcomes = {}
    for name, thunk in thunks.items():
        try:
            outcomes[name] = thunk()
        except Exception as e:  # noqa: BLE001 - recording whatever JAX raises
            outcomes[name] = [type(e).__name__, str(e)]
    return outcomes


def run(jax, jtu):
    """The dot checks' outcomes, the errors' and float16's, by name."""
    return {"dot_checks": _outcomes(dot_checks(jax, jtu)), "errors": _outcomes(errors(jax)),
            "half_precision": {k: v if not hasattr(v, "shape") else None
                               for k, v in _outcomes(half_precision(jax)).items()}}
