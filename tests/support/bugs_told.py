"""jxkernel's own bugs that it tells and survives: a warning ending "This is a bug in jxkernel:
please report it ..." (the recompile explainer raising, a note it could not make).
tests/conftest.py fails the run on each one a test met; `quiet_but_bugs` keeps them from being
silenced with every other warning of a block."""
import contextlib
import warnings

BUGS_TOLD = "This is a bug in jxkernel"


@contextlib.contextmanager
def quiet_but_bugs():
    """Every warning ignored inside the block, except jxkernel's told bugs, which raise there.

    A test that silenced all warnings (`simplefilter("ignore")`, to compare values with JAX's)
    hid the explainer's bug with a static whose `__eq__` raises, whose compile it logged with
    no reason; raised, it fails the case it broke.

        >>> with quiet_but_bugs():
        ...     warnings.warn("something else")
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.filterwarnings("error", message=f".*{BUGS_TOLD}")
        yield
