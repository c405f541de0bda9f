"""The kernel in which `import jax` is jxkernel (jxkernel/notebook/kernelspec.py): installed into
a scratch prefix, started by Jupyter's own machinery, running a JAX notebook unchanged."""
import json
import os

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

from jxkernel.notebook import kernelspec  # noqa: E402

CELL = """\
import jax, jax.numpy as jnp
from jax import lax
x = jax.jit(lambda v: lax.mul(v, v) + 1)(jnp.arange(3))
print(type(x).__module__, x.tolist(), jax.__version__)
print("jxkernel" in get_ipython().extension_manager.loaded)"""


def test_the_kernel_runs_a_jax_notebook_on_jxkernel(tmp_path, monkeypatch):
    folder = kernelspec.install(prefix=str(tmp_path))
    with open(os.path.join(folder, "kernel.json")) as f:
        spec = json.load(f)
    assert spec["env"] == {"JXKERNEL_AS_JAX": "1"}
    assert spec["display_name"] == "Python 3 (JAX on jxkernel)"
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "share" / "jupyter"))
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(CELL))
    nbclient.NotebookClient(nb, timeout=120, kernel_name=kernelspec.KERNEL_NAME).execute()
    text = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    from jxkernel.version import jax_version
    assert text.splitlines() == [f"jxkernel.xla.array [1, 2, 5] {jax_version}", "True"], text
