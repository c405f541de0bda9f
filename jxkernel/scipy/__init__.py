"""jxkernel.scipy: the parts of jax.scipy that jxkernel provides (special functions, linear
algebra, statistical distributions, optimization, sparse iterative solvers)."""
from . import special  # noqa: F401
from . import linalg, stats  # noqa: F401,E402
from . import optimize, sparse  # noqa: F401,E402
