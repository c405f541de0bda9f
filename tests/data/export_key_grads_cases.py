"""Differentiating through `Exported.call` of functions with typed PRNG keys among their
results, and exports over Explicit mesh axes called eagerly, run alike by real JAX
(reference/make_export_key_grads_reference.py records them in export_key_grads_reference.json)
and by jxkernel (tests/export/test_export_key_grads.py, in a subprocess with 8 CPU devices).

    run(jax)["grad/keys_out"]  ->  [1.0, 1.0, 1.0]
"""
import importlib

import numpy as np
from recorded_errors import TRACEBACK_NOTE, error_of


def _value(fn):
    """What fn() returns as plain data (an array's values, a key's dtype), or its error."""
    found = error_of(fn, cut=TRACEBACK_NOTE)
    if found is not None:
        return found
    out = fn()
    leaves = out if isinstance(out, (tuple, list)) else [out]
    return [str(v.dtype) if "key" in str(v.dtype) else np.asarray(v).tolist() for v in leaves]


def _placed(fn):
    """[spec, values] of fn()'s result, or its error."""
    found = error_of(fn, cut=TRACEBACK_NOTE)
    if found is not None:
        return found
    out = fn()
    return [str(out.sharding.spec), np.asarray(out).tolist()]


def run(jax) -> dict:
    jnp = jax.numpy
    export = importlib.import_module(jax.__name__ + ".export")
    P, AxisType = jax.sharding.PartitionSpec, jax.sharding.AxisType
    out = {}
    k0 = jax.random.key(1)
    x = jnp.ones(3)

    def f(k, v):
        k2 = jax.random.fold_in(k, 1)
        return k2, v * jax.random.uniform(k2, (3,))
    spec_x = jax.ShapeDtypeStruct((3,), jnp.float32)
    exp = export.export(jax.jit(f))(jax.typeof(k0), spec_x)
    out["grad/key_out"] = _value(lambda: jax.grad(lambda v: exp.call(k0, v)[1].sum())(x))
    out["jit_grad/key_out"] = _value(
        lambda: jax.jit(jax.grad(lambda v: exp.call(k0, v)[1].sum()))(x))
    out["vjp/key_out"] = _value(lambda: jax.vjp(lambda v: exp.call(k0, v), x)[1](
        (np.zeros((), jax.dtypes.float0), jnp.ones(3))))
    keys = jax.random.split(k0, 2)
    exp2 = export.export(jax.jit(lambda k, v: (jax.random.split(k[0], 2), v.sum())))(
        jax.typeof(keys), spec_x)
    out["grad/keys_out"] = _value(lambda: jax.grad(lambda v: exp2.call(keys, v)[1])(x))
    out["vjp/keys_out"] = _value(lambda: jax.vjp(lambda v: exp2.call(keys, v), x)[1](
        (np.zeros((2,), jax.dtypes.float0), jnp.float32(1))))
    out["value_and_grad/keys_out"] = _value(
        lambda: jax.value_and_grad(lambda v: exp2.call(keys, v)[1])(x))

    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    data = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    with jax.set_mesh(mesh):
        a = jax.device_put(data, P("x", None))
        exports = {
            "scaled": export.export(jax.jit(lambda v: v * 2))(a),
            "summed": export.export(jax.jit(lambda v: jnp.sin(v).sum(0)))(a),
            "einsum": export.export(jax.jit(
                lambda v: jnp.einsum("ij,kj->ik", v, v, out_sharding=P("x", None))))(a),
        }
    for name, e in exports.items():
        with jax.set_mesh(mesh):
            out[f"explicit/{name}/eager_in_mesh"] = _placed(lambda: e.call(a))
            out[f"explicit/{name}/jit_in_mesh"] = _placed(lambda: jax.jit(e.call)(a))
        out[f"explicit/{name}/eager"] = _placed(lambda: e.call(a))
    return out
