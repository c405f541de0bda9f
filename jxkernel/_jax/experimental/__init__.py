"""jxkernel.experimental, as jax.experimental: `io_callback`, for Python functions with
side effects called from traced code.

    >>> from jxkernel.experimental import io_callback
    >>> io_callback(lambda x: x + 1, jxkernel.ShapeDtypeStruct((), jnp.int32), 1)
    Array(2, dtype=int32)
"""
from ...core.lazy_names import module_aliases
from ...core.hijax import cur_qdd  # noqa: F401
from ...lax.callbacks import io_callback  # noqa: F401
from .._src.dtypes import primal_tangent_dtype  # noqa: F401

# the experimental modules whose code is jxkernel's own, in the engine package it belongs to
module_aliases(__name__, {"array_serialization": "jxkernel.api.array_serialization",
                          "colocated_python": "jxkernel.api.colocated_python",
                          "custom_partitioning": "jxkernel.api.custom_partitioning",
                          "jet": "jxkernel.api.jet",
                          "multihost_utils": "jxkernel.api.multihost_utils",
                          "ode": "jxkernel.api.ode",
                          "random": "jxkernel.random.stateful_rng",
                          "serialize_executable": "jxkernel.transforms.jit.serialize_executable"})
# (`sparse` is a package here: jxkernel.api.sparse's names and random_bcoo, from two layers)
