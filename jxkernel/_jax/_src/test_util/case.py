"""JaxTestCase: absl's parameterized TestCase with the checks JAX's test files call
(`assertAllClose` with per-dtype tolerances, `_CheckAgainstNumpy`, `_CompileAndCheck`), run
under the configuration JAX's tests expect: strict dtype promotion, rank promotion raising,
checks on, and a NumPy RandomState per test seeded from its name.

    >>> class T(JaxTestCase):
    ...     def runTest(self): pass
    >>> t = T(); t.setUp(); t.assertAllClose(np.float32(1), np.float32(1 + 1e-7)); t.tearDown()
"""
import contextlib
import os
import re
import sys
import tempfile
import textwrap
import unittest
import warnings
import zlib

import numpy as np
from absl.testing import parameterized

from ....core import deprecations
from ....core import dtypes as _core
from ....core.config import config
from ....transforms.jit import jit
from ....tree_util import tree_leaves, tree_map
from ..config import config_states
from . import events
from .dtype_lists import _dtype, tolerance


def _is_sequence(x) -> bool:
    try:
        iter(x)
    except TypeError:
        return False
    return True


def _assert_numpy_allclose(a, b, atol=None, rtol=None, err_msg=""):
    """np.testing.assert_allclose, with the narrow floats and ints widened first (NumPy's
    comparison does not know ml_dtypes' types)."""
    if a.dtype == b.dtype == _core.float0:
        np.testing.assert_array_equal(a, b, err_msg=err_msg)
        return
    narrow_floats = (*_core.BFLOAT16_DTYPES, *_core.NARROW_FLOAT_DTYPES)

    def widen(x):
        if x.dtype in narrow_floats:
            return x.astype(np.float32)
        if x.dtype in _core.INTN_DTYPES:
            return x.astype(np.uint8 if x.dtype.name.startswith("u") else np.int8)
        return x
    tol = {k: v for k, v in (("atol", atol), ("rtol", rtol)) if v}
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(widen(a), widen(b), **tol, err_msg=err_msg)


def with_config(**options):
    """Class decorator: run every test of a JaxTestCase subclass with `options` set."""
    def decorate(cls):
        assert isinstance(cls, type) and issubclass(cls, JaxTestCase), \
            "@with_config can only wrap JaxTestCase class definitions."
        cls._default_config = {**getattr(cls, "_default_config", {}), **options}
        return cls
    return decorate


class JaxTestCase(parameterized.TestCase):
    """Base class of JAX's tests: numerical checks and the configuration they run under."""
    _default_config = {
        "jax_enable_checks": True,
        "jax_numpy_dtype_promotion": "strict",
        "jax_numpy_rank_promotion": "raise",
        "jax_traceback_filtering": "off",
        "jax_legacy_prng_key": "error",
    }

    def setUp(self):
        super().setUp()
        # adler32: the same seed every run (hash() is salted), and in RandomState's range
        self._rng = np.random.RandomState(zlib.adler32(self._testMethodName.encode()))
        for name, value in self._default_config.items():
            self.enterContext(config_states[name](value))

    def rng(self):
        return self._rng

    def assertDeprecationWarnsOrRaises(self, deprecation_id: str, message: str, *,
                                       error_class: type[Exception] = ValueError):
        """The error `deprecation_id` raises once accelerated, else its DeprecationWarning."""
        if deprecations.is_accelerated(deprecation_id):
            return self.assertRaisesRegex(error_class, message)
        return self.assertWarnsRegex(DeprecationWarning, message)

    def assertArraysEqual(self, actual, desired, *, check_dtypes=True, err_msg="",
                          allow_object_dtype=False, verbose=True):
        """Exactly equal (and of matching dtypes)."""
        if check_dtypes:
            self.assertDtypesMatch(actual, desired)
        actual, desired = np.asarray(actual), np.asarray(desired)
        if not allow_object_dtype and object in (actual.dtype, desired.dtype):
            raise TypeError("assertArraysEqual may be poorly behaved when np.asarray casts to "
                            "dtype=object. To let this test proceed anyway, pass "
                            "allow_object_dtype=True.")
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(actual, desired, err_msg=err_msg, verbose=verbose)

    def assertArraysAllClose(self, actual, desired, *, check_dtypes=True, atol=None,
                             rtol=None, err_msg=""):
        """Close within the looser of the two dtypes' tolerances."""
        self.assertEqual(actual.shape, desired.shape)
        atol = max(tolerance(_dtype(actual), atol), tolerance(_dtype(desired), atol))
        rtol = max(tolerance(_dtype(actual), rtol), tolerance(_dtype(desired), rtol))
        _assert_numpy_allclose(actual, desired, atol=atol, rtol=rtol, err_msg=err_msg)
        if check_dtypes:
            self.assertDtypesMatch(actual, desired)

    def assertDtypesMatch(self, actual, desired, *, canonicalize_dtypes=True):
        """The same dtype, as arrays of the current mode would hold them unless
        `canonicalize_dtypes` is off or x64 is on."""
        a, d = _dtype(actual), _dtype(desired)
        if not config.jax_enable_x64 and canonicalize_dtypes:
            # (as JAX's canonicalize_dtype: extended dtypes, float0 and object arrays, which
            # jnp.load gives back, stay as they are)
            a, d = (x if isinstance(x, _core.ExtendedDType) or x == _core.float0 or
                    np.dtype(x).kind == "O" else _core.canonicalize_dtype(x) for x in (a, d))
        self.assertEqual(a, d)

    def assertAllClose(self, actual, desired, *, check_dtypes=True, atol=None, rtol=None,
                       canonicalize_dtypes=True, err_msg=""):
        """Close, through dicts and sequences: arrays and scalars by assertArraysAllClose."""
        same = dict(check_dtypes=check_dtypes, atol=atol, rtol=rtol,
                    canonicalize_dtypes=canonicalize_dtypes, err_msg=err_msg)
        if isinstance(actual, dict):
            self.assertIsInstance(desired, dict)
            self.assertEqual(set(actual), set(desired))
            for k in actual:
                self.assertAllClose(actual[k], desired[k], **same)
        elif _is_sequence(actual) and not hasattr(actual, "__array__"):
            if not _is_sequence(desired) or hasattr(desired, "__array__"):
                self.fail(f"Expected sequence, got {desired}")
            self.assertEqual(len(actual), len(desired))
            for a, d in zip(actual, desired):
                self.assertAllClose(a, d, **same)
        elif hasattr(actual, "__array__") or np.isscalar(actual):
            if not (hasattr(desired, "__array__") or np.isscalar(desired)):
                self.fail(f"Expected array-like, got {desired}")
            if check_dtypes:
                self.assertDtypesMatch(actual, desired, canonicalize_dtypes=canonicalize_dtypes)
            self.assertArraysAllClose(np.asarray(actual), np.asarray(desired),
                                      check_dtypes=False, atol=atol, rtol=rtol, err_msg=err_msg)
        elif actual != desired:
            raise TypeError((type(actual), type(desired)))

    def assertMultiLineStrippedEqual(self, expected, what):
        """Equal after dedenting and stripping each line."""
        clean = lambda s: re.sub(r"\s*\n\s*", "\n", textwrap.dedent(s).strip())
        if clean(what) != clean(expected):
            self.assertMultiLineEqual(clean(expected), clean(what),
                                      msg=f"Found\n{what}\nExpecting\n{expected}")

    @contextlib.contextmanager
    def assertNoWarnings(self):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            yield

    def assertCacheMisses(self, func, *, cpp=None, aot_call=None, tracing=None, lowering=None,
                          compilation_after_persistent_cache_miss=None):
        """`func()` misses jit's caches as many times as each count given says (JAX's
        counters: calls past the fast paths, traces, lowerings, compiles the persistent cache
        did not spare)."""
        with events.count_pjit_cpp_cache_miss() as cpp_count, \
                events.count_aot_jit_cpp_cache_miss() as aot_count, \
                events.count_jit_tracing_cache_miss() as tracing_count, \
                events.count_jit_and_pmap_lowerings() as lowering_count, \
                events.count_compilation_after_persistent_cache_miss() as compile_count:
            func()
        for want, got in ((cpp, cpp_count), (aot_call, aot_count), (tracing, tracing_count),
                          (lowering, lowering_count),
                          (compilation_after_persistent_cache_miss, compile_count)):
            if want is not None:
                self.assertEqual(want, got())

    def _CompileAndCheck(self, fun, args_maker, *, check_dtypes=True, tol=None, rtol=None,
                         atol=None, check_cache_misses=True):
        """fun eagerly and under jit agree, and the jitted function is not traced again on a
        second call (its Python body runs only while tracing). `check_cache_misses`:
        JAX also counts its op-by-op compile cache, which jxkernel has no counter of."""
        args = args_maker()
        tracing = [True]

        def traced_once(*xs):
            self.assertTrue(tracing[0], "the jitted function was traced again")
            return fun(*xs)
        eager = fun(*args)
        for leaf in tree_leaves(eager):
            self.assertEqual(np.shape(leaf), np.shape(np.asarray(leaf)))
        compiled = jit(traced_once)
        close = dict(check_dtypes=check_dtypes, atol=atol or tol, rtol=rtol or tol)
        self.assertAllClose(compiled(*args), eager, **close)
        tracing[0] = False
        self.assertAllClose(compiled(*args), eager, **close)
        args = args_maker()
        eager = fun(*args)
        self.assertAllClose(compiled(*args), eager, **close)

    def _CheckAgainstNumpy(self, numpy_reference_op, lax_op, args_maker, check_dtypes=True,
                           tol=None, atol=None, rtol=None, canonicalize_dtypes=True):
        """lax_op and its NumPy reference agree on one set of arguments."""
        args = args_maker()
        self.assertAllClose(lax_op(*args), numpy_reference_op(*args), check_dtypes=check_dtypes,
                            atol=atol or tol, rtol=rtol or tol,
                            canonicalize_dtypes=canonicalize_dtypes)


class JaxTestLoader(unittest.TestLoader):
    """absltest.main's loader in JAX's test files (`testLoader=jtu.JaxTestLoader()`)."""


class _TestNumThreads:
    """JAX's `TEST_NUM_THREADS` flag: how many threads JAX's own loader runs tests in
    (JAX_TEST_NUM_THREADS, 0 by default); tests that cannot share the process skip above 1.
    pytest here runs one test at a time, whatever it says."""
    value = int(os.getenv("JAX_TEST_NUM_THREADS", "0"))


TEST_NUM_THREADS = _TestNumThreads()


@contextlib.contextmanager
def thread_local_config_context(**options):
    """Set config options (`jax_enable_x64=True`, ...) for the block, in this thread.

        >>> with thread_local_config_context(jax_enable_x64=True):
        ...     jnp.arange(2).dtype
        dtype('int64')
    """
    with contextlib.ExitStack() as stack:
        for name, value in options.items():
            stack.enter_context(config_states[name](value))
        yield


@contextlib.contextmanager
def thread_unsafe_test(condition=True):
    """Marks a test (or a block) that must not run beside others: JAX's own loader can run
    tests in parallel threads; pytest runs them one at a time, so there is nothing to hold."""
    yield


def thread_unsafe_test_class(condition=True):
    """Marks a TestCase class thread-hostile (read by JAX's threaded loader)."""
    def mark(klass):
        assert issubclass(klass, unittest.TestCase), type(klass)
        klass.thread_hostile = condition
        return klass
    return mark


class BufferDonationTestCase(JaxTestCase):
    """JaxTestCase with checks of whether a donated Array's buffer was given away."""

    def assertDeleted(self, x):
        self.assertTrue(x.is_deleted())

    def assertNotDeleted(self, x):
        self.assertFalse(x.is_deleted())


def check_raises(thunk, err_type, msg):
    """`thunk()` raises `err_type` with a message starting with `msg`."""
    try:
        thunk()
    except err_type as e:
        assert str(e).startswith(msg), f"\n{e}\n\n{msg}\n"
    else:
        raise AssertionError(f"no {err_type.__name__} raised")


def check_raises_regexp(thunk, err_type, pattern):
    """`thunk()` raises `err_type` with a message matching `pattern` at its start."""
    try:
        thunk()
    except err_type as e:
        assert re.match(pattern, str(e)), f"{e}\n\n{pattern}\n"
    else:
        raise AssertionError(f"no {err_type.__name__} raised")


def _check_dtypes_match(xs, ys):
    """Each leaf of `xs` of its `ys` leaf's dtype, as the current mode holds them."""
    def match(x, y):
        a, b = _dtype(x), _dtype(y)
        if not config.jax_enable_x64:
            a, b = _core.canonicalize_dtype(a), _core.canonicalize_dtype(b)
        assert a == b, (a, b)
    tree_map(match, xs, ys)


def check_eq(xs, ys, err_msg=""):
    """Every leaf of `xs` close to `ys`'s at NumPy's default tolerance."""
    tree_map(lambda x, y: _assert_numpy_allclose(np.asarray(x), np.asarray(y), err_msg=err_msg),
             xs, ys)


def check_close(xs, ys, atol=None, rtol=None, err_msg=""):
    """Every leaf of `xs` close to `ys`'s, within the dtypes' tolerances (or the given ones)
    times the number of elements, as JAX's gradient checks compare."""
    def close(x, y):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape, (x.shape, y.shape)
        a = max(tolerance(x.dtype, atol), tolerance(y.dtype, atol))
        r = max(tolerance(x.dtype, rtol), tolerance(y.dtype, rtol))
        _assert_numpy_allclose(x, y, atol=a * x.size, rtol=r * y.size, err_msg=err_msg)
    tree_map(close, xs, ys)


@contextlib.contextmanager
def _capture_output(stream):
    """Capture what is written to `stream`'s file descriptor in the block, Python's writes
    and native code's alike (jax.debug.print's callbacks print from XLA's threads); yields a
    function that returns it once the block is done."""
    captured = []

    def get_output() -> str:
        if not captured:
            raise ValueError("get_output() called while the context is active.")
        return captured[0]
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as f:
        saved = os.dup(stream.fileno())
        os.dup2(f.fileno(), stream.fileno())
        try:
            yield get_output
        finally:
            stream.flush()
            os.fsync(stream.fileno())
            f.seek(0)
            captured.append(f.read())
            os.dup2(saved, stream.fileno())
            os.close(saved)


def capture_stdout():
    return _capture_output(sys.stdout)


def capture_stderr():
    return _capture_output(sys.stderr)


def pytest_mark_if_available(marker: str):
    """A decorator marking a test class or method with pytest's `marker` where pytest is
    installed (as it is left otherwise)."""
    def wrap(func_or_class):
        try:
            import pytest  # (optional: JAX's test files run under absltest too)
        except ImportError:
            return func_or_class
        return getattr(pytest.mark, marker)(func_or_class)
    return wrap
