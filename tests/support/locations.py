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
