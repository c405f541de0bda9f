"""binder/: the files repo2docker builds the Binder image from.

The quick checks always run: every dependency jxkernel[notebook] declares is pinned in
binder/requirements.txt at a version it accepts, Python is 3.11, postBuild installs jxkernel
and the settings that keep JupyterLab's news prompt away.

The build itself (`test_binder_environment_builds_and_runs_the_tour`) makes a fresh venv from
binder/'s files as repo2docker would (pip install -r binder/requirements.txt, then postBuild)
and executes demos/01_tour.ipynb in it, in that venv's own kernel with the jxkernel postBuild
installed (the caller's PYTHONPATH and VIRTUAL_ENV are left out: with a checkout on PYTHONPATH,
as the helpers' test command has it, the kernel imported the checkout instead and the test
checked no install; a last cell says which jxkernel ran). It downloads about 100 packages (two
minutes here; 4 min 22 s on 2026-11-30 on 2 shared cores), so it runs only with
JXKERNEL_TEST_BINDER=1 (`JXKERNEL_TEST_BINDER=1 sh scripts/test.sh tests/release/test_binder.py`),
and not in the 10-minute suite.
"""
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
import locations  # tests/support: the repository's folders

ROOT = Path(locations.ROOT)
BINDER = ROOT / "binder"


def pins() -> dict:
    found = {}
    for line in (BINDER / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep and version, f"binder/requirements.txt: {line!r} is not pinned with =="
            found[canonicalize_name(name)] = version
    return found


def declared() -> list:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(r) for r in
            project["dependencies"] + project["optional-dependencies"]["notebook"]]


def test_every_dependency_is_pinned_at_an_accepted_version():
    pinned = pins()
    for req in declared():
        name = canonicalize_name(req.name)
        assert name in pinned, f"binder/requirements.txt does not pin {req.name}"
        assert req.specifier.contains(pinned[name], prereleases=True), \
            f"binder pins {req.name}=={pinned[name]}, pyproject.toml asks for {req}"
    assert "jxkernel" not in pinned          # postBuild installs the checkout itself


def test_python_and_post_build():
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"
    post = (BINDER / "postBuild").read_text()
    assert os.access(BINDER / "postBuild", os.X_OK), "postBuild must be executable"
    assert re.search(r"pip install .*--no-deps \.$", post, re.M), post
    # scripts/main.sh installs the same settings in its venv (no news prompt locally either)
    main = (ROOT / "scripts" / "main.sh").read_text()
    assert "cp binder/overrides.json $VENV/share/jupyter/lab/settings/overrides.json" in main
    assert main.index("overrides.json") < main.index("jupyter lab")
    settings = json.loads((BINDER / "overrides.json").read_text())
    assert settings["@jupyterlab/apputils-extension:notification"] == \
        {"fetchNews": "false", "checkForUpdates": False}
    # JupyterLab's default "Kernel Comms over subshells" kept, as learners' own JupyterLab has
    # it: the browser tests run with these settings, and test_labextension_shape_cards_browser.py
    # checks under that default that the extension's comm keeps off subshells (docs/teaching.md)
    assert "@jupyterlab/apputils-extension:kernels-settings" not in settings


def venv_env(venv: Path) -> dict:
    """The environment the image's processes get: its venv first on PATH, and nothing of the
    caller's that would import another jxkernel (PYTHONPATH) or name another venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}:{os.environ['PATH']}"
    return env


def test_the_image_runs_without_the_callers_pythonpath(monkeypatch, tmp_path):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("VIRTUAL_ENV", str(ROOT / ".venv"))
    env = venv_env(tmp_path)
    assert "PYTHONPATH" not in env and "VIRTUAL_ENV" not in env
    assert env["PATH"].split(":")[0] == str(tmp_path / "bin")


@pytest.mark.skipif(os.environ.get("JXKERNEL_TEST_BINDER") != "1",
                    reason="builds a fresh environment from binder/ (about 100 downloads); "
                           "set JXKERNEL_TEST_BINDER=1 to run it")
def test_binder_environment_builds_and_runs_the_tour(tmp_path):
    venv = tmp_path / "binder-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "-r", str(BINDER / "requirements.txt")],
                   check=True)
    env = venv_env(venv)
    subprocess.run(["bash", str(BINDER / "postBuild")], cwd=ROOT, check=True,
                   env=dict(env, NB_PYTHON_PREFIX=str(venv)))
    listed = subprocess.run([python, "-m", "jupyter", "labextension", "list"],
                            capture_output=True, text=True, check=True, env=env)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", listed.stdout + listed.stderr)
    assert re.search(r"jxkernel-labextension v\S+ enabled OK", plain), plain
    assert (venv / "share/jupyter/lab/settings/overrides.json").exists()
    # the tour, in the new environment's own kernel
    run = subprocess.run(
        [python, "-c",
         "import nbformat, nbclient, sys\n"
         "nb = nbformat.read(sys.argv[1], as_version=4)\n"
         "nb.cells.append(nbformat.v4.new_code_cell('import jxkernel; print(jxkernel.__file__)'))\n"
         "nbclient.NotebookClient(nb, timeout=300, kernel_name='python3', allow_errors=True,\n"
         "    resources={'metadata': {'path': sys.argv[2]}}).execute()\n"
         "errors = [c.source for c in nb.cells if c.cell_type == 'code' and\n"
         "          any(o.output_type == 'error' for o in c.outputs) and\n"
         "          'raises-exception' not in c.metadata.get('tags', [])]\n"
         "assert not errors, errors\n"
         "print('RAN', nb.cells[-1].outputs[0].text.strip())\n",
         str(ROOT / "demos" / "01_tour.ipynb"), str(ROOT / "demos")],
        capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    ran = run.stdout.rsplit("RAN ", 1)[-1].strip()
    assert Path(ran).is_relative_to(venv), f"the tour's kernel ran {ran}, not the image's jxkernel"
