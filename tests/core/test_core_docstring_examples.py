"""Every docstring example in jxkernel/core/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers).
RUN_ELSEWHERE = frozenset({
    "jxkernel.core.axis_env",
    "jxkernel.core.clipped_text",
    "jxkernel.core.compile_record",
    "jxkernel.core.dce",
    "jxkernel.core.device_assignment",
    "jxkernel.core.earray",
    "jxkernel.core.hijax",
    "jxkernel.core.ir",
    "jxkernel.core.jaxpr_cost",
    "jxkernel.core.lru",
    "jxkernel.core.mesh",
    "jxkernel.core.name_stack",
    "jxkernel.core.native",
    "jxkernel.core.numpy_eval",
    "jxkernel.core.numpy_simplify",
    "jxkernel.core.sharding_types",
    "jxkernel.core.source_info",
    "jxkernel.core.tracer_errors.leak_graph",
    "jxkernel.core.tracer_errors.leaks",
    "jxkernel.core.tracer_errors.origin",
})


def test_every_docstring_example_in_core_runs():
    check_package_examples("jxkernel.core", RUN_ELSEWHERE, {"jxkernel": jxkernel})
