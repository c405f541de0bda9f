"""jxkernel._src.lax.control_flow.common, as jax._src.lax.control_flow.common: how cond's
branches come to take the same consts (jxkernel/lax/cond.py's `pad_constvars` and
`dedup_consts`, cached as JAX's; JAX's tests clear their caches in setUp).

    >>> _dedup_consts.cache_clear()
"""
from .....lax.cond import dedup_consts as _dedup_consts  # noqa: F401
from .....lax.cond import pad_constvars as _pad_constvars  # noqa: F401
