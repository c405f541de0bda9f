"""The cases that reference/make_export_keys_reference.py runs on JAX 0.10.2 and
tests/export/test_export_keys.py on jxkernel: typed PRNG keys (threefry2x32, rbg, unsafe_rbg)
through jax.export and Exported.call, eagerly and under jit, as JAX's tests/export_test.py's
test_prng_keys and test_export_typed_prng_key use them. `run(jax)` takes the `jax` module
(real or jxkernel) and returns JSON data: avals and dtypes as text, key data as integers
(exact), errors as their type and message."""
import importlib
import re

from recorded_errors import error_record   # tests/data: what a case raised, as recorded

IMPLS = ("threefry2x32", "rbg", "unsafe_rbg")


def _main_types(exp):
    """The exported `main`'s argument and result types (its attributes aside)."""
    line = next(line for line in exp.mlir_module().splitlines() if "func.func public @main" in line)
    return re.findall(r"tensor<[^>]*>", line)


def _shardings(exp):
    line = next(line for line in exp.mlir_module().splitlines() if "func.func public @main" in line)
    return re.findall(r"sdy\.sharding = (#sdy\.sharding<[^>]*>)", line)


def _data(jax, keys):
    return jax.random.key_data(keys).tolist()


def run(jax):
    import numpy as np
    export = importlib.import_module(f"{jax.__name__}.export")
    out = {}
    for impl in IMPLS:
        key = jax.random.key(42, impl=impl)
        exp = export.export(jax.jit(lambda k: k))(key)
        res = exp.call(key)
        out[f"identity {impl}"] = {
            "in_avals": [str(a) for a in exp.in_avals],
            "out_avals": [str(a) for a in exp.out_avals],
            "main_types": _main_types(exp),
            "result_dtype": str(res.dtype), "result_shape": list(res.shape),
            "result_data": _data(jax, res), "equal": bool(res == key)}
        keys = jax.random.split(key, 4)
        exp = export.export(jax.jit(lambda k: (jax.random.split(k[1], 3),
                                                 jax.random.key_data(k))))(keys)
        res = exp.call(keys)
        out[f"split {impl}"] = {
            "out_avals": [str(a) for a in exp.out_avals], "main_types": _main_types(exp),
            "split": _data(jax, res[0]), "data": res[1].tolist()}
        # under jit, twice in one program, beside a float argument
        exp = export.export(jax.jit(lambda k, x: jax.random.bits(k, (3,)) ^ x))(
            key, np.zeros(3, np.uint32))
        twice = jax.jit(lambda k, x: (exp.call(k, x), exp.call(jax.random.fold_in(k, 1), x)))
        out[f"jit twice {impl}"] = [a.tolist() for a in twice(key, np.arange(3, dtype=np.uint32))]
    # JAX's test_export_typed_prng_key: a key split under jit(in_shardings=, out_shardings=)
    mesh = jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    s = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
    split_key = jax.jit(lambda k: jax.random.split(k, 2), in_shardings=s, out_shardings=s)
    key = jax.random.key(42)
    exp = export.export(split_key)(key)
    out["sharded split"] = {"shardings": _shardings(exp), "main_types": _main_types(exp),
                            "call": _data(jax, exp.call(key)),
                            "jit": _data(jax, split_key(key))}
    # a key of another implementation, or its raw data, is refused
    exp = export.export(jax.jit(lambda k: k))(key)
    out["wrong impl"] = error_record(lambda: exp.call(jax.random.key(1, impl="rbg")))
    out["raw data"] = error_record(lambda: exp.call(np.zeros(2, np.uint32)))
    return out
