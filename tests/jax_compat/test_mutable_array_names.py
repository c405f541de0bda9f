"""jax_mutable_array_checks' default and jax._src.core.freeze, as JAX 0.10.2's
(tests/data/mutable_array_cases.py, recorded by reference/make_mutable_array_reference.py);
the option's other value is refused by name (tests/jax_compat/test_jax_tests_gaps.py)."""
import functools
import json
import os
import pathlib

import jxkernel
import mutable_array_cases as cases

REFERENCE = json.loads(pathlib.Path(os.path.join(os.path.dirname(__file__), "..", "data",
                                                 "mutable_array_reference.json")).read_text())
# computed on first use, not while pytest collects (every xdist worker collects every file)
_ours = functools.cache(lambda: cases.run(jxkernel))


def test_as_jax():
    assert {k: v for k, v in _ours().items()} == \
        {k: v for k, v in REFERENCE.items() if k != "jax_version"}
