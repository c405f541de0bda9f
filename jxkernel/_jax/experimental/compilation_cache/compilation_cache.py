"""jax.experimental.compilation_cache.compilation_cache: where compiled programs are kept on
disk between processes (xla/disk_cache.py is the cache).

    >>> set_cache_dir("/tmp/jx-cache")
    >>> reset_cache()
"""
from ....xla.disk_cache import reset_cache, set_cache_dir  # noqa: F401
