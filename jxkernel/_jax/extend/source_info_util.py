"""jxkernel.extend.source_info_util, as jax.extend.source_info_util (and jax._src's): where
the user's code is. An equation records the innermost frame outside jxkernel and the files
libraries register, with its callers up to the function being traced
(`eqn.source_info.traceback`); an error raised running a transformed equation has as cause a
JaxStackTraceBeforeTransformation whose traceback is those frames.

    >>> summarize(SourceInfo("model.py", 12, "apply"))
    'model.py:12 (apply)'
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from typing import NamedTuple

from ...core.source_info import (JaxStackTraceBeforeTransformation,  # noqa: F401
                                 SourceInfo, Traceback, has_user_context, is_user_filename,
                                 positions, register_exclusion, user_source_info)


class Frame(NamedTuple):
    """One frame of a traceback, as JAX's: its file, qualified function name and the span of
    the expression running there (columns 0-based)."""
    file_name: str
    function_name: str
    start_line: int
    start_column: int
    end_line: int
    end_column: int


def current() -> SourceInfo | None:
    """The SourceInfo of the user's line running now."""
    return user_source_info(2)


def raw_frame_to_frame(code, lasti: int) -> Frame:
    """The Frame of code object `code` at instruction offset `lasti`."""
    start_line, end_line, start_column, end_column = positions(code, lasti)
    return Frame(code.co_filename, code.co_qualname, start_line, start_column, end_line,
                 end_column)


def user_frames(traceback: Traceback | None) -> Iterator[Frame]:
    """The user's frames of `traceback`, innermost first (not jxkernel's or the standard
    library's)."""
    codes, lastis = traceback.raw_frames() if traceback else ([], [])
    return (raw_frame_to_frame(c, i) for c, i in zip(codes, lastis)
            if is_user_filename(c.co_filename))


@functools.lru_cache(maxsize=64)
def user_frame(traceback: Traceback | None) -> Frame | None:
    """The innermost of the user's frames of `traceback`, or None."""
    return next(user_frames(traceback), None)


def _summarize_frame(frame: Frame) -> str:
    if frame.start_column:
        return f"{frame.file_name}:{frame.start_line}:{frame.start_column} " \
               f"({frame.function_name})"
    return f"{frame.file_name}:{frame.start_line} ({frame.function_name})"


def summarize(source_info: SourceInfo | None, num_frames: int = 1) -> str:
    """`file:line (function)`, or `unknown` when there is none; with `num_frames`, that many
    of the user's frames, outermost first, a line each (JAX's form, with the column)."""
    if source_info is None:
        return "unknown"
    if num_frames == 1 or source_info.code is None:
        return f"{source_info.file}:{source_info.line} ({source_info.function})"
    frames = itertools.islice(user_frames(source_info.traceback), num_frames)
    return "\n".join(reversed([_summarize_frame(f) for f in frames]))
