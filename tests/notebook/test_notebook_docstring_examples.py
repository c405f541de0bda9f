"""Every docstring example in jxkernel/notebook/ runs and shows what it gives."""
import jxkernel

from doc_examples import check_package_examples      # tests/support

# Modules whose examples another test runs, with names of its own (a mesh, devices, helpers).
RUN_ELSEWHERE = frozenset({
    "jxkernel.notebook.cell_origins",
    "jxkernel.notebook.notes.compile_notes",
    "jxkernel.notebook.protocol",
    "jxkernel.notebook.workshop.links",
    "jxkernel.notebook.workshop.program_checks",
    "jxkernel.notebook.workshop.strip",
})

# Modules whose examples show what only XLA gives (left out on the NumPy backend), and why.
XLA_ONLY = {
    "jxkernel.notebook.comm": "CPU platform",
}


def test_every_docstring_example_in_notebook_runs():
    check_package_examples("jxkernel.notebook", RUN_ELSEWHERE, {"jxkernel": jxkernel},
                           xla_only=XLA_ONLY)
