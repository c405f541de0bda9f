"""jax.scipy.integrate: the trapezoidal rule.

    >>> trapezoid(jnp.array([1., 2., 3.]), dx=0.5)
    Array(2., dtype=float32)
"""
from ..numpy.calculus import trapezoid as _trapezoid
from ..numpy.util import jnp_jit

__all__ = ["trapezoid"]

# jnp.trapezoid, jitted with a static axis as JAX's scipy version is
trapezoid = jnp_jit(_trapezoid, static_argnames=("axis",))
