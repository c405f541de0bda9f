"""Every docstring example in jxkernel/example_libraries/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers).
RUN_ELSEWHERE = frozenset({
    "jxkernel.example_libraries.optimizers",
    "jxkernel.example_libraries.stax",
})


def test_every_docstring_example_in_example_libraries_runs():
    check_package_examples("jxkernel.example_libraries", RUN_ELSEWHERE, {"jxkernel": jxkernel})
