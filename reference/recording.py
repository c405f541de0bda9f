"""How the make_*_reference.py scripts write what real JAX answered into tests/data.

    record_modes(jax, "image_cases", (jax, jnp, image), "image_reference.npz")
    record_json(jax, "extend_experimental_cases", "extend_experimental_reference.json")
    record_json_with_mesh(jax, "added_names_cases", "added_names_reference.json")
    record_cases(jax, records, "random_reference.json")
    record_cells("learner_flax_cases", "learner_flax_reference.json", {"jax": "0.10.2", ...})

`record_modes` runs a case list in 32- and 64-bit mode into one .npz: "<mode>/<case>#<leaf
index>" and its weak type under "...#<leaf index>#weak" (tests/support/recorded_modes.py reads it
back). `record_json` writes the dict a case module's `run(jax)` returns, with JAX's version;
`record_cases` a list of per-case records, compactly; `record_json_with_mesh` adds `run_mesh(jax)`,
run on 8 simulated CPU devices.
"""
import contextlib
import importlib
import json
import logging
import os
import subprocess
import sys

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
TESTS = os.path.join(DATA, "..")
sys.path[:0] = [DATA, TESTS]      # the case lists live beside the data they produce


@contextlib.contextmanager
def kept_jax_log(jax):
    """A list JAX's log lines (WARNING and up: explain_cache_misses, log_compiles, both turned
    on) are appended to inside the block; clear it before each case.

        with kept_jax_log(jax) as logs:
            ...
    """
    jax.config.update("jax_explain_cache_misses", True)
    jax.config.update("jax_log_compiles", True)
    logs = []

    class Kept(logging.Handler):
        def emit(self, record):
            logs.append(record.getMessage())
    handler = Kept(logging.WARNING)
    logging.getLogger("jax").addHandler(handler)
    try:
        yield logs
    finally:
        logging.getLogger("jax").removeHandler(handler)


def record_modes(jax, case_module: str, args: tuple, filename: str) -> None:
    """tests/data/`case_module`.cases(*args, x64) in each mode, every leaf with its weak type,
    to tests/data/`filename`."""
    cases = importlib.import_module(case_module).cases
    flat = {}
    for mode in ("x32", "x64"):
        jax.config.update("jax_enable_x64", mode == "x64")
        for name, value in cases(*args, mode == "x64").items():
            for i, leaf in enumerate(jax.tree_util.tree_leaves(value)):
                flat[f"{mode}/{name}#{i}"] = np.asarray(leaf)
                flat[f"{mode}/{name}#{i}#weak"] = np.asarray(bool(leaf.weak_type))
    jax.config.update("jax_enable_x64", False)
    np.savez_compressed(os.path.join(DATA, filename), **flat)
    print(f"{len(flat) // 2} arrays written to {filename}")


def record_json(jax, case_module: str, filename: str) -> None:
    """tests/data/`case_module`.run(jax), with jax's version, to tests/data/`filename`."""
    results = importlib.import_module(case_module).run(jax)
    results["jax_version"] = jax.__version__
    path = os.path.join(DATA, filename)
    with open(path, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}")


def record_cells(case_module: str, filename: str, versions: dict) -> None:
    """A learner's cells (tests/data/`case_module`.outcome(run_cell, namespace)) run under
    the installed packages pinned by `versions` ({"jax": "0.10.2", "flax": "0.12.7", ...},
    checked first), what they said to tests/data/`filename` with those versions."""
    found = {name: importlib.import_module(name).__version__ for name in versions}
    assert found == versions, (found, versions)
    namespace = {"__name__": "__main__"}

    def run_cell(source):
        exec(compile(source, "<cell>", "exec"), namespace)
    facts = importlib.import_module(case_module).outcome(run_cell, namespace)
    facts["versions"] = list(versions.values())
    with open(os.path.join(DATA, filename), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(facts, indent=1))


def record_cases(jax, records: list, filename: str) -> None:
    """{"jax_version", "cases": records} to tests/data/`filename`, as compact JSON (the jnp
    and random references hold thousands of cases)."""
    path = os.path.join(DATA, filename)
    with open(path, "w") as f:
        json.dump({"jax_version": jax.__version__, "cases": records}, f, separators=(",", ":"))
    print(f"wrote {len(records)} cases to {os.path.normpath(path)}")


def child_answer(script: str, case: str):
    """What `script --child case` prints last, as JSON, run in a process of its own on the CPU:
    a case whose answer is a fresh process's (its first compiles, its log lines)."""
    done = subprocess.run([sys.executable, script, "--child", case], check=True,
                          capture_output=True, text=True, env=dict(os.environ, JAX_PLATFORMS="cpu"))
    return json.loads(done.stdout.strip().splitlines()[-1])


def record_json_with_mesh(jax, case_module: str, filename: str, devices: int = 8) -> None:
    """As record_json, with the case module's `run_mesh(jax)` too, run in a child process on
    `devices` simulated CPU devices (this one has one): {"run", "run_mesh", "jax_version"}."""
    results = {"run": importlib.import_module(case_module).run(jax)}
    child_code = (f"import json, sys\nsys.path[:0] = sys.argv[1:]\nimport jax, {case_module}\n"
                  f"print(json.dumps({case_module}.run_mesh(jax)))\n")
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}")
    child = subprocess.run([sys.executable, "-c", child_code, DATA, TESTS], env=env,
                           capture_output=True, text=True, check=True)
    results["run_mesh"] = json.loads(child.stdout.strip().splitlines()[-1])
    results["jax_version"] = jax.__version__
    with open(os.path.join(DATA, filename), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {filename}")


def record_from_child(script: str, devices: int, filename: str) -> None:
    """Run `script` again as a child on `devices` simulated CPU devices (its `if
    len(sys.argv) == 2` branch prints one JSON line) and write that line's dict to `filename`."""
    env = {**os.environ, "XLA_FLAGS": f"--xla_force_host_platform_device_count={devices}",
           "JAX_PLATFORMS": "cpu"}
    child = subprocess.run([sys.executable, script, str(devices)], env=env,
                           capture_output=True, text=True, check=True)
    got = json.loads(child.stdout.strip().splitlines()[-1])
    path = os.path.join(DATA, filename)
    with open(path, "w") as f:
        json.dump(got, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}")


def cache_misses(jax, source: str, file: str, scope: dict) -> list:
    """The "TRACING CACHE MISS" texts JAX logs (jax_explain_cache_misses on) while `source`
    runs as the file named `file`, with the globals `scope` (jax, jnp, ...)."""
    import logging
    misses = []

    class Collect(logging.Handler):
        def emit(self, record):
            text = record.getMessage()
            if text.startswith("TRACING CACHE MISS") and file in text:
                misses.append(text)
    handler = Collect(logging.DEBUG)
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    try:
        exec(compile(source, file, "exec"), scope)
    finally:
        logger.removeHandler(handler)
    return misses


def at_lines(misses: list) -> list:
    """The "* at" lines of cache-miss texts (where each traced function was called)."""
    return [line.strip() for m in misses for line in m.splitlines()
            if line.strip().startswith("* at")]
