"""jxkernel.extend.source_info_util, as jax.extend.source_info_util (and jax._src's): where
the user's code is. An equation records the innermost frame outside jxkernel and the files
libraries register; an error raised running a transformed equation has as cause a
JaxStackTraceBeforeTransformation whose traceback is those frames.

    >>> summarize(SourceInfo("model.py", 12, "apply"))
    'model.py:12 (apply)'
"""
from ...core.source_info import (JaxStackTraceBeforeTransformation,  # noqa: F401
                                 SourceInfo, has_user_context, is_user_filename,
                                 register_exclusion, user_source_info)


def current() -> SourceInfo | None:
    """The SourceInfo of the user's line running now."""
    return user_source_info(2)


def summarize(source_info: SourceInfo | None) -> str:
    """`file:line (function)`, or `unknown` when there is none."""
    if source_info is None:
        return "unknown"
    return f"{source_info.file}:{source_info.line} ({source_info.function})"
