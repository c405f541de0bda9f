"""jxkernel._src.sharding, as jax._src.sharding: the Sharding base class and IndivisibleError,
the ValueError of a dimension a mesh's axes do not divide (core/mesh.py).

    >>> issubclass(IndivisibleError, ValueError)
    True
"""
from ...api.sharding import Sharding  # noqa: F401
from ...core.mesh import IndivisibleError  # noqa: F401
