"""The backend selector in a process with two CPU devices: the choice is where later jit
calls, %%jit cells and eager operations run, and it is shown. Run by
tests/notebook/test_notebook_magics.py in a subprocess with JXKERNEL_CPU_DEVICES=2 (skipped otherwise)."""
import numpy as np
import pytest

pytest.importorskip("IPython")
pytest.importorskip("ipywidgets")


import jxkernel  # noqa: E402
from jxkernel import config  # noqa: E402
from ipython_shell import ok_cell, shell_fixture  # noqa: E402

pytestmark = pytest.mark.skipif(jxkernel.device_count() < 2, reason="needs JXKERNEL_CPU_DEVICES=2")


# loaded anew, and unloaded after (which gives the device options back as they were)
shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True, scope="module")


def devices_of(shell, name):
    return {d.id for d in shell.user_ns[name].devices()}


def test_selecting_a_device_moves_jit_calls_cells_and_eager_ops(shell):
    ok_cell(shell, "f = jax.jit(lambda v: v * 2)\nx = jnp.arange(3.0)\ny0 = f(x)")
    assert devices_of(shell, "y0") == {0}
    note, _ = ok_cell(shell, "%jxbackend cpu:1")
    assert "run on cpu:1" in repr(note)
    assert config.jax_default_device == jxkernel.devices()[1]
    ok_cell(shell, "y1 = f(x)\ne1 = jnp.sin(x) + 1")       # the same jitted function, x on device 0
    assert devices_of(shell, "y1") == {1} and devices_of(shell, "e1") == {1}
    np.testing.assert_allclose(np.asarray(shell.user_ns["y1"]), [0, 2, 4])
    _, shown = ok_cell(shell, "%%jit\nz = x * 3")
    assert devices_of(shell, "z") == {1}
    assert any("compiled cell[" in t and "for cpu:1" in t for t in shown), shown


def test_the_selector_widget_chooses_and_shows_the_choice(shell):
    selector, _ = ok_cell(shell, "%jxbackend")
    assert [v for _, v in selector.dropdown.options if v.startswith("cpu")] == ["cpu:0", "cpu:1"]
    selector.select("cpu:0")
    assert config.jax_default_device == jxkernel.devices()[0]
    assert "cpu:0" in selector.status.value and "* cpu:0" in selector.text_repr()
    _, shown = ok_cell(shell, "%%jit\nz = x * 3")            # the cell above, now for device 0
    assert devices_of(shell, "z") == {0}
    assert any("the device changed (cpu:1 -> cpu:0)" in t for t in shown), shown
    ok_cell(shell, "y2 = f(x)")
    assert devices_of(shell, "y2") == {0}
    ok_cell(shell, "%jxbackend cpu:1")                       # chosen elsewhere: the selector follows
    assert selector.dropdown.value == "cpu:1" and "cpu:1" in selector.status.value
    ok_cell(shell, "y3 = f(x)")
    assert devices_of(shell, "y3") == {1}


def test_unloading_gives_the_options_back(shell):
    shell.run_line_magic("unload_ext", "jxkernel")
    assert config.jax_default_device is None and config.jax_platform_name is None
    ok_cell(shell, "y4 = f(x)")
    assert devices_of(shell, "y4") == {0}
    shell.run_line_magic("load_ext", "jxkernel")
