"""When an Exported's VJP is exported: at each `vjp()`, each `serialize(vjp_order>=1)` and each
grad through `call` (JAX 0.10.2 keeps no VJP: each is traced and lowered anew, a new
Exported), as jax_log_compiles shows. Shared by reference/make_export_vjp_reference.py (real
JAX) and tests/export/test_export_vjp.py (jxkernel).

`run(jax)` returns {step: number of "Compiling jit(fun_vjp_jax)" lines it logged}, and under
"log" each step's whole jax_log_compiles output as steps (`steps`); the grads' only as far as
fun_vjp_jax goes (their eager lines are eager_grad_log_cases'), and exporting jnp.cos (a jit
of the library's in both) twice, cos traced by nothing before: where JAX traced the namesake
already (inside another jit), its tracing cache holds it and it logs no "Finished tracing"
line, which jxkernel, whose jnp.cos is a plain function there, still logs.
"""
import importlib
import logging

import numpy as np


def steps(lines) -> list:
    """[kind, function] per jax_log_compiles line: "traced" (Finished tracing f for jit),
    "lowering" (Compiling jit(f) with ...), "lowered" (Finished jaxpr to MLIR module conversion
    jit(f)), "compiled" (Finished XLA compilation of jit(f)); ["other", line] else."""
    found = []
    for line in lines:
        words = line.split()
        if line.startswith("Finished tracing ") and words[3:5] == ["for", "jit"]:
            found.append(["traced", words[2]])
        elif line.startswith("Compiling jit("):
            found.append(["lowering", line[len("Compiling jit("):].split(") with ")[0]])
        elif line.startswith(("Finished jaxpr to MLIR module conversion jit(",
                              "Finished XLA compilation of jit(")):
            kind = "lowered" if "MLIR" in line else "compiled"
            found.append([kind, line.split("jit(", 1)[1].split(") in ")[0]])
        else:
            found.append(["other", line])
    return found


def run(jax) -> dict:
    export = importlib.import_module(f"{jax.__name__}.export")
    jnp = jax.numpy
    # what the log shows depends on what the process traced and lowered before (a jnp.cos
    # lowered by an earlier test leaves no lowering line): start from empty caches, as the
    # recording's fresh process did
    jax.clear_caches()
    lines = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())
    logger, handler = logging.getLogger(jax.__name__), Collect()
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    x = np.linspace(0.5, 1.5, 3, dtype=np.float32)
    exp = export.export(jax.jit(lambda v: jnp.sin(v) * 2))(x)
    calls = {"vjp": exp.vjp, "vjp again": exp.vjp,
             "serialize(vjp_order=1)": lambda: exp.serialize(vjp_order=1),
             "serialize(vjp_order=1) again": lambda: exp.serialize(vjp_order=1),
             "serialize(vjp_order=2)": lambda: exp.serialize(vjp_order=2),
             "serialize()": exp.serialize,
             "grad": lambda: jax.grad(lambda v: exp.call(v).sum())(x),
             "grad again": lambda: jax.grad(lambda v: exp.call(v).sum())(x),
             "export(jnp.cos)": lambda: export.export(jnp.cos)(x),
             "export(jnp.cos) again": lambda: export.export(jnp.cos)(x)}
    out, log = {}, {}
    try:
        with jax.log_compiles(True):
            for name, step in calls.items():
                lines.clear()
                step()
                out[name] = sum(line.startswith("Compiling jit(fun_vjp_jax)") for line in lines)
                log[name] = [s for s in steps(lines)
                             if not name.startswith("grad") or s[1] == "fun_vjp_jax"]
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    out["vjp() is vjp()"] = exp.vjp() is exp.vjp()
    first, second = exp.vjp(), exp.vjp()
    out["vjp() == vjp()"] = first == second
    out["log"] = log
    return out
