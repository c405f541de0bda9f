"""The instructors' versions of the workshop notebooks: demos/solutions/NN_name.ipynb.

    .venv/bin/python -m jxkernel.notebook.workshop.solutions      # in the repository, after
                                                                  # changing a notebook or exercise
In a learners' notebook each exercise is a code cell tagged `exercise` whose last line is
`check("ID", answer)`; here everything above that line becomes the exercise's registered
solution. tests/notebook/test_workshop.py fails when the written files are stale.
"""
from __future__ import annotations

import pathlib
import re
import sys

from . import find

CHECK = re.compile(r"""^check\(["']([\w-]+)["']""", re.M)


def solved(notebook):
    """A copy of `notebook` (nbformat) with every exercise cell's answer filled in."""
    import nbformat   # here, not at the top: only writing the instructors' copies needs it

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


def learners_notebooks(demos: pathlib.Path) -> list:
    """The numbered notebooks in `demos`, in order."""
    return sorted(pathlib.Path(demos).glob("[0-9][0-9]_*.ipynb"))


def main(demos: str = "demos") -> int:
    import nbformat   # as in solved()

    out = pathlib.Path(demos) / "solutions"
    out.mkdir(exist_ok=True)
    for path in learners_notebooks(demos):
        nb = nbformat.read(path, as_version=4)
        if not any("exercise" in c.get("metadata", {}).get("tags", []) for c in nb.cells):
            continue
        nbformat.write(solved(nb), out / path.name)
        print(f"wrote {out / path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
