"""The workshop's public links (jxkernel/notebook/workshop/links.py): the README's Binder badge
and launch link, the Colab link of every notebook (README and docs/teaching.md) and every
notebook's first cell all derive from pyproject.toml's [project.urls]; a fork that changes those
lines and reruns the script changes every one of them."""
import json
import pathlib
import re
import shutil
import tomllib

import pytest

from jxkernel.notebook.workshop import links
import locations  # tests/support: the repository's folders

ROOT = pathlib.Path(locations.ROOT)


def test_every_link_and_first_cell_agrees_with_pyproject():
    assert links.disagreements(ROOT) == []


def test_the_address_is_written_once_in_pyproject():
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert set(urls) >= {"Homepage", "Repository", "Documentation", "Issues"}
    address = links.Address.from_urls(urls)
    assert (address.repository, address.branch) == ("https://github.com/jxkernel/jxkernel", "main")
    readme = (ROOT / "README.md").read_text()
    launch = "https://mybinder.org/v2/gh/jxkernel/jxkernel/main?urlpath=lab/tree/demos/01_tour.ipynb"
    assert f"[![Binder](https://mybinder.org/badge_logo.svg)]({launch})" in readme
    # the static JupyterLite site (scripts/lite.sh) on the repository's GitHub Pages
    assert "(https://jxkernel.github.io/jxkernel/lab/index.html?path=01_tour.ipynb)" in readme
    for doc in (readme, (ROOT / "docs/teaching.md").read_text()):
        for nb in links.notebooks(ROOT):
            assert f"https://colab.research.google.com/github/jxkernel/jxkernel/blob/main/" \
                   f"demos/{nb.name}" in doc, nb.name
    # the links point only at the address pyproject.toml gives
    for url in re.findall(r"https://(?:github\.com|mybinder\.org/v2/gh|colab\.research\.google"
                          r"\.com/github)/([\w.-]+/[\w.-]+)", readme):
        assert url == "jxkernel/jxkernel", url


def test_the_first_cell_installs_from_the_address_or_pypi():
    address, version = links.project(ROOT)
    cell = links.setup_cell(address, version, "02_jit_and_tracing.ipynb")
    # the extras follow the host (tests/release/test_first_cell.py)
    assert '%pip install -q "jxkernel[{\',\'.join(extras)}] @ git+https://github.com/jxkernel/' \
           'jxkernel@main" {same_jax}' in cell
    assert cell.splitlines()[-1] == "%load_ext jxkernel"
    assert "output.enable_custom_widget_manager()" in cell       # Colab's widget manager
    assert address.install_spec(version, pypi=True) == f"jxkernel[notebook]=={version}"
    # notebook 09 sets its four devices before the extension starts the backend
    cell = links.setup_cell(address, version, "09_parallelism.ipynb").splitlines()
    assert cell[-2].startswith('jxkernel.config.update("jax_num_cpu_devices", 4)')
    for path in links.notebooks(ROOT):
        nb = json.loads(path.read_text())
        first = next(c for c in nb["cells"] if c["cell_type"] == "code")
        assert "setup" in first["metadata"]["tags"] and not first["outputs"], path.name


# The tour's first cell in a fresh IPython, in the browser (jaxlib's import failing, sys.platform
# set to emscripten after the imports, as tests/notebook/test_notebook_numpy_backend.py does) or
# on a server; then a JAX docs page's first line. Prints whether `import jax` gave jxkernel.
FIRST_CELL_THEN_IMPORT_JAX = """
import json, sys
from IPython.testing.globalipapp import start_ipython
shell = start_ipython()
import jxkernel, jxkernel.as_jax
sys.platform = PLATFORM
ran = shell.run_cell(SETUP)
assert ran.success, ran.error_in_exec or ran.error_before_exec
aliased = jxkernel.as_jax.installed()
if aliased:
    ran = shell.run_cell("import jax, jax.numpy as jnp\\nkind = type(jnp.arange(3)).__module__")
    assert ran.success, ran.error_in_exec
print(json.dumps({"aliased": aliased, "kind": shell.user_ns.get("kind"),
                  "jax": getattr(sys.modules.get("jax"), "__version__", None)}))
"""


@pytest.mark.parametrize("platform, aliased", [("emscripten", True), ("linux", False)])
def test_in_the_browser_the_first_cell_makes_import_jax_jxkernel(platform, aliased):
    """In JupyterLite no JAX can exist, and a learner pasting JAX's docs starts with `import
    jax`: there `%load_ext jxkernel` (the first cell's last line) installs jxkernel's alias.
    Elsewhere (a server, Colab) `import jax` is left to the JAX installed there."""
    from fresh_process import NO_JAXLIB, run_json   # tests/support
    pytest.importorskip("IPython")
    address, version = links.project(ROOT)
    setup = links.setup_cell(address, version, "01_tour.ipynb")
    got = run_json((NO_JAXLIB if platform == "emscripten" else "") +
                   f"PLATFORM = {platform!r}\nSETUP = {setup!r}\n" + FIRST_CELL_THEN_IMPORT_JAX,
                   {"JAX_PLATFORMS": ""})
    assert got["aliased"] is aliased, got
    if aliased:
        assert got == {"aliased": True, "kind": "jxkernel.xla.array", "jax": "0.10.2"}


def test_a_fork_changes_one_place_and_every_link_follows(tmp_path):
    for rel in ["README.md", "docs/teaching.md", "jxkernel/version.py"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    shutil.copytree(ROOT / "demos", tmp_path / "demos",
                    ignore=shutil.ignore_patterns("*.npz", ".ipynb_checkpoints"))
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert pyproject.count("https://github.com/jxkernel/jxkernel") == 5
    (tmp_path / "pyproject.toml").write_text(
        pyproject.replace("github.com/jxkernel/jxkernel", "github.com/a-fork/jxk")
        .replace("/tree/main/docs", "/tree/teach/docs"))
    stale = links.disagreements(tmp_path)
    assert len(stale) == 2 + 2 * len(links.notebooks(tmp_path)) - 1, stale   # 01 has no solutions
    assert all("pyproject.toml" in line for line in stale), stale

    links.write(tmp_path)
    assert links.disagreements(tmp_path) == []
    readme = (tmp_path / "README.md").read_text()
    assert "https://mybinder.org/v2/gh/a-fork/jxk/teach?urlpath=lab/tree/demos/01_tour.ipynb" \
        in readme
    assert "https://a-fork.github.io/jxk/lab/index.html?path=01_tour.ipynb" in readme
    assert "jxkernel.github.io" not in readme
    assert "https://colab.research.google.com/github/a-fork/jxk/blob/teach/demos/07_pytrees" \
        in (tmp_path / "docs/teaching.md").read_text()
    for path in [*links.notebooks(tmp_path), *(tmp_path / "demos/solutions").glob("*.ipynb")]:
        text = path.read_text()
        assert "git+https://github.com/a-fork/jxk@teach" in text, path.name
        assert "jxkernel/jxkernel" not in text, path.name


@pytest.mark.parametrize("urls, said", [
    ({"Repository": "https://gitlab.com/x/y"}, "expected https://github.com/OWNER/NAME"),
    ({"Repository": "https://github.com/x/y", "Documentation": "https://x.readthedocs.io"},
     "expected https://github.com/x/y/tree/BRANCH/docs"),
])
def test_an_address_the_links_cannot_use_says_what_is_expected(urls, said):
    with pytest.raises(ValueError, match=re.escape(said)):
        links.Address.from_urls(urls)


def test_docstring_examples():
    from doc_examples import check_docstring_examples
    check_docstring_examples("jxkernel.notebook.workshop.links")
