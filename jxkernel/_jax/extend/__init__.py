"""jxkernel.extend, as jax.extend: access to the machinery under the public API, for
extensions. `jxkernel.extend.core` holds the jaxpr IR and `Primitive`; `random` PRNG
implementations of one's own; `sharding` XLA's sharding protos.

    >>> from jxkernel.extend import core
    >>> core.Primitive("my_op")
    my_op
"""
from . import core, random, sharding  # noqa: F401
