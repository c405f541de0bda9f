"""pmap programs run alike by real JAX (reference/make_pmap_reference.py records them in
pmap_reference.json) and by jxkernel (tests/api/test_pmap.py, in a subprocess with 8 CPU
devices): `run(jax)` returns plain JSON data — values, the result's type name and `.sharding`
repr, the jaxprs of pmap and of jit(pmap), in_axes/out_axes, static arguments, collectives,
nesting, grad, vmap, donation and error texts.

    run(jax)["values"]["psum_mul"]  ->  {"value": [...], "type": "ArrayImpl", "sharding": "..."}

JAX 0.10.2's pmap is jit of shard_map over a one-axis Mesh named `axis_name`. Values are small
integers in float32, so every sum is exact.
"""
import functools

import numpy as np
from recorded_errors import TRACEBACK_NOTE, error_of

_error = functools.partial(error_of, cut=TRACEBACK_NOTE)


def _describe(x):
    return {"value": np.asarray(x).tolist(), "shape": list(np.shape(x)),
            "dtype": str(np.asarray(x).dtype), "type": type(x).__name__,
            "sharding": repr(x.sharding)}


def _programs(jax):
    """name -> (pmapped function, arguments)."""
    lax, jnp = jax.lax, jax.numpy
    x4 = np.arange(4, dtype=np.float32)
    x42 = np.arange(8, dtype=np.float32).reshape(4, 2)
    x24 = x42.T.copy()
    pm = functools.partial(jax.pmap, axis_name="i")
    return {
        "psum_mul": (pm(lambda x: lax.psum(x, "i") * x), (x4,)),
        "pmean": (pm(lambda x: x - lax.pmean(x, "i")), (x42,)),
        "all_gather": (pm(lambda x: lax.all_gather(x, "i")), (x4,)),
        "ppermute": (pm(lambda x: lax.ppermute(x, "i", [(j, (j + 1) % 4) for j in range(4)])),
                     (x42,)),
        "axis_index": (pm(lambda x: x + lax.axis_index("i")), (x4,)),
        "no_axis_name": (jax.pmap(lambda x: x * 2), (x42,)),
        "in_axes_1": (pm(lambda x: x.sum() + lax.psum(x, "i"), in_axes=1), (x24,)),
        "in_axes_none": (pm(lambda x, y: x * y, in_axes=(0, None)), (x4, np.float32(3))),
        "in_axes_tree": (pm(lambda d: d["a"] + d["b"], in_axes=({"a": 0, "b": None},)),
                         ({"a": x4, "b": np.float32(1)},)),
        "out_axes_1": (pm(lambda x: x * 2, out_axes=1), (x42,)),
        "out_axes_none": (pm(lambda x: lax.psum(x, "i"), out_axes=None), (x42,)),
        "out_axes_tree": (pm(lambda x: (x, lax.psum(x, "i")), out_axes=(0, None)), (x4,)),
        "static": (pm(lambda x, n: x * n, static_broadcasted_argnums=1), (x4, 3)),
        "kwargs": (pm(lambda x, y=None: x + y), (x4,), {"y": x4}),
        "pytree_out": (pm(lambda x: {"a": x, "b": (x * 2,)}), (x4,)),
        "grad_inside": (pm(jax.grad(lambda x: lax.psum(x * x, "i"))), (x4,)),
        "vmap_of_pmap": (jax.vmap(pm(lambda x: lax.psum(x, "i"))), (x24,)),
        "jit_of_pmap": (jax.jit(pm(lambda x: lax.psum(x, "i") * x)), (x4,)),
        "pmap_of_jit": (pm(jax.jit(lambda x: lax.psum(x, "i") * x)), (x4,)),
    }


def _values(jax):
    out = {}
    for name, (f, args, *kw) in _programs(jax).items():
        res = f(*args, **(kw[0] if kw else {}))
        out[name] = jax.tree_util.tree_map(_describe, res)
    return out


def _jaxprs(jax):
    lax = jax.lax
    x4 = np.arange(4, dtype=np.float32)
    f = jax.pmap(lambda x: lax.psum(x, "i") * x, axis_name="i")
    g = jax.pmap(lambda x, y: x * y, axis_name="i", in_axes=(0, None), out_axes=0)
    h = jax.pmap(lambda x: x * 2, in_axes=1, out_axes=None)
    x24 = np.ones((2, 4), np.float32)
    return {"pmap": str(jax.make_jaxpr(f)(x4)), "jit_pmap": str(jax.make_jaxpr(jax.jit(f))(x4)),
            "in_axes_none": str(jax.make_jaxpr(g)(x4, np.float32(2))),
            "in_axes_1_out_none": str(jax.make_jaxpr(h)(x24)),
            "grad_of_pmap": str(jax.make_jaxpr(jax.grad(lambda x: f(x).sum()))(x4))}


def _transforms(jax):
    lax = jax.lax
    x4 = np.arange(4, dtype=np.float32) + 1
    f = jax.pmap(lambda x: lax.psum(x, "i") * jax.numpy.sin(x), axis_name="i")
    grad = jax.grad(lambda x: f(x).sum())(x4)
    jvp = jax.jvp(f, (x4,), (np.ones(4, np.float32),))
    return {"grad_of_pmap": _describe(grad), "jvp": [_describe(v) for v in jvp],
            "jit_grad_of_pmap": _describe(jax.jit(jax.grad(lambda x: f(x).sum()))(x4))}


def _donation(jax):
    x = jax.numpy.arange(4.0)
    f = jax.pmap(lambda x: x + 1, donate_argnums=0)
    y = f(x)
    return {"value": np.asarray(y).tolist(), "deleted": bool(x.is_deleted())}


def _device_put(jax):
    # JAX 0.10.2 removed device_put_replicated/device_put_sharded (AttributeError naming
    # jax.device_put); the drop-in is device_put with a NamedSharding over a mesh
    devs = jax.devices()[:4]
    mesh = jax.sharding.Mesh(np.array(devs), ("i",))
    P = jax.sharding.PartitionSpec
    s = jax.device_put(np.arange(4, dtype=np.float32), jax.sharding.NamedSharding(mesh, P("i")))
    pm = jax.pmap(lambda a, b: a * b, in_axes=(0, None))
    return {"replicated": _error(lambda: jax.device_put_replicated),
            "sharded": _error(lambda: jax.device_put_sharded),
            "pmap_of_sharded": _describe(pm(s, np.float32(2)))}


def _errors(jax):
    lax = jax.lax
    n = len(jax.devices())
    ident = jax.pmap(lambda x: x)
    return {
        "size_mismatch": _error(lambda: jax.pmap(lambda a, b: a + b)(np.ones(4), np.ones(2))),
        "too_many": _error(lambda: ident(np.ones(n + 1))),
        "scalar_mapped": _error(lambda: jax.pmap(lambda x, y: x * y)(np.ones((2, 2)), 3.0)),
        "in_axes_type": _error(lambda: jax.pmap(lambda x: x, in_axes=1.0)),
        "no_mapped_input": _error(lambda: jax.pmap(lambda x: x, in_axes=None)(np.ones(2))),
        "static_out_of_range": _error(
            lambda: jax.pmap(lambda x, n: x, static_broadcasted_argnums=1)(np.ones(2))),
        "axis_size_mismatch": _error(lambda: jax.pmap(lambda x: x, axis_size=3)(np.ones(2))),
        "unbound_axis": _error(lambda: jax.pmap(lambda x: lax.psum(x, "j"), axis_name="i")(
            np.ones(2))),
        # JAX 0.10.2's pmap does not nest: the inner shard_map's mesh is not the context's
        "nested": _error(lambda: jax.pmap(jax.pmap(lambda x: lax.psum(x, ("i", "j")),
                                                   axis_name="j"), axis_name="i")(
            np.ones((2, 2), np.float32))),
        "empty_devices": _error(lambda: jax.pmap(lambda x: x, devices=[])),
    }


def _other_mesh(jax):
    """Arguments sharded over another mesh of the devices (Chex's `_device_put_replicated`
    names its own axis), eagerly and under jit: the values (the shardings differ, see the
    test's known differences)."""
    devices = jax.devices()
    mesh = jax.sharding.Mesh(np.array(devices), ("_device_put_replicated",))
    x = jax.device_put(np.arange(len(devices) * 3, dtype=np.float32).reshape(len(devices), 3),
                       jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(
                           "_device_put_replicated")))
    f = jax.pmap(lambda a: jax.lax.pmean(a, "i") * 2, axis_name="i")
    return {"eager": np.asarray(f(x)).tolist(), "jit": np.asarray(jax.jit(f)(x)).tolist()}


def _lowered(jax):
    """pmap(f).lower(...): its in_tree is pmap's arguments', and its Compiled takes them."""
    x = np.ones((jax.device_count(), 3), np.float32)
    low = jax.pmap(lambda a, b: a["u"] * 2 + b).lower({"u": x}, x)
    return {"in_tree": repr(low.in_tree), "called": np.asarray(low.compile()({"u": x}, x)).tolist()}


def run(jax):
    return {"values": _values(jax), "jaxprs": _jaxprs(jax), "transforms": _transforms(jax),
            "donation": _donation(jax), "device_put": _device_put(jax), "errors": _errors(jax),
            "other_mesh": _other_mesh(jax), "lowered": _lowered(jax)}
