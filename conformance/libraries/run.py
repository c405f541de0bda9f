"""Run a library's test files on one side, one pytest process per file (or per `-k` part), each
under its own timeout, and keep per-file counts in .libs/results/SIDE/LIB.json.

A part that runs past its timeout is killed and reported as a timeout, with the counts of the
tests it finished (the record plugin writes each as it ends), never as failures.

    >>> tally([{"nodeid": "a", "when": "call", "outcome": "passed"},
    ...        {"nodeid": "b", "when": "setup", "outcome": "skipped"}])["passed"]
    1
"""
import glob
import json
import os
import signal
import subprocess
import time

from conformance.libraries import environment, readme

RESULTS = os.path.join(environment.WORK, "results")
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


def test_files(library, every_file=False):
    """The files the README's tables name (relative to the library's tests folder), or with
    `every_file` every test file of the source tree."""
    if not every_file:
        return list(readme.recorded(library))
    root = os.path.join(environment.source_dir(library), library.tests_under)
    return sorted(os.path.relpath(path, root) for path in
                  glob.glob(os.path.join(root, library.test_pattern), recursive=True))


def _verdict(phases):
    """One test's outcome from its recorded phases."""
    failed = [row for row in phases if row["outcome"] == "failed"]
    if failed:
        return "failed" if any(row["when"] == "call" for row in failed) else "error"
    call = [row for row in phases if row["when"] == "call"]
    xfail = any(row.get("xfail") for row in phases)
    if call and call[0]["outcome"] == "passed":
        return "xpassed" if xfail else "passed"
    return "xfailed" if xfail else "skipped"


def tally(rows):
    """Counts and failing tests from a part's record rows (libs_record's lines)."""
    tests, subtests, collect_errors = {}, [], []
    for row in rows:
        if "collect_error" in row:
            collect_errors.append({"nodeid": row["collect_error"], "message": row["message"]})
        elif row.get("subtest"):
            subtests.append(row["outcome"])
        else:
            tests.setdefault(row["nodeid"], []).append(row)
    verdicts = {nodeid: _verdict(phases) for nodeid, phases in tests.items()}
    counts = {outcome: sum(v == outcome for v in verdicts.values()) for outcome in OUTCOMES}
    failures = {nodeid: next((r.get("message", "") for r in tests[nodeid] if r["outcome"] == "failed"), "")
                for nodeid, verdict in verdicts.items() if verdict in ("failed", "error")}
    return {**counts, "subtests_failed": subtests.count("failed"),
            "subtests_skipped": subtests.count("skipped"), "failures": failures,
            "collect_errors": collect_errors}


def _read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def pytest_config(source):
    """The library's own pytest options (Equinox's and Flax's pyproject.toml), else an empty
    file: without one, pytest would look above the source tree and find jxkernel's options."""
    pyproject = os.path.join(source, "pyproject.toml")
    with open(pyproject, encoding="utf-8") as f:
        if "[tool.pytest.ini_options]" in f.read():
            return pyproject
    empty = os.path.join(environment.WORK, "pytest-empty.ini")
    with open(empty, "w", encoding="utf-8") as f:
        f.write("[pytest]\n")
    return empty


def run_part(library, side, file, part, index, timeout_s, optimized):
    """Run one pytest process; {"status": finished | timeout | crashed, counts, seconds}."""
    stem = os.path.join(RESULTS, side, library.name, file.replace("/", "__") + f".part{index}")
    os.makedirs(os.path.dirname(stem), exist_ok=True)
    for old in (stem + ".jsonl", stem + ".log"):
        if os.path.exists(old):
            os.remove(old)
    source = environment.source_dir(library)
    command = [environment.venv_python(side), "-m", "pytest", "-p", "libs_record", "-p",
               "no:randomly", "-p", "no:cacheprovider", "-q", "-rfE", "--rootdir", source,
               "-c", pytest_config(source), os.path.join(library.tests_under, file)]
    command += ["-k", part] if part else []
    env = {**environment.side_environment(side, optimized), "LIBS_RECORD": stem + ".jsonl"}
    start = time.monotonic()
    with open(stem + ".log", "w") as log:
        process = subprocess.Popen(command, cwd=source, env=env,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code, status = process.wait(timeout=timeout_s), None
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)     # pytest and anything it started
            code, status = process.wait(), "timeout"
    seconds = round(time.monotonic() - start, 1)
    # pytest's codes: 0 all passed, 1 some failed, 5 nothing collected; others: it broke
    status = status or ("finished" if code in (0, 1, 5) else f"crashed (exit {code})")
    return {"part": part, "status": status, "seconds": seconds, "log": os.path.relpath(stem + ".log", environment.ROOT),
            **tally(_read_rows(stem + ".jsonl"))}


def merge_parts(parts):
    """A file's result from its parts: counts summed, the worst status."""
    merged = {key: sum(p.get(key, 0) for p in parts)
              for key in (*OUTCOMES, "subtests_failed", "subtests_skipped", "seconds")}
    merged["seconds"] = round(merged["seconds"], 1)
    statuses = [p["status"] for p in parts if p["status"] != "finished"]
    merged["status"] = statuses[0] if statuses else "finished"
    merged["failures"] = {k: v for p in parts for k, v in p["failures"].items()}
    merged["collect_errors"] = [e for p in parts for e in p["collect_errors"]]
    merged["parts"] = parts
    return merged


def results_path(side, library):
    return os.path.join(RESULTS, side, f"{library.name}.json")


def load_results(side, library):
    path = results_path(side, library)
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _commit():
    """The checkout jxkernel's side ran (editable install), '+' where jxkernel/ has local changes."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=environment.ROOT, capture_output=True,
                              text=True).stdout.strip()
    return git("rev-parse", "--short", "HEAD") + ("+" if git("status", "--porcelain", "-uno", "--", "jxkernel") else "")


def run_library(library, side, files, timeout_s, optimized=False):
    """Run `files` of `library` on `side`, saving after each file (a later run of other
    files keeps these); prints one line per file."""
    environment.make_venv(side)
    results = load_results(side, library)
    for file in files:
        parts = library.parts.get(file, [None])
        outcome = merge_parts([run_part(library, side, file, part, i, timeout_s, optimized)
                               for i, part in enumerate(parts)])
        outcome["finished_at"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        outcome["commit"] = _commit() if side == "jxkernel" else None
        results[file] = outcome
        with open(results_path(side, library), "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        print(f"{side:8} {library.name:8} {file:45} {describe(outcome)}", flush=True)
    return results


def describe(outcome):
    """'569 passed, 60 skipped' or 'timeout after 1200 s: 42 passed so far'."""
    words = [f"{outcome[k]} {k}" for k in OUTCOMES if outcome[k] or k == "passed"]
    words += [f"{outcome[f'subtests_{k}']} subtests {k}" for k in ("failed", "skipped")
              if outcome.get(f"subtests_{k}")]
    if outcome["collect_errors"]:
        words.append(f"{len(outcome['collect_errors'])} collection errors")
    text = ", ".join(words)
    if outcome["status"] == "timeout":
        return f"TIMEOUT after {outcome['seconds']:.0f} s: {text} so far"
    if outcome["status"] != "finished":
        return f"{outcome['status'].upper()}: {text} ({outcome['seconds']:.0f} s)"
    return f"{text} ({outcome['seconds']:.0f} s)"
