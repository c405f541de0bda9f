"""Where the suite's time goes, per test folder, from the JUnit XML every run of
scripts/test.sh writes (test-artifacts/junit.xml):

    python scripts/suite_times.py                     # print the table
    python scripts/suite_times.py --doc               # also rewrite it in docs/contributing.md
    python scripts/suite_times.py --files 30          # the 30 slowest test files instead

The seconds are pytest's per-test times (setup, call and teardown) summed over both workers,
so they add up to about twice the run's wall time on 2 cores; a folder's share is what to
shrink.
"""
import argparse
import collections
import os
import re
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "contributing.md")
START, END = "<!-- suite-times -->", "<!-- /suite-times -->"


def folder_times(junit_path: str) -> dict:
    """{folder: (tests, seconds)} from a JUnit XML file.

    >>> folder_times("test-artifacts/junit.xml")["tests/lax"]     # doctest: +SKIP
    (948, 131.2)
    """
    totals = collections.defaultdict(lambda: [0, 0.0])
    for case in ET.parse(junit_path).getroot().iter("testcase"):
        # classname is the dotted module path: tests.lax.test_lax_loops(.Class); a module skipped
        # whole at collection has none, and its path as its name
        parts = (case.get("classname") or case.get("name", "")).split(".")
        folder = "/".join(parts[:2]) if len(parts) > 2 else parts[0]
        totals[folder][0] += 1
        totals[folder][1] += float(case.get("time") or 0.0)
    return {k: tuple(v) for k, v in totals.items()}


def file_times(junit_path: str) -> dict:
    """{test file: (tests, seconds)} from a JUnit XML file: what to look at inside a folder
    (a folder's seconds are its files' sums).

    >>> file_times("test-artifacts/junit.xml")["tests/lax/test_lax_loops.py"]  # doctest: +SKIP
    (27, 14.9)
    """
    totals = collections.defaultdict(lambda: [0, 0.0])
    for case in ET.parse(junit_path).getroot().iter("testcase"):
        if not case.get("classname"):          # a module skipped whole: its path is its name
            name = case.get("name", "")
        else:                                  # tests.lax.test_lax_loops(.Class)
            parts = case.get("classname").split(".")
            end = next((i for i, part in enumerate(parts) if part.startswith("test_")),
                       len(parts) - 1)
            name = "/".join(parts[:end + 1]) + ".py"
        totals[name][0] += 1
        totals[name][1] += float(case.get("time") or 0.0)
    return {k: tuple(v) for k, v in totals.items()}


def table(times: dict) -> str:
    whole = sum(s for _, s in times.values()) or 1.0
    rows = ["| folder | tests | seconds | share |", "|---|---:|---:|---:|"]
    for folder, (count, seconds) in sorted(times.items(), key=lambda kv: -kv[1][1]):
        rows.append(f"| `{folder}` | {count} | {seconds:.0f} | {100 * seconds / whole:.0f}% |")
    rows.append(f"| all | {sum(c for c, _ in times.values())} | {whole:.0f} | 100% |")
    return "\n".join(rows)


def slowest_files(times: dict, n: int) -> str:
    """The n slowest files of `times` (file_times), each with its share of the whole run."""
    whole = sum(s for _, s in times.values()) or 1.0
    rows = ["| file | tests | seconds | share |", "|---|---:|---:|---:|"]
    for name, (count, seconds) in sorted(times.items(), key=lambda kv: -kv[1][1])[:n]:
        rows.append(f"| `{name}` | {count} | {seconds:.0f} | {100 * seconds / whole:.0f}% |")
    rows.append(f"| all {len(times)} files | {sum(c for c, _ in times.values())} | {whole:.0f} "
                f"| 100% |")
    return "\n".join(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit", nargs="?", default=os.path.join(ROOT, "test-artifacts",
                                                                   "junit.xml"))
    parser.add_argument("--doc", action="store_true", help="rewrite docs/contributing.md's table")
    parser.add_argument("--files", type=int, metavar="N",
                        help="list the N slowest test files instead of the folders")
    args = parser.parse_args(argv)
    if args.files:
        print(slowest_files(file_times(args.junit), args.files))
        return
    text = table(folder_times(args.junit))
    print(text)
    if args.doc:
        with open(DOC) as f:
            doc = f.read()
        pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
        assert pattern.search(doc), f"no {START} ... {END} in {DOC}"
        with open(DOC, "w") as f:
            f.write(pattern.sub(lambda _: f"{START}\n{text}\n{END}", doc))


if __name__ == "__main__":
    main()
