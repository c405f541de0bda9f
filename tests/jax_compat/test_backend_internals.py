"""jax._src.xla_bridge and jax._src.compiler over jxkernel's client and compiler: the started
backends as the client's own dict, and `backend_compile_and_load` as the one compile call,
which a library may replace (Chex's restrict_backends) and then sees every compile."""
from unittest import mock

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel._src import compiler, xla_bridge
from jxkernel.xla import client
from jxkernel.xla import compiler as xla_compiler


@pytest.mark.xla_only("CPU platform")    # JAX's 'cpu' backend by name
def test_xla_bridge_names_the_started_backends():
    jxkernel.devices()
    assert xla_bridge._backends is client._backends
    assert xla_bridge._backends["cpu"].platform == "cpu"
    # get_backend gives the PJRT client itself, as JAX's does (autodidax compiles MLIR on it)
    assert xla_bridge.get_backend("cpu") is xla_bridge._backends["cpu"].client
    assert xla_bridge.get_backend().devices() == jxkernel.devices()
    assert xla_bridge.backends()["cpu"] is xla_bridge.get_backend("cpu")
    assert xla_bridge.devices() == jxkernel.devices()


@pytest.mark.xla_only("XLA compiler")
def test_mlir_bindings_build_a_program_the_client_runs():
    # autodidax's path: a module built with jax.extend.mlir's (jaxlib's) bindings, compiled on
    # xla_bridge's client, fed with xla_client.batched_device_put
    import io
    from jxkernel._src.lib import xla_client as xc
    from jxkernel.extend.mlir import ir
    from jxkernel.extend.mlir.dialects import func, stablehlo as hlo
    with ir.Context() as ctx, ir.Location.unknown(ctx):
        hlo.register_dialect(ctx)
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f32 = ir.RankedTensorType.get((), ir.F32Type.get())

            @func.func(f32, f32)
            def main(a, b):
                return [hlo.multiply(a, b)]
    text = io.StringIO()
    module.operation.print(file=text)
    backend = xla_bridge.get_backend(None)
    compiled = backend.compile_and_load(text.getvalue(), backend.devices()[:1])
    device = backend.devices()[0]
    aval = jxkernel.core.ShapedArray((), np.float32)
    with client.real_jax_unimportable():     # jaxlib's arrays try `import jax` (the alias's)
        bufs = [xc.batched_device_put(aval, xc.GSPMDSharding((device,), xc.OpSharding()),
                                      [np.float32(v)], [device], True, enable_x64=True)
                for v in (3.0, 2.5)]
        assert np.asarray(compiled.execute(bufs)[0]).tolist() == 7.5


class Forbidden(RuntimeError):
    pass


@pytest.mark.xla_only("XLA compiler")
def test_a_replaced_backend_compile_sees_every_compile():
    seen = []
    inner = compiler.backend_compile_and_load
    assert inner is xla_compiler.backend_compile_and_load

    def wrapper(backend, *args, **kwargs):
        seen.append(backend.platform)
        if len(seen) > 1:
            raise Forbidden(f"compiling for {backend.platform} is forbidden")
        return inner(backend, *args, **kwargs)

    compiler.backend_compile_and_load = wrapper      # set on the view: set where compiles run
    try:
        assert xla_compiler.backend_compile_and_load is wrapper
        x = np.arange(3.0, dtype=np.float32) + 0.25   # values no other test compiles for
        assert np.asarray(jxkernel.jit(lambda v: v * 3.5 - 1.0)(x)).tolist() == \
            (x * 3.5 - 1.0).tolist()
        with pytest.raises(Forbidden, match="forbidden"):    # the wrapper's error, unchanged
            jxkernel.jit(lambda v: v * 4.5 - 2.0)(x)
    finally:
        compiler.backend_compile_and_load = inner
    assert seen == ["cpu", "cpu"]
    assert xla_compiler.backend_compile_and_load is inner
    assert float(jnp.sum(jnp.ones(2))) == 2.0


def test_src_modules_load_on_attribute_access():
    # libraries read jax._src.X without importing it (JAX imports them all with jax)
    import jxkernel._src as src
    assert src.xla_bridge._backends is client._backends
    with pytest.raises(AttributeError, match="no jax._src.no_such_module"):
        src.no_such_module


@pytest.mark.xla_only("CPU platform")    # JAX's 'cpu' backend by name
def test_a_platform_that_cannot_start_says_so_in_jaxs_words():
    # JAX's "failed to initialize" and the backends there are (Chex's device assertions
    # match it), with what to install
    if client._available("tpu"):
        pytest.skip("a TPU runtime is installed here")
    with pytest.raises(RuntimeError, match=r"Backend 'tpu' failed to initialize: .*libtpu.*"
                                           r"Available backends are \[.*'cpu'.*\]") as raised:
        jxkernel.devices("tpu")
    # its words carry why; no chain to jxkernel's frames under the learner's line (the first
    # try, or the failure remembered from an earlier one, as in a whole run)
    with pytest.raises(RuntimeError) as again:
        jxkernel.devices("tpu")
    for error in (raised.value, again.value):
        assert error.__cause__ is None and (error.__suppress_context__ or
                                            error.__context__ is None)


def test_that_error_lists_the_backends_as_jax_does(monkeypatch):
    # JAX's list(backends()): its names, highest priority first, the CPU beside a GPU (on an
    # H200 this said ['gpu'], the CPU not started yet)
    monkeypatch.setitem(client._backends, "gpu", object())
    monkeypatch.delitem(client._failures, "cpu", raising=False)
    assert client._started_names()[:2] == ["cuda", "cpu"]


@pytest.mark.parametrize("module", ["jxkernel._src", pytest.param(
    "jxkernel._src.xla_bridge", marks=pytest.mark.xla_only("CPU platform")),   # its 'cpu' backend
                                    "jxkernel._src.compiler"])
def test_docstring_examples(module):
    from doc_examples import check_docstring_examples
    check_docstring_examples(module)


@pytest.mark.xla_only("XLA compiler")    # jaxlib's CompileOptions
def test_get_compile_options_as_jaxs(monkeypatch):
    # JAX's compiler.get_compile_options: the assignment (a 1-D list where there is one
    # partition, devices or ids), the FDO profile, and the profile version: the option first,
    # then the hook's answer, -1 where it answers 0 (the hook replaced through the view)
    from jxkernel._src import config
    options = compiler.get_compile_options(num_replicas=4, num_partitions=1,
                                           device_assignment=[0, 1, 2, 3])
    assert (options.device_assignment.replica_count(),
            options.device_assignment.computation_count()) == (4, 1)
    options = compiler.get_compile_options(2, 2, device_assignment=[[0, 1], [2, 3]],
                                           fdo_profile=b"profile")
    assert options.device_assignment.computation_count() == 2
    assert options.executable_build_options.fdo_profile == b"profile"
    with pytest.raises(ValueError, match="device_assignment does not match num_replicas"):
        compiler.get_compile_options(3, 1, device_assignment=[0, 1])
    once = compiler.get_compile_options(2, 3, env_options_overrides={"1": "1", "2": "2"})
    again = compiler.get_compile_options(2, 3, env_options_overrides={"2": "2", "1": "1"})
    assert once.SerializeAsString() == again.SerializeAsString()

    class Backend:
        platform = "tpu"
    assert compiler.get_compile_options(1, 1, backend=Backend()).profile_version == -1
    # (JAX's tests replace the hook with mock.patch.object, which restores it)
    with mock.patch.object(compiler, "get_latest_profile_version", lambda backend: 7):
        assert compiler.get_compile_options(1, 1, backend=Backend()).profile_version == 7
    assert compiler.get_latest_profile_version(None) == -1
    monkeypatch.setattr(compiler, "get_latest_profile_version", lambda backend: 7)
    assert compiler.get_compile_options(1, 1, backend=Backend()).profile_version == 7
    assert compiler.get_compile_options(1, 1).profile_version == -1     # no backend: none
    with config.jax_xla_profile_version(3):               # (JAX's option first)
        assert compiler.get_compile_options(1, 1, backend=Backend()).profile_version == 3
    monkeypatch.setattr(compiler, "get_latest_profile_version", lambda backend: 0)
    assert compiler.get_compile_options(1, 1, backend=Backend()).profile_version == -1


class _Backend:
    def __init__(self, platform, count=1):
        self.platform, self._count = platform, count

    def device_count(self):
        return self._count

    def _get_all_devices(self):
        return []


@pytest.fixture
def registry(monkeypatch):
    """xla_bridge with a registry of its own, as JAX's tests of it put one in place."""
    from jxkernel._src import config
    monkeypatch.setattr(xla_bridge, "_backend_factories", {})
    monkeypatch.setattr(xla_bridge, "_backends", {})
    monkeypatch.setattr(xla_bridge, "_backend_errors", {})
    monkeypatch.setattr(xla_bridge, "_default_backend", None)
    with config.jax_platforms(""):
        xla_bridge.register_backend_factory("cpu", lambda: _Backend("cpu"), priority=0,
                                            fail_quietly=False)
        yield xla_bridge


def test_a_registry_put_in_place_starts_its_backends_by_jaxs_rules(registry, caplog):
    registry.register_backend_factory("A", lambda: _Backend("A"), priority=20,
                                      fail_quietly=False, experimental=True)
    registry.register_backend_factory("B", lambda: _Backend("B"), priority=10,
                                      fail_quietly=False)
    with caplog.at_level("WARNING", logger="jax._src.xla_bridge"):
        assert registry.get_backend().platform == "A"          # the highest priority
    assert "Platform 'A' is experimental and not all JAX functionality may be correctly " \
           "supported!" in caplog.text
    assert registry.get_backend("B").platform == "B" and len(registry._backends) == 3
    with pytest.raises(RuntimeError, match="Unknown backend foo. Available backends are"):
        registry.get_backend("foo")


@pytest.mark.parametrize("factory, error", [
    (lambda: None, "Could not initialize backend 'x'"),
    (lambda: _Backend("x", count=0), "Backend 'x' provides no devices."),
    (lambda: 1 / 0, "division by zero")])
def test_a_backend_that_cannot_start_is_jaxs_error(registry, factory, error):
    registry.register_backend_factory("x", factory, priority=10, fail_quietly=False)
    with pytest.raises(RuntimeError, match=f"Unable to initialize backend 'x': {error}"):
        registry.get_backend("x")


def test_jax_platforms_starts_only_the_platforms_it_names(registry):
    from jxkernel._src import config
    registry.register_backend_factory("A", lambda: _Backend("A"), priority=20)
    registry.register_backend_factory("B", lambda: _Backend("B"), priority=10)
    with config.jax_platforms("cpu,A"):
        assert registry.get_backend().platform == "cpu" and len(registry._backends) == 2
        with pytest.raises(RuntimeError, match="Unknown backend B"):
            registry.get_backend("B")


def test_plugins_named_in_the_environment_are_registered(registry, monkeypatch, caplog):
    from jxkernel._src.lib import xla_client as xc
    loaded, made = [], []
    monkeypatch.setattr(xc, "load_pjrt_plugin_dynamically", lambda *a: loaded.append(a))
    monkeypatch.setattr(xc, "pjrt_plugin_initialized", lambda name: True)
    monkeypatch.setattr(xc, "make_c_api_client", lambda *a: made.append(a))
    from jxkernel._src.lib import _profiler
    monkeypatch.setattr(_profiler, "register_plugin_profiler", lambda c_api: None)
    monkeypatch.setenv("PJRT_NAMES_AND_LIBRARY_PATHS", "name1:path1,name2:path2,name3")
    with caplog.at_level("WARNING"):
        registry.register_pjrt_plugin_factories_from_env()
    assert "invalid value name3 in env var PJRT_NAMES_AND_LIBRARY_PATHS " \
           "name1:path1,name2:path2,name3" in caplog.text
    assert loaded == [("name1", "path1"), ("name2", "path2")]
    registration = registry._backend_factories["name1"]
    assert (registration.priority, registration.experimental) == (400, True)
    registration.factory()
    assert made == [("name1", {}, None)]
    registry.register_plugin("foo", options=lambda: {"bar": "baz"}, library_path="/dev/null")
    registry._backend_factories["foo"].factory()
    assert made[-1] == ("foo", {"bar": "baz"}, None)
