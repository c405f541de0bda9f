"""An Exported's VJP is traced and lowered anew at each vjp(), serialize(vjp_order>=1) and
grad through call, a new Exported each time, as JAX 0.10.2 does
(tests/data/export_vjp_cases.py, recorded by reference/make_export_vjp_reference.py)."""
import json
import os

import export_vjp_cases as cases
import pytest

import jxkernel

REFERENCE = json.load(open(os.path.join(os.path.dirname(__file__), "..", "data",
                                        "export_vjp_reference.json")))


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_vjp_is_exported_when_jax_exports_it():
    got = cases.run(jxkernel)
    assert got == {k: v for k, v in REFERENCE.items() if k != "jax_version"}
