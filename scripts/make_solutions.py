"""Write the instructors' versions of the workshop notebooks: demos/solutions/NN_name.ipynb.

    .venv/bin/python scripts/make_solutions.py          # after changing a notebook or exercise

In a learners' notebook each exercise is a code cell tagged `exercise` whose last line is
`check("ID", answer)`; here everything above that line becomes the exercise's registered
solution (jxkernel/notebook/workshop/). tests/test_workshop.py fails when these files are stale.
"""
import pathlib
import re
import sys

import nbformat

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHECK = re.compile(r"""^check\(["']([\w-]+)["']""", re.M)


def solved(notebook):
    """A copy of `notebook` (nbformat) with every exercise cell's answer filled in."""
    from jxkernel.notebook.workshop import find
    nb = nbformat.from_dict(notebook)
    for cell in nb.cells:
        if "exercise" in cell.get("metadata", {}).get("tags", []):
            found = CHECK.search(cell.source)
            if found is None:
                raise ValueError(f"an exercise cell without check(\"ID\", ...):\n{cell.source}")
            check_line = cell.source[found.start():].strip()
            cell.source = f"{find(found.group(1)).solution}\n\n{check_line}"
            cell.metadata["tags"] = [t for t in cell.metadata["tags"] if t != "exercise"] + \
                ["solution"]
    return nb


def learners_notebooks():
    return sorted(p for p in (ROOT / "demos").glob("[0-9][0-9]_*.ipynb"))


def main() -> int:
    out = ROOT / "demos" / "solutions"
    out.mkdir(exist_ok=True)
    for path in learners_notebooks():
        nb = nbformat.read(path, as_version=4)
        if not any("exercise" in c.get("metadata", {}).get("tags", []) for c in nb.cells):
            continue
        nbformat.write(solved(nb), out / path.name)
        print(f"wrote {out / path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
