"""Every docstring example in jxkernel/views/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers);
# sharding_view needs 4 devices: tests/sharding/test_sharding.py runs it.
RUN_ELSEWHERE = frozenset({
    "jxkernel.views.argument_uses",
    "jxkernel.views.hlo_text",
    "jxkernel.views.outside_values",
    "jxkernel.views.recompile_explainer",
    "jxkernel.views.rich_view",
    "jxkernel.views.schema",
    "jxkernel.views.sharding_view",
    "jxkernel.views.signature_changes.change",
    "jxkernel.views.signature_changes.compare",
    "jxkernel.views.signature_changes.config_changes",
    "jxkernel.views.signature_changes.fixes",
    "jxkernel.views.stablehlo_text",
})

# Modules whose examples show what only XLA gives (left out on the NumPy backend), and why.
XLA_ONLY = {
    "jxkernel.views.memory": "CPU platform",
}


def test_every_docstring_example_in_views_runs():
    check_package_examples("jxkernel.views", RUN_ELSEWHERE, {"jxkernel": jxkernel},
                           xla_only=XLA_ONLY)
