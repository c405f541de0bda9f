"""The conformance harness (conformance/): JAX-style programs, run with `jax` aliased to
jxkernel, print and return what real JAX 0.10.2 recorded (conformance/expected/).

The known failures are listed in conformance/known_failures.py; this test fails when a
program not listed there fails and when a listed one passes, so the list stays true.
"""
import json
import os
import subprocess
import sys

import compiled  # tests/support: the suite's XLA options
from conformance import compare
import locations  # tests/support: the repository's folders

ROOT = locations.ROOT


def test_every_program_does_what_known_failures_says(tmp_path):
    out = tmp_path / "results.json"
    # its ~1,230 compiles are its own (no other process of the suite runs these programs), so
    # none is written to the suite's compilation cache folder: ~1 ms of CPU each (as the test
    # processes themselves, tests/conftest.py)
    env = {"JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "1", **os.environ}
    # with the XLA code the test processes compile (compiled.suite_compiler_options: the loop
    # emitters, half the CPU of a compile here: 44 -> 22 s of this run's 51), the programs
    # held to JAX's records within their ulps as the suite's own checks are; the one recorded
    # at XLA's default code (optimized=1) runs at it
    options = compiled.suite_compiler_options()
    done = subprocess.run([sys.executable, "-m", "conformance.run", "--backend", "xla",
                           "--json", str(out),
                           *(["--compiler-options", json.dumps(options)] if options else [])],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.exists(), done.stderr[-3000:]
    results = json.loads(out.read_text())
    assert len(results) >= 50
    surprises = [line[len("SURPRISE: "):] for line in done.stdout.splitlines()
                 if line.startswith("SURPRISE: ")]
    assert surprises == [], "\n".join(surprises)
    assert done.returncode == 0, done.stdout[-3000:]


# What a machine without jaxlib is, for the interpreters that have it: the import fails (a
# sitecustomize on PYTHONPATH, so the harness's worker processes get it too)
NO_JAXLIB = """
import importlib.abc, sys
class _NoJaxlib(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "jaxlib":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _NoJaxlib())
"""


def test_every_program_on_the_numpy_backend_without_jaxlib_does_what_the_tables_say(tmp_path):
    # the same programs with JAX_PLATFORMS=numpy where jaxlib cannot be imported (~10 s:
    # nothing compiles); surprises against KNOWN_FAILURES and NUMPY_BACKEND_DIFFERENCES
    # (XLA's platform name, XLA's own float32 rounding)
    (tmp_path / "sitecustomize.py").write_text(NO_JAXLIB)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]))
    blocked = subprocess.run([sys.executable, "-c", "import jaxlib"], env=env,
                             capture_output=True, text=True)
    assert "No module named 'jaxlib'" in blocked.stderr, blocked.stderr[-2000:]
    out = tmp_path / "results.json"
    done = subprocess.run([sys.executable, "-m", "conformance.run", "--backend", "numpy",
                           "--json", str(out)], cwd=ROOT, env=env, capture_output=True,
                          text=True)
    assert out.exists(), done.stderr[-3000:]
    assert len(json.loads(out.read_text())) >= 50
    surprises = [line[len("SURPRISE: "):] for line in done.stdout.splitlines()
                 if line.startswith("SURPRISE: ")]
    assert surprises == [], "\n".join(surprises)
    assert done.returncode == 0, done.stdout[-3000:]


def test_the_comparison_tells_a_digit_from_a_difference():
    assert compare.compare_text(["[0.25  0.19661197]"], ["[0.25 0.19661198]"]) is None
    assert compare.compare_text(["3 ok"], ["4 ok"]) == \
        "printed '4' where JAX printed '3' (line 1: 3 ok)"
    assert "TypeError" in compare.compare_text(["caught TypeError"], ["caught ValueError"])
    assert compare.compare_text(["[ nan -inf   0.]"], ["[nan -inf 0.]"]) is None
    # one unit in the last printed digit, though binary floats make the difference a hair more
    assert compare.compare_text(["0.02415346"], ["0.02415345"]) is None
    assert compare.compare_text(["0.02415346"], ["0.02415344"]) is not None
    assert compare.compare_text(["a"], ["a", "b"]) == "jxkernel printed more: from 'b' on line 2"
    bits = {"dtype": "uint32", "shape": [2], "values": [1, 2]}
    assert compare.compare_array("k", bits, dict(bits, values=[1, 3])) == \
        "RESULTS['k'] differs (exact uint32)"
    one = {"dtype": "float32", "shape": [1], "values": [1.0]}
    assert compare.compare_array("x", one, dict(one, values=[1.0 + 2 ** -22]), ulps=4) is None
    assert compare.compare_array("x", one, dict(one, values=[1.0 + 2 ** -19]), ulps=4) \
        is not None
    assert compare.compare_array("x", one, dict(one, dtype="float64")) == \
        "RESULTS['x'] is float64[1], JAX's is float32[1]"
