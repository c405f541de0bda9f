"""jxkernel/_jax/, the fence around JAX's module names: the package root stays short, and the
modules behind the fence only forward: no primitive is made there and no rule registered as
they load (JAX's functions for registering a user's rules, `register_lowering`, live there)."""
import ast
import subprocess

import import_graph as graph


def test_the_package_root_fits_on_a_screen():
    listed = subprocess.run(["git", "ls-files", "jxkernel"], cwd=graph.ROOT.parent,
                            capture_output=True, text=True, check=True).stdout.split()
    entries = {path.split("/")[1] for path in listed}
    assert len(entries) <= 25, sorted(entries)


def _at_load(tree):
    """The nodes of a module that run as it loads (not inside a function)."""
    for node in ast.iter_child_nodes(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield node
            yield from _at_load(node)


def _defines_rules(path) -> list:
    found = []
    for node in _at_load(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Primitive":
            found.append(f"{path}:{node.lineno}: a Primitive")
        targets = node.targets if isinstance(node, ast.Assign) else []
        for target in targets:
            if isinstance(target, ast.Subscript) and \
                    getattr(target.value, "id", "").endswith("_rules"):
                found.append(f"{path}:{node.lineno}: a rule")
    return found


def test_no_primitive_and_no_rule_behind_the_fence():
    found = [hit for path in sorted((graph.ROOT / "_jax").rglob("*.py"))
             for hit in _defines_rules(path)]
    assert found == []


def test_the_engine_never_imports_the_fence():
    # jxkernel/_jax/ sits on top: only the notebook (JAX's error names) may import it
    importers = {graph.layer(i.importer) for i in graph.imports()
                 if graph.layer(i.imported) == "_jax"} - {"_jax"}
    assert importers <= {"notebook"}
