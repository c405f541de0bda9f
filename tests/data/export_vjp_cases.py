"""When an Exported's VJP is exported: at each `vjp()`, each `serialize(vjp_order>=1)` and each
grad through `call` (JAX 0.10.2 keeps no VJP: each is traced and lowered anew, a new
Exported), as jax_log_compiles shows. Shared by reference/make_export_vjp_reference.py (real
JAX) and tests/export/test_export_vjp.py (jxkernel).

`run(jax)` returns {step: [number of "Compiling jit(fun_vjp_jax)" lines it logged, ...]}.
"""
import importlib
import logging

import numpy as np


def run(jax) -> dict:
    export = importlib.import_module(f"{jax.__name__}.export")
    jnp = jax.numpy
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
    steps = {"vjp": exp.vjp, "vjp again": exp.vjp,
             "serialize(vjp_order=1)": lambda: exp.serialize(vjp_order=1),
             "serialize(vjp_order=1) again": lambda: exp.serialize(vjp_order=1),
             "serialize(vjp_order=2)": lambda: exp.serialize(vjp_order=2),
             "serialize()": exp.serialize,
             "grad": lambda: jax.grad(lambda v: exp.call(v).sum())(x),
             "grad again": lambda: jax.grad(lambda v: exp.call(v).sum())(x)}
    out = {}
    try:
        with jax.log_compiles(True):
            for name, step in steps.items():
                lines.clear()
                step()
                out[name] = sum(line.startswith("Compiling jit(fun_vjp_jax)") for line in lines)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    out["vjp() is vjp()"] = exp.vjp() is exp.vjp()
    first, second = exp.vjp(), exp.vjp()
    out["vjp() == vjp()"] = first == second
    return out
