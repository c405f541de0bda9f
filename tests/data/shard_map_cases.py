"""shard_map cases run alike by real JAX (reference/make_shard_map_reference.py records them in
shard_map_reference.json) and by jxkernel (tests/sharding/test_shard_map.py, in a subprocess with 8 CPU
devices): `run(jax)` returns plain JSON data — each collective's values and the output specs,
on a 1-D mesh of 8 and a 2-D mesh of 4 x 2, grad and vmap through shard_map, error texts, and
facts of the lowered module.

    run(jax)["collectives"]["2d/psum_x"]  ->  {"value": [[...]], "spec": "P()", "shape": [2, 4]}

Meshes are built with `Mesh` (Auto axes): JAX 0.10.2's `make_mesh` makes Explicit axes, whose
in_specs JAX checks against the arguments' shardings (jxkernel does not type shardings).
Values are small integers in float32, so every sum is exact.
"""
import functools

import numpy as np
from recorded_errors import TRACEBACK_NOTE, error_of

_error = functools.partial(error_of, cut=TRACEBACK_NOTE)


def _bodies(lax, jnp):
    """name -> (mesh "1d"/"2d", in_spec parts, out_spec parts, body)."""
    ring = [(i, (i + 1) % 4) for i in range(4)]
    return {
        "1d/psum": ("1d", ("x",), (), lambda a: lax.psum(a, "x")),
        "1d/pmean": ("1d", ("x",), (), lambda a: lax.pmean(a, "x")),
        "1d/pmax": ("1d", ("x",), (), lambda a: lax.pmax(a, "x")),
        "1d/pmin": ("1d", ("x",), (), lambda a: lax.pmin(a, "x")),
        "1d/all_gather": ("1d", ("x",), (), lambda a: lax.all_gather(a, "x")),
        "1d/all_gather_tiled": ("1d", ("x",), (), lambda a: lax.all_gather(a, "x", tiled=True)),
        "1d/psum_scatter": ("1d", (None, "x"), ("x",),
                            lambda a: lax.psum_scatter(a, "x", scatter_dimension=0, tiled=True)),
        "1d/ppermute": ("1d", ("x",), ("x",),
                        lambda a: lax.ppermute(a, "x", [(i, (i + 3) % 8) for i in range(8)])),
        "1d/all_to_all": ("1d", ("x",), ("x",),
                          lambda a: lax.all_to_all(a, "x", 1, 0, tiled=True)),
        "1d/axis_index": ("1d", ("x",), ("x",),
                          lambda a: a * 0 + lax.axis_index("x") * lax.axis_size("x")),
        "2d/psum_x": ("2d", ("x", "y"), (None, "y"), lambda a: lax.psum(a, "x")),
        "2d/psum_xy": ("2d", ("x", "y"), (), lambda a: lax.psum(a, ("x", "y"))),
        "2d/pmax_y": ("2d", ("x", "y"), ("x",), lambda a: lax.pmax(a, "y")),
        "2d/all_gather_y": ("2d", ("x", "y"), ("x",), lambda a: lax.all_gather(a, "y", axis=1,
                                                                                tiled=True)),
        "2d/all_gather_yx": ("2d", ("x", "y"), (), lambda a: lax.all_gather(a, ("y", "x"),
                                                                             tiled=True)),
        "2d/psum_scatter_x": ("2d", (None, "y"), ("x", "y"),
                              lambda a: lax.psum_scatter(a, "x", tiled=True)),
        "2d/ppermute_x": ("2d", ("x", "y"), ("x", "y"), lambda a: lax.ppermute(a, "x", ring)),
        "2d/all_to_all_x": ("2d", ("x", "y"), ("x", "y"),
                            lambda a: lax.all_to_all(a, "x", 1, 0, tiled=True)),
        "2d/axis_index": ("2d", ("x", "y"), ("x", "y"),
                          lambda a: a * 0 + 10 * lax.axis_index("x") + lax.axis_index("y")),
        "2d/replicated_in": ("2d", (), ("x",), lambda a: a * (lax.axis_index("x") + 1)),
    }


def _collectives(jax, meshes, P):
    """Per mesh one jit of one shard_map that runs every case of that mesh (one compile)."""
    jnp, lax = jax.numpy, jax.lax
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = {}
    for mesh_name, mesh in meshes.items():
        cases = {n: c for n, c in _bodies(lax, jnp).items() if c[0] == mesh_name}
        bodies = [c[3] for c in cases.values()]
        f = jax.shard_map(lambda *xs: tuple(b(a) for b, a in zip(bodies, xs)), mesh=mesh,
                          in_specs=tuple(P(*c[1]) for c in cases.values()),
                          out_specs=tuple(P(*c[2]) for c in cases.values()), check_vma=False)
        for name, y in zip(cases, jax.jit(f)(*[x] * len(cases))):
            out[name] = {"value": np.asarray(y).tolist(), "spec": repr(y.sharding.spec),
                         "shape": list(y.shape), "dtype": str(y.dtype)}
    return out


def _loss(jnp, w, xb, yb):
    return jnp.mean((jnp.tanh(xb @ w) - yb) ** 2)


def _data_parallel(jax, mesh, P):
    """The gradient of a loss whose batch is split over 'x' (psum of the local gradients)."""
    jnp, lax = jax.numpy, jax.lax
    w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    xb = np.linspace(-2, 2, 32, dtype=np.float32).reshape(8, 4)
    yb = np.linspace(0, 1, 24, dtype=np.float32).reshape(8, 3)

    def local_loss(w, xb, yb):
        return lax.pmean(_loss(jnp, w, xb, yb), "x")
    loss = jax.shard_map(local_loss, mesh=mesh, in_specs=(P(), P("x"), P("x")), out_specs=P())

    def local_grads(w, xb, yb):
        g = jax.grad(lambda w: _loss(jnp, w, xb, yb))(w)
        return lax.psum(g, "x") / lax.axis_size("x")
    # check_vma=False: with it, JAX's grad inside the body sums an invariant input's gradient
    # over the axes itself (its pvary transposes to psum); jxkernel has no varying types
    grads = jax.shard_map(local_grads, mesh=mesh, in_specs=(P(), P("x"), P("x")),
                          out_specs=P(), check_vma=False)
    g_outer = jax.jit(jax.grad(loss))(w, xb, yb)
    value, g_eager = jax.value_and_grad(loss)(w, xb, yb)
    return {"loss": float(value), "grad_of_shard_map": np.asarray(g_outer).tolist(),
            "grad_eager": np.asarray(g_eager).tolist(),
            "psum_of_grads": np.asarray(jax.jit(grads)(w, xb, yb)).tolist(),
            "unsharded_grad": np.asarray(jax.grad(lambda w: _loss(jnp, w, xb, yb))(w)).tolist(),
            "grad_spec": repr(g_outer.sharding.spec)}


def _transforms(jax, meshes, P):
    jnp, lax = jax.numpy, jax.lax
    mesh = meshes["2d"]
    center = jax.shard_map(lambda a: a - lax.pmean(a, "x"), mesh=mesh, in_specs=P("x", "y"),
                           out_specs=P("x", "y"))
    xs = np.arange(3 * 8 * 4, dtype=np.float32).reshape(3, 8, 4)
    vm = jax.vmap(center)(xs)
    scaled = jax.shard_map(lambda a, s: a * s, mesh=mesh, in_specs=(P("x"), P()),
                           out_specs=P("x"))
    vm2 = jax.vmap(scaled, in_axes=(None, 0))(np.arange(8, dtype=np.float32), np.arange(3.0,
                                                                                          dtype=np.float32))
    primal, tangent = jax.jvp(center, (xs[0],), (np.ones((8, 4), np.float32),))
    cube = jax.shard_map(lambda a: lax.psum(a ** 3, "y"), mesh=mesh, in_specs=P(None, "y"),
                         out_specs=P())
    g = jax.grad(lambda a: jnp.sum(cube(a)))(xs[0] / 10)
    eager = center(xs[0])
    return {"vmap": np.asarray(vm).tolist(), "vmap_spec": repr(vm.sharding.spec),
            "vmap_unbatched_arg": np.asarray(vm2).tolist(),
            "jvp": [np.asarray(primal).tolist(), np.asarray(tangent).tolist()],
            "grad_psum_y": np.asarray(g).tolist(),
            "eager": np.asarray(eager).tolist(), "eager_spec": repr(eager.sharding.spec)}


def _errors(jax, meshes, P):
    jnp, lax = jax.numpy, jax.lax
    mesh = meshes["2d"]
    x = np.arange(48, dtype=np.float32).reshape(6, 8)
    sm = jax.shard_map
    ident = lambda a: a     # noqa: E731

    def doubled(a):
        return a * 2
    return {
        "indivisible": _error(lambda: sm(ident, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)),
        "in_rank": _error(lambda: sm(ident, mesh=mesh, in_specs=P("x", None, "y"),
                                     out_specs=P("x"))(x[:4])),
        "out_rank": _error(lambda: sm(lambda a: jnp.sum(a), mesh=mesh, in_specs=P(),
                                      out_specs=P("x"))(x[:4])),
        "unknown_axis": _error(lambda: sm(ident, mesh=mesh, in_specs=P("z"),
                                          out_specs=P("x"))(x[:4])),
        "out_unknown_axis": _error(lambda: sm(ident, mesh=mesh, in_specs=P(),
                                              out_specs=P("q"))(x[:4])),
        "duplicate": _error(lambda: sm(ident, mesh=mesh, in_specs=P("x", "x"),
                                       out_specs=P())(x[:4])),
        "no_mesh": _error(lambda: sm(ident, in_specs=P("x"), out_specs=P("x"))(x[:4])),
        "prefix": _error(lambda: sm(lambda a, b: a, mesh=mesh, in_specs=(P(),),
                                    out_specs=P())(x[:4], x)),
        "vma_2d": _error(lambda: sm(doubled, mesh=mesh, in_specs=P("x"), out_specs=P())(x[:4])),
        "vma_1d": _error(lambda: sm(doubled, mesh=meshes["1d"], in_specs=P("x"),
                                    out_specs=P())(np.arange(8.0, dtype=np.float32))),
        "vma_ok_after_psum": _error(lambda: sm(lambda a: lax.psum(a, "x"), mesh=mesh,
                                               in_specs=P("x"), out_specs=P())(x[:4])),
        "vma_unchecked": _error(lambda: sm(doubled, mesh=mesh, in_specs=P("x"), out_specs=P(),
                                           check_vma=False)(x[:4])),
    }


def _lowered(jax, meshes, P):
    """Facts of `jit(shard_map(...)).lower(x).as_text()` that jxkernel's text shares."""
    lax = jax.lax
    body = lambda a: (lax.psum(a, "x"), lax.all_gather(a, "y", tiled=True),    # noqa: E731
                      lax.ppermute(a, "x", [(0, 1), (1, 2), (2, 3), (3, 0)]))
    f = jax.shard_map(body, mesh=meshes["2d"], in_specs=P("x", "y"),
                      out_specs=(P(None, "y"), P("x"), P("x", "y")), check_vma=False)
    text = jax.jit(f).lower(np.zeros((8, 8), np.float32)).as_text()
    needles = ["sdy.manual_computation", "manual_axes", '{"x", "y"}',
               "dense<[[0, 2, 4, 6], [1, 3, 5, 7]]>", "dense<[[0, 1], [2, 3], [4, 5], [6, 7]]>",
               "dense<[[0, 2], [2, 4], [4, 6], [6, 0], [1, 3], [3, 5], [5, 7], [7, 1]]>",
               "#stablehlo.channel_handle<handle = 1, type = 1>", "use_global_device_ids",
               "mhlo.num_partitions = 8", '<@mesh, [{"x"}, {"y"}]>']
    return {n: n in text for n in needles}


def _written_specs(jax, meshes, P):
    """The specs of results as out_specs writes them: eager keeps P(None,) and
    P("x", None) as written, jit's compiled results read them normalized."""
    mesh, out = meshes["1d"], {}
    for spec in (P(None), P(), P(None, None), P("x", None), P(None, "x")):
        f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P("x"), out_specs=spec,
                          check_vma=False)
        x = np.ones((8, 8), np.float32)
        out[repr(spec)] = [repr(f(x).sharding.spec), repr(jax.jit(f)(x).sharding.spec)]
    return out


def _refs(jax, meshes, P):
    """A jit's Ref arguments through a shard_map: the body writes its block of the Ref, and
    the Ref holds every block's write after the call (the in_specs inferred from the Ref's
    type over an Explicit axis, or given over Auto axes)."""
    jnp, lax = jax.numpy, jax.lax
    Mesh, NamedSharding = jax.sharding.Mesh, jax.sharding.NamedSharding
    out = {}
    explicit = Mesh(np.array(jax.devices()), ("x",),
                    axis_types=(jax.sharding.AxisType.Explicit,))
    with jax.set_mesh(explicit):
        x_ref = jax.new_ref(jnp.zeros(8, "float32", out_sharding=P("x")))

        @jax.jit
        @functools.partial(jax.shard_map, out_specs=None)
        def bump(r):
            r[...] += lax.axis_index("x").astype("float32")

        bump(x_ref)
        bump(x_ref)
        out["inferred"] = np.asarray(x_ref[...]).tolist()
    mesh = meshes["2d"]
    x_ref = jax.new_ref(jax.device_put(np.arange(8.0, dtype=np.float32),
                                       NamedSharding(mesh, P("x"))))

    def add(r, y):
        r[...] += y * (lax.axis_index("x") + 1)
        return r[...] * 2

    f = jax.jit(jax.shard_map(add, mesh=mesh, in_specs=(P("x"), P("x")), out_specs=P("x"),
                              check_vma=False))
    y = f(x_ref, np.ones(8, np.float32))
    out["given"] = [np.asarray(y).tolist(), np.asarray(x_ref[...]).tolist()]
    return out


def run(jax):
    Mesh, P = jax.sharding.Mesh, jax.sharding.PartitionSpec
    devices = np.array(jax.devices())
    meshes = {"1d": Mesh(devices, ("x",)), "2d": Mesh(devices.reshape(4, 2), ("x", "y"))}
    return {"collectives": _collectives(jax, meshes, P),
            "data_parallel": _data_parallel(jax, meshes["1d"], P),
            "transforms": _transforms(jax, meshes, P),
            "errors": _errors(jax, meshes, P), "lowered": _lowered(jax, meshes, P),
            "written_specs": _written_specs(jax, meshes, P), "refs": _refs(jax, meshes, P)}
