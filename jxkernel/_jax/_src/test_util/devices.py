"""Which device a test runs on, and decorators that skip a test elsewhere: JAX's test files
ask `test_device_matches(["cpu"])` and mark tests `@skip_on_devices("tpu")`.

The device under test is `JAX_TEST_DUT` if set, else the default backend's platform.

    >>> device_under_test(), test_device_matches(["cpu", "gpu"]), is_device_tpu()
    ('cpu', True, False)
"""
import functools
import os
import sys
import unittest

from ....core.config import config
from ....xla import client as _client


def device_under_test() -> str:
    return os.environ.get("JAX_TEST_DUT") or _client.default_backend()


def _device_tags() -> set:
    return {device_under_test()}


def test_device_matches(device_types) -> bool:
    """Whether the device under test is one of `device_types` (a list of platform names)."""
    assert not isinstance(device_types, str), "device_types should be a list of strings"
    return any(kind in _device_tags() for kind in device_types)


test_device_matches.__test__ = False      # pytest: a helper, not a test


def _device_filter(predicate, skip_reason):
    def decorate(test_method):
        @functools.wraps(test_method)
        def run_or_skip(self, *args, **kwargs):
            if not predicate():
                raise unittest.SkipTest(skip_reason or f"{test_method.__name__} not supported "
                                                       f"on device with tags {_device_tags()}.")
            return test_method(self, *args, **kwargs)
        return run_or_skip
    return decorate


def skip_on_devices(*disabled, skip_reason=None):
    """Skip the test on the devices named."""
    reason = skip_reason or "Skipped on devices with tags: " + ", ".join(disabled)
    return _device_filter(lambda: not test_device_matches(disabled), reason)


def device_supports_buffer_donation():
    """Run the test only where donated buffers are reused: every platform jxkernel runs on
    (JAX's list: CPU, GPU and TPU)."""
    return run_on_devices("cpu", "cuda", "rocm", "tpu", "gpu")


def run_on_devices(*enabled, skip_reason=None):
    """Run the test only on the devices named."""
    reason = skip_reason or "Skipped unless running on devices with tags: " + ", ".join(enabled)
    return _device_filter(lambda: test_device_matches(enabled), reason)


# the flags JAX's test_util defines for its tests (not config options of jax itself), set by
# their environment variables as JAX reads them
_TEST_FLAGS = {"jax_skip_slow_tests": lambda: os.environ.get("JAX_SKIP_SLOW_TESTS", "")
               .lower() in ("1", "true", "yes", "on"),
               "jax_test_dut": lambda: os.environ.get("JAX_TEST_DUT", "")}


def _read_flag(name):
    return _TEST_FLAGS[name]() if name in _TEST_FLAGS else config.read(name)


def skip_on_flag(flag_name, skip_value):
    """Skip the test while config option `flag_name` is `skip_value`."""
    def decorate(test_method):
        @functools.wraps(test_method)
        def run_or_skip(self, *args, **kwargs):
            value = _read_flag(flag_name)
            if value == skip_value:
                raise unittest.SkipTest(f"{test_method.__name__} not supported when "
                                        f"FLAGS.{flag_name} is {value}")
            return test_method(self, *args, **kwargs)
        return run_or_skip
    return decorate


# jxkernel runs on XLA's CPU client (and the NumPy backend): never a TPU, GPU or ROCm device
def is_device_tpu(version=None, variant="") -> bool:
    return False


def is_device_tpu_at_least(version) -> bool:
    return False


def is_device_cuda() -> bool:
    return False


def is_tsan() -> bool:
    """Whether jaxlib is a ThreadSanitizer build."""
    return _client.sanitizers()["tsan"]


def is_sanitized() -> bool:
    """Whether jaxlib is built with any sanitizer."""
    return _client.sanitizers()["any"]


def is_gil_disabled() -> bool:
    """Whether this Python runs free-threaded without the GIL."""
    return hasattr(sys, "_is_gil_enabled") and not sys._is_gil_enabled()


def runtime_environment():
    """How the tests run: "bazel" under Bazel (its Python is under `bazel-out`), else "pytest";
    None without a Python executable (JAX's files skip what reads Bazel's runfiles)."""
    if sys.executable is None:
        return None
    return "bazel" if "bazel-out" in sys.executable else "pytest"


def is_test_rbe() -> bool:
    """Whether JAX's remote-build test toolchain set IS_JAX_RBE_TESTING (JAX skips some
    tests there)."""
    return os.environ.get("IS_JAX_RBE_TESTING", "").lower() in {"true", "1", "yes", "y"}


def is_device_rocm() -> bool:
    return False


def is_cloud_tpu() -> bool:
    return False


def is_cloud_tpu_at_least(year: int, month: int, day: int) -> bool:
    """Whether a Cloud TPU's runtime was built on or after the date; True off Cloud TPUs, as
    JAX's (a test's TPU-only requirement holds everywhere else)."""
    return not is_cloud_tpu()


def is_cuda_compute_capability_at_least(capability) -> bool:
    return False


def is_cuda_version_at_least(major: int, minor: int) -> bool:
    return False


def request_cpu_devices(nr_devices: int) -> None:
    """Ask for at least `nr_devices` CPU devices, as JAX's: honoured before the CPU backend
    starts, ignored after (tests needing a count skip themselves where it is not met)."""
    if (config.jax_num_cpu_devices or 0) < nr_devices:       # (-1: not set)
        try:
            config.update("jax_num_cpu_devices", nr_devices)
        except RuntimeError:        # the backend runs already: its count stays
            pass
