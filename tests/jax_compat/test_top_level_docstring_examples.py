"""Every docstring example in the modules of jxkernel/ itself (not its subpackages, which have
their own tests: tests/core/test_core_docstring_examples.py, ...) runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support


def test_every_docstring_example_in_the_top_level_modules_runs():
    # as_jax's example installs the `import jax` alias, which cannot be undone in this process:
    # tests/jax_compat/test_as_jax.py runs it in a fresh interpreter
    check_package_examples("jxkernel", ("jxkernel.as_jax",), {"jxkernel": jxkernel},
                           subfolders=False,
                           xla_only={"jxkernel.debug": "CPU platform"})   # its CPU 0
