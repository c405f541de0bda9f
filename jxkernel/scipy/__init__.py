"""jxkernel.scipy: the parts of jax.scipy that jxkernel provides (special functions, linear
algebra, statistical distributions, optimization, sparse iterative solvers)."""
from . import special  # noqa: F401
from . import linalg, stats  # noqa: F401,E402
from . import optimize, sparse  # noqa: F401,E402


def __getattr__(name):
    """`jxkernel.scipy.signal` loads on first use, as jax.scipy's submodules do."""
    if name == "signal":
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"signal"})
