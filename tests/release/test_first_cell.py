"""What a workshop notebook's first cell installs where jxkernel is missing, host by host
(issue 46; docs/teaching.md, "The first cell"): its detection runs here against made-up
environments and its `%pip` line is expanded as IPython expands it. tests/release/test_colab.py
runs it for real on a simulated Colab; test_release.py in a plain venv.
"""
import pathlib
import sys
import tomllib
import textwrap
import types

import pytest
from IPython.utils.text import DollarFormatter

from jxkernel.notebook.workshop import links
import colab_runtime  # tests/data
import locations  # tests/support: the repository's folders
from uv_resolve import resolve  # tests/support

ROOT = pathlib.Path(locations.ROOT)

GIT = "@ git+https://github.com/jxkernel/jxkernel@main"


def installs(monkeypatch, have=(), colab=False, env=()) -> str:
    """The command the first cell's `%pip` line runs in a kernel with the distributions `have`,
    google.colab importable or not, and the environment variables `env`."""
    address, version = links.project(ROOT)
    cell = links.setup_cell(address, version, "01_tour.ipynb")
    body = cell.split("except ModuleNotFoundError:\n", 1)[1].split("\n    import jxkernel\n")[0]
    lines = textwrap.dedent(body).splitlines()
    pip, = [line for line in lines if line.startswith("%pip ")]
    import importlib.metadata
    monkeypatch.setattr(importlib.metadata, "distributions", lambda: [
        types.SimpleNamespace(metadata={"Name": name}) for name in ["numpy", *have]])
    monkeypatch.setitem(sys.modules, "google.colab",
                        types.ModuleType("google.colab") if colab else None)  # None: ImportError
    for name in ("KAGGLE_KERNEL_RUN_TYPE", "VSCODE_PID"):
        monkeypatch.delenv(name, raising=False)
    for name in env:
        monkeypatch.setenv(name, "1")
    ns = {}
    exec("\n".join(line for line in lines if line is not pip), ns)
    return " ".join(DollarFormatter().format(pip[1:], **ns).split())


COLAB_GPU = ["jax", "jaxlib", "jax_cuda12_plugin", "jax-cuda12-pjrt", "ipywidgets", "notebook"]


@pytest.mark.parametrize("have, colab, env, command", [
    # Colab's GPU runtime: the kernel's part, its CUDA 12 plugin and JAX at jaxlib's release
    (COLAB_GPU, True, (), f'pip install -q "jxkernel[kernel,cuda12] {GIT}" jax==0.10.2'),
    (["jax", "jaxlib"], True, (), f'pip install -q "jxkernel[kernel] {GIT}" jax==0.10.2'),
    (["jax", "jaxlib", "libtpu"], True, (),
     f'pip install -q "jxkernel[kernel,tpu] {GIT}" jax==0.10.2'),
    (["jax", "jaxlib", "jax-cuda13-plugin"], False, ("KAGGLE_KERNEL_RUN_TYPE",),
     f'pip install -q "jxkernel[kernel,cuda13] {GIT}" jax==0.10.2'),
    ([], False, ("VSCODE_PID",), f'pip install -q "jxkernel[kernel] {GIT}"'),
    # a new environment: JupyterLab, Notebook 7 and the extension come too
    ([], False, (), f'pip install -q "jxkernel[notebook] {GIT}"'),
])
def test_the_first_cell_installs_what_its_host_needs(monkeypatch, have, colab, env, command):
    assert installs(monkeypatch, have, colab, env) == command


def test_the_jax_it_moves_to_is_jaxlibs_pin():
    address, version = links.project(ROOT)
    cell = links.setup_cell(address, version, "01_tour.ipynb")
    assert f"'jax=={links.jaxlib_pin(ROOT)}'" in cell
    assert links.jaxlib_pin(ROOT) == "0.10.2"


def test_on_colabs_python_the_install_resolves_with_colabs_packages_held(tmp_path):
    """What the cell installs on Colab's GPU runtime (jxkernel[kernel,cuda12] and jax at
    jaxlib's release) resolves on Python 3.13 for Linux with Colab's notebook, kernel, widgets,
    Flax and Optax pinned where they are: pip keeps them. uv's cache first, then the registry;
    skipped where neither answers."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    held = {n: v for n, v in colab_runtime.PACKAGES.items()
            if n not in ("jax", "jaxlib", "jax-cuda12-plugin")}          # the three that move
    pinned = resolve([*project["dependencies"], *extras["kernel"], *extras["cuda12"],
                      f"jax=={links.jaxlib_pin(ROOT)}",
                      *(f"{n}=={v}" for n, v in held.items())], colab_runtime.PYTHON, tmp_path)
    assert pinned["jax"] == pinned["jaxlib"] == pinned["jax-cuda12-plugin"] == "0.10.2"
    assert "jupyterlab" not in pinned
