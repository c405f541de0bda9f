"""compile_count.CollectionCompiles: a file whose collection compiles an XLA program fails to
collect, naming itself; compiles once collection is over are the tests' own."""
import types

from compile_count import CollectionCompiles


class _Outcome:
    def __init__(self, report):
        self.report = report

    def get_result(self):
        return self.report


def _collect(guard, compiles: int, nodeid="tests/x/test_y.py"):
    """The report of collecting `nodeid` while XLA compiles `compiles` programs."""
    report = types.SimpleNamespace(outcome="passed", longrepr=None, passed=True)
    compile_ = guard.counting(lambda: "executable")
    wrapper = guard.pytest_make_collect_report(types.SimpleNamespace(nodeid=nodeid, name="y"))
    next(wrapper)
    for _ in range(compiles):
        assert compile_() == "executable"
    try:
        wrapper.send(_Outcome(report))
    except StopIteration:
        pass
    return report


def test_a_file_that_compiles_while_collected_fails_naming_itself():
    report = _collect(CollectionCompiles(install=False), 2)
    assert report.outcome == "failed"
    assert report.longrepr.startswith("collecting tests/x/test_y.py compiled 2 XLA programs")
    assert "functools.cache" in report.longrepr


def test_a_file_that_compiles_nothing_collects():
    assert _collect(CollectionCompiles(install=False), 0).outcome == "passed"


def test_compiles_after_collection_are_the_tests_own():
    guard = CollectionCompiles(install=False)
    guard.pytest_collection_finish(session=None)
    assert _collect(guard, 3).outcome == "passed" and guard.compiles == 0
