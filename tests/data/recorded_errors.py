"""What a case raised, as the case files under tests/data record it for JAX and for jxkernel:
the exception's class name and its message, cut before a tail that differs between runs.

    >>> error_of(lambda: 1 / 0)
    ['ZeroDivisionError', 'division by zero']
"""

# JAX appends a note about its filtered traceback, and some errors name the user's source line
TRACEBACK_NOTE = "\n--------------------"
SOURCE_NOTE = " This error occurs at source:"


def error_of(fn, cut: str | None = None) -> list | None:
    """[class name, message up to `cut`] of what `fn()` raises, or None if it returns."""
    try:
        fn()
    except Exception as e:              # the class's name and message are what is compared
        text = str(e)
        return [type(e).__name__, text.split(cut)[0] if cut else text]
    return None
