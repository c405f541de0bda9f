"""jax.extend.backend as JAX 0.10.2 has it (its tests/extend_test.py's `test_symbols`,
tests/clear_backends_test.py): the same objects as `jax._src.xla_bridge`'s and
`jax._src.api.clear_backends`, and `clear_backends()` leaving no compiled program alive on the
backend, after which a jitted function compiles and runs again. jxkernel keeps its client, so
the devices and the Arrays made before stay as they were. Also the rest of `test_symbols`:
`jax.extend.core`'s and `linear_util`'s names are `jax._src.core`'s and `linear_util`'s, and
JAX's generator transformations (`transformation`, `transformation_with_aux`,
`transformation2`). The values are what the same calls give under .venv-jax."""
import numpy as np
import pytest

import jxkernel as jax
import jxkernel.extend as jex
from jxkernel._jax._src import api, compiler, core, xla_bridge
from jxkernel._jax._src.interpreters import pxla
from jxkernel.transforms import linear_util


def test_names_are_jaxs():
    assert jex.backend.backends is xla_bridge.backends
    assert jex.backend.backend_xla_version is xla_bridge.backend_xla_version
    assert jex.backend.clear_backends is api.clear_backends
    assert jex.backend.get_backend is xla_bridge.get_backend
    assert jex.backend.register_backend_factory is xla_bridge.register_backend_factory
    assert jex.backend.get_compile_options is compiler.get_compile_options
    assert jex.backend.get_default_device is pxla.get_default_device
    assert jex.backend.clear_in_memory_compilation_cache is \
        pxla.clear_in_memory_compilation_cache
    assert jex.backend.get_default_device() == jax.devices()[0]


@pytest.mark.xla_only("CPU platform")
def test_cpu_client_states_no_plugin_xla_version():
    # jaxlib's CPU client is no plugin: JAX's answer there is None too
    assert jex.backend.backend_xla_version("cpu") is None


def _live_fingerprints():
    return {e.fingerprint for e in xla_bridge.get_backend().live_executables()}


@pytest.mark.xla_only("XLA compiler")
def test_clear_backends_leaves_no_executable_alive_and_jit_runs_again():
    # (a program of its own, so no other test's held Compiled shares its executable: in a
    # process of many tests, executables a test still holds stay alive, as in JAX they stay
    # on the old client)
    g = jax.jit(lambda x, y: x * y + 0.3125)
    before = jax.numpy.arange(3.0) + 1
    devices = jax.devices()
    alive = _live_fingerprints()
    assert g(1.0, 2.0) == 2.3125
    ours = _live_fingerprints() - alive
    assert ours
    jex.backend.clear_backends()
    assert not ours & _live_fingerprints()
    assert g._cache_size() == 0
    assert g(1.0, 2.0) == 2.3125
    assert g._cache_size() == 1
    # jxkernel's client stays: the same devices, and an Array made before is still readable
    assert jax.devices() == devices
    np.testing.assert_array_equal(np.asarray(before), [1.0, 2.0, 3.0])


def test_core_and_linear_util_names_are_jaxs():
    assert jex.core.mapped_aval is core.mapped_aval
    assert jex.core.unmapped_aval is core.unmapped_aval
    assert jex.core.TraceTag is core.TraceTag
    for name in ("StoreException", "WrappedFun", "cache", "merge_linear_aux", "transformation",
                 "transformation_with_aux", "transformation2", "transformation_with_aux2"):
        assert getattr(jex.linear_util, name) is getattr(linear_util, name)
    aval = core.ShapedArray((2, 3, 4), np.float32)
    assert str(core.mapped_aval(3, 1, aval)) == "float32[2,4]"
    assert str(core.unmapped_aval(5, 0, core.ShapedArray((2,), np.float32))) == "float32[5,2]"


def test_generator_transformations():
    lu = jex.linear_util

    @lu.transformation
    def scaled(k, *args):
        out = yield args, {}
        yield out * k
    assert scaled(lu.wrap_init(lambda x: x + 1), 10).call_wrapped(2) == 30

    @lu.transformation_with_aux
    def with_aux(k, *args):
        out = yield args, {}
        yield out * k, ("aux", out)
    f, aux = with_aux(lu.wrap_init(lambda x, y: x - y), 3)
    assert f.call_wrapped(7, 2) == 15 and aux() == ("aux", 5)

    @lu.transformation2
    def plus(f, k, *args):
        return f(*args) + k
    assert plus(lu.wrap_init(lambda x: x * 2), 5).call_wrapped(4) == 13
