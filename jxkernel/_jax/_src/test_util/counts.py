"""Counters of compile events for a block of a test: JAX's test files assert that a cached
call lowers nothing (`with jtu.count_jit_and_pmap_lowerings() as count: ...; count() == 0`).
jxkernel's compile record (core/compile_record.py) sees each compilation: a jit cache miss, a
pmap, an eager operation's program.

    >>> f = jax.jit(lambda x: x + 1); _ = f(1.0)
    >>> with count_jit_and_pmap_lowerings() as count:
    ...     _ = f(2.0)
    >>> count()
    0
"""
import contextlib

from ....core import compile_record


@contextlib.contextmanager
def count_jit_and_pmap_lowerings():
    """A block yielding a function that says how many programs were compiled in it so far."""
    first = compile_record.last_seq() + 1
    yield lambda: len(compile_record.events_since(first))
