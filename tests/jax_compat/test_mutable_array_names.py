"""jax_mutable_array_checks' default and jax._src.core.freeze, as JAX 0.10.2's
(tests/data/mutable_array_cases.py, recorded by reference/make_mutable_array_reference.py);
the option's other value is refused by name (tests/jax_compat/test_jax_tests_gaps.py)."""
import functools
import json

import jxkernel
import mutable_array_cases as cases
import locations  # tests/support

REFERENCE = locations.jax_answers("mutable_array_reference.json")
# computed on first use, not while pytest collects (every xdist worker collects every file)
_ours = functools.cache(lambda: cases.run(jxkernel))


def test_as_jax():
    assert {k: v for k, v in _ours().items()} == \
        REFERENCE
