"""The static JupyterLite site's build (scripts/lite_site.py, run by `sh scripts/lite.sh`) without
building it (that takes a minute and needs PyPI and npm: tests/labextension/test_lite_browser.py
opens a built one): what the notebooks' first cell installs in the browser is what the site
serves, and `check` finds each way a built site can be incomplete."""
import json
import os
import pathlib
import re
import runpy

import pytest

from jxkernel.notebook.workshop import links
import locations  # tests/support: the repository's folders

ROOT = pathlib.Path(locations.ROOT)
LITE = runpy.run_path(str(ROOT / "scripts/lite_site.py"), run_name="lite_site")


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def test_what_the_first_cell_installs_in_the_browser_is_on_the_site():
    address, version = links.project(ROOT)
    cell = links.setup_cell(address, version, "01_tour.ipynb")
    pip = [line.split()[1:] for line in cell.splitlines()
           if line.startswith("    %pip ") and "git+" not in line and "{" not in line]
    assert pip == [["install", "-q", *links.BROWSER_PACKAGES],
                   ["install", "-q", "--no-deps", "jxkernel"]]
    served = {norm(re.split(r"[=<>]", spec)[0]) for spec in LITE["PIPLITE_WHEELS"]}
    served |= {norm(name) for name in LITE["PYODIDE_PACKAGES"]}
    for package in links.BROWSER_PACKAGES:
        assert norm(package) in served, package
    # the frontends of the widgets the notebooks draw come with their wheels
    assert {"jupyterlab-widgets", "anywidget", "plotly"} <= set(LITE["FRONTENDS"]) <= served


def site(tmp_path, pyodide_url="./static/pyodide/pyodide.js", extensions=None, index=None,
         notebooks=None, locked=None) -> pathlib.Path:
    """A made-up built site: its jupyter-lite.json, piplite index, Pyodide and its lock (with
    `locked` changing the lock's entries for `import jax`) and notebooks."""
    out = tmp_path / "_lite"
    (out / "static/pyodide").mkdir(parents=True)
    (out / "static/pyodide/pyodide.js").write_text("")
    (out / "pypi").mkdir()
    packages = {}
    for name in ["jax", *LITE["IMPORT_JAX_WHEELS"]]:
        whl = out / ("static/pyodide" if name == "jax" else "pypi") / f"{name}-1.0-py3-none-any.whl"
        whl.write_bytes(name.encode())
        packages[norm(name)] = LITE["lock_entry"](
            whl, whl.name if name == "jax" else f"../../pypi/{whl.name}",
            ["jax"] if name == "jax" else [], [])
    packages.update(locked or {})
    (out / "static/pyodide/pyodide-lock.json").write_text(json.dumps({"packages": {
        k: v for k, v in packages.items() if v is not None}}))
    settings = {"pipliteUrls": ["./pypi/all.json"]}
    if pyodide_url is not None:
        settings["pyodideUrl"] = pyodide_url
    names = extensions if extensions is not None else [
        "@jupyterlite/pyodide-kernel-extension", "jxkernel-labextension",
        "@jupyter-widgets/jupyterlab-manager", "anywidget"]
    (out / "jupyter-lite.json").write_text(json.dumps({"jupyter-config-data": {
        "federated_extensions": [{"name": n, "load": "x.js"} for n in names],
        "litePluginSettings": {"@jupyterlite/pyodide-kernel-extension:kernel": settings}}}))
    wheels = index if index is not None else ["jxkernel", "ipywidgets", "anywidget",
                                              "opt_einsum", "comm"]
    (out / "pypi/all.json").write_text(json.dumps({w: {"releases": {}} for w in wheels}))
    (out / "files").mkdir()
    for nb in notebooks if notebooks is not None else links.notebooks(ROOT):
        (out / "files" / pathlib.Path(nb).name).write_text("{}")
    return out


def test_a_complete_site_passes_the_check(tmp_path):
    assert LITE["check"](site(tmp_path)) == []


@pytest.mark.parametrize("change, said", [
    # builds have been seen to leave pyodideUrl out: the kernel then fetches Pyodide from a CDN
    ({"pyodide_url": None}, "pyodideUrl is None: not a file of the site"),
    ({"pyodide_url": "https://cdn.example/pyodide/v0.27.7/full/pyodide.js"},
     "not a file of the site"),
    ({"extensions": ["@jupyterlite/pyodide-kernel-extension", "anywidget",
                     "@jupyter-widgets/jupyterlab-manager"]},
     "no federated extension jxkernel-labextension"),
    ({"index": ["jxkernel", "ipywidgets", "anywidget", "comm"]}, "has no opt-einsum"),
    ({"notebooks": ["01_tour.ipynb"]}, "files/02_jit_and_tracing.ipynb is not on the site"),
    # `import jax` in a new notebook: the lock's placeholder and what it loads
    ({"locked": {"jax": None}}, "pyodide-lock.json has no jax serving `import jax`"),
    ({"locked": {"jxkernel": {"file_name": "../../pypi/jxkernel-2.0-py3-none-any.whl",
                              "imports": [], "sha256": "0"}}},
     "pyodide-lock.json has no jxkernel serving `import jax`"),
])
def test_the_check_says_what_a_site_lacks(tmp_path, change, said):
    found = LITE["check"](site(tmp_path, **change))
    assert any(said in line for line in found), found


def test_the_pyodide_pins_go_together():
    """jupyterlite-pyodide-kernel 0.6.* runs Pyodide 0.27.* (Python 3.12) with jupyterlite-core
    0.6.* (the kernel's own compatibility table); the notebooks on the site name its kernel."""
    assert LITE["PYODIDE_VERSION"].startswith("0.27.")
    assert LITE["PYODIDE_KERNEL"].split(".")[:2] == LITE["JUPYTERLITE_CORE"].split(".")[:2] \
        == ["0", "6"]
    assert LITE["PYODIDE_KERNELSPEC"]["name"] == "python"
    # lite.sh installs the versions it reads from lite_site.py
    assert "PINS=$(sed -n" in (ROOT / "scripts/lite.sh").read_text()


def test_the_pages_workflow_publishes_the_site_the_readme_links():
    """.github/workflows/pages.yml (which runs only on GitHub) builds _lite/ with scripts/lite.sh
    on the branch pyproject.toml's links open, and deploys it to the repository's GitHub Pages,
    whose address the README's "try it in your browser" link is (links.Address.lite)."""
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load((ROOT / ".github/workflows/pages.yml").read_text())
    address, _ = links.project(ROOT)
    on = workflow.get("on", workflow.get(True))       # YAML 1.1 reads a bare `on` as True
    assert on["push"]["branches"] == [address.branch]
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    build = workflow["jobs"]["build"]["steps"]
    assert [s["run"] for s in build if "run" in s] == ["sh scripts/lite.sh"]
    (upload,) = [s for s in build if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert upload["with"]["path"] == LITE["OUT"].relative_to(ROOT).as_posix() == "_lite"
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
    # the deployment's address, on this repository's Pages, is the README's link
    page = deploy["environment"]["url"].replace("${{ steps.deployment.outputs.page_url }}",
                                                address.pages)
    assert page == address.lite()
    assert f"]({address.lite()})" in (ROOT / "README.md").read_text()
    # ... to a notebook the site serves at its root
    assert (ROOT / links.TOUR).exists() and address.lite().endswith(pathlib.Path(links.TOUR).name)


def test_the_sites_jax_placeholder_hands_over_to_jxkernel(tmp_path):
    """The wheel the site's lock gives the import `jax` (Pyodide loads it on a cell's `import
    jax`): unpacked where Python finds it, `import jax` gives jxkernel's alias, at the JAX
    release jxkernel answers as, and the package's metadata says that version."""
    import zipfile
    from fresh_process import run_json     # tests/support
    whl = LITE["jax_placeholder"](tmp_path, "0.10.2")
    assert whl.name == "jax-0.10.2-py3-none-any.whl"
    with zipfile.ZipFile(whl) as z:
        z.extractall(tmp_path / "site")
    # the unpacked wheel first on the child's path (as Pyodide puts it); the module named
    # "jax" there is the placeholder, which hands over to jxkernel's alias: the assertions say
    # that is what the name gives (never the real JAX this venv also has)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")])}
    got = run_json("""
        import json, importlib, importlib.metadata
        alias = importlib.import_module("jax")          # the site's placeholder
        print(json.dumps({"kind": type(alias.numpy.arange(3)).__module__,
                          "version": alias.__version__, "numpy": alias.numpy.__name__,
                          "dist": importlib.metadata.version("jax"),
                          "placeholder_gone": "site" not in (getattr(alias, "__file__", "") or "")}))
    """, env=env)
    assert got == {"kind": "jxkernel.xla.array", "version": "0.10.2", "numpy": "jxkernel.numpy",
                   "dist": "0.10.2", "placeholder_gone": True}
