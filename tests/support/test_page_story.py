"""page_story.go_on on a made-up test file: which earlier tests it runs, in which order, and when
it starts the page again (the browser files' stories: tests/labextension)."""
import inspect
import types

import pytest

import page_story  # tests/support: tests that go on from the tests above them

log = []


def _story_module():
    """A test file of five tests on a page `lab`: b and c go on from a, d from c; e takes
    another fixture and goes on from b."""
    module = types.ModuleType("story_file")

    def test_a(lab, request):
        log.append(("a", lab, request.tag, request.node.name))

    @pytest.mark.after("test_a")
    def test_b(lab):
        log.append(("b", lab))

    @pytest.mark.after("test_a")
    def test_c(lab):
        log.append(("c", lab))

    @pytest.mark.after("test_c")
    def test_d(lab):
        log.append(("d", lab))

    @pytest.mark.after("test_b")
    def test_e(other):
        log.append(("e", other))

    for test in (test_a, test_b, test_c, test_d, test_e):
        setattr(module, test.__name__, test)
    return module


class _Request:
    """What go_on and the tests read of pytest's `request`: the module, the test, its name
    (`node.name`: the browser tests' screenshots'), fixtures by name."""

    def __init__(self, module, name):
        self.module, self.function, self.tag = module, getattr(module, name), name
        self.node = types.SimpleNamespace(name=name)

    def getfixturevalue(self, name):
        return {"lab": "page", "other": "o"}[name]


def _run(module, names, ran):
    """Runs the tests `names` as the browser files' `_story` fixture does."""
    for name in names:
        request = _Request(module, name)
        page_story.go_on(request, ran, "lab", lambda: log.append("restart"))
        test = getattr(module, name)
        test(**{arg: request if arg == "request" else request.getfixturevalue(arg)
                for arg in inspect.signature(test).parameters})
        ran.append(name)


@pytest.fixture(autouse=True)
def _fresh_log():
    log.clear()


def test_in_file_order_nothing_is_replayed():
    _run(_story_module(), ["test_a", "test_b", "test_c", "test_d", "test_e"], [])
    assert [entry[0] for entry in log] == ["a", "b", "c", "d", "e"]


def test_alone_a_test_has_the_tests_it_goes_on_from_run_first_in_file_order():
    _run(_story_module(), ["test_d"], [])
    # a gets this test's `request` (its fixtures), but named as a: its screenshots are a's
    assert log == [("a", "page", "test_d", "test_a"), ("c", "page"), ("d", "page")]


def test_a_part_of_the_file_replays_only_what_this_process_has_not_run():
    ran = []
    _run(_story_module(), ["test_b", "test_d", "test_e"], ran)
    assert [entry[0] for entry in log] == ["a", "b", "c", "d", "e"]
    assert ran == ["test_a", "test_b", "test_c", "test_d", "test_e"]


def test_a_test_after_later_ones_on_the_page_starts_it_again():
    ran = []
    # as worksteal hands a worker that ran c and d the other's b
    _run(_story_module(), ["test_c", "test_d", "test_b"], ran)
    assert [entry if entry == "restart" else entry[0] for entry in log] == [
        "a", "c", "d", "restart", "a", "b"]
    assert ran == ["test_a", "test_b"]


def test_a_test_off_the_page_does_not_start_it_again():
    _run(_story_module(), ["test_a", "test_b", "test_c", "test_d", "test_e"], [])
    log.clear()
    ran = ["test_a", "test_b", "test_c", "test_d"]
    _run(_story_module(), ["test_e"], ran)
    assert log == [("e", "o")]


def test_a_test_this_run_skips_is_not_replayed(monkeypatch):
    module = _story_module()
    pytest.mark.xla_only("several devices")(module.test_c)
    monkeypatch.setenv("JAX_PLATFORMS", "numpy")
    _run(module, ["test_d"], [])
    assert [entry[0] for entry in log] == ["a", "d"]
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    log.clear()
    _run(module, ["test_d"], [])
    assert [entry[0] for entry in log] == ["a", "c", "d"]


def test_an_after_mark_names_a_test_above_it():
    module = _story_module()
    pytest.mark.after("test_d")(module.test_b)
    with pytest.raises(ValueError, match=r"test_b: after\('test_d'\) names no test above it"):
        _run(module, ["test_b"], [])
