"""jax._src.error_check (jxkernel/api/error_check.py): checks set while programs run, raised
afterwards, as JAX 0.10.2 raises them (tests/data/error_check_cases.py, recorded by
reference/make_error_check_reference.py): eagerly and under jit, in cond, scan and while, the
first error kept, cleared once raised, the checking function in the traceback."""
import json

import error_check_cases
import locations

import jxkernel as jax


def test_error_check_as_jax():
    recorded = locations.jax_answers("error_check_reference.json")
    assert error_check_cases.run(jax) == recorded
