"""jxkernel._src.pjit, as jax._src.pjit for what JAX's tests read of it: `pjit` (JAX's jit
machinery's name for jit, which it is here), `_pjit_lower`'s `cache_info()` (how often a
jit's lowering of a trace was found already lowered: transforms/jit/stages.py's
lower_jit) and `make_jit_cpp_cache`, which jxkernel has no counterpart of.

    >>> f = pjit(lambda x: x * 2)
    >>> before = _pjit_lower.cache_info()
    >>> f.lower(1.0) is not None and _pjit_lower.cache_info().misses == before.misses + 1
    True
"""
import collections

from ...transforms.jit import jit as pjit  # noqa: F401
from ...transforms.jit import stages as _stages

CacheInfo = collections.namedtuple("CacheInfo", "hits misses maxsize currsize")


class _LoweringCache:
    """The lowering cache's counts, as JAX's `_pjit_lower` (a cache) reports them: one entry
    per trace and what else shaped its module, held while the trace lives (no bound)."""

    def cache_info(self) -> CacheInfo:
        held = sum(len(modules) for modules in list(_stages._LOWERED.values()))
        return CacheInfo(_stages.LOWER_COUNTS.hits, _stages.LOWER_COUNTS.misses, None, held)

    def __repr__(self):
        return f"_pjit_lower({self.cache_info()})"


_pjit_lower = _LoweringCache()


def make_jit_cpp_cache(capacity):
    """JAX's C++ cache object for jit's fast path (config.jax_jit_cpp_cache_obj): jxkernel's
    jit keeps each function's compiled programs in a bounded cache of its own."""
    raise NotImplementedError(
        f"make_jit_cpp_cache({capacity!r}): jxkernel has no shared fast-path cache object; each "
        f"jitted function keeps its compiled programs in a bounded cache of its own "
        f"(jax.clear_caches() empties them)")
