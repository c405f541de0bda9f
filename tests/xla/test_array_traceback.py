"""`Array.traceback`: where an Array was made, as JAX 0.10.2's (its tests/traceback_test.py):
jaxlib's Traceback of the buffer's creation while jaxlib's tracebacks are on (their default),
None while they are off, and None on the NumPy backend, which records none. And a compiled
program's `runtime_executable().traceback`, against JAX's answers
(tests/data/jax_test_leftovers_cases.py, reference/make_jax_test_leftovers_reference.py)."""
import contextlib

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel._src import lib

import jax_test_leftovers_cases                  # tests/data
import locations                                 # tests/support
from backend_tier import on_numpy_backend       # tests/support


@contextlib.contextmanager
def tracebacks(enabled):
    saved = lib._jax.tracebacks_enabled()
    lib._jax.set_tracebacks_enabled(enabled)
    try:
        yield
    finally:
        lib._jax.set_tracebacks_enabled(saved)


def _made_here():
    return jnp.array(7, np.int32)


def _names(tb):
    return [f.function_name for f in tb.frames]


def test_an_array_records_where_it_was_made():
    with tracebacks(True):
        made, computed = _made_here(), jax.jit(lambda x: x + 1)(1)
    if on_numpy_backend():
        assert made.traceback is None and computed.traceback is None
        return
    assert isinstance(made.traceback, lib._jax.Traceback)
    assert "_made_here" in _names(made.traceback)
    assert "_made_here" in str(made.traceback)
    # a jit's result records the call that computed it
    assert "test_an_array_records_where_it_was_made" in _names(computed.traceback)


def test_no_traceback_while_tracebacks_are_off():
    with tracebacks(False):
        assert _made_here().traceback is None
        assert jax.jit(lambda x: x + 1)(1).traceback is None


@pytest.mark.skipif(on_numpy_backend(), reason="the NumPy backend's programs record no traceback")
def test_a_program_compiled_with_tracebacks_on_names_its_compile():
    """The same program compiled first with tracebacks off (traceback_test.py's test before
    `testTracebacks`): the executable kept then has none, so the compile with them on makes
    one that names where it was compiled, as JAX's (it was None: the in-memory cache gave back
    the first)."""
    recorded = locations.jax_answers("jax_test_leftovers_reference.json")["tracebacks"]
    assert jax_test_leftovers_cases.tracebacks(jax) == recorded
