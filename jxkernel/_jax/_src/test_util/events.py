"""The compile counters JAX's test files wrap calls in (`with jtu.count_jit_and_pmap_lowerings()
as count: ...; count()`), read from jxkernel's compile record (core/compile_record.py): every
jit, pmap and eager-operation compile is an event there, and each trace of a jitted function
that missed the tracing cache.

    >>> with count_jit_and_pmap_lowerings() as count:
    ...     _ = jit(lambda x: x * 3)(np.float32(1))
    >>> count()
    1

JAX's counters of its C++ fast path and device_put batches have no counterpart here.
"""
import contextlib

import numpy as np  # noqa: F401  (the example's)

from ....core import compile_record
from ....core.compile_record import EAGER
from ....transforms.jit import jit  # noqa: F401  (the example's)


def _counter(counts):
    """A block counting the compile events `counts(event)` says to count."""
    @contextlib.contextmanager
    def count_events():
        seen = [0]

        def listen(event):
            seen[0] += counts(event)
        unsubscribe = compile_record.subscribe(listen)
        try:
            yield lambda: seen[0]
        finally:
            unsubscribe()
    return count_events


# a program lowered (and compiled): a jit, a pmap or an eager operation, JAX's
# "lower_jaxpr_to_module" (its eager operations are jits too); a retrace inlined into another
# program lowers nothing of its own
count_jit_and_pmap_lowerings = _counter(lambda e: e.compiled)
# a jitted function traced: JAX's "trace_to_jaxpr" (each miss of the tracing cache)
count_jit_tracing_cache_miss = _counter(lambda e: e.miss)
# a program compiled: JAX's "pxla_cached_compilation"
count_jit_compilation_cache_miss = _counter(lambda e: e.compiled)
# an eager operation compiled for its operand types and params (JAX's primitive cache's misses)
count_primitive_compiles = _counter(lambda e: e.compiled and e.origin == EAGER)


@contextlib.contextmanager
def assert_num_jit_and_pmap_compilations(times):
    """The block lowers exactly `times` programs (JAX's AssertionError words otherwise)."""
    with count_jit_and_pmap_lowerings() as count:
        yield
    if count() != times:
        raise AssertionError(f"Expected exactly {times} XLA compilations, but executed {count()}")
