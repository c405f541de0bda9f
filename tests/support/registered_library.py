"""A library the user imports from a file of its own and registers as excluded, as Equinox and
Flax register theirs (`jax._src.traceback_util.register_exclusion`, source_info_util's too):

    lib = import_library(tmp_path)
    with excluded(lib.__file__, user_line=False):
        ...                       # traceback_util's list only: hidden from filtered tracebacks

(What JAX 0.10.2 does with either list: tests/notebook/test_notebook_tracebacks.py.)
"""
import contextlib
import importlib.util

from jxkernel.core import source_info, traceback_util

LIBRARY = ("def branch(x):\n"
           "    if x > 0:\n"
           "        return x\n"
           "    return -x\n")


def import_library(folder, name: str = "registered_library_mod", source: str = LIBRARY):
    """The module of `source`, written to `folder` and imported from there (a real file)."""
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def restoring_exclusions():
    """Both exclusion lists (traceback_util's, source_info's) as they were before the block,
    whatever the block registered (both lists are the process's: other tests must not see
    them)."""
    hidden, not_users = list(traceback_util._exclude_paths), list(source_info._excluded)
    try:
        yield
    finally:
        traceback_util._exclude_paths[:] = hidden
        source_info._excluded[:] = not_users
        source_info._is_user.clear()
        source_info._infos.clear()
        source_info._packages.clear()


@contextlib.contextmanager
def excluded(path: str, *, tracebacks: bool = True, user_line: bool = True):
    """`path` registered with traceback_util's list (`tracebacks`), source_info's
    (`user_line`) or both, within the block only."""
    with restoring_exclusions():
        if tracebacks:
            traceback_util.register_exclusion(path)
        if user_line:
            source_info.register_exclusion(path)
        yield
