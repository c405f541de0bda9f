"""One helper per idea in tests/support, checked on the test files' text.

A test that runs Python code in a fresh interpreter
(`python -c CODE`) does it with fresh_process.py (`run_code`, `run_json`, `run_python`), which
runs it in the repository root with this checkout, tests/support and tests/data first on the
path, as pytest's `pythonpath` makes them here. A child started by hand imports whichever
jxkernel the venv's install names, which in a second checkout is not the one under test.

OWN_CHILDREN lists the files that start their own, each for the reason given.

A test reads a recording in tests/data (JSON, written by a script in reference/) with
locations.py: `jax_answers(NAME)`, which fails for a recording of another JAX release, or
`recorded(NAME)` for one that does not name its release; each read once per process. No
test file opens one itself.

A test runs an IPython cell with ipython_shell.py's `run_cell` or `ran_ok` (a `Ran`; numbered
unless `store_history=False`), and a cell expected to fail with its `ran_failing` (the same
`Ran`: its error, the traceback printed, the error card shown). A cell in a real ipykernel is read with real_kernel.py's
`kernel_cell` (a `KernelCell`), not from its messages by each file."""
import ast
import pathlib
import re

import locations  # tests/support: the repository's folders

OWN_CHILDREN = {
    # what is tested is that `import jax` reaches jxkernel without the checkout on the path
    "jax_compat/test_as_jax.py": "the checkout's folders kept off the path",
    # several processes started side by side, then collected
    "xla/test_distributed.py": "processes run at once (Popen)",
    # `import jaxlib` under the PYTHONPATH the test itself sets (a sitecustomize blocking it)
    "jax_compat/test_conformance.py": "its own PYTHONPATH with a sitecustomize",
    "notebook/test_workshop.py": "its own PYTHONPATH with a sitecustomize",
    # long-lived workers, one per NumPy device count, each fed many programs on its stdin
    "xla/test_numpy_backend.py": "workers kept for many programs (Popen)",
    # a Colab stand-in driving a fresh venv's install of the wheel, in a bare folder
    "release/test_colab.py": "the wheel's install, not the checkout",
}

CHILD = re.compile(r"sys\.executable\s*,\s*['\"]-c['\"]")


def test_python_children_are_started_by_fresh_process():
    tests = pathlib.Path(locations.TESTS)
    found = {}
    for path in sorted(tests.rglob("*.py")):
        name = path.relative_to(tests).as_posix()
        if name.startswith(("support/", "data/")):
            continue
        if CHILD.search(path.read_text(encoding="utf-8")):
            found[name] = True
    by_hand = sorted(set(found) - set(OWN_CHILDREN))
    assert not by_hand, (f"{by_hand} start `python -c` by hand: use tests/support/fresh_process.py "
                         f"(run_code, run_json, run_python), or list the file in OWN_CHILDREN "
                         f"with its reason")
    stale = sorted(set(OWN_CHILDREN) - set(found))
    assert not stale, f"{stale} no longer start a child by hand: strike them from OWN_CHILDREN"


# a file naming tests/data: locations.DATA, or a path built to "data"
DATA_NAMED = re.compile(r"\bDATA\b|['\"]data['\"]")


def _reads_data_itself(text: str) -> list:
    """The lines where a test file's text reads a JSON file of tests/data itself: `json.load`
    in a file naming the folder (`with open(os.path.join(DATA, name)) as f: json.load(f)`), and
    `json.loads` of an expression naming it (`json.loads((Path(__file__).parents[1] / "data" /
    NAME).read_text())`), or naming a variable assigned one that does."""
    if not DATA_NAMED.search(text):
        return []
    tree = ast.parse(text)
    named = set()       # variables assigned a path (or a text) built from the folder
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and DATA_NAMED.search(ast.unparse(node.value)):
            named |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    lines = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call)
                and ast.unparse(node.func) in ("json.load", "json.loads")):
            continue
        read = " ".join(ast.unparse(arg) for arg in node.args)
        if node.func.attr == "load" or DATA_NAMED.search(read) or any(
                isinstance(n, ast.Name) and n.id in named for arg in node.args for n in ast.walk(arg)):
            lines.append(node.lineno)
    return sorted(lines)


def test_recordings_are_read_through_locations():
    tests = pathlib.Path(locations.TESTS)
    by_hand = {}
    for path in sorted(tests.rglob("*.py")):
        name = path.relative_to(tests).as_posix()
        if name.startswith(("support/", "data/")):
            continue
        lines = _reads_data_itself(path.read_text(encoding="utf-8"))
        if lines:
            by_hand[name] = lines
    assert not by_hand, (f"{by_hand} (file: lines) read tests/data with json.load or json.loads: "
                         f"use locations.jax_answers (or locations.recorded for a recording "
                         f"without its jax_version)")


def test_the_recordings_check_sees_each_way_of_reading_one():
    assert _reads_data_itself("with open(os.path.join(locations.DATA, 'a.json')) as f:\n"
                              "    A = json.load(f)\n") == [2]
    assert _reads_data_itself("A = json.loads((Path(__file__).parents[1] / 'data' /\n"
                              "                'a.json').read_text())['cases']\n") == [1]
    assert _reads_data_itself("P = Path(locations.DATA) / 'a.json'\n"
                              "A = json.loads(P.read_text())\n") == [2]
    # another file's text, in a file that names tests/data too; a recording read as it should be
    assert _reads_data_itself("FIXTURE = LAB / 'test' / 'bundles.json'   # not DATA's\n"
                              "B = json.loads(FIXTURE.read_text())\n"
                              "A = locations.jax_answers('a.json')\n") == []


def test_cells_are_run_with_ipython_shells_runner():
    # ipython_shell.Ran, run_cell and ran_ok: what one cell did, not a class of each file's own
    tests = pathlib.Path(locations.TESTS)
    own = sorted(path.relative_to(tests).as_posix() for path in tests.rglob("test_*.py")
                 if re.search(r"^class Ran\b", path.read_text(encoding="utf-8"), re.M))
    assert not own, f"{own} define their own Ran: use tests/support/ipython_shell.py's"


def _cell_runners(text: str) -> list:
    """The functions of a test file's text that take a `source` and run it as a cell
    (`.run_cell(source`) under `capture_output()`: run_cell's, ran_ok's or ran_failing's job."""
    found = []
    # a body holding both names holds them in the text: the other files (most) are not parsed
    # (parsing and unparsing every test file was this test's whole CPU)
    if "run_cell" not in text or "capture_output" not in text:
        return found
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and "source" in [a.arg for a in node.args.args]:
            body = ast.unparse(node)
            if "capture_output()" in body and re.search(r"\.run_cell\(source\b", body):
                found.append(node.name)
    return found


def test_no_test_file_runs_cells_with_a_function_of_its_own():
    # a function running `source` as a cell, numbered or not, that must succeed or fail, is
    # run_cell, ran_ok or ran_failing (a Ran: its value, error, count, printed text, outputs,
    # the error cards shown), not a copy in each file returning its own tuple
    tests = pathlib.Path(locations.TESTS)
    own = {path.relative_to(tests).as_posix(): _cell_runners(path.read_text("utf-8"))
           for path in sorted(tests.rglob("test_*.py"))}
    own = {name: found for name, found in own.items() if found}
    assert not own, (f"{own} run cells themselves: use tests/support/ipython_shell.py's "
                     f"run_cell, ran_ok (a cell that must succeed) or ran_failing (one that "
                     f"must fail)")


# real_kernel.execute's (reply, messages), read by the test file itself
RAW_MESSAGES = re.compile(r"real_kernel\.execute\(|from real_kernel import [^\n]*\bexecute\b")


def test_real_kernel_cells_are_read_with_kernel_cell():
    # what a real kernel's cell printed, displayed, raised and showed as a card is a
    # KernelCell's (stdout, notes, error, card, text, ...), not a loop over its messages
    tests = pathlib.Path(locations.TESTS)
    own = sorted(path.relative_to(tests).as_posix() for path in tests.rglob("test_*.py")
                 if RAW_MESSAGES.search(path.read_text(encoding="utf-8")))
    assert not own, (f"{own} read a real kernel's messages themselves: use "
                     f"tests/support/real_kernel.py's kernel_cell (or alias_kernel_cells)")
