"""jit and pjit given bare PartitionSpecs under `with mesh:` (the legacy mesh context) and
`set_mesh`, run alike by real JAX (reference/make_jit_context_mesh_reference.py records them in
jit_context_mesh_reference.json) and by jxkernel (tests/sharding/test_jit_context_mesh.py, in a
subprocess with 8 CPU devices): JAX's jit reads set_mesh's mesh only, pjit the `with mesh:`
block's.

    run(jax)["jit/in/with_mesh"]  ->  ["RuntimeError", "jit requires a non-empty mesh ..."]
"""
import importlib
import warnings

import numpy as np
from recorded_errors import TRACEBACK_NOTE, error_of


def _sharding(f, x):
    """The result's mesh shape and spec, or what the call raised."""
    def call():
        return f(x).sharding
    found = error_of(call, cut=TRACEBACK_NOTE)
    if found is not None:
        return found
    s = call()
    return [dict(s.mesh.shape), str(s.spec)]


def run(jax) -> dict:
    warnings.simplefilter("ignore", DeprecationWarning)      # `with mesh:` is deprecated
    P = jax.sharding.PartitionSpec
    pjit = importlib.import_module(jax.__name__ + ".experimental.pjit").pjit
    devices = np.array(jax.devices())
    mesh = jax.sharding.Mesh(devices.reshape(2, 4), ("x", "y"))
    other = jax.sharding.Mesh(devices.reshape(4, 2), ("x", "y"))
    x = jax.numpy.arange(16.0).reshape(4, 4)
    out = {}
    for name, kw in (("in", dict(in_shardings=P("x"))), ("out", dict(out_shardings=P("x"))),
                     ("both", dict(in_shardings=P("x"), out_shardings=P(None, "y")))):
        for api, wrap in (("jit", jax.jit), ("pjit", pjit)):
            def f():
                return wrap(lambda a: a * 2, **kw)      # a fresh function per context
            with mesh:
                out[f"{api}/{name}/with_mesh"] = _sharding(f(), x)
                out[f"{api}/{name}/with_mesh_lower"] = error_of(
                    lambda: f().lower(x), cut=TRACEBACK_NOTE)
            out[f"{api}/{name}/none"] = _sharding(f(), x)
            with jax.set_mesh(mesh):
                out[f"{api}/{name}/set_mesh"] = _sharding(f(), x)
            with jax.set_mesh(mesh), other:
                out[f"{api}/{name}/set_mesh_with_other"] = _sharding(f(), x)
    with mesh:
        out["wsc/with_mesh"] = _sharding(
            jax.jit(lambda a: jax.lax.with_sharding_constraint(a, P("x"))), x)
    return out
