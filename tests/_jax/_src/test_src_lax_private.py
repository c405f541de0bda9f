"""JAX's private lax names (jax._src.lax.utils, jax._src.lax.windowed_reductions, jax._src.lax's
operations, jax._src.errors, jax._src.dtypes' float8 names and value handlers,
sharding_impls.make_single_device_sharding) and the lax behaviour JAX's lax tests found
different, against what JAX 0.10.2 answers for the same cases (tests/data/lax_private_cases.py,
recorded by reference/make_lax_private_reference.py). Every value is exact: dtype names,
small integers in float32, booleans, error messages."""
import functools
import json

import lax_private_cases as cases
import pytest
from recorded_answers import families_sorted

import jxkernel
import locations  # tests/support: the repository's folders


@functools.cache
def _reference() -> dict:
    return locations.jax_answers("lax_private_reference.json")


@pytest.mark.parametrize("case", [c.__name__ for c in cases.CASES])
def test_case_matches_jax(case):
    ours = json.loads(json.dumps(getattr(cases, case)(jxkernel)))   # tuples as JSON lists
    assert families_sorted(ours) == families_sorted(_reference()[case])


@pytest.mark.parametrize("module", ["jxkernel._src.lax", "jxkernel._src.lax.utils",
                                    "jxkernel._src.lax.windowed_reductions",
                                    "jxkernel._src.errors", "jxkernel._src.test_util.mesh"])
def test_docstring_examples(module):
    from doc_examples import check_docstring_examples
    check_docstring_examples(module)
