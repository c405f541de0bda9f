"""Every docstring example in jxkernel/export/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers);
# _sharded needs 8 devices: tests/sharding/test_sharding.py runs it.
RUN_ELSEWHERE = frozenset({
    "jxkernel.export._serialization",
    "jxkernel.export._sharded",
})


def test_every_docstring_example_in_export_runs():
    check_package_examples("jxkernel.export", RUN_ELSEWHERE, {"jxkernel": jxkernel})
