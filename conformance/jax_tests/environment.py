"""The two sides' Pythons and environments, and the work folder .jaxtests/ (ignored).

    .jaxtests/src/         JAX's test files, extracted from the mirror at each run, and
                           JAX's test-support modules in _jax_test_support/ (files.SUPPORT)
    .jaxtests/venv-jax/    real JAX 0.10.2 with pytest and absl-py, at jxkernel's venv's
                           versions of NumPy, SciPy, ml_dtypes, opt_einsum, absl-py, pytest,
                           rich
    .jaxtests/results/     per side: counts per file (SIDE.json), each file's log and record

jxkernel's side is this checkout's `.venv` (editable install, no real JAX), `import jax` made
jxkernel by `JXKERNEL_AS_JAX=1`, JAX's test-support modules found by the plugin
jax_test_support in the folder `JAX_TEST_SUPPORT` names. The side `jxkernel-numpy` is the same
jxkernel on its NumPy backend (`JAX_PLATFORMS=numpy`: what JupyterLite's learners run), tested
as the CPU it stands in for (`JAX_TEST_DUT=cpu`: the files' CPU skips and tolerances, so it
collects and skips what JAX's CPU side does).

    >>> sorted(set(side_environment("jxkernel", 10)) - set(side_environment("jax", 10)))
    ['JAX_TEST_SUPPORT', 'JXKERNEL_AS_JAX']
    >>> numpy_side = side_environment("jxkernel-numpy", 10)
    >>> numpy_side["JAX_PLATFORMS"], numpy_side["JAX_TEST_DUT"]
    ('numpy', 'cpu')
"""
import os
import subprocess
import sys

from conformance.jax_tests import files

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = os.path.join(ROOT, ".jaxtests")
SIDES = ("jxkernel", "jax", "jxkernel-numpy")
BOTH = ("jxkernel", "jax")                 # `--side both`: XLA's CPU under jxkernel and JAX
PLATFORM = {"jxkernel": "cpu", "jax": "cpu", "jxkernel-numpy": "numpy"}


def is_jxkernel(side: str) -> bool:
    """Whether `side` runs jxkernel (as `jax`), on whichever backend."""
    return side != "jax"

JAX_VERSION = "0.10.2"
# held at jxkernel's venv's versions on JAX's side, so both run the same NumPy and the same
# test machinery
# versions of NumPy, SciPy, ... (rich: debugging_primitives_test's VisualizeShardingTest runs
# only where it is installed)
SHARED = ("numpy", "scipy", "ml_dtypes", "opt_einsum", "absl-py", "pytest", "rich")


def python(side: str) -> str:
    if is_jxkernel(side):
        return os.path.join(ROOT, ".venv", "bin", "python")
    return os.path.join(WORK, "venv-jax", "bin", "python")


def _version(py: str, package: str) -> str:
    return subprocess.run([py, "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
                          check=True, capture_output=True, text=True).stdout.strip()


def make_jax_venv() -> str:
    """Create .jaxtests/venv-jax once (uv, from its cache where it can); its python."""
    py = python("jax")
    if not os.path.exists(py):
        pins = [f"{p}=={_version(python('jxkernel'), p)}" for p in SHARED]
        uv = [python("jxkernel"), "-m", "uv"]
        subprocess.run([*uv, "venv", "-q", os.path.dirname(os.path.dirname(py)), "--python",
                        f"{sys.version_info.major}.{sys.version_info.minor}"], check=True)
        subprocess.run([*uv, "pip", "install", "-q", "--python", py, f"jax=={JAX_VERSION}",
                        f"jaxlib=={JAX_VERSION}", *pins], check=True)
    return py


_CHECK = ("import sys, jax; print(jax.__version__, 'jxkernel' in sys.modules, "
          "jax.default_backend())")


def check(side: str) -> None:
    """jxkernel's sides must import jxkernel as jax, JAX's side real JAX 0.10.2, each on its
    platform; and all need absl-py (JAX's test files are absl parameterized tests)."""
    out = subprocess.run([python(side), "-c", _CHECK + "; import absl, pytest"],
                         env=side_environment(side, 10), capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{python(side)}: {out.stderr.strip().splitlines()[-1]} (jxkernel's "
                         f"side: pip install -e '.[test,conformance]')")
    version, jxkernel, platform = out.stdout.split()
    if is_jxkernel(side) != (jxkernel == "True") or version != JAX_VERSION \
            or platform != PLATFORM[side]:
        raise SystemExit(f"{python(side)}: `import jax` gives {version}, jxkernel: {jxkernel}, "
                         f"on {platform} (the side {side} needs {PLATFORM[side]})")


def side_environment(side: str, cases: int, optimized: bool = False) -> dict:
    """The environment a side's pytest runs in: `cases` sampled cases per parameterized test
    (JAX_NUM_GENERATED_CASES), most XLA optimizations off unless `optimized` (compiles are
    the bulk of the time on both sides), the plugins on the path (the record plugin, and
    jax_test_support for jxkernel's side)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("JXKERNEL_AS_JAX", "JAX_TEST_SUPPORT", "PYTHONPATH")}
    env.pop("JAX_TEST_DUT", None)
    if is_jxkernel(side):
        env["JXKERNEL_AS_JAX"] = "1"
        env["JAX_TEST_SUPPORT"] = os.path.join(WORK, "src", files.SUPPORT_FOLDER)
    env["JAX_NUM_GENERATED_CASES"] = str(cases)
    env["JAX_PLATFORMS"] = PLATFORM[side]
    if PLATFORM[side] == "numpy":
        env["JAX_TEST_DUT"] = "cpu"          # the NumPy backend stands in for the CPU
    if not optimized:
        env["JAX_DISABLE_MOST_OPTIMIZATIONS"] = "1"
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [os.path.join(os.path.dirname(here), "libraries", "plugin"), os.path.join(here, "plugin")]
    if is_jxkernel(side):
        # this checkout's jxkernel first: a venv shared with another checkout (a worktree's
        # symlinked .venv) is installed editable from that one, and would run its code
        paths.insert(0, ROOT)
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env
