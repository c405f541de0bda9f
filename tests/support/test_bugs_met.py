"""bugs_met: a test during which jxkernel told a bug of its own fails with the bug's traceback,
even where it silenced warnings; one marked `tells_a_bug` passes. Run as pytest runs it: a child
pytest over a small test file, one worker."""
import subprocess
import sys
import textwrap
import warnings

from fresh_process import child_env

SILENCED = """
import warnings
import pytest
import jxkernel
from jxkernel import jit

class EqRaises:             # the case that hid: the explainer compared it as `1 == obj`
    def __hash__(self):
        return 1
    def __eq__(self, other):
        raise NotImplementedError("no __eq__")

def _tell_one():
    from jxkernel.core import told_bugs
    try:
        raise KeyError("a bug of ours")
    except KeyError as e:
        told_bugs.tell("jxkernel could not make a demo note.", "the cell", e)

def test_silences_every_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _tell_one()

def test_meets_none():
    f = jit(lambda x, y: x + 3, static_argnums=[1])
    f(1, 1), f(1, EqRaises())

@pytest.mark.tells_a_bug
def test_tells_one_on_purpose():
    with pytest.warns(RuntimeWarning, match="This is a bug in jxkernel"):
        _tell_one()
"""


def test_a_bug_told_under_silenced_warnings_fails_its_test_and_a_marked_one_passes(tmp_path):
    (tmp_path / "test_bugs.py").write_text(textwrap.dedent(SILENCED))
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "bugs_met", "-p", "no:cacheprovider",
         "-p", "no:xdist", "-p", "no:randomly", "-q", "--rootdir", str(tmp_path), "-c",
         "/dev/null", "test_bugs.py"],
        cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=300)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "3 passed, 1 error" in ran.stdout, ran.stdout
    assert "ERROR test_bugs.py::test_silences_every_warning" in ran.stdout, ran.stdout
    assert ("jxkernel told 1 bug(s) of its own during test_bugs.py::test_silences_every_warning"
            in ran.stdout), ran.stdout
    assert "KeyError: 'a bug of ours'" in ran.stdout, ran.stdout      # its traceback


def _tell(report_with):
    """A demo bug told at In[7]:2: (the bugs kept since, the warning shown), the bugs taken
    back (the tests' own check reads them: not this test's bug to fail on)."""
    from jxkernel.core import told_bugs
    before = told_bugs.last_serial()
    try:
        raise ValueError("kept")
    except ValueError as e:
        with warnings.catch_warnings(record=True) as shown:
            warnings.simplefilter("always")
            told_bugs.tell("jxkernel's demo raised.", report_with, e, at=("In[7]", 2))
    bugs = told_bugs.told_since(before)
    for bug in bugs:
        told_bugs.told.remove(bug)
    return bugs, shown[0]


def test_a_told_bug_is_kept_with_its_traceback_and_found_by_serial(monkeypatch):
    from jxkernel.core import told_bugs
    monkeypatch.setattr(told_bugs, "shown_by", None)       # (a notebook's names its magic)
    (bug,), shown = _tell("the program")
    assert bug.message == ("jxkernel's demo raised. This is a bug in jxkernel: please report it "
                           "with the program.")
    assert (shown.filename, shown.lineno) == ("In[7]", 2)
    assert bug.error == "ValueError" and "ValueError: kept" in bug.traceback
    monkeypatch.setattr(told_bugs, "shown_by", "%jxbugs")
    _, shown = _tell("the cell")
    assert str(shown.message).endswith("please report it with the cell and what %jxbugs shows.")
