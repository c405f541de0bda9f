"""jxkernel.experimental.shard_alike, as jax.experimental.shard_alike: `shard_alike(x, y)`,
two values laid out alike over the mesh (jxkernel/lax/shard_alike.py).

    >>> from jxkernel._jax.experimental.shard_alike import shard_alike
    >>> shard_alike(1.0, 2.0)[1]
    Array(2., dtype=float32, weak_type=True)
"""
from ...lax.shard_alike import shard_alike  # noqa: F401
