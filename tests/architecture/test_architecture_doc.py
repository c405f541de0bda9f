"""docs/architecture.md against the tree: its table of layers is written from the source by
`python tests/support/import_graph.py --doc`; which layers there are and what each imports
must match exactly, the files and lines within a few of the tree (so the document need not
change with every new module), and so must the count of primitives."""
import pathlib
import re

import import_graph as graph
from fresh_process import run_code
import locations  # tests/support: the repository's folders

ROOT = pathlib.Path(locations.ROOT)
DOC = (ROOT / "docs" / "architecture.md").read_text()

STALE = "docs/architecture.md is stale: run `python tests/support/import_graph.py --doc`"


def near(said: int, actual: int, what: str) -> None:
    slack = max(3, actual // 20)               # 5%, and at least three
    assert abs(said - actual) <= slack, f"{what}: the document says {said}, there are {actual}. " \
        + STALE


def _block(text: str) -> str:
    return text[text.index(graph.BEGIN):text.index(graph.END)]


def _rows(block: str) -> dict:
    """layer -> (files, lines, imports) of a table of layers."""
    found = re.findall(r"^\| `([^`]+?)/?` \| (\d+) \| ([\d,]+) \| (.*) \|$", block, re.M)
    return {name: (int(files), int(lines.replace(",", "")), imports)
            for name, files, lines, imports in found}


def test_the_table_of_layers_is_the_trees():
    said, now = _block(DOC), graph.doc_block(graph.imports())
    doc_rows, rows = _rows(said), _rows(now)
    assert list(doc_rows) == list(rows), STALE                 # the layers, in their order
    for name, (files, lines, imports) in rows.items():
        assert doc_rows[name][2] == imports, f"{name}: " + STALE
        near(doc_rows[name][0], files, f"files in {name}")
        near(doc_rows[name][1] // 100, lines // 100, f"hundreds of lines in {name}")
    assert said.endswith("Layers importing each other: none.\n")


def test_primitive_count():
    # counted in a fresh process: in this one, other tests' own Primitives join the registry
    out = run_code("""
        from jxkernel.core.primitive import all_primitives
        from jxkernel.stepper import load_every_primitive
        load_every_primitive()
        print(len(all_primitives))
    """)
    said = int(re.search(r"every primitive in `all_primitives` \((\d+)", DOC).group(1))
    near(said, int(out.stdout.split()[-1]), "primitives")
