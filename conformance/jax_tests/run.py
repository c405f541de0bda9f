"""Run JAX's test files on one side, one pytest process per file under its own timeout, and
keep per-file counts in .jaxtests/results/SIDE.json (the libraries' harness's record plugin
and tally: a file cut at its timeout still says what it finished). Each file's log begins with
the command that runs it again (`rerun_line`): add a test's name to run that one alone.
"""
import json
import os
import shlex
import signal
import subprocess
import time

from conformance.jax_tests import environment, files
from conformance.libraries.run import OUTCOMES, _read_rows, describe, tally

RESULTS = os.path.join(environment.WORK, "results")
SOURCE = os.path.join(environment.WORK, "src")


def _pytest_ini() -> str:
    """An empty pytest config beside the files: without it pytest would find jxkernel's
    options (pyproject.toml) above them."""
    path = os.path.join(environment.WORK, "pytest.ini")
    with open(path, "w", encoding="utf-8") as f:
        f.write("[pytest]\n")
    return path


# what a side's environment sets for its pytest (side_environment), said on a log's first line
_SAID = ("JXKERNEL_AS_JAX", "JAX_TEST_SUPPORT", "JAX_NUM_GENERATED_CASES", "JAX_PLATFORMS",
         "JAX_TEST_DUT", "JAX_DISABLE_MOST_OPTIMIZATIONS", "PYTHONPATH")


def rerun_line(side, file, cases, optimized=False) -> str:
    """The shell command that runs `file` again as the harness ran it, but for the record
    plugin, which needs its record file: a file log's first line, so that one test can be run
    alone by adding its name (`file::Class::test` or `-k`).

        >>> line = rerun_line("jxkernel", "extend_test.py", 10)
        >>> line.startswith("cd .jaxtests/src && env JXKERNEL_AS_JAX=1 ")
        True
        >>> line.endswith(" -p jax_test_support -p no:randomly -p no:cacheprovider -q "
        ...               "--rootdir . -c ../pytest.ini extend_test.py")
        True
    """
    env = environment.side_environment(side, cases, optimized)
    said = " ".join(f"{name}={shlex.quote(env[name])}" for name in _SAID if name in env)
    support = " -p jax_test_support" if environment.is_jxkernel(side) else ""
    return (f"cd {os.path.relpath(SOURCE, environment.ROOT)} && env {said} "
            f"{shlex.quote(environment.python(side))} -m pytest{support} -p no:randomly "
            f"-p no:cacheprovider -q --rootdir . -c ../pytest.ini {file}")


def run_file(side, file, timeout_s, cases, optimized, mirror):
    """One pytest process over one file; its counts, failures, status and seconds."""
    os.makedirs(SOURCE, exist_ok=True)
    files.extract(file, SOURCE, mirror)
    stem = os.path.join(RESULTS, side, file.removesuffix(".py"))
    os.makedirs(os.path.dirname(stem), exist_ok=True)
    for old in (stem + ".jsonl", stem + ".log"):
        if os.path.exists(old):
            os.remove(old)
    support = ["-p", "jax_test_support"] if environment.is_jxkernel(side) else []
    command = [environment.python(side), "-m", "pytest", "-p", "libs_record", *support,
               "-p", "no:randomly", "-p", "no:cacheprovider", "-q", "-rfE", "--rootdir", SOURCE,
               "-c", _pytest_ini(), file]
    env = {**environment.side_environment(side, cases, optimized), "LIBS_RECORD": stem + ".jsonl"}
    start = time.monotonic()
    with open(stem + ".log", "w") as log:
        log.write(f"# to run it again, from the repository's root: "
                  f"{rerun_line(side, file, cases, optimized)}\n")
        log.flush()
        process = subprocess.Popen(command, cwd=SOURCE, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code, status = process.wait(timeout=timeout_s), None
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)       # pytest and anything it started
            code, status = process.wait(), "timeout"
    status = status or ("finished" if code in (0, 1, 5) else f"crashed (exit {code})")
    return {"status": status, "seconds": round(time.monotonic() - start, 1),
            "log": os.path.relpath(stem + ".log", environment.ROOT),
            **tally(_read_rows(stem + ".jsonl"))}


def results_path(side):
    return os.path.join(RESULTS, f"{side}.json")


def load(side) -> dict:
    return load_path(results_path(side))


def load_path(path) -> dict:
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def save(side, results) -> None:
    os.makedirs(RESULTS, exist_ok=True)
    with open(results_path(side), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1, sort_keys=True)


def commit() -> str:
    """The checkout jxkernel's side ran, '+' where jxkernel/ has local changes: the one whose
    jxkernel the side's Python imports (a venv shared with another checkout runs that one's
    code, not this one's)."""
    found = subprocess.run([environment.python("jxkernel"), "-c",
                            "import os, jxkernel; print(os.path.dirname(os.path.dirname("
                            "os.path.abspath(jxkernel.__file__))))"],
                           capture_output=True, text=True,
                           env=environment.side_environment("jxkernel", 10)).stdout.strip()
    where = found or environment.ROOT

    def git(*args):
        return subprocess.run(["git", *args], cwd=where, capture_output=True,
                              text=True).stdout.strip()
    dirty = git("status", "--porcelain", "-uno", "--", "jxkernel")
    return git("rev-parse", "--short", "HEAD") + ("+" if dirty else "")


def run_side(side, chosen, timeout_s, cases, mirror, optimized=False):
    """Run `chosen` files on `side`, saving after each (a later run of other files keeps
    these); one line per file."""
    if side == "jax":
        environment.make_jax_venv()
    environment.check(side)
    files.extract_support(SOURCE, mirror)      # once per run: the files' test-support modules
    results = load(side)
    for file in chosen:
        outcome = run_file(side, file, timeout_s, cases, optimized, mirror)
        outcome.update(finished_at=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       cases=cases,
                       commit=commit() if environment.is_jxkernel(side) else None)
        results[file] = outcome
        save(side, results)
        print(f"{side:8} {file:40} {describe(outcome)}", flush=True)
    return results


__all__ = ["OUTCOMES", "run_side", "load"]
