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


def test_xla_bridge_names_the_started_backends():
    jxkernel.devices()
    assert xla_bridge._backends is client._backends
    assert xla_bridge._backends["cpu"].platform == "cpu"
    assert xla_bridge.get_backend("cpu") is xla_bridge._backends["cpu"]
    assert xla_bridge.devices() == jxkernel.devices()


class Forbidden(RuntimeError):
    pass


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


def test_a_platform_that_cannot_start_says_so_in_jaxs_words():
    # JAX's "failed to initialize" and the backends there are (Chex's device assertions
    # match it), with what to install
    if client._available("tpu"):
        pytest.skip("a TPU runtime is installed here")
    with pytest.raises(RuntimeError, match=r"Backend 'tpu' failed to initialize: .*libtpu.*"
                                           r"Available backends are \[.*'cpu'.*\]"):
        jxkernel.devices("tpu")


@pytest.mark.parametrize("module", ["jxkernel._src", "jxkernel._src.xla_bridge",
                                    "jxkernel._src.compiler"])
def test_docstring_examples(module):
    from doc_examples import check_docstring_examples
    check_docstring_examples(module)
