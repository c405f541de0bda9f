"""lax.linalg's tridiagonal_solve, symmetric_product, cholesky_update and tridiagonal, run by
both real JAX (reference/make_linalg_extras_reference.py records them into
linalg_extras_reference.npz and linalg_extras_errors.json) and jxkernel
(tests/lax/test_linalg_extras.py compares): values, derivatives, vmap, in 32- and 64-bit mode.
`linalg` is the lax.linalg module.

The bounds, and why, are in the test.
"""
import numpy as np


def _data(x64):
    rng = np.random.default_rng(7)
    f = np.float64 if x64 else np.float32
    c = np.complex128 if x64 else np.complex64
    m = 5
    dl, du = rng.normal(size=(2, 3, m)).astype(f)
    d = (rng.normal(size=(3, m)) + 5).astype(f)          # diagonally dominant: well posed
    b = rng.normal(size=(3, m, 2)).astype(f)
    a = rng.normal(size=(3, 4)).astype(f)
    sym = rng.normal(size=(2, m, m)).astype(f)
    sym = sym + np.swapaxes(sym, -1, -2)
    herm = (sym + 1j * rng.normal(size=(2, m, m))).astype(c)
    spd = sym[0] @ sym[0].T + m * np.eye(m, dtype=f)
    r = np.linalg.cholesky(spd).T.astype(f)              # upper factor
    w = rng.normal(size=m).astype(f)
    return dict(f=f, c=c, dl=dl, d=d, du=du, b=b, a=a, sym=sym, herm=herm, r=r, w=w)


def cases(jax, linalg, x64):
    v = _data(x64)
    dl, d, du, b = v["dl"], v["d"], v["du"], v["b"]
    ts = linalg.tridiagonal_solve
    out = {}
    out["tridiagonal_solve"] = ts(dl, d, du, b)
    out["tridiagonal_solve_complex"] = ts(dl.astype(v["c"]), (d + 1j * dl).astype(v["c"]),
                                          du.astype(v["c"]), b.astype(v["c"]))
    out["tridiagonal_solve_perturbed"] = ts(dl, d, du, b, perturb_singular=True)
    # a singular system: gtsv's info > 0 gives NaN; the perturbed kernel a finite answer
    sing = np.zeros_like(d[0])
    out["tridiagonal_solve_singular"] = ts(dl[0] * 0, sing, du[0] * 0, b[0])
    # gtsv pivots: a zero first pivot (where the Thomas algorithm divides by zero) and a
    # nearly singular system (condition number about 1e4) solved as JAX's CPU lowering does,
    # on the NumPy backend too (SciPy's gtsv)
    zero_first = d[0].copy()
    zero_first[0] = 0
    out["tridiagonal_solve_zero_pivot"] = ts(dl[0], zero_first, du[0], b[0])
    ones = np.ones_like(d[0])
    out["tridiagonal_solve_ill_conditioned"] = ts(-ones, 2 * ones + ones * 1e-3, -ones, b[0])
    # the perturbed kernel on the singular systems of inverse iteration (T - lambda I, lambda
    # an eigenvalue): finite, where gtsv gives NaN
    t = np.array([2.0, 2.0, 2.0], v["f"])
    out["tridiagonal_solve_perturbed_singular"] = ts(
        -t / 2, t - np.array(2 - np.sqrt(2), v["f"]), -t / 2, np.ones((3, 2), v["f"]),
        perturb_singular=True)
    out["tridiagonal_solve_perturbed_zero"] = ts(dl[0] * 0, sing, du[0] * 0, b[0],
                                                 perturb_singular=True)
    out["tridiagonal_solve_perturbed_one"] = ts(sing[:1], sing[:1], sing[:1], b[0][:1],
                                                perturb_singular=True)
    out["tridiagonal_solve_jit"] = jax.jit(ts)(dl[0], d[0], du[0], b[0])
    out["tridiagonal_solve_vmap_b"] = jax.vmap(ts, (None, None, None, 2), 1)(
        dl, d, du, np.stack([b, 2 * b], 2))
    out["tridiagonal_solve_vmap_all"] = jax.vmap(ts)(dl, d, du, b)
    loss = lambda *args: (ts(*args) ** 2).sum()
    out["tridiagonal_solve_grad"] = jax.grad(loss, argnums=(0, 1, 2, 3))(dl, d, du, b)
    tangents = tuple(np.ones_like(x) for x in (dl, d, du, b))
    out["tridiagonal_solve_jvp"] = jax.jvp(ts, (dl, d, du, b), tangents)
    a, c = v["a"], v["sym"][0, :3, :3]
    sp = linalg.symmetric_product
    out["symmetric_product"] = sp(a, c, alpha=2., beta=0.5)
    out["symmetric_product_sym"] = sp(a, c, alpha=-1., beta=3., symmetrize_output=True)
    out["symmetric_product_vmap"] = jax.vmap(sp)(np.stack([a, -a]), np.stack([c, c]))
    out["cholesky_update"] = linalg.cholesky_update(v["r"], v["w"])
    out["cholesky_update_zero_w"] = linalg.cholesky_update(v["r"], v["w"] * 0)
    out["cholesky_update_jit"] = jax.jit(linalg.cholesky_update)(v["r"], v["w"])
    out["tridiagonal"] = linalg.tridiagonal(v["sym"])
    out["tridiagonal_upper"] = linalg.tridiagonal(v["sym"], lower=False)
    out["tridiagonal_hermitian"] = linalg.tridiagonal(v["herm"])
    out["tridiagonal_vmap"] = jax.vmap(linalg.tridiagonal)(v["sym"])
    out["tridiagonal_one"] = linalg.tridiagonal(v["sym"][:, :1, :1])
    return out


def error_cases(jax, linalg):
    """name -> a thunk that JAX refuses."""
    f = np.ones(3, np.float32)
    b = np.ones((3, 2), np.float32)
    a, c = np.ones((3, 2), np.float32), np.eye(3, dtype=np.float32)
    r, w = np.eye(3, dtype=np.float32), np.ones(3, np.float32)
    ts = linalg.tridiagonal_solve
    return {
        "ts_int": lambda: ts(f.astype(np.int32), f, f, b),
        "ts_mixed": lambda: ts(f, f.astype(np.float16), f, b),
        "ts_b_rank": lambda: ts(f, f, f, f),
        "ts_diag_shapes": lambda: ts(f, f[:2], f, b),
        "ts_b_rows": lambda: ts(f, f, f, b[:2]),
        "ts_batch_count": lambda: ts(f[None], f[None], f[None], b),
        "sp_int": lambda: linalg.symmetric_product(a.astype(np.int32), c),
        "sp_complex": lambda: linalg.symmetric_product(a.astype(np.complex64),
                                                       c.astype(np.complex64)),
        "sp_shapes": lambda: linalg.symmetric_product(a, c[:2, :2]),
        "sp_rank": lambda: linalg.symmetric_product(a[0], c),
        "sp_jvp": lambda: jax.jvp(linalg.symmetric_product, (a, c), (a, c)),
        "cu_shapes": lambda: linalg.cholesky_update(r, w[:2]),
        "cu_square": lambda: linalg.cholesky_update(r[:2], w),
        "cu_batched": lambda: linalg.cholesky_update(r[None], w[None]),
        "cu_complex": lambda: linalg.cholesky_update(r.astype(np.complex64),
                                                     w.astype(np.complex64)),
        "cu_vmap": lambda: jax.vmap(linalg.cholesky_update)(r[None], w[None]),
        "cu_jvp": lambda: jax.jvp(linalg.cholesky_update, (r, w), (r, w)),
        "tri_square": lambda: linalg.tridiagonal(a),
        "tri_empty": lambda: linalg.tridiagonal(np.zeros((0, 0), np.float32)),
        "tri_int": lambda: linalg.tridiagonal(c.astype(np.int32)),
        "tri_rank": lambda: linalg.tridiagonal(c[0]),
        "tri_jvp": lambda: jax.jvp(linalg.tridiagonal, (c,), (c,)),
    }


def run(jax):
    """JAX's error class and words for each error case (the reference's JSON)."""
    errors = {}
    for name, thunk in error_cases(jax, jax.lax.linalg).items():
        try:
            thunk()
        except Exception as e:  # noqa: BLE001 - recording whatever JAX raises
            errors[name] = [type(e).__name__, str(e)]
        else:
            errors[name] = None
    return {"errors": errors}
