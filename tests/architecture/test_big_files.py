"""Every file of jxkernel/ over 500 lines has a row in docs/architecture.md's table of big
files, which says its one job: a file that grows past 500 lines fails here until it is
reviewed (split by job, or its one job written down), as issue 48 reviewed the others."""
import pathlib
import re

import locations  # tests/support: the repository's folders

ROOT = pathlib.Path(locations.ROOT)
PACKAGE = ROOT / "jxkernel"
DOC = (ROOT / "docs" / "architecture.md").read_text()
MOST_LINES = 500
MARK = "<!-- big files: one row per jxkernel/ file over 500 lines -->"


def big_files() -> dict:
    """{path under jxkernel/: lines} of the .py files over MOST_LINES lines."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        lines = len(path.read_text().splitlines())
        if lines > MOST_LINES:
            found[path.relative_to(PACKAGE).as_posix()] = lines
    return found


def table_rows() -> dict:
    """{file: job} of the table under MARK (up to the first line that is not a row)."""
    rows = {}
    for line in DOC[DOC.index(MARK) + len(MARK):].strip().splitlines()[2:]:
        found = re.fullmatch(r"\| `([^`]+)` \| (.+) \|", line.strip())
        if found is None:
            break
        rows[found.group(1)] = found.group(2).strip()
    return rows


def test_every_big_file_has_its_job_written_down():
    rows = table_rows()
    missing = sorted(f"{path} ({lines} lines)" for path, lines in big_files().items()
                     if path not in rows)
    assert not missing, ("files of jxkernel/ over 500 lines that docs/architecture.md's table of "
                         "big files does not list: split each by job, or add its row with its "
                         "one job: " + ", ".join(missing))


def test_each_row_names_a_file_that_is_there_and_a_job():
    rows = table_rows()
    assert len(rows) >= 30                     # the table was read, not cut at its top
    for path, job in rows.items():
        assert (PACKAGE / path).is_file(), f"docs/architecture.md's big files: {path} is gone"
        assert len(job.split()) >= 3, f"{path}: say its job in a few words"
