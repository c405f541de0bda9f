"""A pytest plugin: a test file that leaves one of jxkernel's config options changed for the
tests after it fails at its last test's teardown, naming the option and the test of it that
changed the option last; the option is put back for the next file's tests.

One test's `config.update(...)` (or `%jxnotes all`, which is one) without a way back changes
every later test of its worker, and the failure shows up in whichever test runs next there,
by chance of the order: stop 115's clamped-start test left `%jxnotes all` on, and five
installed-library tests failed only in a whole run. The check runs where a worker passes from
one file to another (xdist hands a file's tests out in runs, so at the end of each run), after
the file's fixtures are torn down: a file whose module fixture restores what its tests change
(a shell that unloads the extension) passes. A session-scoped fixture may hold an option
changed for the whole run; it is checked when it is torn down instead.

    pytest -p config_leaks tests/...       (tests/conftest.py loads it for the suite)
"""
from __future__ import annotations

import pytest

_BEFORE = pytest.StashKey[dict]()
# option name -> (the fixture holding it changed, the value it had before), for session- and
# package-scoped fixtures, which outlive a file; a with-block one left open is held under
# ("open", name).
_held: dict = {}
# the current module: (its file, the state before its first test, option -> the test of it
# that changed the option last)
_start = None


def _same(a, b) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:           # an array or a value with no truth to its ==
        return False


def changed(before: dict, after: dict) -> list[tuple[str, object, object]]:
    """The options whose values differ: (name, before, after).

    >>> changed({"a": 1, "b": "x"}, {"a": 1, "b": "y"})
    [('b', 'x', 'y')]
    """
    names = list(before) + [name for name in after if name not in before]
    return [(name, before.get(name), after.get(name)) for name in names
            if not _same(before.get(name), after.get(name))]


def _state() -> dict:
    """The global values, and how many with-blocks each option has open here."""
    from jxkernel.config import config
    state = config.global_values()
    state.update({("open", name): n for name, n in config._overridden.items()})
    return state


def _put_back(left) -> list:
    """(name, was, now, why it was not put back or None) for each of `left`, put back. One
    that refuses (jax_num_cpu_devices once a backend started) keeps its value and says why;
    an open with-block cannot be closed from here."""
    from jxkernel.config import config
    told = []
    for name, was, now in left:
        why = "a with-block is closed by its own code" if isinstance(name, tuple) else None
        try:
            if why is None:
                config.update(name, was)
        except Exception as e:
            why = str(e)
        told.append((name, was, now, why))
    return told


def _say(where: str, told, changers: dict) -> str:
    def one(name, was, now, why):
        said = (f"a `with` block of config.{name[1]} entered and not left"
                if isinstance(name, tuple) else
                f"config.{name} = {now!r} (it was {was!r}; "
                + ("put back)" if why is None else f"not put back: {why})"))
        return said + (f", changed last by {changers[name]}" if name in changers else "")
    return (f"{where} left jxkernel's config changed: " + "; ".join(one(*t) for t in told)
            + ". Undo the change (try/finally, a fixture that restores, or config.override "
              "in a with block).")


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    if fixturedef.scope not in ("session", "package"):   # torn down before the file's check
        return (yield)
    before = _state()
    try:
        return (yield)
    finally:
        for name, was, _ in changed(before, _state()):
            _held.setdefault(name, (fixturedef, was))


def pytest_fixture_post_finalizer(fixturedef, request):
    released = {name: was for name, (holder, was) in _held.items() if holder is fixturedef}
    if not released:
        return
    for name in released:
        del _held[name]
    now = _state()
    left = changed(released, {name: now.get(name) for name in released})
    if left:
        raise AssertionError(_say(f"fixture {fixturedef.argname!r}", _put_back(left), {}))


def _module(item):
    return item.nodeid.split("::")[0]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    global _start
    if _start is None or _start[0] != _module(item):
        _start = (_module(item), _state(), {})
    item.stash[_BEFORE] = _state()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    global _start
    before = item.stash.get(_BEFORE, None)
    if before is None or _start is None:        # its setup failed before ours ran
        return
    module, at_start, changers = _start
    for name, _, _ in changed(before, _state()):
        changers[name] = item.nodeid
    if nextitem is not None and _module(nextitem) == module:
        return                  # its module's fixtures are still up: what they hold is theirs
    _start = None
    left = [(name, was, now) for name, was, now in changed(at_start, _state())
            if name not in _held]
    if left:
        raise AssertionError(_say(module, _put_back(left), changers))
