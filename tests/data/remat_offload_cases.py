"""Checkpoint policies answering `Recompute`, `Saveable` or `Offloadable(src, dst)`
(jax.ad_checkpoint's remat cases) instead of a bool: the gradients and the error for another answer. Shared by reference/make_remat_offload_reference.py
(real JAX 0.10.2) and tests/transforms/test_remat_offload.py (jxkernel).

`run(jax)` returns {case: value}: gradients as lists, error texts.
"""
import importlib

import numpy as np


def run(jax) -> dict:
    jnp = jax.numpy
    adc = importlib.import_module(f"{jax.__name__}.ad_checkpoint")
    policies = jax.checkpoint_policies
    x = np.arange(3.0, dtype=np.float32)

    def f(v):
        y = adc.checkpoint_name(jnp.sin(v), "y")
        z = adc.checkpoint_name(jnp.cos(y), "z")
        return jnp.sum(y * z)

    def mat(v):
        m = jnp.outer(v, v)
        return jnp.sum(jnp.sin(m @ m))

    answers = {
        "offload_names": policies.save_and_offload_only_these_names(
            names_which_can_be_saved=["z"], names_which_can_be_offloaded=["y"],
            offload_src="device", offload_dst="pinned_host"),
        "recompute_all": lambda *_, **__: adc.Recompute,
        "save_all": lambda *_, **__: adc.Saveable,
    }
    out = {"offloadable_repr": repr(adc.Offloadable(src="device", dst="pinned_host"))}
    for name, policy in answers.items():
        g = jax.grad(jax.checkpoint(f, policy=policy))(x)
        out[f"{name}/grad"] = np.asarray(g).tolist()
    dots = jax.checkpoint(mat, policy=policies.offload_dot_with_no_batch_dims("device",
                                                                                "pinned_host"))
    out["offload_dots/grad"] = np.asarray(jax.grad(dots)(x)).tolist()
    for name, answer in (("int", 3), ("class", adc.Offloadable)):
        try:
            jax.grad(jax.checkpoint(f, policy=lambda *_, a=answer, **__: a))(x)
            out[f"error/{name}"] = None
        except Exception as e:       # noqa: BLE001 (the error is the fact recorded)
            out[f"error/{name}"] = f"{type(e).__name__}: {e}"
    try:
        policies.save_and_offload_only_these_names(
            names_which_can_be_saved=["y"], names_which_can_be_offloaded=["y"],
            offload_src="device", offload_dst="pinned_host")
        out["error/intersect"] = None
    except ValueError as e:
        out["error/intersect"] = f"ValueError: {e}"
    return out
