"""What a case raised, as the case files under tests/data record it for JAX and for jxkernel:
the exception's class name and its message, cut before a tail that differs between runs.

    >>> error_of(lambda: 1 / 0)
    ['ZeroDivisionError', 'division by zero']
"""
import json

import numpy as np

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


def error_record(fn) -> dict:
    """{"error": class name, "message": message} of what `fn()` raises, {"error": None} if it
    returns (the export and colocated-python case files record errors so).

    >>> error_record(lambda: 1 / 0), error_record(lambda: 1)
    ({'error': 'ZeroDivisionError', 'message': 'division by zero'}, {'error': None})
    """
    found = error_of(fn)
    return {"error": None} if found is None else {"error": found[0], "message": found[1]}


def error_head(fn) -> list | None:
    """[class name, the message's first two lines] of what `fn()` raises, or None if it
    returns (the case files of JAX's test-file gaps record errors so).

    >>> error_head(lambda: int("x"))
    ['ValueError', "invalid literal for int() with base 10: 'x'"]
    """
    try:
        fn()
    except Exception as e:              # the class's name and message are what is compared
        return [type(e).__name__, "\n".join(str(e).strip().splitlines()[:2]).strip()]
    return None


def raised_head(fn) -> list:
    """error_head of a case that must raise (a recording script's check that it did).

    >>> raised_head(lambda: int("x"))[0]
    'ValueError'
    """
    found = error_head(fn)
    assert found is not None, "the case did not raise"
    return found


def leaf_values(jax, value) -> list:
    """The leaves of `value` as lists, as a JSON record reads back (tuples as lists).

    >>> leaf_values(jax, (jnp.arange(2), 3.0))
    [[0, 1], 3.0]
    """
    return json.loads(json.dumps([np.asarray(a).tolist()
                                  for a in jax.tree_util.tree_leaves(value)]))


def leaves_record(jax, value) -> list:
    """Per leaf of `value`: [dtype name, shape, values as lists], compared exactly."""
    return [[np.asarray(x).dtype.name, list(np.shape(x)), np.asarray(x).tolist()]
            for x in jax.tree_util.tree_leaves(value)]
