"""demos/01_tour.ipynb, executed headless in a real kernel (nbclient + ipykernel) as a reader
would run it: every cell runs, only the one tagged `raises-exception` fails (on purpose), and
the outputs teach what the markdown says they do."""
import os
import re

import pytest
import locations  # tests/support: the repository's folders
from forked_kernel import kernels_forked  # tests/support

import jxkernel
from note_words import here  # noqa: E402  (tests/support)

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

DEMOS = os.path.join(locations.ROOT, "demos")
WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def tour():
    nb = nbformat.read(os.path.join(DEMOS, "01_tour.ipynb"), as_version=4)
    # "immediate": the outputs are in once the last cell replies (test_workshop.py says more)
    with kernels_forked():      # (a fresh kernel, forked: tests/support/forked_kernel.py)
        nbclient.NotebookClient(nb, timeout=180, kernel_name="python3",
                                shutdown_kernel="immediate",
                                resources={"metadata": {"path": DEMOS}}).execute()
    return [c for c in nb.cells if c.cell_type == "code"]


def text(cell) -> str:
    out = []
    for o in cell.outputs:
        if o.output_type == "stream":
            out.append(o.text)
        elif o.output_type == "error":
            out.extend(o.traceback)
        elif "data" in o:
            out.append(o.data.get("text/plain", ""))
    return "\n".join(out)


def cells_with(tour, needle) -> list:
    found = [c for c in tour if needle in c.source]
    assert found, needle
    return found


def test_the_tour_committed_without_outputs():
    nb = nbformat.read(os.path.join(DEMOS, "01_tour.ipynb"), as_version=4)
    nbformat.validate(nb)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_only_the_tagged_cell_fails_and_it_says_what_to_do(tour):
    failed = [c for c in tour if any(o.output_type == "error" for o in c.outputs)]
    assert [("raises-exception" in c.metadata.get("tags", [])) for c in failed] == [True]
    said = text(failed[0])
    assert "line 2: if n > 2:" in said and "`%%jit --static n`" in said
    assert ">>  2 | if n > 2:" in said                     # the traced-vs-static view, marked


def test_jit_cells_compile_hit_and_recompile_with_the_reason(tour):
    first, hit, again = cells_with(tour, 'print("tracing! x is", x)')
    assert here("⚙ compiled cell[") in text(first) and "JitTracer(float32[4])" in text(first)
    assert "print() did not run" in text(hit) and "compiled" not in text(hit)
    assert here("recompiled cell[") in text(again) and "because x: f32[4] -> f32[8]" in text(again)


def test_static_and_traced_values_are_shown(tour):
    (static,) = cells_with(tour, "--show static")
    assert "static  n: 3" in text(static) and "traced  x: f32[4]" in text(static)
    (fn,) = cells_with(tour, "%jxtraced")
    assert "static  mode: 'sin'" in text(fn) and "traced  scale: f32[] weak" in text(fn)


def test_timeit_blocks_and_shows_the_dispatch(tour):
    (timed,) = cells_with(tour, "%timeit")
    said = text(timed)
    assert here("Compiled on the first run") in said
    assert "per loop" in said and "dispatch only:" in said
    (by_hand,) = cells_with(tour, "block_until_ready()")
    assert "the result was ready after" in text(by_hand)


def test_widgets_log_backends_and_the_jaxpr_of_a_gradient(tour):
    (log,) = cells_with(tour, "%jxcompiles")
    (selector,) = [c for c in tour if c.source.strip() == "%jxbackend"]
    for cell in (log, selector):
        result = next(o for o in cell.outputs if o.output_type == "execute_result")
        assert WIDGET in result.data and "text/html" in result.data
    assert "f: 3 / 1" in text(log)                             # misses / hits of f_jit
    where = jxkernel.default_backend()       # the tour's `where`: numpy on the NumPy backend
    assert f"* {where}:0" in text(selector)
    (named,) = cells_with(tour, "%jxbackend $where")
    assert f"run on {where}:0" in text(named)
    (grad,) = cells_with(tour, "%jaxpr jax.grad")
    assert "tanh" in text(grad) and "equations per primitive" in text(grad)


def test_a_plain_jit_that_compiles_again_is_noted_under_its_cell(tour):
    """The tour's f_jit called with a new shape, then an int: the cell's value, then one note
    (compile_notes.py, shown from post_run_cell in a real kernel) with both recompiles."""
    (again,) = cells_with(tour, "# an int instead of a float: compiles again")
    kinds = [o.output_type for o in again.outputs]
    assert kinds == ["execute_result", "display_data"], kinds
    note = again.outputs[1].data
    title, *details = note["text/plain"].splitlines()
    assert re.match(re.escape(here("⚙ 2 recompile(s) in this cell: f: x: ")) +
                    r".*f32\[4\].* · fix: ", title), title
    (dtype,) = [line for line in details if line.startswith(here("⚙ f compiled again (compile #"))
                and "at In[" in line and "y: " in line]
    assert "i32[]" in dtype and " · fix: " in dtype
    assert note["text/html"].startswith("<details class='jx-note jx-compile'")
