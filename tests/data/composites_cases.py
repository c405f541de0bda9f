"""Cases for the composite jnp functions (calculus, statistics, functional, editing,
polynomial, windows, index tricks), evaluated by both real JAX (reference/make_composites_reference.py
writes composites_reference.npz) and jxkernel (tests/numpy/test_numpy_composites.py compares
values, dtypes and weak types). `x64` says which mode the caller runs them in; `part`
picks one group of cases (None: all of them), so the test can spread them over workers;
`concrete=False` leaves out concrete_cases (see there)."""
import numpy as np

PARTS = ("calculus", "statistics", "functional", "editing", "polynomial", "grads", "x64")

# How the float results are compared with JAX's (recorded on an AMD CPU; XLA fuses and sums
# per ISA, and polyfit goes through LAPACK): in ulps of their dtype, measured at the result's
# largest |value| (differences, covariances and fits cancel). Integer and boolean results are
# always exact. "part/name" -> ulps; a float result not named takes DEFAULT_ULPS: a few
# roundings that XLA may fuse (FMA) or sum in another order, or its sin/cos/exp/i0 (seen: at
# most 2 ulps on Intel AVX-512, AVX2 and SSE4.2 code generation, the worst of the others in
# brackets below; tests/numpy/test_numpy_composites.py runs some parts as one jitted program).
DEFAULT_ULPS = 4
EXACT = {   # bit for bit everywhere: copies, selections, integers, single exact roundings
    "calculus/diff_prepend_scalar", "statistics/bincount_w_minlength",
    "functional/select", "functional/select_int_weak", "functional/piecewise",
    "functional/apply_along_axis", "functional/apply_along_axis_3d", "functional/fromfunction",
    "functional/vectorize_excluded",
    "editing/block", "editing/block_1d", "editing/c_", "editing/c_2d", "editing/delete",
    "editing/delete_mask", "editing/delete_unique", "editing/fill_diagonal",
    "editing/fill_diagonal_tall", "editing/fromstring", "editing/insert",
    "editing/insert_scalar_index", "editing/insert_vector_rows", "editing/mgrid_1d",
    "editing/place", "editing/r_directive_axis", "editing/trim_zeros_b",
    "polynomial/polyadd", "polynomial/polyadd_longer_first", "polynomial/polysub",
    "polynomial/polyder", "polynomial/polyder_int", "polynomial/polyint",
    "polynomial/polyint_k", "polynomial/polyint_int_k_scalar", "polynomial/polyval_int_p_weak_x",
    "x64/diff", "x64/bincount_w", "x64/r_",
}
ULPS = {
    "polynomial/polyfit": 16,         # LAPACK least squares [4; 3274 unscaled]
    "polynomial/polyfit_full": 16,    # LAPACK, and its singular values [4]
    "grads/g_polyfit": 32,            # LAPACK, differentiated [11]
    "grads/g_corrcoef": 8,            # sqrt, divisions and sums, differentiated [2]
    "polynomial/kaiser": 8,           # i0 of a square root [2]
    "grads/g_kaiser": 16,             # i0's derivative, fused in one jitted program [4]
    "polynomial/blackman_7": 8,       # cos, fused in one jitted program [2.75]
    "polynomial/hamming_7": 8,        # [1.75]
    "polynomial/hanning_7": 8,        # [2]
}


def ulps(key):
    """The bound for the result "part/name#leaf" (see DEFAULT_ULPS)."""
    name = key.split("#")[0]
    return 0 if name in EXACT else ULPS.get(name, DEFAULT_ULPS)


def concrete_cases(jnp, part):
    """The cases that need concrete intermediate values (a mask's nonzeros, trimming leading
    zeros): cases(concrete=False) leaves them out, for callers that trace the rest in one jit
    and run these eagerly."""
    if part == "editing":
        rng = np.random.RandomState(0)          # cases()'s i32: after its f32's draws
        rng.randn(3, 5)
        i32 = rng.randint(-3, 6, size=(4, 5)).astype(np.int32)
        return {"mask_indices": jnp.mask_indices(3, jnp.triu, 1),
                "trim_zeros": jnp.trim_zeros(np.array([0, 0, 1, 0, 2, 0], np.int32)),
                "trim_zeros_b": jnp.trim_zeros(np.array([0., 0., 1., 0.], np.float32), "b"),
                "trim_zeros_2d": jnp.trim_zeros(np.pad(i32[:2, :2] + 10, 1), axis=0),
                "trim_zeros_all": jnp.trim_zeros(np.zeros(3, np.int32))}
    if part == "polynomial":
        return {"polydiv_trim": jnp.polydiv(np.array([1., 3., 3., 1.], np.float32),
                                            np.array([1., 1.], np.float32),
                                            trim_leading_zeros=True),
                "polymul_trim": jnp.polymul(np.array([0., 0., 1., 2.], np.float32),
                                            np.array([1., -2., 3.], np.float32),
                                            trim_leading_zeros=True)}
    return {}


def cases(jax, jnp, x64=False, part=None, concrete=True):
    rng = np.random.RandomState(0)
    f32 = rng.randn(3, 5).astype(np.float32)
    v = np.array([1., 4., 9., 16., 20.], np.float32)
    i32 = rng.randint(-3, 6, size=(4, 5)).astype(np.int32)
    xs = np.array([0., 1., 3., 4., 7.], np.float32)
    q = np.linspace(-3, 25, 9).astype(np.float32)
    p = np.array([1., -2., 3.], np.float32)
    out = {}
    if x64:
        f64 = f32.astype(np.float64)
        out["diff"] = jnp.diff(f64, prepend=0.)
        out["bincount"] = jnp.bincount(np.array([0, 3, 3, 5]))
        out["bincount_w"] = jnp.bincount(np.array([0, 3, 3]), np.array([.5, 1., 2.]))
        out["histogram"] = jnp.histogram(f64, 4)
        out["cov"] = jnp.cov(f64)
        out["interp"] = jnp.interp(np.linspace(-1, 25, 7), v, v ** 2)
        out["gradient"] = jnp.gradient(f64)
        out["trapezoid"] = jnp.trapezoid(i32.astype(np.int64))
        out["vander"] = jnp.vander(np.arange(4), 3)
        out["polyfit"] = jnp.polyfit(xs.astype(np.float64), f64[0], 2, full=True)
        out["hamming"] = jnp.hamming(5)
        out["mgrid"] = jnp.mgrid[0:2, 0:1:3j]
        out["r_"] = jnp.r_[1:3, 0.5]
        out["unwrap_int"] = jnp.unwrap(np.array([0, 3, 7, 1]), period=5)
        return out

    if part in (None, 'calculus'):
        out["diff_int2_axis0"] = jnp.diff(i32, 2, axis=0)
        out["diff_prepend_scalar"] = jnp.diff(f32, prepend=1.5, append=f32[:, :2])
        out["diff_bool"] = jnp.diff(i32 > 0)
        out["diff_n0"] = jnp.diff(i32, 0)
        out["ediff1d"] = jnp.ediff1d(i32, to_begin=np.array([2.7, 9.]), to_end=-1)
        out["gradient_2d"] = jnp.gradient(f32)
        out["gradient_int"] = jnp.gradient(i32, axis=1)
        out["gradient_coords"] = jnp.gradient(v, xs)
        out["gradient_spacings"] = jnp.gradient(f32, 2., xs, axis=(0, 1))
        out["trapezoid"] = jnp.trapezoid(f32)
        out["trapezoid_int_dx"] = jnp.trapezoid(i32, dx=0.5, axis=0)
        out["trapezoid_x"] = jnp.trapezoid(f32, x=xs)
        out["trapezoid_x2d"] = jnp.trapezoid(f32, x=f32.cumsum(1), axis=1)
        out["interp"] = jnp.interp(q, v, xs)
        out["interp_int"] = jnp.interp(np.arange(-1, 6), np.arange(5), i32[0])
        out["interp_lr"] = jnp.interp(q, v, xs, left=-1, right=99.)
        out["interp_extrapolate"] = jnp.interp(q, v, xs, left="extrapolate", right="extrapolate")
        out["interp_period"] = jnp.interp(q, v, xs, period=7.)
        out["unwrap"] = jnp.unwrap(np.cumsum(f32, 1) * 3)
        out["unwrap_axis0_discont"] = jnp.unwrap(f32 * 4, discont=2., axis=0)
        out["unwrap_int"] = jnp.unwrap(np.array([0, 3, 7, 1, 9], np.int32), period=5)
        out["unwrap_int_default"] = jnp.unwrap(np.array([0, 3, 7, 1, 9], np.int32))
    if part in (None, 'statistics'):
        out["bincount"] = jnp.bincount(np.array([0, 3, 3, 5], np.int32))
        out["bincount_w_minlength"] = jnp.bincount(np.array([0, 3, 3, -1], np.int32),
                                                   np.array([.5, 1., 2., 4.], np.float32),
                                                   minlength=7)
        out["bincount_bool_length"] = jnp.bincount(np.array([True, True, False]), length=4)
        out["bincount_drop"] = jnp.bincount(np.array([0, 3, 9], np.int32), length=4)
        out["digitize"] = jnp.digitize(v, np.array([2., 9., 17.], np.float32))
        out["digitize_decreasing_right"] = jnp.digitize(v, np.array([17., 9., 2.], np.float32),
                                                        right=True)
        out["digitize_empty"] = jnp.digitize(v, np.zeros(0, np.float32))
        out["digitize_int"] = jnp.digitize(i32, np.array([0, 2], np.int32))
        out["histogram"] = jnp.histogram(f32, 4)
        out["histogram_int"] = jnp.histogram(i32, 3)
        out["histogram_range_w_density"] = jnp.histogram(
            f32, 5, range=(-1, 1), weights=np.abs(f32), density=True)
        out["histogram_edges"] = jnp.histogram(f32, np.array([-2., 0., .5, 2.], np.float32))
        out["histogram_constant"] = jnp.histogram(np.ones(4, np.float32), 2)
        out["histogram_bin_edges"] = jnp.histogram_bin_edges(i32, 4)
        out["histogram2d"] = jnp.histogram2d(f32[0], f32[1], bins=3)
        out["histogram2d_pair"] = jnp.histogram2d(f32[0], f32[1], bins=[2, np.array([-1., 0., 1.])],
                                                  density=True)
        out["histogramdd"] = jnp.histogramdd(f32.T, bins=(2, 3, 2), weights=v)
        out["histogramdd_range"] = jnp.histogramdd(f32.T, bins=2, range=[(-1, 1), None, (0, 2)],
                                                   density=True)
        out["cov"] = jnp.cov(f32)
        out["cov_int_rowvar"] = jnp.cov(i32, rowvar=False)
        out["cov_y_bias"] = jnp.cov(f32[0], f32[1], bias=True)
        out["cov_ddof"] = jnp.cov(f32, ddof=3)
        out["cov_weights"] = jnp.cov(f32, fweights=np.array([1, 2, 1, 1, 3], np.int32),
                                     aweights=np.array([.1, .2, .3, .4, .5], np.float32))
        out["cov_fweights"] = jnp.cov(f32, fweights=np.array([1, 2, 1, 1, 3], np.int32))
        out["cov_aweights_ddof0"] = jnp.cov(f32, aweights=np.arange(1., 6., dtype=np.float32),
                                            ddof=0)
        out["cov_1d"] = jnp.cov(v)
        out["cov_complex"] = jnp.cov(f32 + 1j * f32[::-1])
        out["corrcoef"] = jnp.corrcoef(f32)
        out["corrcoef_y"] = jnp.corrcoef(f32[0], f32[2])
        out["corrcoef_1d"] = jnp.corrcoef(v)
        out["corrcoef_complex"] = jnp.corrcoef(f32 + 1j * f32[::-1])
    if part in (None, 'functional'):
        out["select"] = jnp.select([v < 3, v > 10], [v, -v], 7)
        out["select_int_weak"] = jnp.select([i32 < 0, i32 > 3], [i32, 2.5])
        out["select_bcast"] = jnp.select([i32 > 0], [np.arange(5)], default=i32)
        out["piecewise"] = jnp.piecewise(v, [v < 3, v > 10], [lambda t: t * 2, 5., 1.])
        out["piecewise_int"] = jnp.piecewise(i32, [i32 < 0, i32 > 2], [lambda t: t * 3, 1.7])
        out["piecewise_overlap"] = jnp.piecewise(v, [v > 3, v > 10], [jnp.sin, jnp.cos])
        out["vectorize_sig"] = jnp.vectorize(jnp.dot, signature="(n),(n)->()")(f32, f32[0])
        out["vectorize_bcast"] = jnp.vectorize(lambda a, b: a * b + 1)(f32[:, None, :], v)
        out["vectorize_excluded"] = jnp.vectorize(
            lambda a, k, scale=1.: a[k] * scale, excluded={1, "scale"},
            signature="(n)->()")(f32, 2, scale=3.)
        out["vectorize_two_outs"] = jnp.vectorize(lambda a: (a.sum(), a * 2),
                                                  signature="(n)->(),(n)")(f32[None])
        out["vectorize_matvec"] = jnp.vectorize(jnp.matmul, signature="(m,n),(n)->(m)")(
            f32.reshape(1, 3, 5), f32[:2])
        out["apply_along_axis"] = jnp.apply_along_axis(lambda t: t[::-1] * 2, 0, f32)
        out["apply_along_axis_scalar"] = jnp.apply_along_axis(jnp.sum, 1, i32)
        out["apply_along_axis_3d"] = jnp.apply_along_axis(
            lambda t, p: jnp.outer(t, t) ** p, 1, f32.reshape(3, 5, 1), 2)
        out["apply_over_axes"] = jnp.apply_over_axes(jnp.sum, i32, [0, 1])
        out["apply_over_axes_keep"] = jnp.apply_over_axes(
            lambda a, ax: jnp.mean(a, ax, keepdims=True), f32, (1,))
        out["fromfunction"] = jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3))
        out["fromfunction_int"] = jnp.fromfunction(lambda i, j, k: i + j * k, (2, 3, 2), dtype=int)
    if part in (None, 'editing'):
        out["block"] = jnp.block([[f32, i32[:3, :2]], [np.ones((1, 7), np.float32)]])
        out["block_1d"] = jnp.block([np.arange(3), 1.5, np.zeros(2, np.int32)])
        out["block_scalar"] = jnp.block(2)
        out["mgrid"] = jnp.mgrid[0:3, 1:4:2]
        out["mgrid_complex"] = jnp.mgrid[0:1:4j, 0:3]
        out["mgrid_1d"] = jnp.mgrid[-1:1:0.5]
        out["ogrid"] = jnp.ogrid[0:3, 0:4]
        out["ogrid_mixed"] = jnp.ogrid[0:3, 0:1:3j]
        out["r_"] = jnp.r_[1:4, 0, np.array([7, 8])]
        out["r_float"] = jnp.r_[np.array([1, 2], np.int32), 2.5, 0:1:3j]
        out["r_directive"] = jnp.r_["0,2,0", [1, 2], [3, 4]]
        out["r_directive_axis"] = jnp.r_["-1,2", np.ones((2, 2)), [[5], [6]]]
        out["r_matrix"] = jnp.r_["r", [1, 2], [3, 4]]
        out["c_"] = jnp.c_[np.array([1, 2]), np.array([3., 4.])]
        out["c_2d"] = jnp.c_[f32[:2], np.zeros((2, 1), np.float32), np.arange(2)]
        out["c_matrix"] = jnp.c_["c", [1, 2, 3], [4, 5, 6]]
        out["fill_diagonal"] = jnp.fill_diagonal(f32, np.array([1., 2.], np.float32), inplace=False)
        out["fill_diagonal_cube"] = jnp.fill_diagonal(np.zeros((3, 3, 3), np.int32), 4.7,
                                                      inplace=False)
        out["fill_diagonal_tall"] = jnp.fill_diagonal(f32.T, 9, inplace=False)
        out["insert"] = jnp.insert(f32, np.array([0, 2, 2]), 9., axis=1)
        out["insert_scalar_index"] = jnp.insert(f32, 1, np.array([1., 2., 3.]), axis=1)
        out["insert_vector_rows"] = jnp.insert(f32, 1, np.array([1., 2., 3., 4., 5.]), axis=0)
        out["insert_slice"] = jnp.insert(i32, slice(0, 4, 2), 7.9)
        out["insert_negative"] = jnp.insert(np.arange(5), np.array([-1, 9, -9]),
                                            np.array([7, 8, 9]))
        out["delete"] = jnp.delete(f32, np.array([0, 2, 2]), axis=1)
        out["delete_int"] = jnp.delete(i32, -2)
        out["delete_unique"] = jnp.delete(f32, np.array([3, 0]), axis=1, assume_unique_indices=True)
        out["delete_slice"] = jnp.delete(i32, slice(1, None, 2), axis=1)
        out["delete_mask"] = jnp.delete(f32, np.array([True, False, True]), axis=0)
        out["place"] = jnp.place(f32, f32 > 0, np.array([1., 2.], np.float32), inplace=False)
        out["place_int"] = jnp.place(i32, i32 < 0, 9.5, inplace=False)
        out.update(concrete_cases(jnp, "editing") if concrete else {})
        out["mask_indices_size"] = jnp.mask_indices(3, jnp.tril, size=8)
        out["packbits"] = jnp.packbits(f32 > 0, axis=1, bitorder="little")
        out["packbits_flat"] = jnp.packbits(i32)
        out["unpackbits"] = jnp.unpackbits(np.array([[3, 250], [17, 0]], np.uint8), axis=1,
                                           count=11)
        out["unpackbits_flat"] = jnp.unpackbits(np.array([[3, 250]], np.uint8), count=-3,
                                                bitorder="little")
        out["frombuffer"] = jnp.frombuffer(b"\x01\x02\x03\x04", dtype=np.int16)
        out["fromstring"] = jnp.fromstring("1, 2, 3", sep=",")
        out["fromstring_int"] = jnp.fromstring("1 2 3", dtype=int, sep=" ")
    if part in (None, 'polynomial'):
        out["vander"] = jnp.vander(v, 3)
        out["vander_int_increasing"] = jnp.vander(np.arange(4, dtype=np.int32), increasing=True)
        out["polyval"] = jnp.polyval(p, f32)
        out["polyval_int_p_weak_x"] = jnp.polyval(np.array([2, 0, 1], np.int32), 1.5)
        out["polyval_int"] = jnp.polyval(np.array([2, 0, 1], np.int32), i32)
        out["polyval_2d_p"] = jnp.polyval(f32[:, :2], v[:2])
        out["polyadd"] = jnp.polyadd(np.array([1, 2], np.int32), p)
        out["polyadd_longer_first"] = jnp.polyadd(v, p)
        out["polysub"] = jnp.polysub(p, np.array([1, 2, 3, 4], np.int32))
        out["polymul"] = jnp.polymul(p, v)
        out["polydiv"] = jnp.polydiv(v, p)
        out.update(concrete_cases(jnp, "polynomial") if concrete else {})
        out["polyder"] = jnp.polyder(v, 2)
        out["polyder_int"] = jnp.polyder(np.array([1, 2, 3], np.int32))
        out["polyint"] = jnp.polyint(p)
        out["polyint_k"] = jnp.polyint(p, 2, k=np.array([1., 2.], np.float32))
        out["polyint_int_k_scalar"] = jnp.polyint(np.array([3, 2], np.int32), 3, k=5)
        out["polyfit"] = jnp.polyfit(xs, f32[0], 2)
        out["polyfit_full"] = jnp.polyfit(xs, f32[0], 2, full=True)
        out["polyfit_w_2d"] = jnp.polyfit(xs, f32.T, 1, w=np.arange(1., 6., dtype=np.float32))
        out["polyfit_cov"] = jnp.polyfit(xs, f32[0], 1, cov=True)
        out["polyfit_cov_2d"] = jnp.polyfit(xs, f32.T, 1, cov="unscaled")
        # windows
        for name in ["bartlett", "blackman", "hamming", "hanning"]:
            out[f"{name}_7"] = getattr(jnp, name)(7)
            out[f"{name}_1"] = getattr(jnp, name)(1)
            out[f"{name}_0"] = getattr(jnp, name)(0)
        out["kaiser"] = jnp.kaiser(6, 3.)
        out["kaiser_1"] = jnp.kaiser(1, 3.)
    if part in (None, 'grads'):
        g = jax.grad
        out["g_diff"] = g(lambda a: (jnp.diff(a, 2, prepend=a[:, :1]) ** 2).sum())(f32)
        out["g_gradient"] = g(lambda a: (jnp.gradient(a, xs) ** 2).sum())(v)
        out["g_trapezoid"] = g(lambda y, x: jnp.trapezoid(y ** 2, x=x), (0, 1))(v, xs)
        out["g_interp"] = g(lambda x, fp: jnp.interp(x, v, fp).sum(), (0, 1))(q, xs)
        out["g_interp_ties"] = g(lambda x: jnp.interp(x, np.array([0., 1., 1., 2.], np.float32),
                                                      np.array([0., 1., 3., 4.], np.float32)).sum()
                                 )(np.array([0.5, 1., 1.5], np.float32))
        out["g_unwrap"] = g(lambda a: (jnp.unwrap(a * 3) ** 2).sum())(f32)
        out["g_polyval"] = g(lambda p, x: jnp.polyval(p, x).sum(), (0, 1))(p, f32)
        out["g_cov"] = g(lambda a: (jnp.cov(a) ** 2).sum())(f32)
        out["g_corrcoef"] = g(lambda a: jnp.corrcoef(a)[0, 1])(f32)
        out["g_histogram_w"] = g(lambda w: (jnp.histogram(f32, 3, weights=w)[0] ** 2).sum())(
            np.abs(f32))
        out["g_piecewise"] = g(lambda a: jnp.piecewise(a, [a < 3, a > 10],
                                                       [lambda t: t ** 2, jnp.sin, 1.]).sum())(v)
        out["g_select"] = g(lambda a: jnp.select([a < 3, a > 10], [a ** 2, jnp.sin(a)],
                                                 1.).sum())(v)
        out["g_vectorize"] = g(lambda a: jnp.vectorize(jnp.dot, signature="(n),(n)->()")(a, a).sum()
                               )(f32)
        out["g_polyfit"] = g(lambda y: jnp.polyfit(xs, y, 2).sum())(f32[0])
        out["g_insert"] = g(lambda a: (jnp.insert(a, np.array([1, 3]), a[:2] * 2) ** 2).sum())(v)
        out["g_kaiser"] = g(lambda b: jnp.kaiser(5, b).sum())(2.)
    return out
