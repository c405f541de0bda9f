"""jxkernel._src.compilation_cache, as jax._src.compilation_cache: whether compiled programs
are kept on disk (xla/disk_cache.py is jxkernel's cache; unlike JAX's, it is on by default, in
~/.cache/jxkernel/xla).

    >>> from jxkernel.core.config import config
    >>> is_persistent_cache_enabled() == bool(config.jax_enable_compilation_cache)
    True
"""
from ...xla.disk_cache import cache_dir, reset_cache, set_cache_dir  # noqa: F401


def is_persistent_cache_enabled() -> bool:
    """Whether compiles read and write the on-disk cache (JAX's name for it)."""
    return cache_dir() is not None
