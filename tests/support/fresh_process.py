"""Python code run in a fresh interpreter, for what a test process cannot do itself: another
CPU device count (fixed at first use), the on-disk cache across processes, start-up output.

The child runs in the repository root with the package, tests/support/ and tests/data/
importable, as pytest's `pythonpath` setting makes them in the test process.
"""
import json
import os
import subprocess
import sys
import textwrap

import forked_python
import locations
from locations import DATA, ROOT, SUPPORT


# What a machine without jaxlib (and without SciPy, which Pyodide loads only on request) is,
# for an interpreter that has them: their imports fail. Put before the code run_json runs.
NO_JAXLIB = """
import importlib.abc, sys
class _NoJaxlib(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("jaxlib", "scipy"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _NoJaxlib())
"""

def child_env(env=None) -> dict:
    """This process's environment with `env` added, and this checkout, tests/support and
    tests/data first on PYTHONPATH: what a child Python started in ROOT runs under."""
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = os.pathsep.join([ROOT, SUPPORT, DATA, full_env.get("PYTHONPATH", "")])
    return full_env


def run_python(args, env=None, timeout=180):
    """Run `python ARGS` in the repository root; returns the CompletedProcess. `-c` and `-m`
    are forked from a Python with NumPy and ml_dtypes imported (forked_python: a third of
    a child's start) where the environment allows, else (and under JXKERNEL_TEST_FORK=0)
    started anew."""
    full_env = child_env(env)
    forked = None if os.environ.get("JXKERNEL_TEST_FORK") == "0" else \
        forked_python.run(args, ROOT, full_env, timeout)
    if forked is not None:
        return forked
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def assert_pytest_passes(args, env=None, timeout=300):
    """Run `python -m pytest -q ARGS` (the repository's addopts off, no cache) in a fresh
    interpreter with `env` added: it must pass, with nothing skipped or failed."""
    result = run_python(["-m", "pytest", "-q", "-o", "addopts=", "-p", "no:cacheprovider",
                         *args], env, timeout)
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "passed" in summary and "skipped" not in summary and "failed" not in summary, summary


def run_code(code, env=None, timeout=180):
    """Run `code` (dedented) with `python -c`; it must exit 0 (else its output is the error)."""
    result = run_python(["-c", textwrap.dedent(code)], env, timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def run_json(code, env=None, timeout=180):
    """The JSON object `code`, run in a fresh interpreter, prints on its last line."""
    return json.loads(run_code(code, env, timeout).stdout.strip().splitlines()[-1])


def cases_code(cases: str) -> str:
    """The code that prints, as JSON, what the tests/data module `cases` answers with jxkernel
    (its `run(jax)`): what a test file's child runs to compare with JAX's recorded answers of
    the same cases (run_against_reference, run_json).

    >>> print(cases_code("mesh_gaps_cases"))
    import json
    import jxkernel as jax
    import mesh_gaps_cases
    print(json.dumps(mesh_gaps_cases.run(jax)))
    """
    return (f"import json\nimport jxkernel as jax\nimport {cases}\n"
            f"print(json.dumps({cases}.run(jax)))")


def as_the_suite_compiles(code):
    """`code` with the XLA options the test processes compile with first
    (compiled.suite_compiler_options: XLA CPU's loop emitters), for a child that runs a case
    list to compare with JAX's records, as the test processes' own comparisons do; a kernel,
    server or script whose subject is what a user's compiles give keeps XLA's default code.
    test_sharding_explicit's child: 21 -> 13.5 s of CPU.

    >>> as_the_suite_compiles("print(1)").endswith("print(1)")
    True
    """
    import compiled  # tests/support: the suite's XLA options
    options = compiled.suite_compiler_options()
    if not options:
        return code
    return ("from jxkernel.xla import compiler as _suite_compiler\n"
            f"_suite_compiler.set_base_compiler_options({options!r})\n"
            + textwrap.dedent(code))


def run_against_reference(code, reference, devices=8):
    """(the JSON object `code` prints, run in a fresh interpreter with `devices` CPU devices
    and the suite's XLA options (as_the_suite_compiles); the JSON object JAX's run of the same
    cases recorded in tests/data/`reference`): what a sharding test file's `runs` fixture
    hands its tests."""
    mine = run_json(as_the_suite_compiles(code), {"JXKERNEL_CPU_DEVICES": str(devices)})
    return mine, locations.jax_answers(reference)
