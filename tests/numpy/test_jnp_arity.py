"""Public jxkernel.numpy functions called with one positional argument too few or too many
raise what JAX 0.10.2's raise (class and message): tests/data/jnp_arity_cases.py, JAX's
answers in tests/data/jnp_arity_reference.json (reference/make_jnp_arity_reference.py)."""
import json
import os
import re

import jnp_arity_cases as cases        # tests/data, on pytest's pythonpath
import pytest
from locations import DATA              # tests/support: the repository's folders

import jxkernel

with open(os.path.join(DATA, "jnp_arity_reference.json")) as f:
    REFERENCE = json.load(f)

OURS = {}


def ours() -> dict:
    if not OURS:
        OURS.update(cases.run(jxkernel, REFERENCE["plan"])["outcomes"])
    return OURS


def as_jax_words(outcome: list) -> list:
    """`outcome` with what jxkernel's jit adds to JAX's unhashable-static error taken out:
    the argument it names (", passed as static argument 'axis' of sort") and the advice after
    JAX's text. Those additions are jxkernel's on purpose (errors name the argument and say
    what to do; the notebook's error card reads them); the rest must be JAX's."""
    kind, text = outcome
    if kind == "ValueError" and text.startswith("Non-hashable static arguments"):
        text, named = re.subn(r", passed as static argument '\w+' of \w+\. The error was",
                              ". The error was", text)
        text = re.sub(r"(The error was:\n[^\n]*\n).*\Z", r"\1", text, flags=re.S)
        assert named == 1, outcome
    return [kind, text]


@pytest.mark.parametrize("name", sorted(REFERENCE["outcomes"]))
def test_wrong_arity_raises_as_jax(name):
    got = {kind: as_jax_words(o) for kind, o in ours()[name].items()}
    assert got == REFERENCE["outcomes"][name]


def test_the_recording_covers_jaxs_public_functions():
    # 312 functions with a signature JAX 0.10.2 reads; each a call too few or too many
    assert len(REFERENCE["plan"]) == 312 and REFERENCE["jax_version"] == "0.10.2"
    assert {"sum", "acos", "amax", "pow", "around", "indices", "cumsum"} <= set(REFERENCE["plan"])
    # every one of them is public in jxkernel.numpy too
    assert [n for n in REFERENCE["plan"] if not hasattr(jxkernel.numpy, n)] == []


def test_the_unhashable_static_error_keeps_jaxs_words_around_its_additions():
    text = ours()["sort"]["many"][1]
    assert text.startswith("Non-hashable static arguments are not supported. An error occurred "
                           "while trying to hash an object of type <class 'numpy.ndarray'>")
    assert as_jax_words(ours()["sort"]["many"]) == REFERENCE["outcomes"]["sort"]["many"]
