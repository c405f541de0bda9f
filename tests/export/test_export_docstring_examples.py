"""Every docstring example in jxkernel/export/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers);
# _sharded needs 8 devices: tests/sharding/test_sharding.py runs it.
RUN_ELSEWHERE = frozenset({
    "jxkernel.export._serialization",
    "jxkernel.export._sharded",
})

# Modules whose examples show what only XLA gives (left out on the NumPy backend), and why.
XLA_ONLY = {
    "jxkernel.export": "XLA compiler",
    "jxkernel.export._export": "XLA compiler",
    "jxkernel.export._inlining": "XLA compiler",
    "jxkernel.export._symbolic_lowering": "XLA compiler",
}


def test_every_docstring_example_in_export_runs():
    check_package_examples("jxkernel.export", RUN_ELSEWHERE, {"jxkernel": jxkernel},
                           xla_only=XLA_ONLY)
