"""`%jxbackend numpy`: later jit calls, %%jit cells and eager operations run on the NumPy
backend, with the same notes and compile record as on XLA's; `%jxbackend cpu` goes back."""
import numpy as np
import pytest

pytest.importorskip("IPython")


from jxkernel import config  # noqa: E402
from ipython_shell import ok_cell, shell_fixture  # noqa: E402

# loaded anew, and unloaded after (which gives the device options back as they were)
shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True, scope="module")


@pytest.fixture(autouse=True, scope="module")
def numpy_backend_stopped_after():
    """%jxbackend numpy starts the NumPy backend in this process; later tests in the same
    worker see the backends as a process that never chose it does."""
    from jxkernel.xla import client
    started = "numpy" in client._backends
    yield
    if not started and config.jax_platforms != "numpy":
        client._backends.pop("numpy", None)


def platform_of(shell, name):
    return shell.user_ns[name].device.platform


def test_jxbackend_numpy_runs_jit_cells_and_eager_ops_there(shell):
    note, _ = ok_cell(shell, "%jxbackend numpy")
    assert "numpy" in repr(note) and config.jax_default_device.platform == "numpy"
    ok_cell(shell, "f = jax.jit(lambda v: jnp.sin(v) * 2)\nx = jnp.arange(3.0)\ny = f(x)\n"
              "e = jnp.cos(x) + 1\ng = jax.grad(lambda v: jnp.sum(v ** 2))(x)")
    assert {platform_of(shell, n) for n in ("x", "y", "e", "g")} == {"numpy"}
    np.testing.assert_allclose(np.asarray(shell.user_ns["y"]), np.sin([0, 1, 2]) * 2,
                               rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(shell.user_ns["g"]), [0.0, 2.0, 4.0])
    _, shown = ok_cell(shell, "%%jit\nz = x * 3")
    assert platform_of(shell, "z") == "numpy"
    assert any("compiled cell[" in t and "numpy" in t for t in shown), shown
    ok_cell(shell, "y4 = f(jnp.arange(4.0))")               # a new shape: compiled again
    assert shell.user_ns["f"]._cache_size() == 2


@pytest.mark.skipif(config.jax_platforms == "numpy", reason="JAX_PLATFORMS=numpy: no cpu here")
def test_jxbackend_cpu_goes_back_to_xla(shell):
    ok_cell(shell, "%jxbackend numpy")
    ok_cell(shell, "%jxbackend cpu")
    ok_cell(shell, "w = jnp.arange(3.0) * 2")
    assert platform_of(shell, "w") == "cpu"
