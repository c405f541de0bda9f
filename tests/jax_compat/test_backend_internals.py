"""jax._src.xla_bridge and jax._src.compiler over jxkernel's client and compiler: the started
backends as the client's own dict, and `backend_compile_and_load` as the one compile call,
which a library may replace (Chex's restrict_backends) and then sees every compile."""
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
                                           r"Available backends are \[.*'cpu'.*\]"):
        jxkernel.devices("tpu")


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
