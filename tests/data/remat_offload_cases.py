"""Checkpoint policies answering `Recompute`, `Saveable` or `Offloadable(src, dst)`
(jax.ad_checkpoint's remat cases) instead of a bool: the gradients and the error for another
answer, and where an offloaded residual lives (the host-offloading tutorial's policies): the
jaxprs of grad, vjp and linearize, with the device_put to host memory in the forward pass and
back to the device in the backward pass, the lowered module, the residuals' memory kinds.
Shared by reference/make_remat_offload_reference.py (real JAX 0.10.2) and
tests/transforms/test_remat_offload.py (jxkernel).

`run(jax)` returns {case: value}: gradients as lists, error texts, jaxpr and module texts,
under "placements/" the device_put lines and host-typed binders of a jaxpr (its text differs
from JAX's elsewhere there), under "residuals/" a vjp's residuals' types and memory kinds.
"""
import importlib
import re

import numpy as np


def placements(closed) -> dict:
    """Where a jaxpr's values live: its device_put equations' targets, in order, the types
    its values are given in host memory (the equations' order and names differ, and JAX
    wraps a scan in a closed_call), and the types the backward pass's remat2 takes."""
    text = str(closed)
    remat = next(e for e in closed.jaxpr.eqns if e.primitive.name == "remat2")
    inner = getattr(remat.params["jaxpr"], "jaxpr", remat.params["jaxpr"])
    return {"devices": re.findall(r"devices=\(([^)]*)\)", text),
            "host_types": sorted(set(re.findall(r"\b[a-z]+:(\w+<host>\[[\d,]*\])", text))),
            "remat_inputs": sorted(v.aval.str_short() for v in inner.invars)}


def _offload_cases(jax, adc, out):
    """The tutorial's policy, offloading checkpoint_name'd values (with one saved beside
    them) or dot products' results to pinned host memory."""
    jnp, policies = jax.numpy, jax.checkpoint_policies
    x = jnp.arange(3.0)
    w = jnp.arange(4.0).reshape(2, 2) / 4
    offload_y = policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["y"],
        offload_src="device", offload_dst="pinned_host")
    save_z = policies.save_and_offload_only_these_names(
        names_which_can_be_saved=["z"], names_which_can_be_offloaded=["y"],
        offload_src="device", offload_dst="pinned_host")

    def f(v):
        y = adc.checkpoint_name(jnp.sin(v), "y")
        return jnp.sum(jnp.cos(y) * v)

    def f2(v):
        y = adc.checkpoint_name(jnp.sin(v), "y")
        z = adc.checkpoint_name(jnp.exp(y), "z")
        return jnp.sum(jnp.cos(z) * y)

    def dots(a, b):
        return jnp.sum(jnp.sin(a @ jnp.tanh(a @ b)))

    def scanned(v):
        def body(c, xi):
            return jnp.cos(adc.checkpoint_name(jnp.sin(c * xi), "y")), None
        return jnp.sum(jax.lax.scan(body, v, jnp.arange(2.0))[0])

    def branchy(v):
        return jnp.sum(jax.lax.cond(v[0] > 0, lambda u: jnp.cos(adc.checkpoint_name(
            jnp.sin(u), "y")), jnp.exp, v))

    g = jax.grad(jax.checkpoint(f, policy=offload_y))
    out["offload_y/jaxpr"] = str(jax.make_jaxpr(g)(x))
    out["offload_y/grad"] = np.asarray(g(x)).tolist()
    out["offload_y/jit_grad"] = np.asarray(jax.jit(g)(x)).tolist()
    out["offload_y/lowered"] = jax.jit(g).lower(x).as_text()
    out["offload_y/vjp_jaxpr"] = str(jax.make_jaxpr(
        lambda v: jax.vjp(jax.checkpoint(f, policy=offload_y), v)[1](1.0))(x))
    lin = jax.make_jaxpr(lambda v: jax.linearize(jax.checkpoint(f, policy=offload_y), v)[1](v))
    out["placements/offload_y_linearize"] = placements(lin(x))
    out["offload_y_linearize/grad"] = np.asarray(
        jax.linearize(jax.checkpoint(f, policy=offload_y), x)[1](x)).tolist()
    for name, make in (("eager", lambda v: jax.vjp(jax.checkpoint(f, policy=offload_y), v)),
                       ("jit", jax.jit(lambda v: jax.vjp(jax.checkpoint(f, policy=offload_y),
                                                         v)))):
        _, pullback = make(x)
        out[f"residuals/{name}"] = sorted(
            [str(jax.typeof(r)), r.sharding.memory_kind]
            for r in jax.tree_util.tree_leaves(pullback))
    g2 = jax.grad(jax.checkpoint(f2, policy=save_z))
    out["save_and_offload/jaxpr"] = str(jax.make_jaxpr(g2)(x))
    out["save_and_offload/grad"] = np.asarray(g2(x)).tolist()
    out["save_and_offload/jit_grad"] = np.asarray(jax.jit(g2)(x)).tolist()
    # a saved residual comes before the inputs, as an offloaded one
    g_saved = jax.grad(jax.checkpoint(f2, policy=policies.save_only_these_names("z")))
    out["save_names/jaxpr"] = str(jax.make_jaxpr(g_saved)(x))
    g3 = jax.grad(jax.checkpoint(dots, policy=policies.offload_dot_with_no_batch_dims(
        "device", "pinned_host")))
    out["offload_dots_2/jaxpr"] = str(jax.make_jaxpr(g3)(w, w))
    out["offload_dots_2/grad"] = np.asarray(g3(w, w)).tolist()
    out["offload_dots_2/jit_grad"] = np.asarray(jax.jit(g3)(w, w)).tolist()
    # JAX's pe.partial_eval_jaxpr_custom, asked of the policy directly
    pe = importlib.import_module(f"{jax.__name__}._src.interpreters.partial_eval")
    jaxpr = jax.make_jaxpr(lambda v, t: jnp.cos(adc.checkpoint_name(jnp.sin(v), "y")) * t)(
        x, x).jaxpr
    known, staged, *rest = pe.partial_eval_jaxpr_custom(jaxpr, [False, True], [True, True],
                                                        False, False, offload_y)
    out["partial_eval_custom/jaxpr"] = [str(known), str(staged), repr(rest)]
    for name, fun in (("scan", scanned), ("cond", branchy)):
        gf = jax.grad(jax.checkpoint(fun, policy=offload_y))
        out[f"placements/{name}"] = placements(jax.make_jaxpr(gf)(x))
        out[f"offload_{name}/grad"] = np.asarray(gf(x)).tolist()
        out[f"offload_{name}/jit_grad"] = np.asarray(jax.jit(gf)(x)).tolist()


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
    _offload_cases(jax, adc, out)
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
