"""docs/architecture.md's counts (Python files, lines, top-level modules, files per package, the
primitives) against the tree: within a few files of it, so the document cannot drift far (it
need not change with every new module)."""
import pathlib
import re

from jxkernel.core.primitive import all_primitives
from jxkernel.stepper import load_every_primitive
import locations  # tests/support: the repository's folders

ROOT = pathlib.Path(locations.ROOT)
DOC = (ROOT / "docs" / "architecture.md").read_text()
PACKAGE = ROOT / "jxkernel"


def near(said: int, actual: int, what: str) -> None:
    slack = max(3, actual // 20)               # 5%, and at least three files
    assert abs(said - actual) <= slack, \
        f"docs/architecture.md says {said} {what}; there are {actual}: update the document"


def test_file_and_line_counts():
    files = list(PACKAGE.rglob("*.py"))
    found = re.search(r"holds (\d+) Python files \(about ([\d,]+) lines\).*?and (\d+) top-level "
                      r"modules", DOC, re.S)
    assert found, "the count sentence of section 1 changed: update this test"
    near(int(found.group(1)), len(files), "Python files")
    lines = sum(len(p.read_text().splitlines()) for p in files)
    assert abs(int(found.group(2).replace(",", "")) - lines) <= lines // 20, (found.group(2), lines)
    near(int(found.group(3)), sum(p.parent == PACKAGE for p in files), "top-level modules")
    rows = re.findall(r"^\| `(\w+)/` \| (\d+) \|", DOC, re.M)
    assert len(rows) == 10
    for package, said in rows:
        near(int(said), len(list((PACKAGE / package).rglob("*.py"))), f"files in {package}/")


def test_primitive_count():
    load_every_primitive()
    said = int(re.search(r"every primitive in `all_primitives` \((\d+)", DOC).group(1))
    near(said, len(all_primitives), "primitives")
