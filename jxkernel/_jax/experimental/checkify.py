"""jxkernel.experimental.checkify, as jax.experimental.checkify: assertions on traced values
(`check`), functionalized into an `Error` by `checkify`, with automatic checks (NaNs,
division by zero, out-of-bounds indexing); see jxkernel/api/checkify.py.

    >>> err, _ = checkify(lambda x: check(x < 3, "too big: {}", x))(jnp.array(5))
    >>> err.get()
    'too big: 5 (`check` failed)'
"""
# JAX's public names only: the error classes (FailedCheckError, OOBError, ...) live in
# jxkernel._src.checkify, as JAX's in jax._src.checkify
from .._src.checkify import (Error, ErrorCategory, JaxRuntimeError,  # noqa: F401
                             all_checks, automatic_checks, check, check_error, checkify,
                             debug_check, div_checks, float_checks, index_checks, init_error,
                             nan_checks, user_checks)
