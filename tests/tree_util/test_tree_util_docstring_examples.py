"""Every docstring example in jxkernel/tree_util/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers).
RUN_ELSEWHERE = frozenset({
    "jxkernel.tree_util.pure",
})


def test_every_docstring_example_in_tree_util_runs():
    check_package_examples("jxkernel.tree_util", RUN_ELSEWHERE, {"jxkernel": jxkernel})
