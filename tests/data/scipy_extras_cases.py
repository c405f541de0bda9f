"""Cases for jax.scipy.fft (dct, idct, dctn, idctn), jax.scipy.ndimage.map_coordinates,
jax.scipy.interpolate.RegularGridInterpolator, jax.scipy.integrate.trapezoid,
jax.scipy.cluster.vq.vq, jax.scipy.special's boxcox, boxcox1p and spence, and
jax.scipy.linalg's schur, sqrtm, rsf2csf, solve_sylvester, hessenberg, qr_multiply and funm,
evaluated by real JAX
(reference/make_scipy_extras_reference.py writes scipy_extras_reference.npz) and by jxkernel
(tests/scipy/test_scipy_submodules.py compares values, dtypes and weak types). Each group runs as one
jitted program; `x64` says which mode the caller runs `cases` in."""
import itertools
from functools import partial

import numpy as np

MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def operands(dtype=np.float32):
    rng = np.random.RandomState(3)
    real = lambda *shape: rng.randn(*shape).astype(dtype)       # noqa: E731
    out = {
        "x": real(5, 6), "odd": real(7), "cube": real(3, 4, 5),
        "z": (rng.randn(4, 3) + 1j * rng.randn(4, 3)).astype(np.result_type(dtype, np.complex64)),
        "ints": rng.randint(-4, 5, size=(6,)).astype(np.int32),
        "image": np.arange(20, dtype=dtype).reshape(4, 5) * dtype(0.5) + real(4, 5),
        # coordinates inside, on, and outside both edges (and halves, for order 0's rounding)
        "rows": np.array([-1.25, -0.5, 0.0, 0.5, 1.7, 2.5, 3.0, 3.6, 4.5], dtype),
        "cols": np.array([0.3, -0.6, 4.4, 2.5, -2.2, 1.0, 5.5, 4.0, 3.5], dtype),
        "obs": real(6, 3), "book": real(4, 3),
        "points": None,                                                   # (rows, cols) pairs
        "box_x": np.array([0.5, 1.0, 2.5, 10.0, 1e-3, 0.0, -1.0, np.inf], dtype),
        "box_lmbda": np.array([0.0, 0.5, -1.3, 2.0, 1e-6], dtype),
        "dilog": np.array([-1.0, 0.0, 1.0, 0.01, 0.3, 0.5, 0.9, 1.2, 1.5, 1.7, 2.0, 2.5, 40.0,
                           1e6], dtype),
        "at": np.cumsum(rng.uniform(0.1, 1.0, 6)).astype(dtype),          # sample points
        "at2d": np.cumsum(rng.uniform(0.1, 1.0, (5, 6)), axis=0).astype(dtype),
    }
    out["points"] = np.stack([out["rows"], out["cols"]], -1)
    out["square"] = rng.randn(5, 5).astype(dtype)
    out["spd"] = (out["square"] @ out["square"].T + 5 * np.eye(5)).astype(dtype)
    return out


def dcts(fft, x, odd, cube, z, ints):
    out = {}
    for norm, axis in itertools.product((None, "ortho"), (0, -1)):
        out[f"dct_{norm}_{axis}"] = fft.dct(x, axis=axis, norm=norm)
        out[f"idct_{norm}_{axis}"] = fft.idct(x, axis=axis, norm=norm)
    for n in (4, 9):                                       # cut and zero-padded
        out[f"dct_n{n}"] = fft.dct(x, n=n)
        out[f"idct_n{n}"] = fft.idct(x, n=n, norm="ortho")
    out["dct_odd"], out["idct_odd"] = fft.dct(odd), fft.idct(odd)
    out["dct_complex"], out["idct_complex"] = fft.dct(z, axis=0), fft.idct(z, norm="ortho")
    out["dct_int"], out["idct_int"] = fft.dct(ints), fft.idct(ints)
    for norm in (None, "ortho"):
        out[f"dctn_{norm}"] = fft.dctn(cube, norm=norm)
        out[f"idctn_{norm}"] = fft.idctn(cube, norm=norm)
    out["dctn_axes"] = fft.dctn(cube, axes=(0, 2))
    out["dctn_s"] = fft.dctn(x, s=(7, 4), norm="ortho")
    out["idctn_s_one_axis"] = fft.idctn(cube, s=(3,))
    out["dctn_complex"] = fft.dctn(z)
    return out


def interpolation(ndimage, image, rows, cols):
    out = {}
    for mode, order in itertools.product(MODES, (0, 1)):
        out[f"map_{mode}_{order}"] = ndimage.map_coordinates(image, [rows, cols], order, mode,
                                                             cval=-1.5)
    grid = [rows[:6].reshape(2, 3), cols[:6].reshape(2, 3)]
    out["map_2d_coordinates"] = ndimage.map_coordinates(image, grid, 1, "nearest")
    out["map_int_image"] = ndimage.map_coordinates((image * 4).astype(np.int32),
                                                   [rows, cols], 1, "mirror")
    out["map_int_coordinates"] = ndimage.map_coordinates(
        image, [np.array([0, 3, -1, 5]), np.array([4, 0, 2, 7])], 0, "wrap")
    out["map_1d"] = ndimage.map_coordinates(image[0], [cols], 1, "reflect")
    return out


def grid_interpolation(RGI, image, rows, cols, cube, points):
    """On the grid (0, 1, 3, 4) x (-2, -1, 0.5, 1, 3): points inside, on the grid, outside."""
    grid = (np.array([0.0, 1.0, 3.0, 4.0], rows.dtype), np.array([-2, -1, 0.5, 1, 3], rows.dtype))
    f = RGI(grid, image)
    out = {"rgi_linear": f(points), "rgi_nearest": f(points, method="nearest"),
           "rgi_tuple": f((rows[:3, None], cols[None, :4])),
           "rgi_extrapolate": RGI(grid, image, fill_value=None)(points),
           "rgi_fill": RGI(grid, image, method="nearest", fill_value=-7.0)(points),
           # trailing value axes are carried along; one grid axis given
           "rgi_trailing": RGI(grid, cube.reshape(4, 5, 3)[:, :, :2])(points),
           "rgi_1d_grid": RGI(grid[:1], image)(rows[:, None]),
           "rgi_1d_points": RGI(grid, image)(cols[:4])}
    return out


def box_cox(jax, special, x, lmbda, dilog):
    """Every x against every lambda (0 included: the log branch), values and both gradients;
    spence on each of its folds (and 0, 1, negative) with its derivative."""
    xs, ls = x[:, None], lmbda[None, :]
    grads = lambda f: jax.vmap(jax.vmap(jax.grad(f, (0, 1)), (None, 0)), (0, None))   # noqa
    # Not at the last lambda, 1e-6: the derivative in lambda, (lmbda L e^(lmbda L) -
    # expm1(lmbda L)) / lmbda^2, cancels there, and its rounding noise (~eps |L| / lmbda, in JAX
    # as here) changes with the code XLA makes (FMA contraction or not)
    well_posed = lmbda[:4]
    return {"boxcox": special.boxcox(xs, ls), "boxcox1p": special.boxcox1p(xs - 1, ls),
            "d_boxcox": grads(special.boxcox)(x[:5], well_posed),
            "d_boxcox1p": grads(special.boxcox1p)(x[:5] - 0.5, well_posed),
            "spence": special.spence(dilog),
            # (not at 1 < x <= 2, where JAX 0.10.2's gradient is NaN: test_scipy_extras)
            "d_spence": jax.vmap(jax.grad(special.spence))(dilog[np.array([2, 3, 4, 5, 6, 11, 12,
                                                                          13])])}


def fixed_phases(jnp, t, z):
    """A Schur form (T, Z) with each column of Z turned so that a fixed weighted sum of its
    entries is real and positive. LAPACK's gees may return any unit multiple of each Schur
    vector (T then takes the conjugate factors), and which one follows the CPU's kernels: on
    AVX with OpenBLAS's Sandy Bridge kernels, T's entries moved by up to 0.18 while |T| stayed
    within 7e-7. (Turning the largest entry real is not stable: two can be nearly as large.)"""
    s = (jnp.arange(1, z.shape[0] + 1, dtype=z.real.dtype)[:, None] * z).sum(0)
    d = jnp.conj(s) / jnp.abs(s)                   # unit factors (signs for a real Z)
    return jnp.conj(d)[:, None] * t * d[None, :], z * d[None, :]


def block_invariants(jnp, t):
    """What a real Schur form T fixes whatever the CPU: its diagonal, and each 2x2 block's
    off-diagonal product (the eigenvalues a +- sqrt(bc)). The standardized block [[a, b],
    [c, a]] may also come as [[a, -c], [-b, a]] (the pair's basis turned a right angle), which
    moves the rest of T; the CPU's kernels choose."""
    return jnp.diagonal(t), jnp.diagonal(t, 1) * jnp.diagonal(t, -1)


def schur_and_sqrtm(linalg, jnp, m, spd, x):
    """A general matrix (complex eigenvalue pairs: 2x2 blocks in the real Schur form, a complex
    square root) and a positive definite one (a real root); the complex Schur form from the
    real one; Sylvester equations A X + X B = C both ways, and one without a solution; the
    Hessenberg form of a real and of a complex matrix; Q of a QR decomposition applied to the
    left and right, conjugated, pivoted, of a vector, and of a wide matrix."""
    t, z = linalg.schur(m)
    fixed = lambda tz: fixed_phases(jnp, *tz)                                   # noqa: E731
    return {"schur_real": block_invariants(jnp, t), "schur_complex": fixed(linalg.schur(m, output="complex")),
            "schur_spd": fixed(linalg.schur(spd)), "sqrtm": linalg.sqrtm(m),
            "sqrtm_spd": linalg.sqrtm(spd), "schur_rsf2csf": fixed(linalg.rsf2csf(t, z)),
            "sylvester": linalg.solve_sylvester(m, spd[:3, :3], x[:, :3]),
            "sylvester_eigen": linalg.solve_sylvester(m, spd[:3, :3], x[:, :3],
                                                      method="eigen"),
            "sylvester_singular": linalg.solve_sylvester(spd[:2, :2], -spd[:2, :2], x[:2, :2]),
            "hessenberg": linalg.hessenberg(m, calc_q=True), "hessenberg_h": linalg.hessenberg(spd),
            "hessenberg_complex": linalg.hessenberg(m + 1j * spd, calc_q=True),
            "qr_multiply_right": linalg.qr_multiply(x, m[:, :5]),
            "qr_multiply_left": linalg.qr_multiply(x.T, x[:, :5], mode="left"),
            "qr_multiply_pivoting": linalg.qr_multiply(x, x[:3, :5], pivoting=True),
            "qr_multiply_conjugate": linalg.qr_multiply(x + 1j * x[::-1], m[:2, :5] + 0j,
                                                        conjugate=True),
            "qr_multiply_vector": linalg.qr_multiply(x.T, x[:, 0], mode="left"),
            "qr_multiply_wide_left": linalg.qr_multiply(x[:3], x[:3, :2], mode="left")}


def matrix_functions(linalg, jnp, m, spd):
    """funm by Parlett's recurrence: exp of a general matrix, and sin of a symmetric one with
    its error estimate."""
    return {"funm_exp": linalg.funm(m, jnp.exp),
            "funm_sin": linalg.funm(spd, jnp.sin, disp=False)}


def integration_and_vq(integrate, vq, x, odd, obs, book, at, at2d):
    return {
        "trapezoid_dx": integrate.trapezoid(x, dx=0.25),
        "trapezoid_axis0": integrate.trapezoid(x, axis=0),
        "trapezoid_x": integrate.trapezoid(x, x=at),
        "trapezoid_x2d": integrate.trapezoid(x, x=at2d, axis=0),
        "vq": vq(obs, book),
        "vq_1d": vq(odd, odd[np.array([1, 4])]),
        "vq_ties": vq(np.array([[0.0, 0.0], [1.0, 1.0]], odd.dtype),
                      np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], odd.dtype)),
    }


def cases(jax, scipy, x64=False):
    """{case name: pytree of results} for one mode (scipy: the jax.scipy-like package, whose
    fft, ndimage, interpolate, integrate and cluster submodules are used)."""
    import importlib
    sub = lambda name: importlib.import_module(f"{scipy.__name__}.{name}")     # noqa: E731
    ops = operands(np.float64 if x64 else np.float32)
    out = jax.jit(partial(dcts, sub("fft")))(*(ops[n] for n in ("x", "odd", "cube", "z", "ints")))
    out.update(jax.jit(partial(interpolation, sub("ndimage")))(
        ops["image"], ops["rows"], ops["cols"]))
    out.update(jax.jit(partial(grid_interpolation, sub("interpolate").RegularGridInterpolator))(
        *(ops[n] for n in ("image", "rows", "cols", "cube", "points"))))
    out.update(jax.jit(partial(box_cox, jax, sub("special")))(ops["box_x"], ops["box_lmbda"],
                                                               ops["dilog"]))
    out.update(jax.jit(partial(schur_and_sqrtm, sub("linalg"), jax.numpy))(
        ops["square"], ops["spd"], ops["x"]))
    out.update(jax.jit(partial(matrix_functions, sub("linalg"), jax.numpy))(ops["square"],
                                                                           ops["spd"]))
    out.update(jax.jit(partial(integration_and_vq, sub("integrate"), sub("cluster.vq").vq))(
        *(ops[n] for n in ("x", "odd", "obs", "book", "at", "at2d"))))
    return out


# Bounds in ulps of each result's dtype, at the largest magnitude of the case's result. The
# DCTs are FFTs (sums): numerics.REDUCTION (jxkernel's n-d DCT runs the 1-d one per axis
# where JAX pairs axes, and its inverse takes another, equally exact, route to the spectrum:
# at most 3 ulps apart, measured on AVX-512). Interpolation, trapezoid and vq are a few
# products and sums: numerics.ELEMENTWISE. The Schur decomposition and the square root on it
# go through LAPACK's gees, whose rounding depends on the CPU's kernels: numerics.LAPACK.
REDUCTION, ELEMENTWISE = 16, 4


LAPACK = 64       # schur (gees) and what is built on it: numerics.LAPACK


def ulps(name: str) -> int:
    if name.startswith("hessenberg"):
        return 4 * LAPACK      # gehrd: up to 184 ulps seen with OpenBLAS's Sandy Bridge kernels
    if name.startswith(("schur", "sqrtm", "sylvester", "qr_", "funm")):
        return LAPACK
    return REDUCTION if "dct" in name else ELEMENTWISE
