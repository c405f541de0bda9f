"""An Exported's VJP is traced and lowered anew at each vjp(), serialize(vjp_order>=1) and
grad through call, a new Exported each time, as JAX 0.10.2 does
(tests/data/export_vjp_cases.py, recorded by reference/make_export_vjp_reference.py)."""
import json

import export_vjp_cases as cases
import pytest

import jxkernel
import locations  # tests/support

REFERENCE = locations.jax_answers("export_vjp_reference.json")


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_vjp_is_exported_when_jax_exports_it():
    got = cases.run(jxkernel)
    assert got == REFERENCE


@pytest.mark.xla_only("XLA text")
def test_an_exported_vjp_is_told_as_a_new_trace_not_a_reused_one():
    """Each vjp() and serialize(vjp_order=1) traces a new fun_vjp_jax (JAX logs its
    "Finished tracing" line): its compile line says why as a first call's, not "exported:
    its trace reused" (the reason for an export of a trace a call made)."""
    import logging
    import numpy as np
    lines = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())
    logger, handler = logging.getLogger("jxkernel"), Collect()
    logger.addHandler(handler)
    try:
        exp = jxkernel.export.export(jxkernel.jit(jxkernel.numpy.tanh))(np.ones(2, np.float32))
        with jxkernel.log_compiles(True):
            exp.vjp()
            exp.serialize(vjp_order=1)
    finally:
        logger.removeHandler(handler)
    compiling = [line for line in lines if line.startswith("Compiling jit(fun_vjp_jax)")]
    assert len(compiling) == 2 and all(line.endswith(" because first call")
                                       for line in compiling), lines
