"""Running a module's docstring examples as tests: `check_docstring_examples`."""
import doctest
import importlib
import pathlib
import re

import numpy as np

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import lax

import backend_tier
from numerics import ELEMENTWISE, UlpOutputChecker

GLOBALS = {"jax": jxkernel, "jnp": jnp, "lax": lax, "np": np}


def check_docstring_examples(module: str, extra_globals=None, *, ulps: int = ELEMENTWISE,
                             skip_module_docstring: bool = False,
                             standalone: bool = False) -> None:
    """Run every docstring example in `module` (a dotted name) and fail if any fails or none ran.

    Printed floats may differ from the text within `ulps` (see numerics.UlpOutputChecker); the
    examples see the module's names, `GLOBALS` and `extra_globals`. `skip_module_docstring`
    leaves out the module's own docstring (an overview that sketches rather than runs).
    `standalone`: the examples see the module's names only, as under `pytest --doctest-modules`
    (so each must import and build what it uses), and the classes written here under a JAX
    module's name (`Mesh.__module__` is "jxkernel._src.mesh"), which doctest's finder skips,
    run too.
    """
    kept = _process_settings()
    mod = importlib.import_module(module)
    if standalone:
        assert not extra_globals, "standalone examples see the module's names only"
        globs = dict(vars(mod))
    else:
        globs = {**vars(mod), **GLOBALS, **(extra_globals or {})}
    runner = doctest.DocTestRunner(checker=UlpOutputChecker(ulps),
                                   optionflags=doctest.NORMALIZE_WHITESPACE)
    finder = doctest.DocTestFinder()
    tests = finder.find(mod, module, globs=globs)
    if standalone:
        for cls in _renamed_classes(mod):
            tests += finder.find(cls, f"{module}.{cls.__name__}", module=False, globs=globs)
    for test in tests:
        if not (skip_module_docstring and test.name == module):
            runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted > 0, f"{module} has no docstring examples"
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples failed in {module}"
    # an example that changes what the rest of the process uses (the compile cache's folder:
    # later tests then wrote into the user's ~/.cache) fails here, not in some later test
    assert _process_settings() == kept, f"{module}'s examples left settings changed"


def _process_settings() -> tuple:
    """What an example must leave as it found it: where compiled programs are kept, whether
    64-bit types are on (core/config's example turned them on for every later module:
    core/dtypes' examples then showed int64 and float64), and whether `import jax` reaches
    jxkernel (as_jax's example installed the alias: later tests' messages named `jax._src...`
    classes; its examples run in a fresh interpreter, tests/jax_compat/test_as_jax.py)."""
    return (jxkernel.config.jax_compilation_cache_dir, jxkernel.config.jax_enable_compilation_cache,
            jxkernel.config.jax_enable_x64, jxkernel.as_jax.installed())


def _renamed_classes(mod) -> list:
    """The classes whose methods are written in `mod` but whose `__module__` names another."""
    found = {}
    for obj in vars(mod).values():
        if isinstance(obj, type) and obj.__module__ != mod.__name__ and any(
                getattr(getattr(f, "__code__", None), "co_filename", None) == mod.__file__
                for f in vars(obj).values()):
            found[id(obj)] = obj        # (a class bound under two names, P and PartitionSpec)
    return list(found.values())


def check_package_examples(package: str, run_elsewhere=(), extra_globals=None, *,
                           subfolders: bool = True, xla_only=None, ulps=None) -> None:
    """Run the docstring examples of each module in `package`'s folder (and its subfolders,
    unless `subfolders` is False) that has any, but those named in `run_elsewhere` (another
    test runs them, with names of its own: a mesh, several devices); fail naming every module
    whose examples fail. `xla_only`: {module: why}, the modules whose examples show what only
    XLA gives (why: one of backend_tier.REASONS), left out on the NumPy backend. `ulps`:
    {module: bound}, the modules whose printed floats may move more than ELEMENTWISE ulps
    between CPUs (check_docstring_examples' `ulps`).

    The modules are found when the test runs (a file with a `>>>` line not marked
    `doctest: +SKIP`), not when pytest collects, so a module given examples later is run
    without being listed anywhere.
    """
    root = pathlib.Path(next(iter(importlib.import_module(package).__path__)))   # (or a namespace)
    found = {}
    for path in sorted(root.rglob("*.py") if subfolders else root.glob("*.py")):
        if _RUNNABLE_EXAMPLE.search(path.read_text(encoding="utf-8")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join((package, *parts[:-1]) if parts[-1] == "__init__"
                           else (package, *parts))] = path
    xla_only, ulps = xla_only or {}, ulps or {}
    stale = sorted((set(run_elsewhere) | set(xla_only) | set(ulps)) - set(found))
    assert not stale, f"these name modules of {package} without examples: {stale}"
    assert set(xla_only.values()) <= set(backend_tier.REASONS), xla_only
    left_out = set(run_elsewhere) | (set(xla_only) if backend_tier.on_numpy_backend() else set())
    failed = []
    for module in found:
        if module not in left_out:
            try:
                check_docstring_examples(module, extra_globals,
                                         ulps=ulps.get(module, ELEMENTWISE))
            except AssertionError as e:
                failed.append(str(e))
    assert not failed, "\n".join(failed)


_RUNNABLE_EXAMPLE = re.compile(r"^[ \t]*>>> (?!.*doctest: \+SKIP).*$", re.MULTILINE)
