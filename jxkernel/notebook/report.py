"""`%jxreport` and `report()`: the session's compilations, with what changed at each
recompile and the fix, cache hits per function and timings (compile_report.py builds it and
its view, `ReportView`; scripts without IPython call `jxkernel.compile_report.report()`).

    %jxreport                       show it: text, HTML, and the JSON bundle
    %jxreport report.html           write a self-contained HTML page (escaped, no script)
    %jxreport --format json r.json  write JSON (the format defaults to the file's suffix)

    >>> text = repr(report())       # the view; report(format="json") is the JSON text
    >>> import re
    >>> line = re.sub("[0-9.]+", "N", text.splitlines()[0])     # (this process's counts)
    >>> line in ("N compilation(s) (N recompilation(s)) of N function(s), N cache hit(s); "
    ...          "trace N ms, lower N ms, compile N ms",
    ...          # where one ran on the NumPy backend, which compiles nothing (miss_words)
    ...          "N cache miss(es) (N again) of N function(s), N cache hit(s); "
    ...          "trace N ms, lower N ms, prepare N ms")
    True

The view's JSON bundle is `application/vnd.jxkernel.report+json`: compile_report.py's
docstring lists its fields (version, generated, config, totals, functions, events with
their explanation).
"""
from __future__ import annotations

import os

from ..views import compile_report
from ..views.compile_report import ReportView


def report(format: str = "view", file=None):
    """The session's report: a ReportView ("view"), or compile_report's formats ("dict",
    "json", "html", "text"), written to `file` if given."""
    if format == "view":
        if file is not None:
            raise ValueError("report: a view is not written to a file; pass format='html' or "
                             "'json' with `file`")
        return ReportView()
    return compile_report.report(format, file)


def format_for(file: str, format: str | None) -> str:
    """The format %jxreport writes `file` in: --format, else its suffix (.json: json)."""
    if format is not None:
        return format
    return "json" if os.path.splitext(file)[1].lower() == ".json" else "html"
