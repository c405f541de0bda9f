"""Every docstring example in jxkernel/xla/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers).
RUN_ELSEWHERE = frozenset({
    "jxkernel.xla.buffer",
    "jxkernel.xla.disk_cache",
    "jxkernel.xla.dlpack",
    "jxkernel.xla.dlpack_export",
    "jxkernel.xla.fastpath",
    "jxkernel.xla.host_values",
    "jxkernel.xla.layout",
    "jxkernel.xla.profiler",
    "jxkernel.xla.put",
    "jxkernel.xla.scalars",
    "jxkernel.xla.serialized",
    "jxkernel.xla.sharded",
    "jxkernel.xla.sharding",
    "jxkernel.xla.stablehlo",
    "jxkernel.xla.transfer_guard",
    "jxkernel.xla.transfers",
})

# Modules whose examples show what only XLA gives (left out on the NumPy backend), and why.
XLA_ONLY = {
    "jxkernel.xla.client": "CPU platform",
    "jxkernel.xla.compiler": "XLA compiler",
    "jxkernel.xla.executable": "XLA compiler",
    "jxkernel.xla.placement": "CPU platform",
    "jxkernel.xla.string_arrays": "CPU platform",
}


def test_every_docstring_example_in_xla_runs():
    check_package_examples("jxkernel.xla", RUN_ELSEWHERE, {"jxkernel": jxkernel},
                           xla_only=XLA_ONLY)
