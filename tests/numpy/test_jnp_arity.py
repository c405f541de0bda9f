"""Public jxkernel.numpy functions called with one positional argument too few or too many
raise what JAX 0.10.2's raise (class and message): tests/data/jnp_arity_cases.py, JAX's
answers in tests/data/jnp_arity_reference.json (reference/make_jnp_arity_reference.py)."""
import json

import jnp_arity_cases as cases        # tests/data, on pytest's pythonpath
import pytest

import jxkernel
import locations  # tests/support

REFERENCE = locations.jax_answers("jnp_arity_reference.json")

OURS = {}


def ours() -> dict:
    if not OURS:
        OURS.update(cases.run(jxkernel, REFERENCE["plan"])["outcomes"])
    return OURS


@pytest.mark.parametrize("name", sorted(REFERENCE["outcomes"]))
def test_wrong_arity_raises_as_jax(name):
    got = {kind: list(o) for kind, o in ours()[name].items()}
    assert got == REFERENCE["outcomes"][name]


def test_the_recording_covers_jaxs_public_functions():
    # 312 functions with a signature JAX 0.10.2 reads; each a call too few or too many
    assert len(REFERENCE["plan"]) == 312
    assert {"sum", "acos", "amax", "pow", "around", "indices", "cumsum"} <= set(REFERENCE["plan"])
    # every one of them is public in jxkernel.numpy too
    assert [n for n in REFERENCE["plan"] if not hasattr(jxkernel.numpy, n)] == []


def test_the_unhashable_static_error_of_a_jnp_function_is_jaxs_words_alone():
    # a jnp function's inner jit: no static_argnums of the learner's to name or advise on
    # (stop 78: the argument's name and "take 'axis' out of static_argnums" are gone)
    text = ours()["sort"]["many"][1]
    assert text.startswith("Non-hashable static arguments are not supported. An error occurred "
                           "while trying to hash an object of type <class 'numpy.ndarray'>")
    assert "passed as static argument" not in text and "static_argnums" not in text
    assert list(ours()["sort"]["many"]) == REFERENCE["outcomes"]["sort"]["many"]
