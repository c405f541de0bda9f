"""One check for the tests that compare jxkernel's answers to a case list with JAX's recorded
ones, where `different` names the cases known to differ (each an xfail while it differs, and a
failure once it agrees, so that a fix shows up and its entry goes).

    check_answer(mine, theirs, {}, "split")
"""
import json

import pytest


def check_answer(mine: dict, theirs: dict, different: dict, case: str) -> None:
    if case in different:
        pytest.xfail(different[case]) if mine[case] != theirs[case] else \
            pytest.fail(f"{case} now matches JAX: delete its DIFFERENT entry")
    assert mine[case] == theirs[case]


# the one difference kept in recorded answers: JAX's message names its placeholder class for
# a pytree leaf by its module
_OWN_NAMES = (("jxkernel.transforms.api_util._PytreeLeaf", "jax._src.api_util.PytreeLeaf"),)


def as_jax_names(answer):
    """A recorded answer (JSON data) with jxkernel's own class names written as JAX's."""
    text = json.dumps(answer)
    for ours, theirs in _OWN_NAMES:
        text = text.replace(ours, theirs)
    return json.loads(text)
