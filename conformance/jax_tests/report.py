"""Both sides' counts side by side: the table of conformance/README.md's section "JAX's own
tests" (between its `<!-- jax-tests -->` markers), a second table (between
`<!-- jax-tests-numpy -->` markers) for the files run on jxkernel's NumPy backend, beside
JAX's CPU, and .jaxtests/results/compare.md listing the tests that fail under jxkernel only,
then on the NumPy backend only, with the last line of each failure.

    >>> cell({"passed": 5, "failed": 1, "error": 0, "skipped": 2, "status": "finished"})
    '5 / 1 / 0 / 2'
"""
import itertools
import os
import re
import time

from conformance.jax_tests import environment, files, run

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")
START, END = "<!-- jax-tests -->", "<!-- /jax-tests -->"
NUMPY_START, NUMPY_END = "<!-- jax-tests-numpy -->", "<!-- /jax-tests-numpy -->"
NUMPY = "jxkernel-numpy"


def cell(outcome) -> str:
    """'passed / failed / errors / skipped', the failed counting xpassed and the skipped
    xfailed as pytest does; a file cut at its timeout says so."""
    if not outcome:
        return "not run"
    text = " / ".join(str(outcome.get(k, 0)) for k in ("passed", "failed", "error", "skipped"))
    if outcome.get("note"):                # an earlier run's row, kept with what it said
        return text + outcome["note"]
    if outcome.get("collect_errors"):
        text += f" ({len(outcome['collect_errors'])} collection errors)"
    if outcome["status"] != "finished":
        text += f" ({outcome['status']} after {outcome['seconds']:.0f} s)"
    return text


def only_jxkernel(jx, jax) -> list:
    """Tests that fail (or error) under jxkernel and pass, or are skipped, under JAX."""
    return sorted(set(jx.get("failures", {})) - set(jax.get("failures", {})))


def table(results) -> str:
    jx, jax = results["jxkernel"], results["jax"]
    rows = ["| file | JAX 0.10.2: passed / failed / errors / skipped | jxkernel | fail under "
            "jxkernel only |", "|---|---|---|---:|"]
    totals = {side: dict.fromkeys(("passed", "failed", "error", "skipped"), 0) for side in results}
    for file in files.FILES:
        a, b = jax.get(file), jx.get(file)
        for side, outcome in (("jax", a), ("jxkernel", b)):
            for k in totals[side]:
                totals[side][k] += (outcome or {}).get(k, 0)
        gap = (b.get("gap", "") if b.get("earlier") else len(only_jxkernel(b, a))) \
            if a and b else ""
        rows.append(f"| `tests/{file}` | {cell(a)} | {cell(b)} | {gap} |")
    both = {side: {**t, "status": "finished"} for side, t in totals.items()}
    rows.append(f"| all | {cell(both['jax'])} | {cell(both['jxkernel'])} | |")
    for file, reason in files.SKIPPED.items():
        rows.append(f"| `tests/{file}` | not run | not run: imports {reason} | |")
    return "\n".join(rows)


def numpy_table(jax, npy) -> str:
    """The NumPy backend's rows: each file its side has run, beside JAX's CPU.

    >>> print(numpy_table({"a.py": {"passed": 2, "status": "finished"}},
    ...                   {"a.py": {"passed": 1, "failed": 1, "status": "finished",
    ...                             "failures": {"a.py::t": "x"}}}).splitlines()[-2])
    | `tests/a.py` | 2 / 0 / 0 / 0 | 1 / 1 / 0 / 0 | 1 |
    """
    rows = ["| file | JAX 0.10.2 (CPU): passed / failed / errors / skipped | jxkernel on its "
            "NumPy backend | fail on the NumPy backend only |", "|---|---|---|---:|"]
    totals = {side: dict.fromkeys(("passed", "failed", "error", "skipped"), 0)
              for side in ("jax", NUMPY)}
    for file in [f for f in files.FILES if f in npy] + sorted(set(npy) - set(files.FILES)):
        a, b = jax.get(file), npy[file]
        for side, outcome in (("jax", a), (NUMPY, b)):
            for k in totals[side]:
                totals[side][k] += (outcome or {}).get(k, 0)
        gap = (b.get("gap", "") if b.get("earlier") else len(only_jxkernel(b, a))) if a else ""
        rows.append(f"| `tests/{file}` | {cell(a)} | {cell(b)} | {gap} |")
    both = {side: {**t, "status": "finished"} for side, t in totals.items()}
    rows.append(f"| all | {cell(both['jax'])} | {cell(both[NUMPY])} | |")
    return "\n".join(rows)


def _stamp(results) -> str:
    runs = [o for side in results.values() for o in side.values()]
    commits = sorted({o["commit"] for side in results if side != "jax"
                      for o in results[side].values() if o.get("commit")})
    cases = sorted({o.get("cases") for o in runs})
    return (f"Run {time.strftime('%Y-%m-%d', time.gmtime())}, jxkernel at "
            f"{', '.join(f'`{c}`' for c in commits)}, JAX's files at `{files.TAG}`, "
            f"JAX_NUM_GENERATED_CASES={', '.join(map(str, cases))}.")


# a row's cells: four counts, then what cell() added after them (a collection error, a file
# cut at its timeout or crashed: "(crashed (exit -9) after 3702 s)"), kept as the row's note
_COUNTS = r"(\d+) / (\d+) / (\d+) / (\d+)((?: \(.*?\))?)"
_ROW = re.compile(rf"^\| `tests/(\S+)` \| {_COUNTS} \| {_COUNTS} \| (\d*) \|$", re.M)


def earlier_rows(text, start=START, end=END, side="jxkernel") -> tuple:
    """(the README block's stamp: its lines before the table, {side: {file: outcome}}) of the
    rows the table holds now: the counts of a file no clone here has run since (marked
    `earlier`).

    >>> stamp, rows = earlier_rows("Run X.\\n| `tests/a.py` | 5 / 0 / 0 / 1 | 4 / 1 / 0 / 1 | 1 |")
    >>> stamp, rows["jxkernel"]["a.py"]["failed"], rows["jxkernel"]["a.py"]["gap"]
    ('Run X.', 1, 1)
    >>> _, rows = earlier_rows("| `tests/b.py` | 3 / 0 / 0 / 1 (crashed (exit -9) after 9 s)"
    ...                        " | 3 / 0 / 0 / 1 | 0 |")
    >>> cell(rows["jax"]["b.py"]), cell(rows["jxkernel"]["b.py"])
    ('3 / 0 / 0 / 1 (crashed (exit -9) after 9 s)', '3 / 0 / 0 / 1')
    """
    block = text.split(start, 1)[-1].split(end, 1)[0]
    # every line above the table: the runs' stamps, hand-written ones too (a merge of several
    # helpers' runs says per branch which files ran where)
    prose = itertools.takewhile(lambda line: not line.startswith("|"), block.splitlines())
    stamp = "\n".join(line for line in prose if line.strip())
    rows: dict = {"jax": {}, side: {}}
    for file, *counts, gap in _ROW.findall(block):
        for which, (*four, note) in (("jax", counts[:5]), (side, counts[5:])):
            rows[which][file] = {**dict(zip(("passed", "failed", "error", "skipped"),
                                           map(int, four))),
                                "status": "finished", "earlier": True, "note": note,
                                "gap": int(gap) if gap else ""}
    return stamp, rows


_KEPT = " The other rows are as the lines below say."


def write(results) -> None:
    """The README's table between its markers, and compare.md; a file no results here
    cover keeps its row's earlier counts, and the stamp says which run those were."""
    with open(README, encoding="utf-8") as f:
        text = f.read()
    npy = results.get(NUMPY, {})
    results = {side: results[side] for side in ("jax", "jxkernel")}
    before, rows = earlier_rows(text)
    results = _with_earlier(results, rows)
    stamp = _stamp_kept(results, before)
    block = f"{START}\n{stamp}\n\n{table(results)}\n{END}"
    if START not in text:
        raise SystemExit(f"conformance/README.md has no {START} ... {END} block to rewrite")
    text = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    before, rows = (earlier_rows(text, NUMPY_START, NUMPY_END, NUMPY) if NUMPY_START in text
                    else ("", {}))
    numpy_side = _with_earlier({"jax": results["jax"], NUMPY: npy}, rows)
    if numpy_side[NUMPY]:
        # (JAX's column is the table above's; the stamp is the NumPy backend's runs')
        numpy_block = (f"{NUMPY_START}\n{_stamp_kept({NUMPY: numpy_side[NUMPY]}, before)}\n\n"
                       f"{numpy_table(numpy_side['jax'], numpy_side[NUMPY])}\n{NUMPY_END}")
        if NUMPY_START in text:
            text = re.sub(re.escape(NUMPY_START) + ".*?" + re.escape(NUMPY_END),
                          lambda _: numpy_block, text, flags=re.S)
        else:                                # its first run: right after the first table
            text = text.replace(END, f"{END}\n\n{numpy_block}", 1)
    with open(README, "w", encoding="utf-8") as f:
        f.write(text)
    lines = _only(results["jxkernel"], results["jax"])
    numpy_lines = _only(numpy_side[NUMPY], results["jax"])
    with open(os.path.join(run.RESULTS, "compare.md"), "w", encoding="utf-8") as f:
        f.write("# Failing under jxkernel only\n\n" + "\n".join(lines) + "\n")
        if numpy_lines:
            f.write("\n# Failing on jxkernel's NumPy backend only\n\n"
                    + "\n".join(numpy_lines) + "\n")
    print(table(results))
    print(f"{len(lines)} tests fail under jxkernel only: {os.path.join(run.RESULTS, 'compare.md')}")
    if numpy_side[NUMPY]:
        print(numpy_table(numpy_side["jax"], numpy_side[NUMPY]))
        print(f"{len(numpy_lines)} tests fail on the NumPy backend only")


def _with_earlier(results, rows) -> dict:
    """Each side's results over the rows the README holds: a file no results cover keeps its
    row."""
    return {side: {**rows.get(side, {}), **{f: o for f, o in outcomes.items()
                                            if _rank(o) >= _rank(rows.get(side, {}).get(f, {}))}}
            for side, outcomes in results.items()}


def _stamp_kept(results, before) -> str:
    """The block's stamp: a line for the runs of these results, above the stamp `before` of
    the rows kept from the README; `before` alone where nothing ran here since."""
    fresh = {side: {f: o for f, o in outcomes.items() if not o.get("earlier")}
             for side, outcomes in results.items()}
    if not any(fresh.values()):
        return before
    kept = any(o.get("earlier") for outcomes in results.values() for o in outcomes.values())
    return _stamp(fresh) + (f"{_KEPT}\n{before}" if kept and before else "")


def _only(jx, jax) -> list:
    """compare.md's lines: per file both sides ran, the tests failing on `jx`'s side only."""
    lines = []
    for file in files.FILES:
        if not (jx.get(file) and jax.get(file)):
            continue
        for test in only_jxkernel(jx[file], jax[file]):
            message = (jx[file]["failures"][test].strip().splitlines() or [""])[-1]
            lines.append(f"- `{test}`: {message[:300]}")
    return lines


def load_both(checkouts=()) -> dict:
    """Both sides' results: this checkout's, and per file the latest run (by `finished_at`)
    of those of other `checkouts` (clones that ran other files, or ran them later)."""
    results = {side: run.load(side) for side in environment.SIDES}
    for checkout in checkouts:
        for side in environment.SIDES:
            path = os.path.join(checkout, ".jaxtests", "results", f"{side}.json")   # (WORK's)
            if os.path.exists(path):
                _take_latest(results[side], run.load_path(path))
    return results


def _take_latest(into: dict, other: dict) -> None:
    """
    >>> done = {"status": "finished", "finished_at": "2026-11-27 16:00 UTC"}
    >>> mine = {"a.py": done}
    >>> _take_latest(mine, {"a.py": {"status": "timeout", "finished_at": "2026-11-27 17:00 UTC"},
    ...                     "b.py": {}})
    >>> sorted(mine), mine["a.py"]["status"]
    (['a.py', 'b.py'], 'finished')
    """
    for file, outcome in other.items():
        if _rank(outcome) >= _rank(into.get(file, {})):
            into[file] = outcome


def _rank(outcome) -> tuple:
    """A run that finished before one cut off (at a timeout or killed), then the later."""
    return outcome.get("status") == "finished", outcome.get("finished_at", "")


def save_both(results) -> None:
    """Keep merged results as this checkout's own (a later `report` needs no --merge)."""
    for side, outcomes in results.items():
        run.save(side, outcomes)
