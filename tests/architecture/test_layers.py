"""The layering of docs/architecture.md, checked on the source (tests/support/import_graph.py): which
package may import which (the package root counted as one package), which imports may wait
inside a function, and where jaxlib and the notebook libraries may be imported."""
import collections
import graphlib
import os
import textwrap

import import_graph as graph
import pytest
from fresh_process import run_python


def _imported_layers(importer: str) -> set:
    return {graph.layer(i.imported) for i in graph.imports()
            if graph.layer(i.importer) == importer} - {importer}


def test_no_two_layers_import_each_other():
    # The package root (its __init__ and its modules: the public entry points) counts as one
    # layer, so a root module a package imports would make a pair with it.
    assert graph.cycles(graph.imports()) == set()


def test_the_layers_have_an_order():
    deps = collections.defaultdict(set)
    for importer, imported in graph.layer_edges(graph.imports()):
        deps[importer].add(imported)
    order = list(graphlib.TopologicalSorter(deps).static_order())   # raises CycleError
    at = order.index
    assert at("core") < at("xla") < at("transforms") < at("lax") < at("numpy") < \
        at(graph.ROOT_LAYER) < at("notebook")
    assert at("transforms") < at("views") < at(graph.ROOT_LAYER)    # the views: above the core


# Imports inside functions whose module imports the importer back at load: none. An import
# kept off `import jxkernel` (DLPack, the mesh machinery) points down like any other: the
# export of a buffer sits below array.py (xla/dlpack_export.py), and device_put's choice of
# a device or a mesh above both (xla/put.py). Such an import would be a top-level import
# written late to dodge a cycle; the cure is moving code to the layer of its dependencies.
_LAZY_LOOPS: set = set()


def _loads(start: str, goal: str, at_load: dict) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for module in at_load[todo.pop()] - seen:
            if module == goal:
                return True
            seen.add(module)
            todo.append(module)
    return False


def test_no_import_inside_a_function_stands_in_for_a_loop():
    at_load = collections.defaultdict(set)
    for i in graph.imports():
        if not i.deferred:
            at_load[i.importer].add(i.imported)
    loops = {(i.importer, i.imported) for i in graph.imports()
             if i.deferred and _loads(i.imported, i.importer, at_load)}
    assert loops == _LAZY_LOOPS


def _commented(lines: list, index: int) -> bool:
    """Whether the import on `lines[index]` says why it waits: a comment on its line, on
    another import of its block, or on the comment line just above the block."""
    start = end = index
    while start > 0 and lines[start - 1].strip().startswith(("from ", "import ")):
        start -= 1
    while end + 1 < len(lines) and lines[end + 1].strip().startswith(("from ", "import ")):
        end += 1
    block = lines[start:end + 1] + ([lines[start - 1]] if start else [])
    return any("#" in line for line in block)


def test_each_import_inside_a_function_says_why():
    # Only an optional module (IPython's widgets, the debugger) or a heavy one kept off
    # `import jxkernel` (a view, pmap, the KDE) is imported late, with a comment saying which.
    silent = []
    for path in sorted({i.path for i in graph.imports() if i.deferred}):
        lines = (graph.ROOT.parent / path).read_text().splitlines()
        silent += [f"{path}:{i.line}" for i in graph.imports()
                   if i.path == path and i.deferred and not _commented(lines, i.line - 1)]
    assert silent == []


# Imports inside functions, counted by statement. Each hides a dependency from the reader of
# the module's head, so they stay few (issue 48: at most 40 once the JAX-name modules and the
# fast path have moved; lowered as they go): a late import is for a module kept off `import
# jxkernel` by design (docs/architecture.md, section 1) or an optional library, not for a
# cycle; the cure for a cycle is moving code to the layer where its dependencies are.
MOST_DEFERRED = 40   # (+1: jnp.nonzero calls statistics.bincount, which is loaded on first use;
#                     +1: jnp.pad's callable mode calls functional.apply_along_axis, likewise;
#                     +1: nn.scaled_matmul's primitives, whose partitioning rule loads
#                     custom_partitioning and the collectives, on first use;
#                     +1: jax.export's layout of a program over a mesh reads jit's
#                     Partitioning, which loads with the first mesh, not with jax.export)


def test_imports_inside_functions_stay_few():
    late = graph.deferred(graph.imports())
    assert len(late) <= MOST_DEFERRED, "\n".join(f"{path}:{line}" for path, line in late)


def test_jit_is_split_by_job_and_transforms_has_no_loop():
    jit = graph.ROOT / "transforms" / "jit" / "function.py"
    assert len(jit.read_text().splitlines()) < 400
    deps = collections.defaultdict(set)
    for i in graph.imports():
        if i.importer.startswith("jxkernel.transforms.") and \
                i.imported.startswith("jxkernel.transforms."):
            deps[i.importer].add(i.imported)
    graphlib.TopologicalSorter(deps).prepare()        # raises CycleError on any loop


def test_the_core_modules_have_an_order():
    # docs/architecture.md's order of core's modules: source_info (the user's frames,
    # SourceInfo) below dtypes, errors, avals, then ir and trace, then name_stack on the trace
    # context. It was a loop of six (dtypes read user_stacklevel from a source_info that
    # imported ir and trace), so none of them could be read first.
    deps = collections.defaultdict(set)
    for i in graph.imports():
        if i.importer.startswith("jxkernel.core.") and i.imported.startswith("jxkernel.core.") \
                and i.importer != i.imported:
            deps[i.importer].add(i.imported)
    order = list(graphlib.TopologicalSorter(deps).static_order())   # raises CycleError
    at = order.index
    core = "jxkernel.core."
    assert at(core + "source_info") < at(core + "dtypes") < at(core + "errors") < \
        at(core + "avals") < at(core + "ir") < at(core + "staging")
    assert at(core + "avals") < at(core + "trace") < at(core + "name_stack") < \
        at(core + "staging")


@pytest.mark.parametrize("layer, allowed", [
    ("core", set()),                                     # config and the compile record included
    ("xla", {"core"}),               # a sharded Array's view is registered from above
    ("tree_util", {"core", "xla"}),     # core: JAX's names of classes in its messages
    # the interpreters and jit, below lax: a primitive's rules are written with their
    # vocabulary, and control flow's rules differentiate and batch their bodies with them
    ("transforms", {"core", "xla", "tree_util"}),
    ("lax", {"core", "xla", "tree_util", "transforms"}),
    # what jxkernel shows you: built on the core, imported by the root and the notebook
    ("views", {"core", "xla", "tree_util", "transforms"}),
])
def test_the_bottom_layers_import_only_what_is_below_them(layer, allowed):
    assert _imported_layers(layer) <= allowed


def test_the_views_are_imported_only_from_above():
    importers = {graph.layer(i.importer) for i in graph.imports()
                 if graph.layer(i.imported) == "views"} - {"views"}
    assert importers <= {graph.ROOT_LAYER, "notebook"}


def test_jaxlib_only_in_xla_and_the_notebook_libraries_only_in_notebook():
    misplaced = []
    for path, names in graph.third_party_imports().items():     # (parsed once with the graph)
        package = path.relative_to(graph.ROOT).parts[0]
        if "jaxlib" in names and package != "xla":
            misplaced.append((str(path), "jaxlib"))
        for name in names & {"IPython", "ipywidgets", "plotly", "anywidget"}:
            if package != "notebook":
                misplaced.append((str(path), name))
        if "jax" in names:
            misplaced.append((str(path), "jax"))
    assert misplaced == []


def test_the_graph_reads_relative_and_deferred_imports():
    cond = [i for i in graph.imports() if i.path == "jxkernel/lax/cond.py"]
    assert any(i.imported == "jxkernel.core.staging" and not i.deferred for i in cond)
    deferred = {i.imported for i in graph.imports()
                if i.path == "jxkernel/core/staging.py" and i.deferred}
    # loaded only once leak checking is on
    assert deferred == {"jxkernel.core.tracer_errors.leaks"}


def _module_names() -> list:
    paths = [p for p in graph.ROOT.rglob("*.py") if "labextension" not in p.parts]
    return sorted({i.importer for i in graph.imports()} | {graph.module_name(p) for p in paths})


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a child per module")
def test_every_module_imports_first():
    # Importing any module runs `jxkernel/__init__.py` first, so "first in a fresh interpreter"
    # is: after `import jxkernel` alone, each module not loaded yet imports on its own. A
    # forked child per module, from a process that has loaded only jxkernel and the third-party
    # libraries the notebook layer uses. Importing a.b.c there imports its package a.b first
    # (when not loaded), then a.b.c: so a.b's child checks a.b's modules in children of its own,
    # forked after a.b loaded, which is where a.b.c's own import would be. The same imports
    # run, each package's once instead of once per module in it (402 children spent 40 s of
    # CPU, 0.19 s of it each re-importing jxkernel.scipy for jxkernel.scipy.stats.beta, ...).
    code = textwrap.dedent("""
        import gc, importlib.util, os, sys, tempfile, jxkernel
        for heavy in ("IPython", "ipywidgets", "anywidget", "plotly.graph_objects", "scipy"):
            if importlib.util.find_spec(heavy.split(".")[0]):   # not ours: load once, share
                __import__(heavy)
        wanted, failures = set(sys.argv[1:]), tempfile.mkstemp()[1]

        def check(todo):
            gc.freeze()     # what is loaded: the children's collections skip it (and its pages)
            todo = [name for name in todo if name not in sys.modules]
            while todo:
                name = todo.pop(0)
                if name in sys.modules:         # loaded by a package imported before
                    continue
                parts = name.split(".")         # what `import name` loads first: its package
                first = next(p for p in (".".join(parts[:i]) for i in range(1, len(parts) + 1))
                             if p not in sys.modules)
                inside = [name] * (first != name) + [n for n in todo if n.startswith(first + ".")]
                todo = [n for n in todo if not n.startswith(first + ".")]
                pid = os.fork()
                if pid == 0:
                    try:
                        __import__(first)
                    except BaseException as e:  # each of them would fail on it
                        with open(failures, "a") as f:
                            f.writelines(n + "\\n" for n in [first] + inside if n in wanted)
                        print(first, type(e).__name__, e, flush=True)
                        os._exit(1)
                    check(inside)
                    os._exit(0)
                os.waitpid(pid, 0)

        check(sys.argv[1:])
        with open(failures) as f:
            print("FAILED", sorted(f.read().split()))
        os.remove(failures)
    """)
    done = run_python(["-c", code, *_module_names()], timeout=600)
    assert done.stdout.strip().endswith("FAILED []"), done.stdout + done.stderr
