from test_labextension_browser import cell, expect, notebook_fixtures, shot_view

NOTEBOOK = [
    "%load_ext jxkernel\nimport jxkernel as jax, jxkernel.numpy as jnp, numpy as np",
    "x = jnp.arange(5)\nx.at[0].set(10)\nprint(x)",
    "def f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.)\njax.grad(f)(0.)",
    "x[np.array([3, 11])]",
]
server, console, page = notebook_fixtures("shots.ipynb", NOTEBOOK, {1: "jx-note", 2: "jx-note", 3: "jx-note"})


def test_shots(page, request):
    for i in (1, 2, 3):
        c = cell(page, i)
        note = c.locator("details.jx-note")
        expect(note).to_have_count(1)
        shot_view(c, request, f"{i}-closed")
        note.locator("summary").click()
        shot_view(c, request, f"{i}-open")
