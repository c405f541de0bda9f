"""jax.experimental.compilation_cache.compilation_cache: where compiled programs are kept on
disk between processes (xla/disk_cache.py is the cache).

    >>> from jxkernel import config
    >>> before = config.jax_compilation_cache_dir
    >>> set_cache_dir("/tmp/jx-cache")
    >>> reset_cache()
    >>> set_cache_dir(before)          # the folder it had (None: the default one)
"""
from ....xla.disk_cache import reset_cache, set_cache_dir  # noqa: F401
