"""Where the suite's time goes, per test folder, from the JUnit XML every run of
scripts/test.sh writes (test-artifacts/junit.xml):

    python scripts/suite_times.py                     # print the table
    python scripts/suite_times.py --doc               # also rewrite it in docs/contributing.md

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


def table(times: dict) -> str:
    whole = sum(s for _, s in times.values()) or 1.0
    rows = ["| folder | tests | seconds | share |", "|---|---:|---:|---:|"]
    for folder, (count, seconds) in sorted(times.items(), key=lambda kv: -kv[1][1]):
        rows.append(f"| `{folder}` | {count} | {seconds:.0f} | {100 * seconds / whole:.0f}% |")
    rows.append(f"| all | {sum(c for c, _ in times.values())} | {whole:.0f} | 100% |")
    return "\n".join(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit", nargs="?", default=os.path.join(ROOT, "test-artifacts",
                                                                   "junit.xml"))
    parser.add_argument("--doc", action="store_true", help="rewrite docs/contributing.md's table")
    args = parser.parse_args(argv)
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
