"""A pytest plugin (tests/conftest.py registers it): a test during which jxkernel told a bug of
its own (jxkernel/core/told_bugs.py: a view, note or card that raised while the user's code ran,
told as a "This is a bug in jxkernel" warning) fails, with the bug's traceback, even where the
test silenced or recorded its warnings.

A warning in the run's summary was read past once (stop 114: the key-reuse pass raising
IndexError on jax.random.permutation's program, in two tests that passed). Counting the warnings
pytest saw was the next guard; it missed the explainer breaking on a static whose __eq__ raises,
in a test that silenced every warning to compare values with JAX's (stop 117). A test that makes
a bug on purpose, to test how it is told, says so: `@pytest.mark.tells_a_bug`.
"""
import sys

import pytest

_before = {}      # the told_bugs module and its newest serial when the test's setup began


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "tells_a_bug: the test makes jxkernel tell a bug of its own on purpose "
                   "(a broken explainer, a card that raises), to test how it is told; "
                   "tests/support/bugs_met.py does not fail it for that.")


def _module():
    return sys.modules.get("jxkernel.core.told_bugs")    # (before jxkernel is imported: none)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    module = _module()
    _before[item.nodeid] = (module, module.last_serial() if module is not None else -1)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item):
    """After the test's fixtures are torn down (trylast): what they told counts too."""
    was, serial = _before.pop(item.nodeid, (None, -1))
    module = _module()
    if module is None or item.get_closest_marker("tells_a_bug") is not None:
        return
    # (a test that imported jxkernel afresh has a new module, whose every bug is new)
    met = module.told_since(serial if module is was else -1)
    if met:
        raise AssertionError(
            f"jxkernel told {len(met)} bug(s) of its own during {item.nodeid} (a warning the "
            f"test may have silenced); the first:\n{met[0].message}\n{met[0].traceback}")
