"""jxkernel._src.compilation_cache, as jax._src.compilation_cache: whether the persistent
cache is enabled in JAX's sense (a folder set by the user, the cache on). xla/disk_cache.py
is jxkernel's cache; unlike JAX's, it also keeps programs in a default folder
(~/.cache/jxkernel/xla) when none is set, quietly: JAX's persistent-cache log lines are
WARNINGs only where this says True, as in JAX.

    >>> from jxkernel.core.config import config
    >>> is_persistent_cache_enabled() == bool(config.jax_enable_compilation_cache
    ...                                       and config.jax_compilation_cache_dir)
    True
"""
from ...xla.disk_cache import cache_dir, reset_cache, set_cache_dir  # noqa: F401
from ...xla.disk_cache import user_configured as is_persistent_cache_enabled  # noqa: F401
