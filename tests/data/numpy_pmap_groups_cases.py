"""Collectives with axis_index_groups in a pmap over 4 devices, as XLA's replica groups:
psum of groups of several sizes, all_gather (stacked and tiled), psum_scatter, all_to_all and
the gradient of a grouped all_gather; and vmap's refusal of groups (JAX's NotImplementedError).
Recorded from JAX 0.10.2 on 4 simulated CPU devices by
reference/make_numpy_pmap_callbacks_reference.py into
tests/data/numpy_pmap_groups_reference.json; tests/xla/test_numpy_backend.py runs the same on
4 NumPy devices (the NumPy backend batches a pmap body over the devices, and the collectives'
batching rules refused groups as vmap's do)."""
import numpy as np


def run(jax) -> dict:
    lax, out = jax.lax, {}
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    x3 = np.arange(16.0, dtype=np.float32).reshape(4, 2, 2)
    pairs, interleaved = [[0, 1], [2, 3]], [[0, 2], [1, 3]]
    out["psum_uneven"] = jax.pmap(lambda v: lax.psum(v, "i", axis_index_groups=[[0], [1, 2, 3]]),
                                  "i")(x).tolist()
    out["pmax"] = jax.pmap(lambda v: lax.pmax(v, "i", axis_index_groups=interleaved), "i")(
        x).tolist()
    out["gather"] = jax.pmap(lambda v: lax.all_gather(v, "i", axis_index_groups=interleaved),
                             "i")(x).tolist()
    out["gather_tiled"] = jax.pmap(lambda v: lax.all_gather(
        v, "i", axis_index_groups=pairs, axis=1, tiled=True), "i")(x3).tolist()
    out["scatter_tiled"] = jax.pmap(lambda v: lax.psum_scatter(
        v, "i", axis_index_groups=interleaved, tiled=True), "i")(x).tolist()
    out["scatter"] = jax.pmap(lambda v: lax.psum_scatter(
        v, "i", scatter_dimension=1, axis_index_groups=pairs), "i")(x3).tolist()
    out["all_to_all"] = jax.pmap(lambda v: lax.all_to_all(
        v, "i", 0, 0, axis_index_groups=interleaved), "i")(x).tolist()
    grad = jax.pmap(jax.grad(lambda v: (lax.all_gather(v, "i", axis_index_groups=pairs)
                                        * np.arange(4.0, dtype=np.float32)[:2, None]).sum()),
                    "i")
    out["grad_gather"] = grad(x).tolist()
    try:
        jax.vmap(lambda v: lax.psum(v, "i", axis_index_groups=pairs), axis_name="i")(x)
        out["vmap"] = "no error"
    except NotImplementedError as e:
        out["vmap"] = ["NotImplementedError", str(e)]
    return out
