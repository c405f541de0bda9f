"""jxkernel's own bugs that it survives: a view, note or card of ours that raised while the
user's code ran as written. Each is told once as a RuntimeWarning at the user's line or cell
(never a traceback of ours, never the user's call failed), and kept here, newest last, with
its traceback as text: for the report the warning asks for, and for the tests, which fail a
test that met one even where the test silenced or recorded its warnings
(tests/support/bugs_met.py), and for `%jxbugs`, which shows them.

    >>> try:
    ...     {}["a key"]
    ... except KeyError as e:
    ...     with warnings.catch_warnings(record=True) as shown:
    ...         tell("jxkernel could not make the demo note.", "the cell", e, at=("In[3]", 1))
    >>> str(shown[0].message).startswith("jxkernel could not make the demo note. This is a bug "
    ...                                   "in jxkernel: please report it with the cell")
    True
    >>> bug = told.pop()        # (taken back: the tests fail a test that leaves one told)
    >>> bug.error, "KeyError: 'a key'" in bug.traceback
    ('KeyError', True)
"""
from __future__ import annotations

import collections
import dataclasses
import itertools
import traceback
import warnings

from .source_info import user_stacklevel

SAID = "This is a bug in jxkernel: please report it with"
# where the kept bugs are shown, named in each warning: the notebook extension sets its magic
# ("%jxbugs", notebook/magics/session.py) while it is loaded; elsewhere, nothing
shown_by: str | None = None


@dataclasses.dataclass(frozen=True)
class ToldBug:
    serial: int          # one count for the process: which came after a given point
    message: str         # the warning's text, as the user read it
    error: str           # the class of what raised
    traceback: str       # as text: the frames themselves would keep the user's values alive


told: collections.deque = collections.deque(maxlen=20)
_serials = itertools.count()


def tell(text: str, report_with: str, error: BaseException, at: tuple | None = None) -> None:
    """Warn `text` and that it is a bug to report with `report_with` ("the cell", "the program
    that compiled") and what `shown_by` shows, at `at` ((filename, line): a cell's "In[3]")
    or else at the user's innermost line; keep it in `told`."""
    also = f" and what {shown_by} shows" if shown_by else ""
    message = f"{text} {SAID} {report_with}{also}."
    told.append(ToldBug(next(_serials), message, type(error).__name__,
                        "".join(traceback.format_exception(error))))
    if at is not None:
        warnings.warn_explicit(message, RuntimeWarning, *at)
    else:
        warnings.warn(message, RuntimeWarning, stacklevel=user_stacklevel())


def last_serial() -> int:
    """The serial of the newest bug told, -1 before any: `told_since(last_serial())` later
    lists those told in between."""
    return told[-1].serial if told else -1


def told_since(serial: int) -> list:
    """The bugs told after `serial` (of those still kept), oldest first."""
    return [bug for bug in told if bug.serial > serial]
