"""jax.checkpoint around and inside a shard_map, by policy, run alike by real JAX
(reference/make_remat_shard_map_reference.py records them in remat_shard_map_reference.json)
and by jxkernel (tests/sharding/test_remat_shard_map.py, in a subprocess with 8 CPU devices):
what `saved_residuals` lists (each residual's type and whether it is an argument or a
shard_map's result: JAX names no source line for the latter) and the gradient.

    run(jax)["names_mid/named/outer"]["saved"]
        ->  [["float32[4]", "from the argument a"], ["float32[4]", "output of shard_map"]]

The 1-D mesh of shard_map_test.py's remat tests (4 devices of the 8).
"""
import importlib

import numpy as np


def _saved(saved_residuals, f, x) -> list:
    out = []
    for aval, source in saved_residuals(f, x):
        kind = "output of shard_map" if source.startswith("output of shard_map") else source
        out.append([aval.str_short(), kind])
    return out


def run(jax) -> dict:
    jnp, lax = jax.numpy, jax.lax
    P = jax.sharding.PartitionSpec
    adc = importlib.import_module(jax.__name__ + ".ad_checkpoint")
    saved_residuals = importlib.import_module(jax.__name__ + "._src.ad_checkpoint").saved_residuals
    cp, checkpoint_name = adc.checkpoint_policies, adc.checkpoint_name
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("x",))
    x = jnp.arange(4.0) / 4

    def sm(f, check=True):
        return jax.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P("x"), check_vma=check)

    bodies = {
        "sin": lambda a: jnp.sin(jnp.sin(a)),
        "named": lambda a: jnp.sin(checkpoint_name(jnp.sin(a) * 2, "mid")),
        "dots": lambda a: jnp.sin(jnp.dot(a[:, None], a[None, :]).sum(0)),
        "gather": lambda a: lax.all_gather(a, "x") * lax.all_gather(a, "x"),
        "scalar": lambda a: jnp.sin(jnp.sin(jnp.sin(a.sum()))[None]),
    }
    policies = {
        "none": None, "everything": cp.everything_saveable, "nothing": cp.nothing_saveable,
        "names_mid": cp.save_only_these_names("mid"), "dots": cp.dots_saveable,
        "dots_no_batch": cp.dots_with_no_batch_dims_saveable,
        "names_but": cp.save_any_names_but_these("other"),
    }
    out = {}
    for pname, policy in policies.items():
        for bname, body in bodies.items():
            for where, check in (("outer", True), ("inner", True), ("outer_unchecked", False)):
                if where == "inner":
                    f = sm(jax.checkpoint(body, policy=policy))
                else:
                    f = jax.checkpoint(sm(body, check), policy=policy)
                grad = jax.grad(lambda v: f(v).sum())(x)
                out[f"{pname}/{bname}/{where}"] = {
                    "saved": _saved(saved_residuals, f, x),
                    "grad": np.asarray(grad).tolist()}
    return out
