"""jxkernel.extend, as jax.extend: access to the machinery under the public API, for
extensions. `jxkernel.extend.backend` holds the backends (PJRT clients) and the functions that
start and clear them; `core` the jaxpr IR and `Primitive`; `random` PRNG implementations of
one's own; `linear_util` functions wrapped with transformations; `sharding` XLA's sharding
protos.

    >>> from jxkernel.extend import core
    >>> core.Primitive("my_op")
    my_op
"""
from . import backend, core, linear_util, random, sharding  # noqa: F401
