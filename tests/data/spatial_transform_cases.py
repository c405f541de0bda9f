"""Cases for jax.scipy.spatial.transform (Rotation, Slerp), evaluated by real JAX
(reference/make_spatial_transform_reference.py writes spatial_transform_reference.npz) and by
jxkernel (tests/scipy/test_scipy_spatial.py compares values, dtypes and weak types). The cases
run eagerly, as Rotation's methods do for a user: jitted whole they were one program of 6,000
equations that XLA took 18 s to compile; eagerly each primitive compiles once per shape (so
every batch has 6 rotations). 64-bit mode runs the conversions, not every Euler sequence nor
the derivatives: it checks the dtypes, and each case there is as many compiles again."""
import numpy as np

# Euler sequences for as_euler: Tait-Bryan and proper ones, each in both spellings (extrinsic
# lower case, intrinsic upper case) somewhere below. A few of the 12 stand for all: the code is
# one path with the axes as data.
SEQUENCES = ("xyz", "zyx", "yzx", "zxz", "xzx", "yxy")


def operands(dtype=np.float32):
    rng = np.random.RandomState(7)
    quats = rng.randn(6, 4)
    quats[1, 3] = -abs(quats[1, 3])                 # w < 0: as_rotvec and as_mrp flip the sign
    quats[2] = [0., 0., 0., 2.]                      # the identity, not normalized
    quats[3] = [0., -1., 0., 0.]                     # w = 0: canonical looks at x, then y
    # rotation vectors: ordinary, near zero (the series branches, angle <= 1e-3), past pi
    rotvecs = np.concatenate([rng.randn(3, 3), [[1e-4, -2e-4, 3e-4], [0., 0., 0.],
                                                [2.5, 1.5, -1.0]]])
    # angles kept off +-pi, where as_euler's wrap into [-pi, pi) may land on either end
    angles = rng.uniform(-2.5, 2.5, size=(6, 3))
    angles[3] = [0.4, 0.0, -0.7]                     # middle angle 0: gimbal lock (case 1)
    return {"quats": quats.astype(dtype), "rotvecs": rotvecs.astype(dtype),
            "angles": angles.astype(dtype),
            "degrees": np.array([[90., 0., 0.], [0., 45., 0.], [0., 0., -30.], [10., 20., 30.],
                                 [-60., 15., 5.], [0., 0., 0.]], dtype),
            "vectors": rng.randn(6, 3).astype(dtype),
            "weights": rng.uniform(0.1, 2.0, size=6).astype(dtype),
            "mrps": (0.5 * rng.randn(6, 3)).astype(dtype),
            "times": np.array([0., 0.5, 1.25, 3.0, 3.5, 5.0], dtype),
            "at": np.array([0., 0.2, 1.3, 3.0, 4.9, 5.0], dtype)}


def conversions(jax, transform, quats, rotvecs, angles, degrees, vectors, weights, mrps,
                every=True):
    R = transform.Rotation
    jnp = jax.numpy
    out = {}
    r = R.from_quat(quats)
    out["from_quat"] = r.quat
    out["as_matrix"] = r.as_matrix()
    out["as_rotvec"], out["as_rotvec_deg"] = r.as_rotvec(), r.as_rotvec(degrees=True)
    out["as_mrp"] = r.as_mrp()
    out["magnitude"] = r.magnitude()
    out["inv"] = r.inv().quat
    out["canonical"] = r.as_quat(canonical=True)
    out["scalar_first"] = r.as_quat(canonical=True, scalar_first=True)
    out["compose"] = (r * r[::-1]).quat
    out["compose_single"] = (r[4] * r).quat
    out["getitem"] = r[1:4].quat
    out["concatenate"] = R.concatenate([r[:2], r[3:]]).quat
    out["apply"] = r.apply(vectors)
    out["apply_inverse"] = r.apply(vectors, inverse=True)
    out["apply_one"] = r[0].apply(vectors)
    out["mean"] = r.mean().quat
    out["mean_weighted"] = r.mean(weights).quat
    out["identity"] = R.identity().quat
    # the matrices of these rotations round-trip; the identity (r[2]) and a half turn about y
    # pick Shepperd's other branches (trace largest, a diagonal element largest)
    half_turn = jnp.diag(jnp.array([-1., 1., -1.], quats.dtype))
    mats = jnp.concatenate([r.as_matrix()[:5], half_turn[None]])
    out["from_matrix"] = R.from_matrix(mats).quat
    out["from_rotvec"] = R.from_rotvec(rotvecs).quat
    out["from_rotvec_deg"] = R.from_rotvec(rotvecs * 40, degrees=True).quat
    out["rotvec_roundtrip"] = R.from_rotvec(rotvecs).as_rotvec()
    out["from_mrp"] = R.from_mrp(mrps).quat
    out["mrp_roundtrip"] = R.from_mrp(mrps).as_mrp()
    if not every:        # (64-bit mode: the dtypes each conversion gives, not every path)
        return out
    for seq in ("x", "YZ", "zyx", "XYX"):
        out[f"from_euler_{seq}"] = R.from_euler(seq, angles[:, :len(seq)]).quat
    out["from_euler_scalar"] = R.from_euler("z", angles[0, 0]).quat
    in_degrees = R.from_euler("zxy", degrees, degrees=True)
    out["from_euler_degrees"] = in_degrees.quat
    for n, seq in enumerate(SEQUENCES):
        seq = seq.upper() if n % 2 else seq
        out[f"as_euler_{seq}"] = r.as_euler(seq)
    out["euler_roundtrip_ZXY"] = R.from_euler("ZXY", angles).as_euler("ZXY")
    out["as_euler_degrees"] = in_degrees.as_euler("zxy", degrees=True)
    return out


def interpolation(jax, transform, degrees, times, at):
    R, Slerp = transform.Rotation, transform.Slerp
    slerp = Slerp.init(times, R.from_euler("zxy", degrees, degrees=True))
    between = slerp(at)
    return {"slerp_fields": [slerp.times, slerp.timedelta, slerp.rotations.quat, slerp.rotvecs],
            "slerp": between.quat, "slerp_euler": between.as_euler("zxy")}


def derivatives(jax, transform, quats, rotvecs, vectors):
    R = transform.Rotation
    jnp = jax.numpy
    return {
        "grad_magnitude": jax.grad(lambda q: R.from_quat(q).magnitude().sum())(quats),
        "grad_apply": jax.grad(lambda v: jnp.sum(R.from_rotvec(v).apply(vectors) ** 2
                                                 * vectors))(rotvecs[:6]),
        "jacfwd_matrix": jax.jacfwd(lambda q: R.from_quat(q).as_matrix())(quats[0]),
        "vmap_euler": jax.vmap(lambda q: R.from_quat(q).as_euler("xyz"))(quats),
        "vmap_compose": jax.vmap(lambda p, q: (R.from_quat(p) * R.from_quat(q)).as_rotvec())(
            quats, quats[::-1]),
    }


def cases(jax, scipy, x64=False):
    """{case name: pytree of results} for one mode (scipy: the jax.scipy-like package whose
    spatial.transform is used)."""
    import importlib
    transform = importlib.import_module(f"{scipy.__name__}.spatial.transform")
    ops = operands(np.float64 if x64 else np.float32)

    ops = {name: jax.numpy.asarray(value) for name, value in ops.items()}
    out = conversions(jax, transform, *(ops[n] for n in (
        "quats", "rotvecs", "angles", "degrees", "vectors", "weights", "mrps")), every=not x64)
    out.update(interpolation(jax, transform, ops["degrees"], ops["times"], ops["at"]))
    if not x64:
        out.update(derivatives(jax, transform, ops["quats"], ops["rotvecs"], ops["vectors"]))
    return out


# Bounds in ulps of each result's dtype, at the largest magnitude of the case's result: a few
# products, square roots and arctangents each (numerics.ELEMENTWISE, twice for the chains of
# compositions, Euler angles and interpolation); the means go through LAPACK's eigh
# (numerics.LAPACK).
ELEMENTWISE, LAPACK = 4, 64


def ulps(name: str) -> int:
    if name.startswith("mean"):
        return LAPACK
    return 2 * ELEMENTWISE
