"""Where things are: the repository's root, tests/ and tests/data/, for tests at any depth.

Tests live in folders that mirror the package (tests/lax/, tests/notebook/, ...), so a path
built from a test file's own `__file__` would depend on how deep it sits; they use these.

>>> os.path.basename(DATA)
'data'
"""
import functools
import json
import os

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TESTS)
DATA = os.path.join(TESTS, "data")
SUPPORT = os.path.join(TESTS, "support")


@functools.cache
def recorded(name: str):
    """tests/data/`name`, a JSON recording (of JAX's answers, by a script in reference/), read
    once per process."""
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


# the JAX release every recording in tests/data was made with (reference/'s scripts write it
# as "jax_version"; jxkernel.version.jax_version is the release jxkernel answers as)
JAX_RELEASE = "0.10.2"


def jax_answers(name: str) -> dict:
    """JAX's answers recorded in tests/data/`name`, without the recording's "jax_version", which
    must be JAX_RELEASE (a recording from another release fails here, not as a puzzling
    mismatch in a test). A new dict each call, so a test may pop from it.

    >>> "jax_version" in jax_answers("rbg_reference.json")
    False
    """
    answers = dict(recorded(name))
    version = answers.pop("jax_version", None)
    assert version == JAX_RELEASE, f"tests/data/{name} was recorded with JAX {version}, not {JAX_RELEASE}"
    return answers
