"""One helper per idea in tests/support: a test that runs Python code in a fresh interpreter
(`python -c CODE`) does it with fresh_process.py (`run_code`, `run_json`, `run_python`), which
runs it in the repository root with this checkout, tests/support and tests/data first on the
path, as pytest's `pythonpath` makes them here. A child started by hand imports whichever
jxkernel the venv's install names, which in a second checkout is not the one under test.

The files below start their own, each for the reason given."""
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
