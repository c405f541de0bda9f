"""The function symbols of lowered modules calling exported functions and nested jits against
what JAX 0.10.2 prints (tests/data/export_symbols_cases.py, recorded by
reference/make_export_symbols_reference.py): `call_exported_<fun>`, MLIR's `_0`, `_1` for a
clash, `@"<lambda>"` quoted."""
import json

import export_symbols_cases as cases
import numpy as np
import pytest

import jxkernel
import locations  # tests/support

REFERENCE = locations.jax_answers("export_symbols_reference.json")
PROGRAMS = sorted(REFERENCE)


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.xla_only("XLA text")    # lowered StableHLO: refused on the NumPy backend
def test_symbols_match_jax(name):
    assert cases.run(jxkernel)[name] == REFERENCE[name]


@pytest.mark.xla_only("XLA text")
@pytest.mark.parametrize("name", ["call_lambda", "two_exports_one_name", "jit_quoted_name"])
def test_quoted_symbols_compile_and_run(name):
    """A quoted symbol (`@"<lambda>_1"`, `@"a-b\\22c d"`) is one XLA parses and runs."""
    f, x = cases.programs(jxkernel)[0][name]
    want = {"call_lambda": np.cos(x), "two_exports_one_name": (x * 2 + 1) * 3 + 1 - 1,
                "jit_quoted_name": x * 7}[name]
    # cos: within 1 ulp of NumPy's; the others are small integers, exact
    np.testing.assert_array_max_ulp(np.asarray(jxkernel.jit(f)(x)), want.astype(np.float32), 1)
