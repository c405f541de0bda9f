"""jxkernel.extend, as jax.extend: access to the machinery under the public API, for
extensions. `jxkernel.extend.backend` holds the backends (PJRT clients) and the functions that
start and clear them; `core` the jaxpr IR and `Primitive`; `random` PRNG implementations of
one's own; `linear_util` functions wrapped with transformations; `sharding` XLA's sharding
protos.

    >>> from jxkernel.extend import core
    >>> core.Primitive("my_op")
    my_op
"""
import importlib

from . import core, linear_util, random, sharding  # noqa: F401


def __getattr__(name):
    # `backend` loads on first use (JAX's imports it with the package): its xla_bridge needs
    # jaxlib, which the NumPy backend runs without
    if name == "backend":
        return importlib.import_module(f"{__name__}.backend")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
