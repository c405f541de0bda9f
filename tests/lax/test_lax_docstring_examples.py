"""Every docstring example in jxkernel/lax/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers).
RUN_ELSEWHERE = frozenset({
    "jxkernel.lax._rules",
    "jxkernel.lax.barrier",
    "jxkernel.lax.cond",
    "jxkernel.lax.creation",
    "jxkernel.lax.fft",
    "jxkernel.lax.gpu_collectives",
    "jxkernel.lax.inspect_sharding",
    "jxkernel.lax.layout_constraint",
    "jxkernel.lax.linalg",
    "jxkernel.lax.linalg.polar",
    "jxkernel.lax.linalg.symmetric_product",
    "jxkernel.lax.linalg.tridiagonal",
    "jxkernel.lax.ragged",
    "jxkernel.lax.rng",
    "jxkernel.lax.scaled",
    "jxkernel.lax.shapes",
    "jxkernel.lax.sharding",
    "jxkernel.lax.slicing",
    "jxkernel.lax.slicing.dimension_numbers",
    "jxkernel.lax.slicing.dynamic_slices",
    "jxkernel.lax.slicing.gather_scatter",
    "jxkernel.lax.slicing.slice_pad",
    "jxkernel.lax.solves",
    "jxkernel.lax.sorting",
    "jxkernel.lax.special",
    "jxkernel.lax.tokens",
    "jxkernel.lax.transfer",
})

# Modules whose examples show what only XLA gives (left out on the NumPy backend), and why.
XLA_ONLY = {
    "jxkernel.lax.callbacks": "XLA text",
    "jxkernel.lax.ffi": "XLA compiler",
}


def test_every_docstring_example_in_lax_runs():
    check_package_examples("jxkernel.lax", RUN_ELSEWHERE, {"jxkernel": jxkernel},
                           xla_only=XLA_ONLY)
