"""Runtime state under JAX's names: `clear_caches`, `clear_backends`, `transfer_guard*`,
`checking_leaks`, `check_tracer_leaks`.

    >>> import jxkernel as jax, numpy as np
    >>> with jax.transfer_guard("disallow"):  # doctest: +IGNORE_EXCEPTION_DETAIL
    ...     x = jax.device_put(np.ones(2))       # explicit: allowed
    ...     jax.jit(lambda v: v)(np.ones(2))     # implicit: refused
    Traceback (most recent call last):
    JaxRuntimeError: INVALID_ARGUMENT: Disallowed host-to-device transfer: ...

The options are process-wide (JAX's context managers set thread-local values); the rules are
in jxkernel/xla/transfer_guard.py and jxkernel/core/tracer_errors/leaks.py.
"""
from __future__ import annotations

import contextlib
import gc

from ..core.config import config
from ..transforms.jit import cache as jit_cache, high as jit_high, primitive as jit_primitive
from ..core import lru, partial_eval
from ..xla import dispatch, memory, scalars
from ..xla.transfer_guard import DIRECTIONS
from ..xla.effect_tokens import effects_barrier

__all__ = ["check_tracer_leaks", "checking_leaks", "clear_caches", "transfer_guard",
           "transfer_guard_device_to_device", "transfer_guard_device_to_host",
           "transfer_guard_host_to_device"]


@contextlib.contextmanager
def transfer_guard(new_val: str):
    """Guard every kind of transfer at level `new_val` inside the block: "allow", "log",
    "disallow" (implicit transfers only), "log_explicit", "disallow_explicit" (all)."""
    with contextlib.ExitStack() as stack:
        for name in ("jax_transfer_guard",) + tuple(f"jax_transfer_guard_{d}" for d in DIRECTIONS):
            stack.enter_context(config.override(name, new_val))
        yield


def _one_direction(direction: str):
    name = f"jax_transfer_guard_{direction}"

    def guard(new_val: str):
        return config.override(name, new_val)
    guard.__name__ = guard.__qualname__ = f"transfer_guard_{direction}"
    guard.__doc__ = (f"Guard {direction.replace('_', '-')} transfers at level `new_val` inside "
                     f"a ``with`` block (the levels of `transfer_guard`).")
    return guard


transfer_guard_host_to_device = _one_direction("host_to_device")
transfer_guard_device_to_device = _one_direction("device_to_device")
transfer_guard_device_to_host = _one_direction("device_to_host")


def check_tracer_leaks(new_val: bool = True):
    """``with check_tracer_leaks(True):`` raises when a jit or vmap trace finishes with one
    of its tracers still held (in a global, a list, an attribute...)."""
    return config.override("jax_check_tracer_leaks", bool(new_val))


def checking_leaks():
    """``with checking_leaks():`` is ``with check_tracer_leaks(True):``."""
    return check_tracer_leaks(True)


def clear_caches() -> None:
    """Forget every executable and trace held in memory, as `jax.clear_caches()`: jit's
    (a jitted function traces and compiles again), eager operations', the transformations'
    and the compiler's by-text cache. The on-disk cache stays, so recompiling may be a quick
    load. What to call when memory runs out (xla/memory.OutOfMemoryError says so).

        >>> f = jax.jit(lambda x: x + 1)
        >>> f(1.0)
        Array(2., dtype=float32, weak_type=True)
        >>> clear_caches()
        >>> f._cache_size()
        0
    """
    memory.clear_caches()
    lru.clear_every_cache()       # eager programs, transformed jaxprs, pmap's, shard_map's...
    dispatch.clear_primitive_cache()
    for cache in (jit_primitive._impl_cache, partial_eval._split_cache, scalars._scalar_buffers):
        cache.clear()
    jit_high.forget()             # hijax jits' programs and last calls
    for state in list(jit_cache.FUN_STATES.values()):
        for cache in state.caches.values():   # compiled, fast path, traces, history, last hit
            for part in cache:
                part.clear()
    memory.trim_heap()          # what was freed goes back to the system (glibc keeps it)


def clear_backends() -> None:
    """JAX's `jax.extend.backend.clear_backends()`: wait for the side effects in flight
    (`effects_barrier`), then forget every executable and trace held in memory
    (`clear_caches`), and collect the garbage cycles that may still hold one, so no compiled
    program stays alive on the backends and the next call compiles again. JAX also drops its
    PJRT clients, to make new ones at the next use; jxkernel keeps one client per platform for
    the process, so its devices, and the Arrays on them, stay as they were.

        >>> f = jax.jit(lambda x: x * 2)
        >>> f(1.0)
        Array(2., dtype=float32, weak_type=True)
        >>> clear_backends()
        >>> f._cache_size()
        0
    """
    effects_barrier()
    clear_caches()
    gc.collect()
