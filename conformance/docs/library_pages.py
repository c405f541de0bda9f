"""The libraries' own tutorials (Flax NNX, Optax, Equinox) as pages of code cells, read at run
time from the library's source at the version conformance/libraries pins (nothing of theirs
is kept here), for ``python -m conformance.docs --library NAME``.

A page is a Jupyter notebook (``.ipynb``): its code cells in order, with their metadata tags
(``raises-exception``, ``skip-execution``) as JAX's MyST pages carry them. Its name is the
library's name and the notebook's path under the library's docs folder, without ``.ipynb``:
``flax/guides/pytree``, ``optax/examples/lbfgs``, ``equinox/examples/mlp``.

    >>> [c.code for c in parse_ipynb('{"cells": [{"cell_type": "code", "source": ["x = 1\\\\n", "x"],'
    ...                              ' "metadata": {"tags": ["raises-exception"]}}]}')]
    ['x = 1\\nx']
"""
import dataclasses
import json
import posixpath

from conformance.docs.pages import Cell, Page


@dataclasses.dataclass(frozen=True)
class Library:
    name: str
    version: str
    tag: str            # the git tag (or "local" for an unpacked sdist) the pages are read at
    folders: tuple      # where its notebooks are, and whether to look below them
    recursive: bool
    strip: str          # the folder prefix left out of a page's name


# the versions of conformance/libraries/constraints.txt's header (the README's headings)
LIBRARIES = {
    # PyPI's sdist holds docs_nnx/ (Flax's NNX documentation; docs/ is Linen's)
    "flax": Library("flax", "0.12.7", "local", ("docs_nnx",), True, "docs_nnx/"),
    "optax": Library("optax", "0.2.8", "v0.2.8", ("docs", "examples"), False, ""),
    "equinox": Library("equinox", "0.13.8", "v0.13.8", ("docs/examples",), False, "docs/"),
}


def parse_ipynb(text):
    """Every code cell of a notebook, in order, with its metadata tags."""
    cells = []
    for cell in json.loads(text)["cells"]:
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        code = "".join(source) if isinstance(source, list) else source
        tags = tuple(cell.get("metadata", {}).get("tags", ()))
        cells.append(Cell(len(cells), code.strip("\n"), tags))
    return cells


def _notebooks(source, library, folder):
    """The notebooks under `folder` at the library's tag (below it too if recursive)."""
    found = []
    for path in source.list(library.tag, folder):
        if path.endswith(".ipynb"):
            found.append(path)
        elif library.recursive and "." not in posixpath.basename(path):
            found.extend(_notebooks(source, library, path))
    return found


def pages(source, library):
    """Every notebook page of `library` with code cells, sorted by name."""
    found = []
    for folder in library.folders:
        for path in _notebooks(source, library, folder):
            cells = parse_ipynb(source.read(library.tag, path))
            name = path[len(library.strip):] if path.startswith(library.strip) else path
            if cells:
                found.append(Page(f"{library.name}/{name[:-len('.ipynb')]}", path,
                                  library.tag, cells))
    return sorted(found, key=lambda p: p.name)
