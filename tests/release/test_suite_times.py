"""scripts/suite_times.py: the per-folder time table from a run's JUnit XML."""
import importlib.util
import os

import locations  # tests/support: the repository's folders

spec = importlib.util.spec_from_file_location(
    "suite_times", os.path.join(locations.ROOT, "scripts", "suite_times.py"))
suite_times = importlib.util.module_from_spec(spec)
spec.loader.exec_module(suite_times)


def test_times_add_up_per_folder(tmp_path):
    xml = tmp_path / "junit.xml"
    xml.write_text("""<testsuites><testsuite>
      <testcase classname="tests.lax.test_lax_loops" name="a" time="1.5"/>
      <testcase classname="tests.lax.test_lax_dot.TestDot" name="b" time="0.5"/>
      <testcase classname="tests.views.test_stepper" name="c" time="6"/>
    </testsuite></testsuites>""")
    times = suite_times.folder_times(str(xml))
    assert times == {"tests/lax": (2, 2.0), "tests/views": (1, 6.0)}
    text = suite_times.table(times)
    assert text.splitlines()[2] == "| `tests/views` | 1 | 6 | 75% |"
    assert text.splitlines()[-1] == "| all | 3 | 8 | 100% |"


def test_the_doc_has_the_table_markers():
    with open(suite_times.DOC) as f:
        doc = f.read()
    assert suite_times.START in doc and suite_times.END in doc


def test_times_add_up_per_file_and_the_slowest_come_first(tmp_path):
    xml = tmp_path / "junit.xml"
    xml.write_text("""<testsuites><testsuite>
      <testcase classname="tests.lax.test_lax_loops" name="a" time="1.5"/>
      <testcase classname="tests.lax.test_lax_loops.TestScan" name="b" time="0.5"/>
      <testcase classname="tests.lax.test_lax_dot" name="c" time="3"/>
      <testcase classname="" name="tests/views/test_skipped.py" time="0"/>
    </testsuite></testsuites>""")
    times = suite_times.file_times(str(xml))
    assert times == {"tests/lax/test_lax_loops.py": (2, 2.0), "tests/lax/test_lax_dot.py": (1, 3.0),
                     "tests/views/test_skipped.py": (1, 0.0)}
    lines = suite_times.slowest_files(times, 2).splitlines()
    assert lines[2:] == ["| `tests/lax/test_lax_dot.py` | 1 | 3 | 60% |",
                         "| `tests/lax/test_lax_loops.py` | 2 | 2 | 40% |",
                         "| all 3 files | 4 | 5 | 100% |"]


def test_the_heap_walkers_that_run_first_are_test_files(pytestconfig):
    """tests/conftest.py's _HEAP_WALKERS_FIRST: a renamed file would quietly lose its place."""
    root_conftest = os.path.join(locations.ROOT, "tests", "conftest.py")
    conftest = next(p for p in pytestconfig.pluginmanager.get_plugins()
                    if getattr(p, "__file__", None) == root_conftest)
    files = {name for _, _, names in os.walk(os.path.join(locations.ROOT, "tests"))
             for name in names}
    assert conftest._HEAP_WALKERS_FIRST and set(conftest._HEAP_WALKERS_FIRST) <= files
