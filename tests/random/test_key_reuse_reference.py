"""The key-reuse checker and typed keys' operators against JAX 0.10.2.

tests/data/key_reuse_cases.py ran with real JAX on the CPU (reference/
make_key_reuse_reference.py wrote tests/data/key_reuse_reference.json) and runs here with
jxkernel: ~50 learner programs under `debug_key_reuse(True)` (reuse eagerly and under jit,
split, fold_in, clone, key_data, cond, scan, while, vmap, grad, checkpoint, custom_jvp; and
programs that must pass), whether each raises and its exact message (a loop's message by its
first line, before the printed jaxpr), the signatures of small functions, and what every
operator of a typed key answers eagerly and under jit. Every case compares exactly, except
those in DIFFERENT, which say why.
"""
import json

import pytest
from recorded_answers import check_answer

import jxkernel
import key_reuse_cases
import locations  # tests/support

THEIRS = locations.jax_answers("key_reuse_reference.json")

# Cases jxkernel answers otherwise today, and why. Each is checked to still differ (strict
# xfail), so that a fix shows up and its line goes.
DIFFERENT = {
    "operator/eager ks @ ks": "JAX fails an internal assertion (AssertionError: key<fry>) in "
                              "dot_general's dtype rule; jxkernel names the primitive that "
                              "refuses keys (TypeError: dot_general does not accept dtype "
                              "key<fry>)",
}


@pytest.fixture(scope="module")
def mine():
    return key_reuse_cases.run(jxkernel)


def test_the_same_cases(mine):
    assert sorted(mine) == sorted(THEIRS)


@pytest.mark.parametrize("case", sorted(THEIRS))
def test_as_jax_answers(mine, case):
    check_answer(mine, THEIRS, DIFFERENT, case)
