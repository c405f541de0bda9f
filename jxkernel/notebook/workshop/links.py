"""The workshop's public links, all derived from the one address in pyproject.toml.

    .venv/bin/python -m jxkernel.notebook.workshop.links           # in the repository: rewrite
    .venv/bin/python -m jxkernel.notebook.workshop.links --check   # say what disagrees (exit 1)

pyproject.toml's `[project.urls]` holds the public home (`Repository`) and, in `Documentation`
(`<Repository>/tree/<branch>/docs`), the branch. From them this writes: the README's Binder
badge and launch link (JupyterLab on demos/01_tour.ipynb), an "Open in Colab" link per notebook
in the README and docs/teaching.md, and every notebook's first cell (tagged `setup`), which
installs jxkernel where it is missing and loads the extension. A fork changes pyproject.toml's
urls and runs this once; tests/notebook/test_workshop_links.py fails when anything disagrees.

    >>> urls = {"Repository": "https://github.com/me/jxk",
    ...         "Documentation": "https://github.com/me/jxk/tree/dev/docs"}
    >>> Address.from_urls(urls).binder("demos/01_tour.ipynb")
    'https://mybinder.org/v2/gh/me/jxk/dev?urlpath=lab/tree/demos/01_tour.ipynb'
    >>> Address.from_urls(urls).lite()
    'https://me.github.io/jxk/lab/index.html?path=01_tour.ipynb'

The "try it in your browser" link opens the static JupyterLite site (`sh scripts/lite.sh`
builds it in _lite/) where the repository's GitHub Pages serve it (docs/teaching.md, "A room
with no server").
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import re
import sys
import tomllib

# The one switch: False installs from the repository's branch (git), True from PyPI at this
# package's version (`jxkernel[notebook]==X.Y.Z`), once a release is published there.
PUBLISHED_ON_PYPI = False

ROOT = pathlib.Path(__file__).resolve().parents[3]     # the repository (this is a maintainer's tool)
TOUR = "demos/01_tour.ipynb"
SETUP_TAG = "setup"
# lines a notebook needs between `import jxkernel` and loading the extension
BEFORE_LOAD = {
    "09_parallelism.ipynb": 'jxkernel.config.update("jax_num_cpu_devices", 4)   '
                            '# four CPU devices: before the backend starts',
}
# what the first cell installs in the browser (Pyodide) before jxkernel, from the JupyterLite
# site's own files (scripts/lite_site.py serves each: tests/release/test_lite_site.py)
BROWSER_PACKAGES = ("numpy", "opt_einsum", "ipywidgets", "anywidget", "plotly")
BINDER_BADGE = "https://mybinder.org/badge_logo.svg"
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
LITE_BADGE = "https://jupyterlite.rtfd.io/en/latest/_static/badge.svg"


@dataclasses.dataclass(frozen=True)
class Address:
    """Where the project lives publicly: a GitHub repository and its branch."""
    owner: str
    name: str
    branch: str

    @classmethod
    def from_urls(cls, urls: dict) -> "Address":
        repo = urls.get("Repository", "")
        found = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+)", repo)
        if found is None:
            raise ValueError(f"pyproject.toml [project.urls] Repository = {repo!r}: expected "
                             f"https://github.com/OWNER/NAME (Binder and Colab open GitHub "
                             f"repositories)")
        docs = urls.get("Documentation", "")
        branch = re.fullmatch(re.escape(repo) + r"/tree/([\w./-]+?)/docs/?", docs)
        if branch is None:
            raise ValueError(f"pyproject.toml [project.urls] Documentation = {docs!r}: expected "
                             f"{repo}/tree/BRANCH/docs (the branch the links open)")
        return cls(found.group(1), found.group(2), branch.group(1))

    @property
    def repository(self) -> str:
        return f"https://github.com/{self.owner}/{self.name}"

    def binder(self, path: str = TOUR) -> str:
        return f"https://mybinder.org/v2/gh/{self.owner}/{self.name}/{self.branch}" \
               f"?urlpath=lab/tree/{path}"

    @property
    def pages(self) -> str:
        """The repository's GitHub Pages, where the static JupyterLite site is published."""
        return f"https://{self.owner.lower()}.github.io/{self.name}/"

    def lite(self, path: str = TOUR) -> str:
        """A notebook on the JupyterLite site (its files are demos/'s, at the site's root)."""
        return f"{self.pages}lab/index.html?path={path.removeprefix('demos/')}"

    def colab(self, path: str) -> str:
        return f"https://colab.research.google.com/github/{self.owner}/{self.name}/blob/" \
               f"{self.branch}/{path}"

    def install_spec(self, version: str, pypi: bool = PUBLISHED_ON_PYPI,
                     extras: str = "notebook") -> str:
        """What `pip install` is given for jxkernel with `extras`."""
        return f"jxkernel[{extras}]{self.source(version, pypi)}"

    def source(self, version: str, pypi: bool = PUBLISHED_ON_PYPI) -> str:
        """Where jxkernel comes from, as it follows its name and extras in a requirement:
        `==X.Y.Z` (PyPI) or ` @ git+REPOSITORY@BRANCH`."""
        return f"=={version}" if pypi else f" @ git+{self.repository}@{self.branch}"


def project(root: pathlib.Path = ROOT) -> tuple[Address, str]:
    """The address and version pyproject.toml and jxkernel/version.py give."""
    meta = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    version = re.search(r'^__version__ = "([^"]+)"', (root / "jxkernel/version.py").read_text(),
                        re.M).group(1)
    return Address.from_urls(meta.get("urls", {})), version


def jaxlib_pin(root: pathlib.Path = ROOT) -> str:
    """The jaxlib version pyproject.toml pins (`jaxlib==X.Y.Z`): the JAX release that goes with
    jxkernel."""
    deps = tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    found = [re.fullmatch(r"jaxlib\s*==\s*([\w.]+)", d.split(";")[0].strip()) for d in deps]
    pins = [m.group(1) for m in found if m]
    if len(pins) != 1:
        raise ValueError(f"pyproject.toml pins jaxlib {len(pins)} times; expected jaxlib==X.Y.Z once")
    return pins[0]


# ------------------------------------------------------------------ what is written
def setup_cell(address: Address, version: str, notebook: str, jaxlib: str | None = None) -> str:
    """The first code cell of a notebook: silent where jxkernel imports; elsewhere it installs
    jxkernel first, with what its host needs (docs/teaching.md, "The first cell"):

    - where the host serves the notebooks itself (Colab, found by `google.colab` importing;
      Kaggle, by KAGGLE_KERNEL_RUN_TYPE; VS Code, by VSCODE_PID) the `kernel` extra, which
      leaves the host's IPython, ipykernel, ipywidgets and notebook server as they are; elsewhere
      the `notebook` extra (JupyterLab, Notebook 7 and the extension);
    - the GPU or TPU extra of a plugin the host has (Colab's GPU runtime: jax-cuda12-plugin),
      which moves it to jaxlib's version;
    - `jax` at the release that goes with jaxlib where a JAX is installed, so that `import jax`
      and `pip check` keep working.

    In the browser (JupyterLite) it installs jxkernel from the site's wheels, and
    `%load_ext jxkernel` makes `import jax` give jxkernel there (no JAX can exist there; not on
    Colab or a server, where `import jax` stays the JAX installed). On Colab the interactive
    views need Colab's custom widget manager (they fall back to HTML
    where widgets cannot load). `jaxlib`: the version jxkernel pins (pyproject.toml's)."""
    jaxlib = jaxlib or jaxlib_pin()
    lines = [
        "# Setup: installs jxkernel where it is missing (Colab, Kaggle, a new environment), then loads",
        "# its notebook extension. Written by `python -m jxkernel.notebook.workshop.links`.",
        "import importlib.util, sys",
        "if sys.platform == 'emscripten' and importlib.util.find_spec('jxkernel') is None:",
        "    # in the browser (JupyterLite): from the site's own wheels; ml_dtypes has no build there.",
        "    # No JAX can exist there: %load_ext jxkernel (below) makes `import jax` give jxkernel",
        f"    %pip install -q {' '.join(BROWSER_PACKAGES)}",
        "    %pip install -q --no-deps jxkernel",
        "try:",
        "    import jxkernel",
        "except ModuleNotFoundError:",
        "    import importlib.metadata, os, sys",
        "    if sys.platform == 'emscripten':   # in the browser: the site's wheels are all there is",
        "        raise",
        "    have = {(d.metadata['Name'] or '').lower().replace('_', '-') for d in importlib.metadata.distributions()}",
        "    try:",
        "        import google.colab     # a host serving its own notebooks (Colab, Kaggle, VS Code)",
        "        hosted = True",
        "    except ImportError:",
        "        hosted = 'KAGGLE_KERNEL_RUN_TYPE' in os.environ or 'VSCODE_PID' in os.environ",
        "    extras = ['kernel' if hosted else 'notebook']   # kernel: no JupyterLab, no Notebook 7",
        "    plugins = {'cuda12': 'jax-cuda12-plugin', 'cuda13': 'jax-cuda13-plugin', 'tpu': 'libtpu'}",
        "    extras += [x for x, plugin in plugins.items() if plugin in have]   # the host's GPU or TPU",
        f"    same_jax = 'jax=={jaxlib}' if 'jax' in have else ''   # a JAX here moves with jaxlib {jaxlib}",
        f"    %pip install -q \"jxkernel[{{','.join(extras)}}]{address.source(version)}\" {{same_jax}}",
        "    import jxkernel",
        "try:",
        "    from google.colab import output    # Colab draws widgets with its own manager",
        "    output.enable_custom_widget_manager()",
        "except ImportError:",
        "    pass",
    ]
    if notebook in BEFORE_LOAD:
        lines.append(BEFORE_LOAD[notebook])
    lines.append("%load_ext jxkernel")
    return "\n".join(lines)


def _title(path: pathlib.Path) -> str:
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            head = "".join(cell["source"]).splitlines()[0]
            return re.sub(r"^#+\s*(\d+\s*·\s*)?", "", head).strip()
    return path.stem


def notebooks(root: pathlib.Path = ROOT) -> list:
    return sorted((root / "demos").glob("[0-9][0-9]_*.ipynb"))


def blocks(root: pathlib.Path = ROOT, up: str = "") -> dict:
    """The generated Markdown blocks, by name; `up` leads relative links from the file's folder
    to the repository's root ("../" in docs/)."""
    address, _ = project(root)
    binder = address.binder()
    badges = (f"[![Binder]({BINDER_BADGE})]({binder}) "
              f"[![Open in Colab]({COLAB_BADGE})]({address.colab(TOUR)}) "
              f"[![Try it in your browser]({LITE_BADGE})]({address.lite()})")
    rows = ["| notebook | open in |", "|---|---|"]
    for path in notebooks(root):
        rel = path.relative_to(root).as_posix()
        rows.append(f"| [`{path.name}`]({up}{rel}): {_title(path)} | "
                    f"[Colab]({address.colab(rel)}) · [Binder]({address.binder(rel)}) |")
    launch = (f"Launch the workshop on Binder, JupyterLab on the tour: <{binder}> "
              f"(source: <{address.repository}>, branch `{address.branch}`).\n"
              f"Each notebook also opens on Colab; its first cell installs jxkernel there.\n"
              f"Try it in your browser, with nothing installed and no server (JupyterLite): "
              f"<{address.lite()}> (the site `sh scripts/lite.sh` builds, published on the "
              f"repository's GitHub Pages).\n\n"
              + "\n".join(rows))
    _, version = project(root)
    install = (f"```sh\npip install \"{address.install_spec(version)}\"\n"
               f"jupyter lab            # or: jupyter notebook (Notebook 7)\n```")
    return {"badges": badges, "install": install, "notebooks": launch}


def _block_re(name: str):
    return re.compile(rf"(<!-- links:{name} -->\n).*?(<!-- /links:{name} -->)", re.S)


# which files hold which blocks
FILES = {"README.md": ("badges", "install", "notebooks"), "docs/teaching.md": ("notebooks",)}


def rewritten_markdown(root: pathlib.Path = ROOT) -> dict:
    """{file: (current text, text with every block regenerated)}."""
    out = {}
    for rel, names in FILES.items():
        made = blocks(root, up="../" * rel.count("/"))
        text = (root / rel).read_text()
        new = text
        for name in names:
            if not _block_re(name).search(new):
                raise ValueError(f"{rel} has no <!-- links:{name} --> ... <!-- /links:{name} --> "
                                 f"block to write")
            new = _block_re(name).sub(lambda m: m.group(1) + made[name] + "\n" + m.group(2), new)
        out[rel] = (text, new)
    return out


def with_setup_cell(nb: dict, source: str) -> dict:
    """`nb` (JSON dict) whose first code cell is the setup cell `source`: replaced where there
    is one (tagged `setup`), inserted before the first code cell otherwise."""
    cells = nb["cells"]
    first = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")
    cell = {"cell_type": "code", "execution_count": None,
            "metadata": {"tags": [SETUP_TAG]}, "outputs": [], "source": source}
    if SETUP_TAG in cells[first].get("metadata", {}).get("tags", []):
        cell["id"] = cells[first].get("id", "setup")
        cells[first] = cell
    else:
        cell["id"] = "setup"
        cells.insert(first, cell)
    return nb


def setup_source(nb: dict) -> str | None:
    """The source of `nb`'s setup cell, None when its first code cell is not one."""
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    if not code or SETUP_TAG not in code[0].get("metadata", {}).get("tags", []):
        return None
    src = code[0]["source"]
    return src if isinstance(src, str) else "".join(src)


def disagreements(root: pathlib.Path = ROOT) -> list:
    """What differs from what pyproject.toml says: one line per file."""
    address, version = project(root)
    found = [f"{rel}: its links differ from pyproject.toml's [project.urls]"
             for rel, (old, new) in rewritten_markdown(root).items() if old != new]
    for path in notebooks(root) + sorted((root / "demos/solutions").glob("*.ipynb")):
        want = setup_cell(address, version, path.name)
        got = setup_source(json.loads(path.read_text()))
        if got != want:
            found.append(f"{path.relative_to(root)}: the first cell is "
                         + ("not the setup cell" if got is None else
                            "not what pyproject.toml's address gives"))
    return found


def write(root: pathlib.Path = ROOT) -> list:
    """Rewrite every block and setup cell (learners' notebooks, then the solutions from them)."""
    import nbformat

    address, version = project(root)
    written = []
    for rel, (old, new) in rewritten_markdown(root).items():
        if old != new:
            (root / rel).write_text(new)
            written.append(rel)
    for path in notebooks(root):
        nb = json.loads(path.read_text())
        want = setup_cell(address, version, path.name)
        if setup_source(nb) != want:
            nbformat.write(nbformat.from_dict(with_setup_cell(nb, want)), path)
            written.append(str(path.relative_to(root)))
    from . import solutions   # the instructors' copies: only when writing them
    solutions.main(str(root / "demos"))
    return written


def main(argv: list) -> int:
    if "--check" in argv:
        found = disagreements()
        for line in found:
            print(line)
        if found:
            print("run: python -m jxkernel.notebook.workshop.links")
        return 1 if found else 0
    for rel in write():
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
