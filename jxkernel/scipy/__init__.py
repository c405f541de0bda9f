"""jxkernel.scipy: the parts of jax.scipy that jxkernel provides (special functions, linear
algebra, statistical distributions)."""
from . import special  # noqa: F401
from . import linalg, stats  # noqa: F401,E402
