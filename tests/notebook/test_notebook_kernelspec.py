"""The kernel in which `import jax` is jxkernel (jxkernel/notebook/kernelspec.py): installed into
a scratch prefix, started by Jupyter's own machinery, running a JAX notebook unchanged."""
import json
import os
import re

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

from jxkernel.notebook import kernelspec  # noqa: E402
import locations  # noqa: E402  tests/support: the repository's folders

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
    # "immediate": the outputs are in once the cell replies (tests/notebook/test_workshop.py)
    nbclient.NotebookClient(nb, timeout=120, kernel_name=kernelspec.KERNEL_NAME,
                            shutdown_kernel="immediate").execute()
    text = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    from jxkernel.version import jax_version
    assert text.splitlines() == [f"jxkernel.xla.array [1, 2, 5] {jax_version}", "True"], text


def test_it_installs_into_the_running_interpreters_prefix_by_default(tmp_path, monkeypatch,
                                                                       capsys):
    """From a venv, `python -m jxkernel.notebook.kernelspec` writes under the venv (sys.prefix),
    never the system's /usr/local/share/jupyter; --user writes the user's folder."""
    monkeypatch.setattr(kernelspec.sys, "prefix", str(tmp_path / "venv"))
    kernelspec.main([])
    folder = tmp_path / "venv" / "share" / "jupyter" / "kernels" / kernelspec.KERNEL_NAME
    assert (folder / "kernel.json").is_file()
    assert f"in {folder}" in capsys.readouterr().out
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "user"))
    kernelspec.main(["--user"])
    assert (tmp_path / "user" / "kernels" / kernelspec.KERNEL_NAME / "kernel.json").is_file()
    with pytest.raises(SystemExit):
        kernelspec.main(["--user", "--prefix", str(tmp_path)])


def test_main_sh_installs_the_kernel_the_readme_names():
    """scripts/main.sh installs the kernel (into its venv, .venv or .venv-3.13 with PYTHON=: the
    default prefix is the interpreter's) before it starts JupyterLab, and the README names it
    as kernelspec.py does."""
    with open(os.path.join(locations.ROOT, "scripts", "main.sh")) as f:
        main = f.read()
    assert re.search(r"^\. scripts/venv\.sh ", main, re.M)          # $VENV: .venv by default
    with open(os.path.join(locations.ROOT, "scripts", "venv.sh")) as f:
        assert re.search(r"^    PYTHON=python3 VENV=\.venv$", f.read(), re.M)
    install = re.search(r"^\$VENV/bin/python -m jxkernel\.notebook\.kernelspec$", main, re.M)
    assert install and install.start() < main.index("jupyter lab --no-browser")
    with open(os.path.join(locations.ROOT, "README.md")) as f:
        readme = f.read()
    assert f'"{kernelspec.DISPLAY_NAME}"' in readme and "main.sh" in readme
