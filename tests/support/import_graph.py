"""Which jxkernel module imports which, read from the source (no import runs).

    python tests/support/import_graph.py        # the per-package table, the cycles, the deferred imports
    python tests/support/import_graph.py --deferred   # each import inside a function, path:line
    python tests/support/import_graph.py --doc  # writes docs/architecture.md's table of layers

`imports()` lists every import of a jxkernel module (top-level or inside a function);
tests/architecture/test_layers.py checks the layering rules of docs/architecture.md on it.
"""
from __future__ import annotations

import ast
import collections
import contextlib
import functools
import gc
import pathlib
from typing import NamedTuple
import locations  # tests/support: the repository's folders

ROOT = pathlib.Path(locations.ROOT) / "jxkernel"


_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)


class Import(NamedTuple):
    path: str            # the importing file, relative to the repository ("jxkernel/lax/cond.py")
    line: int
    importer: str        # dotted module names
    imported: str
    deferred: bool       # written inside a function: runs on first call, not at load


@contextlib.contextmanager
def collector_paused():
    """No automatic garbage collection inside: for a loop that parses every file of the package.

    An AST holds no reference cycle (a node refers to its children only), so each tree goes
    with its last reference, collector or not. But its ~1,500 nodes a file outlive the young
    collections made while they are built, and so count toward the next full collection,
    which walks the whole heap: in a test process that has run other files, parsing the ~700
    files made 7-15 full collections, half the check's CPU (test_class_bodies after one
    numpy file: 2.6 of 6.0 s), and more the more the process holds.

    >>> with collector_paused():
    ...     trees = [ast.parse("x = 1") for _ in range(3)]
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def statements(node):
    """Every statement under `node`, nested ones too, and no expression: statements sit only
    in the statement lists of statements, except handlers and match cases, so a walk of those
    alone finds each (a class or an import) and skips the expressions, most of a tree's nodes.

    >>> [type(n).__name__ for n in statements(ast.parse("try:\\n    class A: x = f(1)\\n"
    ...                                                  "except E:\\n    import b"))]
    ['Try', 'ClassDef', 'Assign', 'Import']
    """
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            yield child
        if isinstance(child, _HOLDS_STATEMENTS):
            yield from statements(child)


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.lru_cache(maxsize=None)
def _is_module(dotted: str) -> bool:
    base = ROOT.parent.joinpath(*dotted.split("."))
    return base.is_dir() or base.with_suffix(".py").exists()


def _targets(node, importer: str, is_package: bool) -> list[str]:
    """The modules an import statement names (`from pkg import mod` names pkg.mod)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = importer.split(".")
    if node.level:
        base = base[: len(base) - node.level + is_package]
    module = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module
    return [f"{module}.{a.name}" if _is_module(f"{module}.{a.name}") else module
            for a in node.names]


def imports(root: pathlib.Path = ROOT) -> tuple[Import, ...]:
    """Every import of a jxkernel module in the package, in file order.

    >>> any(i.imported == "jxkernel.core.ir" for i in imports())
    True
    """
    return _scan(root)[0]


def third_party_imports(root: pathlib.Path = ROOT) -> dict:
    """{path: the top-level names of the modules it imports by absolute name} for each file.

    >>> "numpy" in third_party_imports()[ROOT / "core" / "ir.py"]
    True
    """
    return _scan(root)[1]


@functools.lru_cache(maxsize=None)       # parses ~700 files: once per process
def _scan(root: pathlib.Path) -> tuple:
    with collector_paused():
        return _scan_files(root)


def _scan_files(root: pathlib.Path) -> tuple:
    found, absolute = [], {}
    for path in sorted(root.rglob("*.py")):
        importer = module_name(path)
        tree = ast.parse(path.read_text(), str(path))
        absolute[path] = names = set()
        for node in statements(tree):                       # (imports are statements)
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])

        def visit(node, deferred):
            for child in ast.iter_child_nodes(node):
                inner = deferred or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _targets(child, importer, path.name == "__init__.py"):
                        if target.split(".")[0] == "jxkernel":
                            found.append(Import(str(path.relative_to(root.parent)),
                                                child.lineno, importer, target, inner))
                if isinstance(child, _HOLDS_STATEMENTS):       # imports are statements
                    visit(child, inner)
        visit(tree, False)
    return tuple(found), absolute


def deferred(found) -> list:
    """The imports written inside functions, one per statement (`from . import a, b` is one
    import, though it names two modules), as sorted (path, line) pairs.

    >>> deferred([Import("a.py", 3, "x.a", "jxkernel.b", True),
    ...           Import("a.py", 3, "x.a", "jxkernel.c", True),
    ...           Import("a.py", 1, "x.a", "jxkernel.d", False)])
    [('a.py', 3)]
    """
    return sorted({(i.path, i.line) for i in found if i.deferred})


ROOT_LAYER = "(root)"


def layer(module: str) -> str:
    """The package a module belongs to ("lax", "numpy", ...); the package root and its modules
    (`jxkernel`, `jxkernel.debug`, ...) are one layer, the root: the public entry points.

    >>> layer("jxkernel.lax.cond"), layer("jxkernel.tree_util"), layer("jxkernel.debug")
    ('lax', 'tree_util', '(root)')
    """
    parts = module.split(".")
    if len(parts) == 1 or not ROOT.joinpath(parts[1]).is_dir():
        return ROOT_LAYER
    return parts[1]


def layer_edges(found: list[Import]) -> dict:
    """(importer layer, imported layer) -> the files importing across it."""
    edges = collections.defaultdict(set)
    for i in found:
        a, b = layer(i.importer), layer(i.imported)
        if a != b:
            edges[a, b].add(i.path)
    return edges


def cycles(found: list[Import]) -> set[tuple[str, str]]:
    """The pairs of layers that import each other (at load or inside functions)."""
    edges = layer_edges(found)
    return {tuple(sorted(pair)) for pair in edges if pair[::-1] in edges}


def _table(found: list[Import]) -> str:
    rows = collections.defaultdict(lambda: (collections.Counter(), collections.Counter()))
    for i in found:
        a, b = layer(i.importer), layer(i.imported)
        if a != b:
            rows[a][i.deferred][b] += 1
    text = lambda c: ", ".join(f"{k} ({n})" for k, n in c.most_common())
    return "\n".join(f"{a:22} at load: {text(load)}" + (f"\n{'':22} deferred: {text(late)}"
                                                        if late else "")
                     for a, (load, late) in sorted(rows.items()))


# ------------------------------------------------------------------ docs/architecture.md
DOC = ROOT.parent / "docs" / "architecture.md"
BEGIN = "<!-- layers: written by `python tests/support/import_graph.py --doc` -->"
END = "<!-- /layers -->"


def order(found) -> list:
    """The layers, lowest first (each after what it imports; ties by name)."""
    import graphlib
    deps = collections.defaultdict(set)
    for a, b in layer_edges(found):
        deps[a].add(b)
    sorter = graphlib.TopologicalSorter(deps)
    sorter.prepare()
    done = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready())
        done += ready
        sorter.done(*ready)
    return done


def layer_sizes() -> dict:
    """layer -> (Python files, lines)."""
    sizes = collections.defaultdict(lambda: [0, 0])
    for path in ROOT.rglob("*.py"):
        size = sizes[layer(module_name(path))]
        size[0] += 1
        size[1] += len(path.read_text().splitlines())
    return sizes


def doc_block(found) -> str:
    """docs/architecture.md's table of layers: files, lines and what each imports."""
    sizes, edges = layer_sizes(), layer_edges(found)
    files, lines = sum(f for f, _ in sizes.values()), sum(n for _, n in sizes.values())
    rows = [f"`jxkernel/` holds {files} Python files (about {round(lines, -2):,} lines): "
            f"{len(sizes) - 1} packages and the package root, whose {sizes[ROOT_LAYER][0]} "
            f"modules (`__init__.py` included) count as one layer, `(root)`. Lowest layer "
            f"first:", "",
            "| layer | files | lines | imports (at load or inside a function) |",
            "|---|---:|---:|---|"]
    for name in order(found):
        below = sorted(b for a, b in edges if a == name)
        shown = f"`{name}/`" if name != ROOT_LAYER else "`(root)`"
        rows.append(f"| {shown} | {sizes[name][0]} | {sizes[name][1]:,} | "
                    f"{', '.join(below) or '(nothing of jxkernel)'} |")
    pairs = sorted(cycles(found))
    rows += ["", "Layers importing each other: " +
             (", ".join(f"{a} and {b}" for a, b in pairs) if pairs else "none") + "."]
    return "\n".join([BEGIN, *rows, END])


def write_doc() -> bool:
    """Put the current doc_block in docs/architecture.md; whether it changed."""
    text = DOC.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    new = text[:start] + doc_block(imports()) + text[end:]
    DOC.write_text(new)
    return new != text


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["--doc"]:
        print("docs/architecture.md", "updated" if write_doc() else "unchanged")
        raise SystemExit
    found = imports()
    late = deferred(found)
    if sys.argv[1:] == ["--deferred"]:
        print("\n".join(f"{path}:{line}" for path, line in late))
        raise SystemExit
    print(_table(found))
    at_load = {(i.path, i.line) for i in found if not i.deferred}
    print(f"\n{len(at_load)} import statements at load, {len(late)} inside functions "
          f"(modules named: {sum(not i.deferred for i in found)} and "
          f"{sum(i.deferred for i in found)})")
    print("layers importing each other:", sorted(cycles(found)) or "none")
