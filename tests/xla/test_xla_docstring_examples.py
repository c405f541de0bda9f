"""Every docstring example in jxkernel/xla/ runs and shows what it gives."""
import sys

import jxkernel
from doc_examples import check_package_examples      # tests/support
from jxkernel.core.native import native

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


# Python 3.11 without the compiled fast path has no buffer protocol (ArrayImpl's C base exports
# it; PEP 688's __buffer__ is 3.12's), so buffer_protocol's memoryview examples cannot run
# there; test_buffer_protocol.py skips its cases the same way.
NO_BUFFER_PROTOCOL = native is None and sys.version_info < (3, 12)


def test_every_docstring_example_in_xla_runs():
    left_out = RUN_ELSEWHERE | ({"jxkernel.xla.buffer_protocol"} if NO_BUFFER_PROTOCOL
                                else set())
    check_package_examples("jxkernel.xla", left_out, {"jxkernel": jxkernel},
                           xla_only=XLA_ONLY)
