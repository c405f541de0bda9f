"""Test files whose tests go on from the state the tests above them left on a shared page (one
JupyterLab page: tests/labextension/test_labextension_browser.py).

`@pytest.mark.after("test_a", ...)` names the earlier tests of the file whose state a test goes
on from. Run whole, in file order, a file's tests find that state made, and nothing is run
twice. A test run alone, or in an xdist worker given part of the file, finds the page new:
`go_on` (called by the file's autouse fixture before each test) first runs the tests it names,
and the ones those name, in file order, but for those this process has already run on the page
and those this run skips (their `skip` or `xla_only` marks). A process may also come to a test
after tests below it have run on the page (worksteal hands an idle worker the tail of the
other's list; tests named in another order on the command line): the page has gone past that
test's state, and `go_on` starts the page again (`restart`) first. (So a test on the page is
not parametrized: its second case would start the page again.) A test `go_on` runs is named as
itself (`request.node.name`, which names its screenshots), not as the test it runs for.
"""
from __future__ import annotations

import inspect
import types

import backend_tier  # tests/support: the NumPy-backend tier's skips


def go_on(request, ran: list, page: str, restart) -> None:
    """Runs, with fixtures by name (`request`: this test's), the earlier tests the running test
    goes on from that `ran` (the names of the tests run on the page, in order) lacks; first
    `restart()`, which must leave the page as new, if a test taking the `page` fixture is to
    run here while one at or after it in the file has run on the page."""
    tests = {name: value for name, value in vars(request.module).items()
             if name.startswith("test_") and inspect.isfunction(value)}
    order = list(tests)                         # (a module's names are in definition order)
    wanted = [name for name in _earlier(request.function.__name__, tests)
              if not _skipped(tests[name])]
    to_run = [name for name in wanted if name not in ran]
    on_page = [name for name in [*to_run, request.function.__name__]
               if page in inspect.signature(tests[name]).parameters]
    if on_page and any(order.index(name) >= order.index(on_page[0]) for name in ran
                       if page in inspect.signature(tests[name]).parameters):
        restart()
        ran.clear()
        to_run = wanted
    for name in to_run:
        test = tests[name]
        test(**{arg: _Replayed(request, test) if arg == "request" else request.getfixturevalue(arg)
                for arg in inspect.signature(test).parameters})
        ran.append(name)


class _Replayed:
    """The running test's `request` as the earlier `test` that go_on runs sees it: the same
    fixtures, but its own `function` and `node.name` (the name its screenshots are saved
    under, tests/labextension/test_labextension_browser.py's `shot`)."""

    def __init__(self, request, test):
        self._request, self.function = request, test
        self.node = types.SimpleNamespace(name=test.__name__)

    def __getattr__(self, attr):
        return getattr(self._request, attr)


def _earlier(name: str, tests: dict) -> list:
    """The tests `name`'s `after` marks name, and theirs, in file order."""
    order = list(tests)
    found, todo = set(), [name]
    while todo:
        later = todo.pop()
        for mark in getattr(tests[later], "pytestmark", []):
            if mark.name != "after":
                continue
            for earlier in mark.args:
                if earlier not in tests or order.index(earlier) >= order.index(later):
                    raise ValueError(f"{later}: after({earlier!r}) names no test above it")
                if earlier not in found:
                    found.add(earlier)
                    todo.append(earlier)
    return sorted(found, key=order.index)


def _skipped(test) -> bool:
    """Whether this run skips `test` by its own marks (tests/conftest.py skips an `xla_only`
    test on the NumPy backend): its state is not the one the tests after it find either."""
    return any(mark.name == "skip" or mark.name == "xla_only" and backend_tier.on_numpy_backend()
               for mark in getattr(test, "pytestmark", []))
