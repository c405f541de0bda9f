"""A notebook executed headless in a real kernel (nbclient + ipykernel): the extension as
users meet it, outputs as Jupyter stores them (widget views with HTML and text fallbacks)."""
import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

import jxkernel  # noqa: E402
from forked_kernel import kernels_forked  # noqa: E402  (tests/support)
from note_words import here  # noqa: E402  (tests/support)

EXT = "jxkernel" if hasattr(jxkernel, "load_ipython_extension") else "jxkernel.notebook"
WIDGET = "application/vnd.jupyter.widget-view+json"
CARD = "application/vnd.jxkernel.error+json"

CELLS = [
    f"%load_ext {EXT}\nimport jxkernel as jax, jxkernel.numpy as jnp\nfrom jxkernel import lax\n"
    "x = jnp.arange(4.0)\nn = 2.0",
    "%%jit\nprint('tracing with', x)\ny = jnp.sin(x) * n\ny.sum()",
    "%%jit\nprint('tracing with', x)\ny = jnp.sin(x) * n\ny.sum()",       # the same: a cache hit
    ("%%jit\nif n > 1:\n    z = x\n", ["raises-exception"]),
    "%%jit --static n\nif n > 1:\n    z = x * n\n",
    "%jaxpr jax.grad(lambda v: jnp.sum(jnp.sin(v) * n))(x)",
    "%timeit -n 2 -r 2 y.sum()",
    "%jxcompiles",
    "%jxbackend",
    "jax.make_jaxpr(lambda v: v * 2)(1.0)",
]


def _notebook():
    nb = nbformat.v4.new_notebook()
    for cell in CELLS:
        source, tags = cell if isinstance(cell, tuple) else (cell, [])
        nb.cells.append(nbformat.v4.new_code_cell(source, metadata={"tags": tags}))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb


@pytest.fixture(scope="module")
def executed():
    nb = _notebook()
    # "immediate": the outputs are in once the last cell replies (test_workshop.py says more)
    with kernels_forked():      # (a fresh kernel, forked: tests/support/forked_kernel.py)
        nbclient.NotebookClient(nb, timeout=180, kernel_name="python3",
                                shutdown_kernel="immediate").execute()
    return nb.cells


def _texts(cell):
    out = []
    for o in cell.outputs:
        if o.output_type == "stream":
            out.append(o.text)
        elif "data" in o:
            out.append(o.data.get("text/plain", ""))
    return "\n".join(out)


def test_jit_cell_compiles_then_hits(executed):
    first, again = executed[1], executed[2]
    text = _texts(first)
    assert here("⚙ compiled cell[") in text and "print() ran while tracing" in text
    assert "tracing with JitTracer(float32[4])" in text
    html = [o.data["text/html"] for o in first.outputs if "data" in o and "text/html" in o.data]
    assert any("jx-note" in h for h in html)
    assert any(o.output_type == "execute_result" for o in first.outputs)
    assert "compiled" not in _texts(again) and "print() did not run" in _texts(again)


def test_error_cell_points_at_the_line_and_the_kernel_goes_on(executed):
    error = next(o for o in executed[3].outputs if o.output_type == "error")
    assert error.ename == "CellError"
    # one line: the card under it says the rest (issue 44: an error is said once)
    assert len(error.traceback) == 1 and "line 2: if n > 1:" in error.traceback[0]
    card = next(o.data[CARD] for o in executed[3].outputs if "data" in o and CARD in o.data)
    assert card["rewrite"].splitlines()[-1] == "%%jit --static n"
    view = next(o for o in executed[3].outputs if "data" in o and WIDGET in o.data)
    assert ">>  2 | if n > 1:" in view.data["text/plain"]
    assert not any(o.output_type == "error" for o in executed[4].outputs)


def test_widgets_are_stored_with_fallbacks(executed):
    for i in (5, 7, 8, 9):
        result = next(o for o in executed[i].outputs if o.output_type == "execute_result")
        assert WIDGET in result.data and "text/html" in result.data, i
    assert "cos" in executed[5].outputs[0].data["text/plain"]
    assert "function: misses / hits" in executed[7].outputs[0].data["text/plain"]
    # the default backend's device (the tour's cell chooses it: numpy:0 on the NumPy backend)
    assert f"{jxkernel.default_backend()}:0" in executed[8].outputs[0].data["text/plain"]


def test_timeit_in_a_kernel(executed):
    assert "per loop" in _texts(executed[6])
