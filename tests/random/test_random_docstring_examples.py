"""Every docstring example in jxkernel/random/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers).
RUN_ELSEWHERE = frozenset({
    "jxkernel.random.rbg",
    "jxkernel.random.sparse_bcoo",
    "jxkernel.random.stateful_rng",
})


def test_every_docstring_example_in_random_runs():
    check_package_examples("jxkernel.random", RUN_ELSEWHERE, {"jxkernel": jxkernel})
