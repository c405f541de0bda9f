"""Every repository path the documentation names is there: README.md and docs/*.md, in
backquotes (`core/primitive.py`, `jxkernel/views/stepper.py`, `tests/support/locations.py`)
and as relative links. A file moved or split leaves its old name in the prose (the views
moved into jxkernel/views/ while docs/labextension.md still named jxkernel/stepper.py); this
test names the line.

A backquoted text is read as a path when it holds a "/" and its first part is an entry of
the repository's root or of the package (`core/...` is jxkernel/core/...): JAX's paths
(`jax/_src/stages.py`), MIME types and module paths of other packages are left alone. It may
name a folder, a file, a file's attribute (`core/compile_record.compiled`,
`xla/array.ARRAY_TYPES`) or a test (`tests/x.py::test_y`); it resolves against the root, the
package or the document's own folder. Paths git ignores (`hub/data/`, `test-artifacts/`) are
made at run time and not checked. A name the text places in a Python file is there too, as a
word of that file: a module's attribute (`core/compile_record.compiled`), `core/symbolic.py:is_symbolic`,
"`numpy_rules` in `core/primitive.py`" and "`tests/core/test_numpy_eval.py`'s
`WITHOUT_NUMPY_RULE`" (a renamed function or table left its old name in the routes of
docs/contributing.md's "Your first day", which name both). The dated logs (benchmarks/README.md,
conformance/README.md, docs/log/*.md) keep the names of their day and are not read; each file
of docs/log/ opens with a link back to the section of docs/contributing.md it was moved out of,
which links to it (the last test).
"""
import pathlib
import re

import pytest

import locations  # tests/support: the repository's folders

ROOT = pathlib.Path(locations.ROOT)
PACKAGE = ROOT / "jxkernel"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LOGS = sorted((ROOT / "docs" / "log").glob("*.md"))

_QUOTED = re.compile(r"`([^`\s]+)`")
_LINK = re.compile(r"\[[^\]]+\]\(([^)\s]+)\)")     # [text](target): "f32[]({})" is none
_FILE = re.compile(r"\.(py|md|json|ts|tsx|mjs|js|sh|toml|c|ipynb|ya?ml|cfg|txt|css|npz|pth)$")
_FIRST_PARTS = {p.name for p in ROOT.iterdir()} | {p.name for p in PACKAGE.iterdir()}


def _ignored() -> list:
    """.gitignore's plain entries (no pattern characters), as paths from the root."""
    lines = (ROOT / ".gitignore").read_text().splitlines()
    return [line.strip().rstrip("/") for line in lines
            if line.strip() and not line.startswith("#") and not set(line) & set("*?[!")]


IGNORED = _ignored()


def _as_path(text: str) -> str | None:
    """The repository path a backquoted text names, or None where it names none."""
    text = text.split("::")[0]
    text = re.sub(r":[\w.]+$", "", text).rstrip(",.;")   # core/symbolic.py:is_symbolic
    if "/" not in text or text.startswith(("http", "~", "/", "$", "-", ".")):
        return None
    if set(text) & set("*<>{}()[]=,'\"|+@"):
        return None
    return text if text.split("/")[0] in _FIRST_PARTS else None


def _exists(path: str, folder: pathlib.Path) -> bool:
    if any(path == i or path.startswith(i + "/") for i in IGNORED):
        return True
    for base in (ROOT, PACKAGE, folder):
        if (base / path).exists():
            return True
        module, _, _ = path.rpartition(".")          # a module's attribute
        if module and not _FILE.search(path) and (base / f"{module}.py").exists():
            return True
    return False


def _missing(doc: pathlib.Path) -> list:
    missing = []
    for number, line in enumerate(doc.read_text().splitlines(), 1):
        for target in _LINK.findall(_QUOTED.sub("", line)):
            target = target.split("#")[0]
            if target and not target.startswith(("http:", "https:", "mailto:")) and \
                    not (doc.parent / target).exists():
                missing.append(f"{doc.name}:{number}: link {target}")
        for text in _QUOTED.findall(line):
            path = _as_path(text)
            if path is not None and not _exists(path, doc.parent):
                missing.append(f"{doc.name}:{number}: {path}")
    return missing


_NAME = r"`([A-Za-z_]\w*)(?:\([^`]*\))?`"                 # `numpy_rules`, `unop(..., numpy=...)`
_PLACED = [re.compile(_NAME + r" in `([^`\s]+\.py)`"),     # `name` in `file.py`
           re.compile(r"`([^`\s]+\.py)`'s " + _NAME)]       # `file.py`'s `name`


def _python_file(path: str, folder: pathlib.Path) -> pathlib.Path | None:
    for base in (ROOT, PACKAGE, folder):
        if (base / path).is_file():
            return base / path
    return None


def _placed_names(line: str) -> list:
    """(name, Python file) pairs a line places: `file.py`'s `name`, `name` in `file.py`,
    `file.py:name` and a module's attribute `module.name`."""
    pairs = [(m.group(1), m.group(2)) for m in _PLACED[0].finditer(line)]
    pairs += [(m.group(2), m.group(1)) for m in _PLACED[1].finditer(line)]
    for text in _QUOTED.findall(line):
        path = _as_path(text)
        if path is None:
            continue
        after = re.search(r"\.py:(\w+)$", text.split("::")[0])
        if after:
            pairs.append((after.group(1), path))
        elif not _FILE.search(path) and "." in path.rsplit("/", 1)[-1]:
            module, _, name = path.rpartition(".")
            pairs.append((name, module + ".py"))
    return pairs


def _misplaced(doc: pathlib.Path) -> list:
    return _misplaced_in(doc.read_text(), doc)


def _misplaced_in(text: str, doc: pathlib.Path) -> list:
    """Each name placed in a file that is not there, at the first line naming it; a line is
    read with the next one, since prose wraps between "`name` in" and "`file.py`"."""
    missing, seen = [], set()
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        following = lines[number].strip() if number < len(lines) else ""
        for name, path in _placed_names(f"{line} {following}"):
            found = _python_file(path, doc.parent)
            if (name, path) in seen or found is None:
                continue
            seen.add((name, path))
            if not re.search(rf"\b{re.escape(name)}\b", found.read_text()):
                missing.append(f"{doc.name}:{number}: {name} is not in {path}")
    return missing


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_every_path_the_docs_name_is_there(doc):
    assert _missing(doc) == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_every_name_the_docs_place_in_a_file_is_there(doc):
    assert _misplaced(doc) == []


def test_the_reader_finds_paths_and_leaves_the_rest():
    assert [_as_path(t) for t in ("core/primitive.py", "jxkernel/views/stepper.py",
                                  "tests/x.py::test_y", "core/symbolic.py:is_symbolic")] == \
        ["core/primitive.py", "jxkernel/views/stepper.py", "tests/x.py", "core/symbolic.py"]
    assert [_as_path(t) for t in ("jax/_src/stages.py", "text/html", "https://a/b",
                                  "f32[4@x]", "params['w']")] == [None] * 5
    assert _exists("core/compile_record.compiled", ROOT)      # a module's attribute
    assert not _exists("jxkernel/stepper.py", ROOT)            # moved into views/
    assert not _exists("jxkernel/tree_util.py", ROOT)          # a package, not a module
    assert _placed_names("`numpy_rules` in `jxkernel/core/primitive.py` (one of `RULE_TABLES`), "
                         "`tests/core/test_numpy_eval.py`'s `UNARY_FLOAT`, `unop(..., numpy=f)` "
                         "in `lax/_rules.py`, `core/symbolic.py:is_symbolic`, "
                         "`core/compile_record.compiled`, `xla/array.py`") == [
        ("numpy_rules", "jxkernel/core/primitive.py"), ("unop", "lax/_rules.py"),
        ("UNARY_FLOAT", "tests/core/test_numpy_eval.py"), ("is_symbolic", "core/symbolic.py"),
        ("compiled", "core/compile_record.py")]
    doc = ROOT / "docs" / "contributing.md"
    assert _misplaced_in("`no_such_table` in `jxkernel/core/primitive.py`", doc) == \
        ["contributing.md:1: no_such_table is not in jxkernel/core/primitive.py"]
    assert _misplaced_in("a table, `numpy_rules` in\n`jxkernel/core/primitive.py`, and `no_such` in\n"
                         "`jxkernel/core/primitive.py`", doc) == \
        ["contributing.md:2: no_such is not in jxkernel/core/primitive.py"]     # wrapped


def _anchors(doc: pathlib.Path) -> set:
    """The anchors of a document's headings, as GitHub makes them: lower case, punctuation
    dropped, spaces as hyphens."""
    return {re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            for line in doc.read_text().splitlines() if line.startswith("#")}


def _links_back(log: pathlib.Path) -> list:
    """What is wrong with a dated log's links back: none, or one to a missing heading."""
    targets = [t for t in _LINK.findall(log.read_text()) if t.startswith("../")]
    wrong = [] if targets else [f"{log.name}: no link back"]
    for target in targets:
        path, _, anchor = target.partition("#")
        doc = log.parent / path
        if not doc.is_file() or anchor not in _anchors(doc):
            wrong.append(f"{log.name}: {target}")
        elif f"log/{log.name}" not in doc.read_text():
            wrong.append(f"{log.name}: {path} does not link to it")
    return wrong


def test_there_are_dated_logs():
    assert LOGS


@pytest.mark.parametrize("log", LOGS, ids=lambda d: d.name)
def test_each_dated_log_links_back_to_its_section(log):
    assert _links_back(log) == []


def test_a_link_back_to_a_missing_heading_is_named(tmp_path):
    folder = tmp_path / "log"
    folder.mkdir()
    (tmp_path / "guide.md").write_text("# Guide\n\n## The time budget\n\nlog/a.md\n")
    (folder / "a.md").write_text("[back](../guide.md#the-time-budget)\n")
    (folder / "b.md").write_text("[back](../guide.md#the-budget), [other](../guide.md#guide)\n")
    (folder / "c.md").write_text("no link\n")
    assert _anchors(tmp_path / "guide.md") == {"guide", "the-time-budget"}
    assert _links_back(folder / "a.md") == []
    assert _links_back(folder / "b.md") == ["b.md: ../guide.md#the-budget",
                                            "b.md: ../guide.md does not link to it"]
    assert _links_back(folder / "c.md") == ["c.md: no link back"]
