"""Compare the last runs of both sides with each other and with the README's recorded counts.

One table per library: per file, the README's count and this run's under JAX and under
jxkernel, and a note where they differ; then, per file, the tests that fail on one side only
(by name), which is what a regression looks like. Timeouts show as timeouts.

    >>> same({"passed": 8, "skipped": 0, "failed": 1}, {"passed": 8, "skipped": 0, "failed": 1,
    ...       "status": "finished"})
    True
"""
from conformance.libraries import readme, run
from conformance.libraries.suites import LIBRARIES


def same(recorded, outcome):
    """Does a run give the README's count? Passed and skipped must match (skipped as tests,
    or as pytest's summary counts them: with the skipped subtests), and failed where the
    README records failures; a timeout never matches."""
    if recorded is None or outcome is None or outcome["status"] != "finished":
        return False
    failed = outcome["failed"] + outcome.get("error", 0)
    skipped = (outcome["skipped"], outcome["skipped"] + outcome.get("subtests_skipped", 0))
    return (outcome["passed"] == recorded["passed"] and recorded["skipped"] in skipped
            and (not recorded["failed"] or failed == recorded["failed"]))


def _recorded_text(counts):
    if counts is None:
        return "—"
    extra = [f"{counts[k]} {k}" for k in ("skipped", "failed") if counts[k]]
    return f"{counts['passed']}" + (f" ({', '.join(extra)})" if extra else "")


def _run_text(outcome):
    if outcome is None:
        return "not run"
    extra = [f"{outcome[k]} {k}" for k in ("skipped", "failed", "error") if outcome[k]]
    extra += [f"{outcome[f'subtests_{k}']} subtests {k}" for k in ("failed", "skipped")
              if outcome.get(f"subtests_{k}")]
    if outcome["collect_errors"]:
        extra.append("collection error")
    text = f"{outcome['passed']}" + (f" ({', '.join(extra)})" if extra else "")
    if outcome["status"] == "timeout":
        return f"TIMEOUT at {outcome['seconds']:.0f} s ({text} so far)"
    if outcome["status"] != "finished":
        return f"{outcome['status']} ({text})"
    return text


def _timing(library, nodeid):
    return any(pattern in nodeid for pattern in library.timing_tests)


def one_sided(library, ran):
    """{file: [(side it fails on, nodeid, message)]}: tests failing under one side only, where
    both sides ran the file (a timed-out side counts only the tests it finished)."""
    found = {}
    for file in ran["jax"].keys() & ran["jxkernel"].keys():
        jax, jxk = ran["jax"][file], ran["jxkernel"][file]
        for side, mine, other in (("jxkernel", jxk, jax), ("jax", jax, jxk)):
            for nodeid, message in mine["failures"].items():
                if nodeid not in other["failures"] and not (other["status"] == "timeout"):
                    note = " (a timing test: the machine's load)" if _timing(library, nodeid) else ""
                    found.setdefault(file, []).append((side, nodeid + note, message))
    return found


def library_report(library):
    """The markdown lines of one library's comparison, and how many rows differ."""
    recorded = readme.recorded(library)
    ran = {side: run.load_results(side, library) for side in ("jax", "jxkernel")}
    files = list(recorded) + sorted((ran["jax"].keys() | ran["jxkernel"].keys()) - recorded.keys())
    lines = [f"### {library.heading} {readme.version(library)}", "",
             "| file | README: JAX | run: JAX | README: jxkernel | run: jxkernel | differs |",
             "|---|---:|---:|---:|---:|---|"]
    differing = 0
    for file in files:
        row = recorded.get(file, {"jax": None, "jxkernel": None})
        flags = []
        for side in ("jax", "jxkernel"):
            outcome = ran[side].get(file)
            if outcome is not None and not same(row[side], outcome):
                flags.append("timeout" if outcome["status"] == "timeout" else
                             "not in README" if row[side] is None else side)
        differing += bool(flags)
        lines.append(f"| `{file}` | {_recorded_text(row['jax'])} | {_run_text(ran['jax'].get(file))} "
                     f"| {_recorded_text(row['jxkernel'])} | {_run_text(ran['jxkernel'].get(file))} "
                     f"| {', '.join(dict.fromkeys(flags))} |")
    seconds = {side: sum(o["seconds"] for o in ran[side].values()) for side in ran}
    lines += ["", f"Time: JAX {seconds['jax'] / 60:.1f} minutes, jxkernel "
              f"{seconds['jxkernel'] / 60:.1f} minutes (the files run)."]
    for file, entries in one_sided(library, ran).items():
        lines += ["", f"Failing on one side only in `{file}`:"]
        for side, nodeid, message in entries:
            last = message.strip().splitlines()[-1] if message.strip() else ""
            lines.append(f"- under {side} only: `{nodeid}`: {last[:300]}")
    for side in ("jax", "jxkernel"):
        for file, outcome in ran[side].items():
            for error in outcome["collect_errors"]:
                last = error["message"].strip().splitlines()[-1:] or [""]
                lines.append(f"- {side}: `{file}` did not collect: {last[0][:300]}")
    return lines, differing


def report(names):
    """The comparison of the named libraries as markdown, and the count of differing rows."""
    lines, differing = [], 0
    for name in names:
        more, count = library_report(LIBRARIES[name])
        lines += more + [""]
        differing += count
    return "\n".join(lines), differing
