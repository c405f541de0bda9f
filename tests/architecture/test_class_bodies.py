"""What runs is visible where it is defined: a class's methods and attributes are set in its
body, not assigned to it after the body by the module that defines it, and once there.

    class Executable: ...
    Executable._out_wrap = staticmethod(_wrap)      # found: belongs inside the class
"""
import ast
import functools

import import_graph as graph


@functools.cache
def _findings() -> tuple:
    """(_set_after_body's hits, _defined_twice's) over every module: each file parsed once for
    both tests (parsing the ~700 files was most of their CPU, twice)."""
    after, twice = [], []
    with graph.collector_paused():          # (an AST holds no cycle: its docstring)
        for path in sorted(graph.ROOT.rglob("*.py")):
            tree = ast.parse(path.read_text())
            after += _set_after_body(path, tree)
            twice += _defined_twice(path, tree)
    return after, twice


def _set_after_body(path, tree) -> list:
    """`Class.name = ...` at the top level of the module defining Class (dunders, such as
    `__module__` for the name JAX's messages print, are the class's identity, not its code)."""
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    found = []
    for node in tree.body:
        for target in node.targets if isinstance(node, ast.Assign) else ():
            for t in target.elts if isinstance(target, ast.Tuple) else (target,):
                if isinstance(t, ast.Attribute) and getattr(t.value, "id", None) in classes \
                        and not t.attr.startswith("__"):
                    found.append(f"{path.relative_to(graph.ROOT)}:{node.lineno}: "
                                 f"{t.value.id}.{t.attr}")
    return found


def test_no_class_gets_attributes_after_its_body():
    found = _findings()[0]
    assert not found, "set them in the class body:\n" + "\n".join(found)


def _defined_twice(path, tree) -> list:
    """A name a class body defines twice (a def or an assignment): the later one silently
    replaces the first, which a reader of the first takes for the code that runs. A
    property's setter or deleter and typing's overloads reuse the name by design."""
    found = []
    for cls in graph.statements(tree):      # (a class is a statement: no expression walked)
        seen = set()
        for node in cls.body if isinstance(cls, ast.ClassDef) else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decorators = [ast.unparse(d) for d in node.decorator_list]
                names = [] if any(d.endswith((".setter", ".deleter")) or "overload" in d
                                  for d in decorators) else [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            else:
                names = []
            found += [f"{path.relative_to(graph.ROOT)}:{node.lineno}: {cls.name}.{name}"
                      for name in names if name in seen]
            seen.update(names)
    return found


def test_no_class_body_defines_a_name_twice():
    found = _findings()[1]
    assert not found, "keep one definition:\n" + "\n".join(found)
