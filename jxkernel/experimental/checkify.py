"""jxkernel.experimental.checkify, as jax.experimental.checkify: assertions on traced values
(`check`), returned as an `Error` by `checkify` (see jxkernel/_src/checkify.py for what
jxkernel supports).

    >>> err, _ = checkify(lambda x: check(x < 3, "too big: {}", x))(5)
    >>> err.get()
    'too big: 5 (`check` failed)'
"""
from .._src.checkify import (DivisionByZeroError, Error, FailedCheckError, JaxException,  # noqa: F401
                             NaNError, OOBError, all_checks, automatic_checks, check,
                             checkify, div_checks, float_checks, index_checks, nan_checks,
                             user_checks)
