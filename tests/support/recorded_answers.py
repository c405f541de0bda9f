"""One check for the tests that compare jxkernel's answers to a case list with JAX's recorded
ones, where `different` names the cases known to differ (each an xfail while it differs, and a
failure once it agrees, so that a fix shows up and its entry goes).

    check_answer(mine, theirs, {}, "split")
"""
import pytest


def check_answer(mine: dict, theirs: dict, different: dict, case: str) -> None:
    if case in different:
        pytest.xfail(different[case]) if mine[case] != theirs[case] else \
            pytest.fail(f"{case} now matches JAX: delete its DIFFERENT entry")
    assert mine[case] == theirs[case]
