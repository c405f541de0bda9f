"""Programs using jax.stages (trace/lower/compile and what each stage tells) and jax.export
(export, Exported's fields, call eagerly, under jit and grad, and the errors), written as
JAX's "Ahead-of-time lowering and compilation" and "Exporting and serializing" pages write
them. Shared by reference/make_export_reference.py (run with real JAX 0.10.2) and
tests/transforms/test_stages.py / tests/export/test_export.py (run with jxkernel).

`run(jax)` returns {program: {name: value}} of JSON data: text, ints and booleans compared
exactly, lists of floats (under a key ending in "_values") in ulps. Serialization is not
here: JAX's needs flatbuffers (absent from .venv-jax), and jxkernel writes its own format.
"""
import importlib

import numpy as np
from recorded_errors import error_of


def _module(jax, name):
    return importlib.import_module(f"{jax.__name__}.{name}")


_error = error_of


def _floats(x) -> list:
    return np.asarray(x, np.float64).ravel().tolist()


def _f(jnp):
    def f(x, n, y=1.0):
        return {"out": jnp.sin(x) * n + y, "total": x.sum()}
    return f


def _staged(jax):
    jnp = jax.numpy
    jitted = jax.jit(_f(jnp), static_argnums=1, donate_argnums=0)
    traced = jitted.trace(jnp.ones((2, 3), jnp.float32), 3, y=2.0)
    return jitted, traced, traced.lower()


def stages_signature(jax):
    """What Traced, Lowered and Compiled tell of the signature (static n left out)."""
    jitted, traced, lowered = _staged(jax)
    compiled = lowered.compile()
    stages = _module(jax, "stages")
    out = {"wrapped": isinstance(jitted, stages.Wrapped),
           "names": sorted(n for n in ("ArgInfo", "Compiled", "CompilerOptions", "Lowered",
                                       "Traced", "Wrapped") if hasattr(stages, n))}
    for name, stage in (("traced", traced), ("lowered", lowered), ("compiled", compiled)):
        out[f"{name}_in_tree"] = str(stage.in_tree)
        out[f"{name}_in_avals"] = str(stage.in_avals)
        out[f"{name}_args_info"] = str(stage.args_info)
        out[f"{name}_donate_argnums"] = list(stage.donate_argnums)
        out[f"{name}_is_stage"] = isinstance(stage, getattr(stages, type(stage).__name__))
    out["traced_fun_name"] = traced.fun_name
    out["traced_out_avals"] = str(traced.out_avals)
    info = compiled.args_info[1]["y"]
    out["arg_info_shape_dtype"] = [list(info.shape), str(info.dtype), info.donated]
    return out


def stages_lowered(jax):
    """Lowered: its texts, IRs and the unoptimized cost estimate."""
    _, _, lowered = _staged(jax)
    costs = lowered.cost_analysis()
    return {
        "hlo_text_head": lowered.as_text(dialect="hlo").split(",")[0].split(" ")[0],
        "stablehlo_has_main": "func.func public @main" in lowered.as_text(),
        "debug_info_has_locations": "loc(" in lowered.as_text(debug_info=True),
        "plain_has_no_locations": "loc(" not in lowered.as_text(),
        "ir_types": [type(lowered.compiler_ir()).__name__,
                     type(lowered.compiler_ir("stablehlo")).__name__,
                     type(lowered.compiler_ir("hlo")).__name__],
        "unknown_dialect": _error(lambda: lowered.as_text(dialect="tosa"))[0],
        "cost_type": type(costs).__name__,
        "cost_has_flops": "flops" in costs and "bytes accessed" in costs,
    }


def stages_compiled(jax):
    """Compiled: XLA's analyses, shardings, the runtime executable, and calling it."""
    jnp = jax.numpy
    _, _, lowered = _staged(jax)
    compiled = lowered.compile()
    memory = compiled.memory_analysis()
    x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
    result = compiled(x, y=0.5)
    return {
        "cost_type": type(compiled.cost_analysis()).__name__,
        "cost_has_flops": "flops" in compiled.cost_analysis(),
        "memory_fields": sorted(n for n in dir(memory) if n.endswith("_in_bytes")),
        "argument_size_in_bytes": memory.argument_size_in_bytes,
        "output_size_in_bytes": memory.output_size_in_bytes,
        "input_shardings": str(compiled.input_shardings),
        "output_shardings": str(compiled.output_shardings),
        "runtime_executable": type(compiled.runtime_executable()).__name__,
        "out_values": _floats(result["out"]),
        "total_values": _floats(result["total"]),
        "donated": x.is_deleted(),
        "out_tree": str(compiled.out_tree),
    }


def stages_call_errors(jax):
    """Calling a Compiled with what it was not compiled for: JAX's TypeErrors."""
    jnp = jax.numpy
    compiled = jax.jit(lambda x, y: x * y).lower(jnp.ones(3, jnp.float32), 2.0).compile()
    ones = jnp.ones(3, jnp.float32)
    return {
        "shape": _error(lambda: compiled(jnp.ones(4, jnp.float32), 2.0)),
        "dtype": _error(lambda: compiled(jnp.ones(3, jnp.int32), 2.0)),
        "two_wrong": _error(lambda: compiled(jnp.ones(4, jnp.float32), jnp.ones(2))),
        "python_int_for_float": _error(lambda: compiled(ones, 2)),
        "missing_argument": _error(lambda: compiled(ones)),
        "extra_keyword": _error(lambda: compiled(ones, 2.0, z=1.0)),
        "static_passed_again": _error(lambda: _staged(jax)[2].compile()(ones, 3, y=1.0)),
        "ok_values": _floats(compiled(ones, 4.0)),
    }


# ------------------------------------------------------------------ export
def _exported(jax):
    jnp = jax.numpy
    export = _module(jax, "export")

    def f(x, y):
        return jnp.sin(x) * y, {"sum": (x * x).sum()}
    return export.export(jax.jit(f))(jax.ShapeDtypeStruct((2, 3), jnp.float32), 2.0)


def export_signature(jax):
    """Exported's fields for a function of an array and a Python float."""
    export = _module(jax, "export")
    exp = _exported(jax)
    vjp = exp.vjp()
    return {
        "fun_name": exp.fun_name, "str": str(exp),
        "in_tree": str(exp.in_tree), "out_tree": str(exp.out_tree),
        "in_avals": str(exp.in_avals), "out_avals": str(exp.out_avals),
        "platforms": list(exp.platforms), "nr_devices": exp.nr_devices,
        "in_shardings_hlo": str(exp.in_shardings_hlo),
        "out_shardings_hlo": str(exp.out_shardings_hlo),
        "calling_convention_version": exp.calling_convention_version,
        "supported_versions": [export.minimum_supported_calling_convention_version,
                               export.maximum_supported_calling_convention_version],
        "module_kept_var_idx": list(exp.module_kept_var_idx),
        "uses_global_constants": exp.uses_global_constants,
        "effects": [list(exp.ordered_effects), list(exp.unordered_effects)],
        "serialized_type": type(exp.mlir_module_serialized).__name__,
        "serialized_magic": exp.mlir_module_serialized[:4].hex(),
        "module_has_main": "func.func public @main" in exp.mlir_module(),
        "default_platform": export.default_export_platform(),
        "has_vjp": exp.has_vjp(),
        "vjp_fun_name": vjp.fun_name, "vjp_in_avals": str(vjp.in_avals),
        "vjp_out_avals": str(vjp.out_avals), "vjp_in_tree": str(vjp.in_tree),
        "is_symbolic_dim": export.is_symbolic_dim(3),
    }


def export_call(jax):
    """Exported.call eagerly, inside jit, and differentiated (first and second order)."""
    jnp = jax.numpy
    exp = _exported(jax)
    x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3) / 4
    out, aux = exp.call(x, 2.0)
    jitted_out, _ = jax.jit(lambda v: exp.call(v, 3.0))(x)
    grad = jax.grad(lambda v: exp.call(v, 2.0)[1]["sum"] + exp.call(v, 2.0)[0].sum())(x)
    second = jax.grad(jax.grad(lambda s: exp.call(jnp.full((2, 3), s), 1.0)[0].sum()))(0.5)
    return {"out_values": _floats(out), "sum_values": _floats(aux["sum"]),
            "out_type": [str(out.dtype), list(out.shape)],
            "jit_values": _floats(jitted_out), "grad_values": _floats(grad),
            "second_order_values": _floats(second),
            "int_argument_grad_values": _floats(_int_argument_grad(jax))}


def _int_argument_grad(jax):
    jnp = jax.numpy
    export = _module(jax, "export")
    exp = export.export(jax.jit(lambda x, n: (x * n, n + 1)))(jnp.ones(2, jnp.float32), 3)
    return jax.grad(lambda v: exp.call(v, 3)[0].sum())(jnp.ones(2, jnp.float32))


def export_errors(jax):
    """What JAX refuses, with its exception classes and words."""
    jnp = jax.numpy
    export = _module(jax, "export")
    exp = _exported(jax)
    ones = jnp.ones((2, 3), jnp.float32)
    not_jitted = _error(lambda: export.export(lambda v: v))
    return {
        "not_jitted": [not_jitted[0], not_jitted[1].split(" but is:")[0]],
        "shape": _error(lambda: exp.call(jnp.ones((2, 4), jnp.float32), 2.0)),
        "rank": _error(lambda: exp.call(jnp.ones(3, jnp.float32), 2.0)),
        "dtype": _error(lambda: exp.call(ones.astype(jnp.int32), 2.0)),
        "python_int_for_float": _error(lambda: exp.call(ones, 2)),
        "structure": _error(lambda: exp.call(ones)),
        "vmap": _error(lambda: jax.vmap(lambda v: exp.call(v, 2.0)[0])(jnp.ones((4, 2, 3))))[0],
        "wrong_platform": _error(lambda: export.export(jax.jit(jnp.sin), platforms=["cuda"])(
            ones).call(ones)),
    }


def export_jnp_directly(jax):
    """jnp's elementwise functions are jit objects in JAX: export takes them as they are (its
    own docstring exports `jnp.sin`); jnp.sum is not, and is refused."""
    jnp = jax.numpy
    export = _module(jax, "export")
    x = np.arange(4, dtype=np.float32)
    out = {}
    for name in ("sin", "exp", "tanh", "sqrt"):
        exp = export.export(getattr(jnp, name))(x)
        out[name] = {"fun_name": exp.fun_name, "in_avals": str(exp.in_avals),
                     "out_avals": str(exp.out_avals), "values": _floats(exp.call(x))}
    ints = export.export(jnp.sin)(np.arange(3, dtype=np.int32))
    out["sin_of_int32"] = str(ints.out_avals)
    refused = _error(lambda: export.export(jnp.sum))
    out["sum_refused"] = [refused[0], refused[1].split(" but is:")[0]]
    return out


PROGRAMS = [stages_signature, stages_lowered, stages_compiled, stages_call_errors,
            export_signature, export_call, export_errors, export_jnp_directly]


def run(jax) -> dict:
    return {program.__name__: program(jax) for program in PROGRAMS}
