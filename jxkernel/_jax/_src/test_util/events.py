"""The compile counters JAX's test files wrap calls in (`with jtu.count_jit_and_pmap_lowerings()
as count: ...; count()`), read from jxkernel's compile record (core/compile_record.py): every
jit, pmap and eager-operation compile is an event there.

    >>> with count_jit_and_pmap_lowerings() as count:
    ...     _ = jit(lambda x: x * 3)(np.float32(1))
    >>> count()
    1

Beside them, JAX's counters of runtime events (core/monitoring.test_event_counts): a trace of
a jitted function (`count_jit_tracing_cache_miss`), host data put on a device
(`count_device_put`), a jit call past every fast path (`count_pjit_cpp_cache_miss`: jxkernel's
fast paths, in C and Python, take JAX's C++ one's place), and jaxlib's own counts of its device
puts by kind (`count_internal_device_puts`).
"""
import contextlib

import numpy as np  # noqa: F401  (the example's)

from ....core import compile_record
from ....core.compile_record import EAGER
from ....core.monitoring import test_event_counts
from ....xla import dispatch
from ....xla.client import internal_device_put_info
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
# a program compiled: JAX's "pxla_cached_compilation"
count_jit_compilation_cache_miss = _counter(lambda e: e.compiled)
_count_eager_compiles = _counter(lambda e: e.compiled and e.origin == EAGER)


@contextlib.contextmanager
def count_primitive_compiles():
    """Eager operations compiled in the block, their cache emptied first (as JAX's clears
    its xla_primitive_callable): `lax.add(1, 2); lax.add(2, 3)` counts 1."""
    dispatch.clear_primitive_cache()
    with _count_eager_compiles() as count:
        yield count


def _count_test_events(name):
    """A block counting core/monitoring's `name` test events (JAX's count_events)."""
    @contextlib.contextmanager
    def count_event():
        before = test_event_counts[name]
        yield lambda: test_event_counts[name] - before
    return count_event


# host data put on a device (JAX's "batched_device_put"): a jit's NumPy or Python-scalar
# argument, device_put of host data, a constant of a compiled program
count_device_put = _count_test_events("batched_device_put")
# a jitted function traced: JAX's "trace_to_jaxpr" (each miss of the tracing cache, by a
# call, a stage's `.trace`/`.lower` or eval_shape)
count_jit_tracing_cache_miss = _count_test_events("trace_to_jaxpr")
# an eager jit call that no fast path took (JAX's "jit_cpp_cache_miss")
count_pjit_cpp_cache_miss = _count_test_events("jit_cpp_cache_miss")
# a Compiled's call that JAX's C++ dispatch would not take (JAX's "stages_compiled_call":
# the first of each signature, Compiled._count_slow_call)
count_aot_jit_cpp_cache_miss = _count_test_events("stages_compiled_call")
# a program compiled after the persistent cache (in use) did not have it (JAX's event)
count_compilation_after_persistent_cache_miss = _count_test_events(
    "compile_after_persistent_compilation_miss")


@contextlib.contextmanager
def count_internal_device_puts():
    """jaxlib's device puts in the block, by kind, those that moved alone (JAX's words)."""
    before, counts = internal_device_put_info(), {}
    try:
        yield lambda: counts
    finally:
        for kind, n in internal_device_put_info().items():
            if n != before.get(kind, 0):
                counts[kind] = n - before.get(kind, 0)


@contextlib.contextmanager
def assert_num_jit_and_pmap_compilations(times):
    """The block lowers exactly `times` programs (JAX's AssertionError words otherwise)."""
    with count_jit_and_pmap_lowerings() as count:
        yield
    if count() != times:
        raise AssertionError(f"Expected exactly {times} XLA compilations, but executed {count()}")
