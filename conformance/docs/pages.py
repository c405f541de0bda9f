"""JAX's documentation pages as lists of code cells, read at run time from a JAX checkout.

Nothing of JAX's is kept in this repository: a source is a bare git mirror (``--fetch``,
read with ``git show TAG:path``) or a folder laid out like JAX's repository (``--pages``).
A page is a MyST notebook (``docs/notebooks/*.md``, jupytext's pairing of the ``.ipynb``),
a tutorial with ``{code-cell}`` blocks (``docs/*.md``), a JAX 101 chapter of the last
release that had ``docs/jax-101/`` or a script in ``examples/`` (one cell).

    >>> [c.code for c in parse_myst("```{code-cell} ipython3\\n:tags: [raises-exception]\\n\\n1/0\\n```\\n")]
    ['1/0']
"""
import dataclasses
import os
import re
import subprocess

TAG = "jax-v0.10.2"
_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_OPTION = re.compile(r"^:(\w[\w-]*):\s*(.*)$")


@dataclasses.dataclass
class Cell:
    index: int          # position among the page's code cells, from 0
    code: str
    tags: tuple = ()

    @property
    def expects_error(self):
        return "raises-exception" in self.tags


@dataclasses.dataclass
class Page:
    name: str           # "notebooks/thinking_in_jax", "jax-101/02-jitting", "examples/advi"
    path: str           # path in JAX's repository
    tag: str
    cells: list


def _split_options(body):
    """A cell's ``:key: value`` lines or ``---`` YAML block, and the code after them."""
    lines, options = body.split("\n"), {}
    if lines and lines[0].strip() == "---":
        end = lines.index("---", 1) if "---" in lines[1:] else 0
        for line in lines[1:end]:
            key, _, value = line.partition(":")
            options[key.strip()] = value.strip()
        lines = lines[end + 1:]
    else:
        while lines and _OPTION.match(lines[0]):
            key, value = _OPTION.match(lines[0]).groups()
            options[key] = value
            lines = lines[1:]
    return options, "\n".join(lines).strip("\n")


def _tags(options):
    text = options.get("tags", "").strip("[] ")
    return tuple(t.strip().strip("'\"") for t in text.split(",") if t.strip())


def parse_myst(text):
    """Every ``{code-cell}`` block of a MyST page, in order, with its tags."""
    cells = []
    for match in _CELL.finditer(text):
        options, code = _split_options(match.group(1))
        cells.append(Cell(len(cells), code, _tags(options)))
    return cells


class GitSource:
    """Pages read from a (bare) git mirror of JAX's repository at a tag."""

    def __init__(self, mirror):
        self.mirror = mirror

    def _git(self, *args):
        return subprocess.run(["git", "-C", self.mirror, *args], check=True,
                              capture_output=True, text=True).stdout

    def list(self, tag, folder):
        names = self._git("ls-tree", "--name-only", f"{tag}:{folder}").split()
        return [f"{folder}/{n}" for n in names]

    def read(self, tag, path):
        return self._git("show", f"{tag}:{path}")

    def last_tag_with(self, folder):
        """The newest jax-vX.Y.Z release tag whose tree still has ``folder``."""
        tags = [t for t in self._git("tag", "--list", "jax-v*").split()
                if re.fullmatch(r"jax-v\d+\.\d+\.\d+", t)]
        for tag in sorted(tags, key=lambda t: [int(p) for p in t[5:].split(".")],
                          reverse=True):
            if self._git("ls-tree", "--name-only", tag, folder + "/").strip():
                return tag
        return None


class FolderSource:
    """Pages read from a folder laid out like JAX's repository (``docs/``, ``examples/``);
    a release's JAX 101 chapters are looked for in ``docs/jax-101/`` of the same folder."""

    def __init__(self, root):
        self.root = root

    def list(self, tag, folder):
        full = os.path.join(self.root, folder)
        return [f"{folder}/{n}" for n in sorted(os.listdir(full))] if os.path.isdir(full) else []

    def read(self, tag, path):
        with open(os.path.join(self.root, path)) as f:
            return f.read()

    def last_tag_with(self, folder):
        return "local" if os.path.isdir(os.path.join(self.root, folder)) else None


def _page_name(path):
    stem = os.path.splitext(path)[0]
    return stem[len("docs/"):] if stem.startswith("docs/") else stem


def pages(source):
    """Every page with code cells, in a fixed order: notebooks, tutorials, JAX 101, examples."""
    found = []
    for folder in ("docs/notebooks", "docs"):
        for path in sorted(source.list(TAG, folder)):
            if path.endswith(".md"):
                cells = parse_myst(source.read(TAG, path))
                if cells:
                    found.append(Page(_page_name(path), path, TAG, cells))
    tag = source.last_tag_with("docs/jax-101")
    if tag:
        for path in sorted(source.list(tag, "docs/jax-101")):
            if path.endswith(".md"):
                found.append(Page(_page_name(path), path, tag, parse_myst(source.read(tag, path))))
    for path in sorted(source.list(TAG, "examples")):
        if path.endswith(".py") and not path.endswith("__init__.py"):
            code = source.read(TAG, path)
            found.append(Page(_page_name(path), path, TAG, [Cell(0, code)]))
    return found
