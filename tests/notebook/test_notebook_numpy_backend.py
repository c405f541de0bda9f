"""`%jxbackend numpy`: later jit calls, %%jit cells and eager operations run on the NumPy
backend, with the same notes and compile record as on XLA's; `%jxbackend cpu` goes back."""
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("IPython")


from jxkernel import config  # noqa: E402
from ipython_shell import ok_cell, shell_fixture  # noqa: E402
from fresh_process import NO_JAXLIB, run_json  # noqa: E402
import locations  # noqa: E402  tests/support: the repository's folders
from learner_mistakes_cases import APART  # noqa: E402  tests/data
from numerics import assert_allclose_ulp  # noqa: E402

# loaded anew, and unloaded after (which gives the device options back as they were)
shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True, scope="module")


@pytest.fixture(autouse=True, scope="module")
def numpy_backend_stopped_after():
    """%jxbackend numpy starts the NumPy backend in this process; later tests in the same
    worker see the backends as a process that never chose it does."""
    from jxkernel.xla import client
    started = "numpy" in client._backends
    yield
    if not started and config.jax_platforms != "numpy":
        client._backends.pop("numpy", None)


def platform_of(shell, name):
    return shell.user_ns[name].device.platform


def test_jxbackend_numpy_runs_jit_cells_and_eager_ops_there(shell):
    note, _ = ok_cell(shell, "%jxbackend numpy")
    assert "numpy" in repr(note) and config.jax_default_device.platform == "numpy"
    ok_cell(shell, "f = jax.jit(lambda v: jnp.sin(v) * 2)\nx = jnp.arange(3.0)\ny = f(x)\n"
              "e = jnp.cos(x) + 1\ng = jax.grad(lambda v: jnp.sum(v ** 2))(x)")
    assert {platform_of(shell, n) for n in ("x", "y", "e", "g")} == {"numpy"}
    np.testing.assert_allclose(np.asarray(shell.user_ns["y"]), np.sin([0, 1, 2]) * 2,
                               rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(shell.user_ns["g"]), [0.0, 2.0, 4.0])
    _, shown = ok_cell(shell, "%%jit\nz = x * 3")
    assert platform_of(shell, "z") == "numpy"
    # (its note: traced, the NumPy backend compiles nothing: test_notebook_numpy_views)
    assert any("⚙ traced cell[" in t and "numpy" in t for t in shown), shown
    ok_cell(shell, "y4 = f(jnp.arange(4.0))")               # a new shape: compiled again
    assert shell.user_ns["f"]._cache_size() == 2


@pytest.mark.skipif(config.jax_platforms == "numpy", reason="JAX_PLATFORMS=numpy: no cpu here")
def test_jxbackend_cpu_goes_back_to_xla(shell):
    ok_cell(shell, "%jxbackend numpy")
    ok_cell(shell, "%jxbackend cpu")
    ok_cell(shell, "w = jnp.arange(3.0) * 2")
    assert platform_of(shell, "w") == "cpu"


@pytest.mark.skipif(config.jax_platforms == "numpy", reason="JAX_PLATFORMS=numpy: no cpu here")
def test_a_selector_made_before_the_numpy_backend_started_follows_the_switch(shell):
    from jxkernel.xla import client
    ok_cell(shell, "%jxbackend cpu")
    client._backends.pop("numpy", None)          # a session that has not chosen it yet
    selector, _ = ok_cell(shell, "%jxbackend")
    assert "numpy:0" not in selector.devices
    ok_cell(shell, "%jxbackend numpy")                # was a TraitError: the dropdown had no numpy:0
    assert selector.dropdown.value == "numpy:0" and "* numpy:0" in str(selector)
    ok_cell(shell, "%jxbackend cpu")
    assert selector.dropdown.value == "cpu:0"


# Pyodide 0.27 has no ml_dtypes either (docs/teaching.md, "What is not there"): its import fails
# too, so the narrow dtypes are placeholders, as in the browser.
IN_PYODIDE = NO_JAXLIB + """
class _NoMlDtypes(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "ml_dtypes":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _NoMlDtypes())
"""

# The browser (JupyterLite's Pyodide) in a fresh CPython: jaxlib's and ml_dtypes' imports fail
# and sys.platform says emscripten (set after the imports, which read the real one). Runs `%jxbackend` and the
# tour's cells of sections 4 and 5 as the site runs them; prints what each showed.
IN_THE_BROWSER = """
import json, sys
from IPython.testing.globalipapp import start_ipython
from IPython.utils.capture import capture_output
shell = start_ipython()
shell.run_cell("%load_ext jxkernel\\nimport jxkernel as jax, jxkernel.numpy as jnp")
sys.platform = "emscripten"
ran = []
for cell in CELLS:
    with capture_output() as cap:
        result = shell.run_cell(cell)
    error = result.error_in_exec or result.error_before_exec
    ran.append({"error": repr(error) if error else None,
                "shown": cap.stdout + cap.stderr + "".join(o.data.get("text/plain", "")
                                                           for o in cap.outputs)})
from jxkernel import notebook
from jxkernel.notebook.comm import Channel
comm_backends = Channel(notebook._states[shell]).backends()   # the status bar's backend menu
print(json.dumps({"ran": ran, "n": shell.user_ns.get("n"), "comm_backends": comm_backends,
                  "device": repr(shell.user_ns["jax"].config.jax_default_device)}))
"""


def tour_cells(first: str, last: str) -> list:
    """The tour's code cells from the one starting with `first` to the one starting with `last`."""
    nb = json.loads((Path(locations.ROOT) / "demos/01_tour.ipynb").read_text())
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    start = next(i for i, s in enumerate(code) if s.startswith(first))
    end = next(i for i, s in enumerate(code) if s.startswith(last))
    return code[start:end + 1]


def test_jxbackend_in_the_browser_lists_numpy_says_why_xla_is_missing_and_switches():
    pytest.importorskip("ipywidgets")
    tour = tour_cells("@jax.jit", "f_jit(x, 2.0).devices()")
    cells = ["f_jit = jax.jit(lambda x, y: jnp.sin(x) * y)\nx = jnp.arange(4.0)", "%jxbackend",
             "%jxbackend cpu", "%jxbackend numpy", *tour]
    got = run_json(IN_PYODIDE + f"CELLS = {cells!r}\n" + IN_THE_BROWSER, {"JAX_PLATFORMS": ""})
    ran = {cell: r for cell, r in zip(cells, got["ran"])}
    listed = ran["%jxbackend"]
    assert listed["error"] is None, listed
    why = ("cpu, gpu, tpu: unavailable — XLA's backends (cpu, gpu, tpu) do not run in the "
           "browser: jaxlib has no build for Pyodide (WebAssembly)")
    assert "* numpy:0  NumpyDevice(id=0)" in listed["shown"] and why in listed["shown"], listed
    assert listed["shown"].count("unavailable") == 1                  # one line for XLA's three
    # a backend that does not run here is refused, naming why; the numpy backend is chosen
    assert "UsageError" in ran["%jxbackend cpu"]["error"]
    assert "do not run in the browser" in ran["%jxbackend cpu"]["error"]
    assert "run on numpy:0 now" in ran["%jxbackend numpy"]["shown"]
    # the tour: its sizes from the backend, its cells without an error, the switch to numpy
    assert got["n"] == 200
    assert [(c[:30], r["error"]) for c, r in zip(cells, got["ran"]) if c in tour
            and r["error"]] == []
    (timed,) = [r for c, r in ran.items() if c.startswith("%timeit")]
    assert "per loop" in timed["shown"] and "dispatch only:" in timed["shown"]
    assert "The numpy backend has no async dispatch" in timed["shown"]
    (where,) = [r for c, r in ran.items() if "%jxbackend $where" in c]
    assert "run on numpy:0 now" in where["shown"], where
    assert "{NumpyDevice(id=0)}" in ran[tour[-1]]["shown"]
    assert got["device"] == "NumpyDevice(id=0)"
    # the status bar's menu (the comm): numpy available, XLA's three not, each saying why
    menu = {b["name"]: b for b in got["comm_backends"]}
    assert menu["numpy"]["available"] and menu["numpy"]["devices"] == ["numpy:0"]
    assert all("do not run in the browser" in menu[p]["hint"] for p in ("cpu", "gpu", "tpu"))


def test_under_jax_platforms_numpy_the_selector_says_what_brings_xla_back():
    # JAX's refusal ("Unknown backend cpu. Available backends are ['numpy']") names neither
    # the setting nor what to do; `%jxbackend cpu` is refused there too
    pytest.importorskip("ipywidgets")
    missing = run_json("import json\nfrom jxkernel.notebook.widgets.backend import BackendSelector"
                       "\nprint(json.dumps(BackendSelector().missing))", {"JAX_PLATFORMS": "numpy"})
    assert missing["cpu"] == ("JAX_PLATFORMS='numpy' leaves it out: set JAX_PLATFORMS=cpu (or "
                              "unset it) and restart, or jax.config.update('jax_platforms', 'cpu')")
    assert all("JAX_PLATFORMS='numpy' leaves it out" in missing[p] for p in ("gpu", "tpu"))


# A learner's mistakes in the browser (the cells of the JupyterLite trial, docs/teaching.md "A
# room with no server"), each with what it must show there as on XLA: a card, a note, a result
LEARNER_CELLS = {
    "key = jax.random.key(0)\na = jax.random.normal(key, (2,))\nb = jax.random.normal(key, (2,))\n"
    "print(bool((a == b).all()))": "True",           # JAX's too (key_reused_same_numbers)
    "print(jax.nn.relu(jnp.array([-1.0, -0.0, 2.0])))": "[0. 0. 2.]",
    "x = jnp.zeros(3)\nx[0] = 1": "x = x.at[0].set(1)",
    "@jax.jit\ndef f(x):\n  print('x is', x)\n  return x\nf(2.0)": "print ran while tracing",
    "@jax.jit\ndef relu_if(x):\n  if x > 0:\n    return x\n  return 0.0\nrelu_if(3.0)":
        "return jnp.where(x > 0, x, 0.0)",
    "xs = jnp.ones((2, 5)); ws = jnp.ones((2, 3))\njax.vmap(jnp.convolve, in_axes=(0,))(xs, ws)":
        "in_axes=(0, 0)",
    "jax.grad(lambda x: x ** 2)(3)": "jax.grad(lambda x: x ** 2)(3.0)",
    "jax.lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(3.0))":
        "jax.lax.scan(lambda c, x: (c + x, c), jnp.asarray(0, jnp.float32), jnp.arange(3.0))",
    "g = jax.jit(lambda v: v * 2)\ng(jnp.ones(3))\ng(jnp.ones(4))\n%jxcompiles":
        "v: f32[3] -> f32[4] — trace",
}


def test_a_learners_mistakes_in_the_browser_get_their_cards_and_notes():
    # the reused key's draw was a TypeError from jxkernel's own code there ('<float8_e8m0fnu:
    # needs ml_dtypes>': the NumPy rule of max read ml_dtypes' dtype), shown with no card
    cells = list(LEARNER_CELLS)
    got = run_json(IN_PYODIDE + f"CELLS = {cells!r}\n" + IN_THE_BROWSER, {"JAX_PLATFORMS": ""})
    for (cell, expected), ran in zip(LEARNER_CELLS.items(), got["ran"]):
        assert expected in ran["shown"], (cell, ran)
        assert "Traceback" not in ran["shown"] and "jxkernel/" not in ran["shown"], (cell, ran)
    errors = [r["error"] and r["error"].partition("(")[0] for r in got["ran"]]
    assert errors == [None, None, "TypeError", None, "TracerBoolConversionError", "ValueError",
                      "TypeError", None, None]
    # %jxcompiles' text: the NumPy backend compiles nothing, its misses are traced (miss_words)
    assert "(traced, numpy)" in got["ran"][-1]["shown"]


def test_the_learner_mistake_cases_say_what_jax_says_in_the_browser():
    """tests/data/learner_mistakes_cases.py on the NumPy backend with no jaxlib and no ml_dtypes,
    as in Pyodide: the errors, classes and first lines JAX 0.10.2 gives (the same comparison
    as tests/notebook/test_learner_mistakes.py's on XLA)."""
    code = IN_PYODIDE + (
        "import json, numpy as np, jxkernel\nfrom learner_mistakes_cases import run\n"
        "ours = run(jxkernel)\nassert jxkernel.devices()[0].platform == 'numpy'\n"
        "print(json.dumps(ours, default=lambda v: np.asarray(v).tolist()))")
    ours = run_json(code, {"JAX_PLATFORMS": ""})
    jax = locations.recorded("learner_mistakes_reference.json")
    for case, said in jax.items():
        if case.startswith(APART):        # recorded apart from `run`: not in ours
            continue
        mine = ours[case]
        if case.startswith("nprandom_") and not case.endswith("_fixed"):   # our module's name
            mine = {**mine, "first_line": mine["first_line"].replace("jxkernel.", "jax.")}
        if case.startswith(("nprandom_", "card_random_")) and case.endswith("_fixed") and \
                np.asarray(said).dtype.kind == "f":       # normal's erfinv: 4 ulps
            assert_allclose_ulp(np.asarray(mine, np.float32), np.asarray(said, np.float32), 4,
                                err_msg=case)
        else:
            assert mine == said, case
