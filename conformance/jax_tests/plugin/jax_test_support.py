"""A pytest plugin (`-p jax_test_support`, jxkernel's side only) that makes JAX's test-support
modules importable under JAX's names: `jax._src.lax_reference`, `jax._src.internal_test_util.*`,
`jax._src.test_warning_util` (its warning-capturing contexts) and
`jax.experimental.sparse.test_util` (the sparse files' test case) are test code, not library code, so jxkernel has no module of its own for them; the harness reads
them from JAX's mirror into the folder $JAX_TEST_SUPPORT (files.extract_support) and this
finder loads them from there, each importing jxkernel as `jax` like the test files do.

It answers them where jxkernel's own modules for JAX's private names live, as
`jxkernel._jax._src.<name>`, so the alias gives them as `jax._src.<name>` like every other (one
module under both names, `from jax._src import lax_reference` included). It is appended to
`sys.meta_path` and answers only those names, so a module jxkernel has is never shadowed.
JAX's side runs without it: real JAX has these modules.
"""
import importlib.abc
import importlib.util
import os
import sys

# the names (and their submodules) this finder answers, under PACKAGE
NAMES = ("lax_reference", "internal_test_util", "test_warning_util")
PACKAGE = "jxkernel._jax._src"          # the module the alias gives for `jax._src`
# and modules outside `jax._src` (the alias's name for `jax.X`: the file `X` in the folder)
OTHERS = {"jxkernel._jax.experimental.sparse.test_util": "experimental/sparse/test_util.py"}


class JaxTestSupportFinder(importlib.abc.MetaPathFinder):
    """Finds `jxkernel._jax._src.<NAMES>...` as files under `folder` (a package as its folder)."""

    def __init__(self, folder):
        self.folder = folder

    def find_spec(self, name, path=None, target=None):
        if name in OTHERS:
            return importlib.util.spec_from_file_location(
                name, os.path.join(self.folder, *OTHERS[name].split("/")))
        if not name.startswith(PACKAGE + "."):
            return None
        parts = name[len(PACKAGE) + 1:].split(".")
        if parts[0] not in NAMES:
            return None
        base = os.path.join(self.folder, *parts)
        if os.path.isdir(base):
            # no search path: this finder, not the path finder, gives its submodules, so that
            # pytest's assertion rewriter (first on sys.meta_path, and claiming any
            # `test_*.py` it finds on a package's path) never loads one a second time under
            # the `jax._src` name (`test_harnesses.py`: two RandArg classes)
            spec = importlib.util.spec_from_file_location(
                name, os.path.join(base, "__init__.py"), submodule_search_locations=[base])
            spec.submodule_search_locations = []    # (given [], the function puts base in)
            return spec
        if os.path.isfile(base + ".py"):
            return importlib.util.spec_from_file_location(name, base + ".py")
        return None


def pytest_configure(config):
    folder = os.environ.get("JAX_TEST_SUPPORT")
    if not folder or not os.path.isdir(folder):
        raise RuntimeError(f"jax_test_support: JAX_TEST_SUPPORT={folder!r} is not a folder of "
                           f"JAX's test-support modules (conformance.jax_tests run writes it)")
    if not any(isinstance(f, JaxTestSupportFinder) for f in sys.meta_path):
        sys.meta_path.append(JaxTestSupportFinder(folder))
