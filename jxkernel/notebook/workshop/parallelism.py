"""The exercises of demos/09_parallelism.ipynb (four simulated CPU devices)."""
from __future__ import annotations

import numpy as np

from ... import device_count, grad
from ... import numpy as jnp
from ...core.mesh import NamedSharding, PartitionSpec   # plain Python: loads no sharded arrays
from . import NotYet, exercise

DATA = np.arange(1.0, 13.0, dtype=np.float32).reshape(4, 3)     # a row per device


def _on_devices(answer, *args, what):
    """answer(*args), checking it used the devices: a pmapped function cannot map more rows
    than there are devices."""
    got = np.asarray(answer(*args))
    try:
        too_many = np.concatenate([args[-1], args[-1][:1]])
        answer(*args[:-1], too_many)
    except ValueError:
        return got                                  # pmap refused 5 rows on 4 devices
    raise NotYet(f"{what} ran on one device (it accepted more rows than there are devices): "
                 f"use jax.pmap.")


@exercise("par-pmap", hints=(
    "jax.pmap(f) runs f once per device, on one row of the input each.",
    "The function itself squares its argument: lambda x: x ** 2.",
    "per_device_square = jax.pmap(lambda x: x ** 2)",
), solution="per_device_square = jax.pmap(lambda x: x ** 2)")
def _pmap(answer):
    if device_count() < 4:
        raise NotYet(f"This kernel has {device_count()} device(s); run the notebook's first "
                     f"cell in a fresh kernel (Kernel > Restart) to get four.")
    got = _on_devices(answer, DATA, what="per_device_square")
    if not np.array_equal(got, DATA ** 2):
        raise NotYet(f"per_device_square gave {got.tolist()}, not the squares.")


@exercise("par-psum", hints=(
    "Each device sees only its row. lax.psum(v, 'devices') adds v over all devices, and "
    "every device gets the total.",
    "Divide each device's row by the psum of the row sums: x / lax.psum(x.sum(), 'devices').",
    "jax.pmap(lambda x: x / lax.psum(x.sum(), 'devices'), axis_name='devices')",
), solution="normalize = jax.pmap(lambda x: x / lax.psum(x.sum(), 'devices'),\n"
            "                     axis_name='devices')")
def _psum(answer):
    got = _on_devices(answer, DATA, what="normalize")
    want = DATA / DATA.sum()
    # one division of exact integers by an exact sum (78): within an ulp of the float64 value
    if got.shape != want.shape or not np.allclose(got, want, rtol=2e-7, atol=0):
        raise NotYet(f"normalize should divide every number by the total over all devices "
                     f"({DATA.sum():g}); the result's sum is {got.sum():.4g}, not 1.")


@exercise("par-pmean-grad", hints=(
    "Each device computes the gradient of the loss on its own shard of the data.",
    "lax.pmean(g, 'batch') averages g over the devices: with equal shards that is the "
    "gradient of the whole batch's mean loss.",
    "jax.pmap(lambda w, x, y: lax.pmean(jax.grad(loss)(w, x, y), 'batch'), "
    "axis_name='batch', in_axes=(None, 0, 0))",
), solution="parallel_grad = jax.pmap(lambda w, x, y: lax.pmean(jax.grad(loss)(w, x, y), 'batch'),\n"
            "                         axis_name='batch', in_axes=(None, 0, 0))")
def _pmean_grad(answer):
    w = np.array([0.5, -1.0, 2.0], np.float32)
    xs = np.linspace(-1.0, 1.0, 24, dtype=np.float32).reshape(4, 2, 3)   # 4 shards of 2
    ys = np.arange(8, dtype=np.float32).reshape(4, 2)

    def loss(w, x, y):
        return jnp.mean((x @ w - y) ** 2)
    got = np.asarray(answer(w, xs, ys))
    if got.shape != (4, 3):
        raise NotYet(f"parallel_grad(w, X, Y) should give one gradient (3 numbers) per device, "
                     f"shape (4, 3), not {got.shape}.")
    want = np.asarray(grad(loss)(w, xs.reshape(8, 3), ys.reshape(8)))
    if not np.allclose(got, want[None], rtol=1e-5, atol=1e-6):   # sums of 8 in float32
        raise NotYet("Each device should hold the gradient of the whole batch: average the "
                     "devices' gradients with lax.pmean.")


GRID = np.arange(16.0, dtype=np.float32).reshape(4, 4)


def _index_text(index) -> str:
    return "a[" + ", ".join(":" if s.start is None else f"{s.start}:{s.stop}" for s in index) + "]"


def _wanted_blocks(mesh) -> dict:
    """Device id -> the columns it should hold: split over 'model', copied over 'data'."""
    return {d.id: _index_text(i) for d, i in NamedSharding(mesh, PartitionSpec(None, "model"))
            .devices_indices_map(GRID.shape).items()}


@exercise("par-shard-columns", hints=(
    "jax.device_put(a, sharding) puts `a` on the devices the way `sharding` says; a "
    "NamedSharding(mesh, spec) names, per dimension of the array, the mesh axis it is split over.",
    "The rows are dimension 0 (not split: None), the columns dimension 1 (split over 'model'): "
    "P(None, 'model'). The 'data' axis is left out, so each block is copied over it.",
    "def by_columns(a):\n    return jax.device_put(a, NamedSharding(mesh, P(None, 'model')))",
), solution="def by_columns(a):\n"
            "    return jax.device_put(a, NamedSharding(mesh, P(None, \"model\")))")
def _shard_columns(answer):
    if device_count() < 4:
        raise NotYet(f"This kernel has {device_count()} device(s); run the notebook's first "
                     f"cell in a fresh kernel (Kernel > Restart) to get four.")
    got = answer(GRID)
    sharding = getattr(got, "sharding", None)
    mesh = getattr(sharding, "mesh", None)
    if mesh is None or len(getattr(got, "devices", lambda: ())()) < 4:
        raise NotYet("by_columns(a) should put `a` on all four devices of the mesh: "
                     "jax.device_put(a, NamedSharding(mesh, P(...))).")
    if not np.array_equal(np.asarray(got), GRID):
        raise NotYet("by_columns(a) changed the numbers: it should only move `a`.")
    if tuple(mesh.axis_names) != ("data", "model"):
        raise NotYet(f"Use the notebook's mesh (axes 'data' and 'model'), not one with axes "
                     f"{tuple(mesh.axis_names)}.")
    held = {d.id: _index_text(i) for d, i in sharding.devices_indices_map(GRID.shape).items()}
    wanted = _wanted_blocks(mesh)
    if held != wanted:
        wrong = min(d for d in held if held[d] != wanted[d])
        raise NotYet(f"Device {wrong} holds {held[wrong]}; it should hold {wanted[wrong]}: "
                     f"the columns split over 'model', the rows whole.")
