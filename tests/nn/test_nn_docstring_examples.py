"""Every docstring example in jxkernel/nn/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers).
RUN_ELSEWHERE = frozenset({
    "jxkernel.nn.functions",
    "jxkernel.nn.scaled",
})


def test_every_docstring_example_in_nn_runs():
    check_package_examples("jxkernel.nn", RUN_ELSEWHERE, {"jxkernel": jxkernel})
