"""Host data passed to a jit whose body constrains it, on 8 CPU devices, run alike by real JAX
(reference/make_open_inputs_reference.py records them in open_inputs_reference.json) and by
jxkernel (tests/sharding/test_open_inputs.py, in a subprocess): the parameter has no sharding
of its own (no `sdy.sharding` in the module), XLA's propagation lays it out as the constraint
says, the compiled program takes it so, and a result that passes it through is laid out so too.

    run(jax)["lowered/main"]  ->  'func.func public @main(%arg0: tensor<16xf32>) -> ...'

A 1-d mesh of 8 Auto axes; values are small integers in float32, so every result is exact.
"""
import importlib

import numpy as np


def run(jax):
    lax = jax.lax
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    jtu = importlib.import_module(jax.__name__ + "._src.test_util")
    mesh = jax.sharding.Mesh(np.array(jax.devices()), ("x",))
    s = NamedSharding(mesh, P("x"))
    x = np.arange(16.0, dtype=np.float32)

    @jax.jit
    def f(a):
        return a, lax.with_sharding_constraint(a, s) * 2

    out = {"lowered/main": next(line.strip() for line in f.lower(x).as_text().splitlines()
                                if "func.func public @main" in line)}
    compiled = f.lower(x).compile()
    out["compiled/input_is_x"] = compiled.input_shardings[0][0].is_equivalent_to(s, 1)
    with jtu.count_pjit_cpp_cache_miss() as count:
        passed, doubled = f(x)
    out["first_call_misses"] = count()
    out["passed/spec"] = str(passed.sharding.spec)
    out["doubled/spec"] = str(doubled.sharding.spec)
    out["values"] = [np.asarray(passed).tolist(), np.asarray(doubled).tolist()]
    again = f(x)
    out["again/specs"] = [str(a.sharding.spec) for a in again]

    @jax.jit
    def g(a):                # unconstrained: replicated, as before
        return a * 3
    out["plain/spec"] = str(g(x).sharding.spec) if hasattr(g(x).sharding, "spec") else \
        type(g(x).sharding).__name__
    return out
