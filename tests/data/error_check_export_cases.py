"""error_check's wrap_for_export under jax.export: the function's error state is made while it
traces (a state of its own, not the process's), so the exported program returns its results
and its error code, `result[1].error_code` (JAX 0.10.2's dataclass path), and the result tree
serializes (`_ErrorClass` registered as JAX's). `run(jax)` -> {case: a JSON-able value}."""
import importlib
import re


def run(jax):
    jnp = jax.numpy
    error_check = importlib.import_module(jax.__name__ + "._src.error_check")

    def function_that_triggers(x):
        error_check.set_error_if(x <= 0, "x must be greater than 0")
        return x + 1

    wrapped = jax.jit(error_check.wrap_for_export(jax.jit(function_that_triggers)))
    exported = jax.export.export(wrapped)(jax.ShapeDtypeStruct((), jnp.float32))
    out = {"out_avals": [str(a) for a in exported.out_avals],
           # (locations aside: jxkernel's module names no argument, JAX's does)
           "main": re.sub(r' loc\((?:"[^"]*"|unknown)\)', "", next(
               line.strip() for line in exported.mlir_module().splitlines()
               if "func.func public @main" in line))}
    imported = jax.export.deserialize(exported.serialize())
    f = jax.jit(error_check.unwrap_from_import(jax.jit(imported.call)))
    out["value"] = float(f(jnp.float32(-3.0)))
    try:
        error_check.raise_if_error()
        out["raised"] = None
    except error_check.JaxValueError as e:
        text = str(e)
        out["raised"] = text.splitlines()[:2]
        out["names_the_function"] = "function_that_triggers" in text
        out["names_the_line"] = 'error_check.set_error_if(x <= 0, "x must be greater' in text
    f(jnp.float32(3.0))
    error_check.raise_if_error()         # (no error: nothing raised)
    out["second_call"] = "no error"
    return out
