"""A learner debugging a JAX program in the notebook (JAX 0.10.2's debugging pages and their
mistakes), against what JAX said for the same code (tests/data/learner_debugging_reference.json,
recorded by reference/make_learner_debugging_reference.py from
tests/data/learner_debugging_cases.py): the messages are JAX's, and a failed check names the
learner's line."""
import json
import os

import pytest
from learner_debugging_cases import checkify_causes  # tests/data

import jxkernel as jax
import locations  # tests/support: the repository's folders

with open(os.path.join(locations.DATA, "learner_debugging_reference.json")) as f:
    JAX = json.load(f)


@pytest.mark.parametrize("case", sorted(JAX["checkify_causes"]))
def test_a_failed_check_names_the_learners_line_where_the_nan_index_or_check_was(case):
    """err.throw()'s JaxRuntimeError says what failed; its cause (the NaNError, OOBError or
    FailedCheckError) carries the place as its traceback, which a notebook shows above it:
    `z = jnp.sin(y)` for the NaN, `y = x[i]` for the index, the check's own line. Before, the
    cause had no frame and the learner was not told where (JAX shows the line)."""
    assert checkify_causes(jax)[case] == JAX["checkify_causes"][case]
