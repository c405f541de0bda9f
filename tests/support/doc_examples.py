"""Running a module's docstring examples as tests: `check_docstring_examples`."""
import doctest
import importlib

import numpy as np

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import lax

from numerics import ELEMENTWISE, UlpOutputChecker

GLOBALS = {"jax": jxkernel, "jnp": jnp, "lax": lax, "np": np}


def check_docstring_examples(module: str, extra_globals=None, *, ulps: int = ELEMENTWISE,
                             skip_module_docstring: bool = False) -> None:
    """Run every docstring example in `module` (a dotted name) and fail if any fails or none ran.

    Printed floats may differ from the text within `ulps` (see numerics.UlpOutputChecker); the
    examples see the module's names, `GLOBALS` and `extra_globals`. `skip_module_docstring`
    leaves out the module's own docstring (an overview that sketches rather than runs).
    """
    kept = _process_settings()
    mod = importlib.import_module(module)
    globs = {**vars(mod), **GLOBALS, **(extra_globals or {})}
    runner = doctest.DocTestRunner(checker=UlpOutputChecker(ulps),
                                   optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(mod, module, globs=globs):
        if not (skip_module_docstring and test.name == module):
            runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted > 0, f"{module} has no docstring examples"
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples failed in {module}"
    # an example that changes what the rest of the process uses (the compile cache's folder:
    # later tests then wrote into the user's ~/.cache) fails here, not in some later test
    assert _process_settings() == kept, f"{module}'s examples left settings changed"


def _process_settings() -> tuple:
    """What an example must leave as it found it: where compiled programs are kept."""
    return jxkernel.config.jax_compilation_cache_dir, jxkernel.config.jax_enable_compilation_cache
