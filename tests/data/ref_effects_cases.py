"""The effects of jaxprs reading and writing Refs (`jaxpr.effects`: JAX's ReadEffect,
WriteEffect, AccumEffect, all RefEffects, from jax._src.state.types), and that an unused read
is dropped by DCE. Shared by reference/make_ref_effects_reference.py (real JAX 0.10.2) and
tests/api/test_ref_effects.py (jxkernel).

`run(jax)` returns {case: the effects' class names, sorted, or a bool or count}. (JAX's
effects name the jaxpr's input by its Var, jxkernel's by its position: not compared.)
"""
import importlib

import numpy as np


def run(jax) -> dict:
    jnp = jax.numpy
    types = importlib.import_module(f"{jax.__name__}._src.state.types")
    core = importlib.import_module(f"{jax.__name__}._src.core")

    def add_one(r):
        r[...] += 1.0

    def read(r):
        return r[...] * 2.0

    def write(r):
        r[0] = 3.0

    def accum(r):
        jax.ref.addupdate(r, ..., jnp.ones(3))

    def made_inside(x):
        r = core.new_ref(x)
        r[0] = 1.0
        return r[...]

    ref = core.new_ref(np.zeros(3, np.float32))
    out = {}
    for name, f in (("add_one", add_one), ("read", read), ("write", write), ("accum", accum),
                    ("jit_add_one", jax.jit(add_one))):
        effects = jax.make_jaxpr(f)(ref).effects
        out[name] = sorted(type(e).__name__ for e in effects)
        out[f"{name}/all_ref_effects"] = all(isinstance(e, types.RefEffect) for e in effects)
    effects = jax.make_jaxpr(made_inside)(np.zeros(3, np.float32)).effects
    out["made_inside/has_ref_effect"] = any(isinstance(e, types.RefEffect) for e in effects)

    def unused_read(r):
        _ = r[...]
        return 1.0
    jaxpr = jax.make_jaxpr(unused_read)(ref).jaxpr
    dce = importlib.import_module(f"{jax.__name__}._src.interpreters.partial_eval").dce_jaxpr
    out["unused_read_after_dce"] = len(dce(jaxpr, [True])[0].eqns)
    return out
