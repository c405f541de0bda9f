"""The libraries' sources (with their tests) and a virtualenv per side, under .libs/ (ignored).

    .libs/src/optax-0.2.8/          PyPI's sdist, unpacked: the tests run from here
    .libs/src/equinox-0.13.8/       the v0.13.8 tag (Equinox's sdist has no tests)
    .libs/venv-jxkernel/            this checkout (editable) + the libraries, no real JAX
    .libs/venv-jax/                 real JAX 0.10.2 + the same libraries

Both venvs get the libraries at the README's versions and the same test dependencies, held
to the versions of `constraints.txt` (what the recorded runs had; `pin` rewrites it); uv
resolves them, told on jxkernel's side to leave `jax` out of the resolution (`--excludes`),
so that the libraries' `jax` requirement brings nothing: there `import jax` is jxkernel
through the alias (JXKERNEL_AS_JAX=1, jxkernel-as-jax.pth). `check_side` refuses a venv where
that does not hold.

    >>> os.path.relpath(venv_python("jax"), ROOT)
    '.libs/venv-jax/bin/python'
"""
import datetime
import glob
import os
import subprocess
import sys
import tarfile
import urllib.request

from conformance.libraries import readme
from conformance.libraries.suites import (EQUINOX_ARCHIVE, EQUINOX_GIT, LIBRARIES,
                                          TEST_DEPENDENCIES)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = os.path.join(ROOT, ".libs")
SIDES = ("jxkernel", "jax")
JAX_VERSION = "0.10.2"
_EXCLUDES = os.path.join(WORK, "excludes-jax.txt")
CONSTRAINTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "constraints.txt")
# not held by constraints.txt: JAX itself (each side has its own), the libraries (the README's
# headings pin them) and the venv's own tools
_UNPINNED = {"jax", "jaxlib", "pip", "setuptools", "uv", *LIBRARIES}
_CONSTRAINTS_HEADER = """\
# The libraries' test dependencies as .libs/venv-jax resolved them on {date}, so that a later
# setup installs the versions the README's tables were recorded with, the same on both sides.
# jax, jaxlib, the four libraries (pinned by the README's headings) and the venv's own tools
# are left out. Rewritten by `python -m conformance.libraries pin`.
"""


def _run(command, **kwargs):
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)


def source_dir(library):
    """The unpacked source tree of the library at the README's version, fetched once."""
    version = readme.version(library)
    where = os.path.join(WORK, "src", f"{library.name}-{version}")
    if not os.path.isdir(where):
        os.makedirs(os.path.join(WORK, "src"), exist_ok=True)
        (_from_git if library.source == "git" else _from_sdist)(library.name, version, where)
    return where


def _unpack(archive, where):
    """Unpack a .tar.gz whose members sit under one top folder into `where`."""
    with tarfile.open(archive) as tar:
        top = tar.getmembers()[0].name.split("/")[0]
        tar.extractall(where + ".part", filter="data")
    os.rename(os.path.join(where + ".part", top), where)
    os.rmdir(where + ".part")


def _from_sdist(name, version, where):
    downloads = os.path.join(WORK, "downloads")
    _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
          f"{name}=={version}", "-d", downloads])
    [archive] = glob.glob(os.path.join(downloads, f"{name}-{version}.tar.gz"))
    _unpack(archive, where)


def _from_git(name, version, where):
    """Equinox's tag: from the git clone or mirror LIBS_EQUINOX_GIT names, else GitHub's archive."""
    os.makedirs(where + ".part", exist_ok=True)
    if EQUINOX_GIT and os.path.isdir(EQUINOX_GIT):
        # only the package, its tests and its pytest options: a snapshot may lack big blobs
        archive = subprocess.run(["git", "-C", EQUINOX_GIT, "archive", f"v{version}",
                                  name, "tests", "pyproject.toml", "README.md", "LICENSE"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "x", "-C", where + ".part"], input=archive, check=True)
        os.rename(where + ".part", where)
        return
    archive = os.path.join(WORK, "downloads", f"{name}-{version}.tar.gz")
    os.makedirs(os.path.dirname(archive), exist_ok=True)
    try:
        urllib.request.urlretrieve(EQUINOX_ARCHIVE.format(version=version), archive)
    except OSError as error:
        raise SystemExit(f"{name} {version}'s tests: GitHub unreachable ({error}) and no git "
                         f"clone named by LIBS_EQUINOX_GIT ({EQUINOX_GIT or 'unset'})") from None
    os.rmdir(where + ".part")
    _unpack(archive, where)


def venv_python(side):
    return os.path.join(WORK, f"venv-{side}", "bin", "python")


def make_venv(side):
    """Create the side's venv once and install what it runs; check it either way."""
    python = venv_python(side)
    if not os.path.exists(python):
        _run([sys.executable, "-m", "venv", os.path.dirname(os.path.dirname(python))])
        _run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "uv"])
        with open(_EXCLUDES, "w") as f:       # what uv leaves out of jxkernel's resolution
            f.write("jax\n")
        _run([python, "-m", "uv", "pip", "install", "-q", "--python", python,
              *_requirements(side)], cwd=ROOT)
    check_side(side)
    return python


def _requirements(side):
    libraries = [f"{lib.name}=={readme.version(lib)}" for lib in LIBRARIES.values()]
    held = ["--constraint", CONSTRAINTS]
    if side == "jax":
        return [*held, f"jax=={JAX_VERSION}", f"jaxlib=={JAX_VERSION}", *libraries,
                *TEST_DEPENDENCIES]
    return [*held, "--excludes", _EXCLUDES, "-e", ROOT, *libraries, *TEST_DEPENDENCIES]


def pins(freeze):
    """The lines of a `pip freeze` that constraints.txt holds, sorted.

    >>> pins("jax==0.10.2\\nscipy==1.17.1\\n-e file:///x\\noptax==0.2.8\\nAbsl_Py==2.5.1")
    ['Absl_Py==2.5.1', 'scipy==1.17.1']
    """
    lines = [line.strip() for line in freeze.splitlines() if "==" in line]
    return sorted((line for line in lines if line.split("==")[0].lower() not in _UNPINNED),
                  key=str.lower)


def write_constraints(side="jax"):
    """Rewrite constraints.txt from the side's venv as it is now (after a deliberate upgrade)."""
    python = venv_python(side)
    freeze = subprocess.run([python, "-m", "uv", "pip", "freeze", "--python", python],
                            check=True, capture_output=True, text=True).stdout
    with open(CONSTRAINTS, "w", encoding="utf-8") as f:
        f.write(_CONSTRAINTS_HEADER.format(date=datetime.date.today().isoformat()))
        f.write("\n".join(pins(freeze)) + "\n")
    return CONSTRAINTS


_CHECK = """
import importlib.metadata as md, sys
try:
    real = md.version("jax")
except md.PackageNotFoundError:
    real = None
import jax
print(real, jax.__version__, "jxkernel" in sys.modules)
"""


def check_side(side):
    """jxkernel's venv: no real JAX installed, `import jax` is jxkernel. JAX's: real JAX."""
    out = subprocess.run([venv_python(side), "-c", _CHECK], env=side_environment(side),
                         capture_output=True, text=True, check=True).stdout.split()
    real, version, is_jxkernel = out[0], out[1], out[2] == "True"
    if side == "jxkernel" and (real != "None" or not is_jxkernel):
        raise SystemExit(f"{venv_python(side)}: real jax {real} installed or `import jax` is "
                         f"not jxkernel; remove .libs/venv-jxkernel and run setup again")
    if side == "jax" and (real != JAX_VERSION or is_jxkernel):
        raise SystemExit(f"{venv_python(side)}: jax {real}, not {JAX_VERSION}")
    return version


def side_environment(side, optimized=False):
    """The environment a side's pytest runs in (the README's runs: most XLA optimizations
    off on both sides, unless `optimized`; the record plugin on the path)."""
    env = dict(os.environ)
    env.pop("JXKERNEL_AS_JAX", None)
    if side == "jxkernel":
        env["JXKERNEL_AS_JAX"] = "1"
    if not optimized:
        env["JAX_DISABLE_MOST_OPTIMIZATIONS"] = "1"
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plugin")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    return env
