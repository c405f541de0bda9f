"""jxkernel's modules under JAX's private names that JAX's own test files import
(jax._src.literals, ...), against JAX 0.10.2's recorded answers
(reference/make_private_modules_reference.py on tests/data/private_modules_cases.py)."""
import json
import os

import numpy as np
import pytest

import jxkernel
from jxkernel._jax._src import core, dtypes, literals as literals_module

import private_modules_cases as cases  # tests/data
import locations  # tests/support: the repository's folders
from doc_examples import check_docstring_examples

with open(os.path.join(locations.DATA, "private_modules_reference.json")) as f:
    RECORD = json.load(f)

LITERALS = cases.literals(jxkernel, literals_module, dtypes, core, np)


@pytest.mark.parametrize("key", sorted(RECORD["literals"]))
def test_literals_are_jaxs(key):
    # typed scalars keep their dtype without x64 (dtype, canonicalize_value, jit and
    # device_put of an int64 TypedInt stay int64) and are weakly typed; TypedNdArrays are
    # weak only where their aval says, and their views keep it
    assert LITERALS[key] == RECORD["literals"][key]


def test_weak_typed_ndarray_pickles_with_its_aval():
    # (JAX 0.10.2's own __reduce__ breaks here; jxkernel's keeps the aval)
    import pickle
    aval = core.ShapedArray((1,), np.int64, weak_type=True)
    back = pickle.loads(pickle.dumps(literals_module.TypedNdArray(np.array([6]), aval)))
    assert back.aval == aval and repr(back) == "TypedNdArray([6], dtype=int64, weak_type=True)"


def test_docstring_examples():
    check_docstring_examples("jxkernel._jax._src.literals", {"np": np})
    check_docstring_examples("jxkernel._jax._src.dtypes", {"np": np})
