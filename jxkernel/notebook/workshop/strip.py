"""A git filter that keeps a room's `git pull` free of conflicts: notebooks as committed.

Running a workshop notebook writes its outputs, execution counts and widget state into the
file; a later `git pull` of an updated notebook then stops on "local changes would be
overwritten". Git runs this as the notebooks' *clean* filter (.gitattributes names it for
demos/), so it compares and commits them without what running added: the outputs stay on
screen, and git sees the file unchanged.

    git config filter.jxkernel-strip.clean "python jxkernel/notebook/workshop/strip.py"
    git config filter.jxkernel-strip.smudge cat

(scripts/main.sh does this in a clone; git runs it from the clone's root.) It imports only the
standard library, since git runs it for every notebook it looks at. `strip(text)` does it to one
notebook's JSON:

    >>> nb = '{"cells": [{"cell_type": "code", "execution_count": 3, "id": "a", "metadata": {},'\\
    ...      ' "outputs": [{"output_type": "stream", "name": "stdout", "text": "1"}], "source": "1"}],'\\
    ...      ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    >>> '"outputs": []' in strip(nb) and '"execution_count": null' in strip(nb)
    True
"""
from __future__ import annotations

import json
import sys

# what the committed notebooks hold; anything else was added by running or opening them
CELL_METADATA = ("tags",)
NOTEBOOK_METADATA = ("kernelspec",)


def strip(text: str) -> str:
    """`text` (a notebook's JSON) without outputs, execution counts, widget state and the
    metadata a front end adds, written as nbformat writes it (as the committed files are)."""
    nb = json.loads(text)
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
        cell["metadata"] = {k: v for k, v in cell.get("metadata", {}).items()
                            if k in CELL_METADATA}
    meta = nb.get("metadata", {})
    kept = {k: v for k, v in meta.items() if k in NOTEBOOK_METADATA}
    if "language_info" in meta:           # the kernel fills in versions: keep the language
        kept["language_info"] = {"name": meta["language_info"].get("name", "python")}
    nb["metadata"] = kept
    # as nbformat writes (the committed files): sources as lists of lines, indent 1, sorted keys
    for cell in nb.get("cells", []):
        if isinstance(cell.get("source"), str):
            cell["source"] = cell["source"].splitlines(True)
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    sys.stdout.write(strip(sys.stdin.read()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
