"""jxkernel.scipy: the parts of jax.scipy that jxkernel provides (special functions)."""
from . import special  # noqa: F401
