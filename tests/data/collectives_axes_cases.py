"""Collectives over several mesh axes at once, in shard_map on 8 devices (meshes 2x4 and 4x2
named ('x', 'y')), run alike by real JAX 0.10.2 on XLA's CPU devices
(reference/make_collectives_axes_reference.py records collectives_axes_reference.json) and
by jxkernel on XLA's CPU devices and on the NumPy backend's devices
(tests/lax/test_collectives_axes.py): psum, pmean, pmax, pmin, axis_index, axis_size,
all_gather, psum_scatter, ppermute and all_to_all over ('x', 'y') and ('y', 'x'), each
answering as XLA's replica groups over the two axes make it answer.

    run(jax)["2x4/all_gather_yx"]  ->  [[8, 8, 8], [0.0, 1.0, ...]]     # shape, values

Values are small integers in float32: every sum is exact.
"""
import numpy as np

XY, YX = ("x", "y"), ("y", "x")
# a permutation of the 8 members that is not a product of per-axis shifts
PERM = [(i, (i + 3) % 8) for i in range(8)]


def _programs(lax, P):
    """name -> (per-device function, in_specs, out_specs, operand)."""
    x = np.arange(64.0, dtype=np.float32).reshape(8, 8)
    blocks = P("x", "y")
    whole = P(None, None)

    def filled(value):
        return lambda v: v * 0 + value

    return {
        "psum_xy": (lambda v: lax.psum(v, XY), blocks, blocks, x),
        "psum_yx": (lambda v: lax.psum(v, YX), blocks, blocks, x),
        "psum_xy_pytree": (lambda v: lax.psum((v, 2 * v), XY)[1], blocks, blocks, x),
        "pmean_xy": (lambda v: lax.pmean(v, XY), blocks, blocks, x),
        "pmax_xy": (lambda v: lax.pmax(v, XY), blocks, blocks, x),
        "pmin_yx": (lambda v: lax.pmin(v, YX), blocks, blocks, x),
        "axis_index_xy": (lambda v: filled(lax.axis_index(XY))(v), blocks, blocks, x),
        "axis_index_yx": (lambda v: filled(lax.axis_index(YX))(v), blocks, blocks, x),
        "axis_size_xy": (lambda v: filled(lax.axis_size(XY))(v), blocks, blocks, x),
        "axis_size_yx": (lambda v: filled(lax.axis_size(YX))(v), blocks, blocks, x),
        "all_gather_xy": (lambda v: lax.all_gather(v, XY), blocks, P(None, "x", "y"), x),
        "all_gather_yx": (lambda v: lax.all_gather(v, YX), blocks, P(None, "x", "y"), x),
        "all_gather_xy_tiled": (lambda v: lax.all_gather(v, XY, tiled=True), blocks, blocks, x),
        "all_gather_yx_tiled_axis1": (lambda v: lax.all_gather(v, YX, axis=1, tiled=True),
                                      blocks, blocks, x),
        "psum_scatter_xy_tiled": (
            lambda v: lax.psum_scatter(v, XY, scatter_dimension=1, tiled=True),
            whole, P(None, XY), x),
        "psum_scatter_yx_tiled": (
            lambda v: lax.psum_scatter(v, YX, scatter_dimension=0, tiled=True),
            whole, P(YX, None), x),
        "psum_scatter_xy": (lambda v: lax.psum_scatter(v, XY), whole, P(XY), x),
        "psum_scatter_yx": (lambda v: lax.psum_scatter(v, YX, scatter_dimension=1),
                            whole, P(YX), x),
        # ppermute numbers the members in the mesh's order whatever the names' order (JAX
        # sorts each group's device ids)
        "ppermute_xy": (lambda v: lax.ppermute(v, XY, PERM), blocks, blocks, x),
        "ppermute_yx": (lambda v: lax.ppermute(v, YX, PERM), blocks, blocks, x),
        "ppermute_partial_yx": (lambda v: lax.ppermute(v, YX, PERM[:5]), blocks, blocks, x),
        "all_to_all_xy": (lambda v: lax.all_to_all(v, XY, 0, 1, tiled=True),
                          P(None, XY), P(XY, None), x),
        "all_to_all_yx": (lambda v: lax.all_to_all(v, YX, 1, 0, tiled=True),
                          P(YX, None), P(None, YX), x),
        "all_to_all_xy_untiled": (
            lambda v: lax.all_to_all(v * (lax.axis_index(XY) + 1), XY, 0, 1),
            whole, P(XY), x[:, :2]),
    }


def _nested_vmaps(jax) -> dict:
    """The same collectives under vmap of vmap (axes 'x' of 2 and 'y' of 4), where JAX 0.10.2's
    vmap answers (its rules for all_gather, psum_scatter and ppermute over several axes
    assert)."""
    lax = jax.lax
    x = np.arange(64.0, dtype=np.float32).reshape(2, 4, 8)
    programs = {
        "axis_index_xy": lambda v: lax.axis_index(XY),
        "axis_index_yx": lambda v: lax.axis_index(YX),
        "psum_xy": lambda v: lax.psum(v, XY),
        "all_to_all_xy": lambda v: lax.all_to_all(v, XY, 0, 0, tiled=True),
        "all_to_all_yx": lambda v: lax.all_to_all(v, YX, 0, 0, tiled=True),
    }
    out = {}
    for name, f in programs.items():
        r = np.asarray(jax.vmap(jax.vmap(f, axis_name="y"), axis_name="x")(x))
        out[f"vmap/{name}"] = [list(r.shape), r.ravel().tolist()]
    return out


def _gradients(jax, mesh) -> dict:
    """Gradients through collectives over ('y', 'x') and ('x', 'y') (each one's transpose:
    all_gather's is psum_scatter's, ppermute's the inverse permutation): floats through sin,
    compared in ulps."""
    lax, jnp, P = jax.lax, jax.numpy, jax.sharding.PartitionSpec
    x = np.arange(64.0, dtype=np.float32).reshape(8, 8) / 64
    w = np.linspace(-1.0, 2.0, 64 * 8).astype(np.float32)
    programs = {
        "all_gather_yx": (lambda v: lax.all_gather(v, YX, tiled=True), P("x", "y"), P("x", "y")),
        "ppermute_yx": (lambda v: lax.ppermute(v, YX, PERM), P("x", "y"), P("x", "y")),
        "all_to_all_xy": (lambda v: lax.all_to_all(v, XY, 0, 1, tiled=True),
                          P(None, XY), P(XY, None)),
        "psum_scatter_yx": (
            lambda v: lax.psum_scatter(v, YX, scatter_dimension=0, tiled=True),
            P(None, None), P(YX, None)),
        "axis_index_yx": (lambda v: v * lax.axis_index(YX), P("x", "y"), P("x", "y")),
    }
    out = {}
    for name, (f, in_specs, out_specs) in programs.items():
        g = jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs)

        def loss(v, g=g):
            y = g(v)
            return jnp.sum(jnp.sin(y) * w[:y.size].reshape(y.shape))
        out[f"grad_{name}"] = np.asarray(jax.jit(jax.grad(loss))(x)).ravel().tolist()
    return out


def run(jax) -> dict:
    """'<mesh>/<case>' -> [shape, values] (or the error's class and words); '<mesh>/grad_<case>'
    -> the gradient's values."""
    lax, P = jax.lax, jax.sharding.PartitionSpec
    out = _nested_vmaps(jax)
    for shape in [(2, 4), (4, 2)]:
        mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]).reshape(shape), XY)
        for name, (f, in_specs, out_specs, x) in _programs(lax, P).items():
            key = f"{shape[0]}x{shape[1]}/{name}"
            try:
                g = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs))
                r = np.asarray(g(x))
                out[key] = [list(r.shape), r.ravel().tolist()]
            except Exception as e:      # noqa: BLE001  (recorded by class and words)
                out[key] = f"{type(e).__name__}: {e}"
        out.update((f"{shape[0]}x{shape[1]}/{k}", v) for k, v in _gradients(jax, mesh).items())
    return out
