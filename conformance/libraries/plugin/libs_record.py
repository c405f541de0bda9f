"""A pytest plugin (`-p libs_record`) that appends each test's outcome to the JSON-lines file
$LIBS_RECORD as the test finishes, so that a run cut at its timeout still says what passed.

Rows: {"nodeid", "when", "outcome", "message"?} for every call phase and every setup or
teardown that did not pass; {"nodeid", "subtest": true, "outcome"} for a subtest (`self.subTest`) that failed or
was skipped (counted apart: the README counts tests, not subtests, but its skip counts are
pytest's summary line, which adds the skipped subtests);
{"collect_error": nodeid, "message"} for a file or class that did not collect.
It imports nothing of JAX's, so it loads the same under either side.
"""
import json
import os


def _write(row):
    with open(os.environ["LIBS_RECORD"], "a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")


def _message(report):
    """The last lines of a failure's report: enough to say why, small enough to keep."""
    text = getattr(report, "longreprtext", "") or ""
    return "\n".join(text.strip().splitlines()[-6:])[-1500:]


def pytest_runtest_logreport(report):
    if getattr(report, "context", None) is not None or type(report).__name__ == "SubtestReport":
        if not report.passed:
            _write({"nodeid": report.nodeid, "subtest": True, "outcome": report.outcome})
        return
    if report.when != "call" and report.passed:
        return
    row = {"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome}
    if hasattr(report, "wasxfail"):
        row["xfail"] = True
    if report.failed:
        row["message"] = _message(report)
    _write(row)


def pytest_collectreport(report):
    if report.failed:
        _write({"collect_error": report.nodeid, "message": _message(report)})
