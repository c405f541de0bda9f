"""The IPython extension in a real InteractiveShell: every magic and option, cache hits and
misses with their reasons, outputs written back, errors at cell lines (and the shell still
usable after them), an honest %timeit, and the widgets the magics return."""
import re
import time
import warnings

import numpy as np
import pytest

pytest.importorskip("IPython")
pytest.importorskip("ipywidgets")

from IPython.core.error import UsageError  # noqa: E402

import jxkernel  # noqa: E402
from jxkernel import compile_log, config  # noqa: E402
from jxkernel.notebook import state_of  # noqa: E402
from jxkernel.notebook.program import CellError  # noqa: E402
from numerics import ELEMENTWISE, assert_allclose_ulp  # noqa: E402
from fresh_process import assert_pytest_passes, run_code  # noqa: E402
from ipython_shell import shell_fixture, ran_ok as ok, run_cell as run  # noqa: E402
from note_words import here  # noqa: E402  (tests/support)
import gpu_tier  # noqa: E402  (tests/support)


shell = shell_fixture("import numpy as np\nimport jxkernel as jax\nimport jxkernel.numpy as jnp\n"
                      "from jxkernel import lax", store_history=True)


def events_of(label):
    return [e for e in compile_log.compile_events() if e.function == label]


# ================================================================== loading
def test_import_jxkernel_stays_free_of_ipython():
    code = ("import sys, jxkernel, jxkernel._ipython_ext\n"
            "bad = [m for m in ('IPython', 'ipywidgets', 'plotly', 'anywidget', 'nbformat')\n"
            "       if m in sys.modules]\n"
            "assert not bad, bad")
    run_code(code, timeout=120)


def test_load_ext_and_the_workshop_leave_nbformat_and_plotly_unloaded():
    # nbformat only writes the instructors' notebooks (workshop/solutions.py); plotly (which
    # imports nbformat) costs seconds and loads on the recompilation view's first `timeline`
    code = ("import sys\n"
            "from IPython.core.interactiveshell import InteractiveShell\n"
            "InteractiveShell.instance().run_line_magic('load_ext', 'jxkernel')\n"
            "from jxkernel.notebook.workshop import check, solutions\n"
            "bad = [m for m in ('nbformat', 'plotly') if m in sys.modules]\n"
            "assert not bad, bad")
    run_code(code, timeout=120)


def test_load_twice_is_harmless_and_unload_restores_timeit(shell):
    manager = shell.magics_manager
    ours = manager.magics["line"]["timeit"]
    assert type(ours.__self__).__name__ == "TimingMagics"
    jit_cell = manager.magics["cell"]["jit"]
    from jxkernel.notebook import load_ipython_extension, unload_ipython_extension
    load_ipython_extension(shell)                      # again: nothing changes
    assert manager.magics["line"]["timeit"] is not None
    assert manager.magics["line"]["timeit"].__self__ is ours.__self__
    assert manager.magics["cell"]["jit"].__self__ is jit_cell.__self__
    unload_ipython_extension(shell)
    try:
        for kind in ("line", "cell"):
            assert type(manager.magics[kind]["timeit"].__self__).__name__ == "ExecutionMagics"
        assert "jit" not in manager.magics["cell"] and "jxcompiles" not in manager.magics["line"]
        from jxkernel.notebook.magics import MAGIC_CLASSES
        for cls in MAGIC_CLASSES:           # each magic of each class, %jxbugs among them
            for kind, names in cls.magics.items():
                assert not set(names) & {n for n, f in manager.magics[kind].items()
                                         if isinstance(getattr(f, "__self__", None), cls)}
        assert "__jx_block__" not in shell.user_ns
        assert state_of(shell) is None
        ran = run(shell, "%timeit -n 1 -r 1 pass")
        assert ran.error is None and "per loop" in ran.stdout
    finally:
        load_ipython_extension(shell)
    assert type(manager.magics["line"]["timeit"].__self__).__name__ == "TimingMagics"


def test_load_ext_jxkernel_by_its_package_name():
    if not hasattr(jxkernel, "load_ipython_extension"):
        pytest.skip("jxkernel/__init__.py does not re-export the extension hooks yet")
    assert jxkernel.load_ipython_extension.__module__ == "jxkernel._ipython_ext"


def test_magics_have_magic_arguments_help(shell):
    doc = shell.find_cell_magic("jit").__doc__
    for option in ("--static", "--donate", "--backend", "--quiet", "--show"):
        assert option in doc
    assert "--dispatch" in shell.find_line_magic("timeit").__doc__
    ran = run(shell, "%%jit --nope\nx = 1")
    assert isinstance(ran.error, UsageError)


# ================================================================== %%jit
def test_jit_cell_writes_outputs_back_and_displays_the_last_expression(shell):
    ok(shell, "a1 = jnp.arange(3.0)\nn1 = 2.0")
    ran = ok(shell, "%%jit\nb1 = a1 * n1\nc1 = jnp.sin(b1)\nc1 + 1")
    ns = shell.user_ns
    np.testing.assert_allclose(np.asarray(ns["b1"]), [0, 2, 4])
    sin = np.sin(np.float64([0, 2, 4]))                   # float64, rounded once (worst seen 0)
    assert_allclose_ulp(np.asarray(ns["c1"]), sin.astype(np.float32), ELEMENTWISE)
    assert_allclose_ulp(np.asarray(ran.result), (sin + 1).astype(np.float32), ELEMENTWISE)
    assert isinstance(ns["c1"], jxkernel.Array)
    assert ran.shown(here("⚙ compiled cell["))


def test_rerun_hits_the_cache_and_changes_recompile_with_the_reason(shell):
    ok(shell, "a2 = jnp.ones(3)\nk2 = 2.0")
    body = "%%jit\nb2 = a2 * k2\nb2"
    first = ok(shell, body)
    label = re.search(here(r"compiled (cell\[\d+\])"), first.texts[0]).group(1)
    program = next(m for m in state_of(shell).magics if hasattr(m, "programs")).programs
    jitted = next(p.jitted for p in program.values() if p.label == label)
    hits = compile_log.cache_hits(jitted)

    again = ok(shell, body)
    assert not again.shown("compiled"), again.texts          # a hit: nothing to say
    assert compile_log.cache_hits(jitted) == hits + 1
    assert len(events_of(label)) == 1

    ok(shell, "a2 = jnp.ones(4)")
    grown = ok(shell, body)
    assert grown.shown(here(f"recompiled {label} because a2: f32[3] -> f32[4]"))
    ok(shell, "a2 = jnp.ones(4, jnp.int32)")
    assert ok(shell, body).shown("-> i32[4]")    # against the closest earlier signature
    ok(shell, "k2 = 3")                                   # Python float -> Python int: weak i32
    assert ok(shell, body).shown("k2: f32[] -> i32[]")
    assert [e.reason for e in events_of(label)][0] == "first call"
    assert len(events_of(label)) == 4


def test_static_inputs_recompile_per_value(shell):
    ok(shell, "a3 = jnp.ones(2)\nk3 = 3")
    body = "%%jit --static k3\nb3 = a3\nfor i3 in range(k3):\n    b3 = b3 * 2\nb3"
    ran = ok(shell, body)
    np.testing.assert_allclose(np.asarray(ran.result), [8, 8])
    assert ok(shell, body).texts == []                    # cached
    ok(shell, "k3 = 4")
    ran = ok(shell, body)
    assert ran.shown("because static k3: 3 -> 4")
    np.testing.assert_allclose(np.asarray(ran.result), [16, 16])


def test_print_runs_only_while_tracing_and_the_user_is_told(shell):
    ok(shell, "a4 = jnp.ones(3)")
    body = "%%jit\nprint('seen:', a4)\nb4 = a4 + 1"
    ran = ok(shell, body)
    printed = ran.shown("print() ran while tracing")
    assert printed and "seen: JitTracer(float32[3])" in printed[0]
    assert "seen:" not in ran.stdout                       # shown once, inside the note
    again = ok(shell, body)
    assert again.shown("print() did not run") and "seen:" not in again.stdout


def test_quiet_says_nothing(shell):
    ok(shell, "a5 = jnp.ones(3)")
    ran = ok(shell, "%%jit --quiet\nprint('tracing')\nb5 = a5 * 2")
    assert ran.texts == [] and "tracing" not in ran.stdout


def test_python_if_on_a_traced_scalar_points_at_the_line_and_suggests_static(shell):
    ok(shell, "a6 = jnp.ones(3)\nn6 = 2.0")
    ran = run(shell, "%%jit\nb6 = a6 * 2\nif n6 > 0:\n    b6 = b6 + 1\nb6")
    err = ran.error
    assert isinstance(err, CellError)
    assert isinstance(err.original, jxkernel.TracerBoolConversionError)
    assert err.line == 3 and err.code == "if n6 > 0:"
    assert "--static n6" in err.hint
    assert "TracerBoolConversionError" in ran.stdout and "line 3: if n6 > 0:" in ran.stdout
    assert "Traceback" not in ran.stdout                  # no trip through jxkernel's internals
    view = [o for o in ran.outputs if "traced vs static" in o["text/plain"]]
    assert view and ">>  3 | if n6 > 0:" in view[0]["text/plain"]
    assert "jx-bad" in view[0]["text/html"]
    # the shell is fine, and the suggested fix works
    ran = ok(shell, "%%jit --static n6\nb6 = a6 * 2\nif n6 > 0:\n    b6 = b6 + 1\nb6")
    np.testing.assert_allclose(np.asarray(ran.result), [3, 3, 3])


def test_python_if_on_a_traced_array_suggests_cond(shell):
    ok(shell, "a7 = jnp.ones(3)")
    ran = run(shell, "%%jit\nif a7[0] > 0:\n    b7 = a7\nelse:\n    b7 = -a7")
    assert ran.error.line == 2
    assert "a7 is traced" in ran.error.hint and "lax.cond" in ran.error.hint
    ran = ok(shell, "%%jit\nb7 = lax.cond(a7[0] > 0, lambda: a7, lambda: -a7)")
    np.testing.assert_allclose(np.asarray(shell.user_ns["b7"]), [1, 1, 1])


def test_numpy_on_a_traced_value_says_jax_numpy_as_the_learner_spells_it(shell, monkeypatch):
    """The hint names jax.numpy where the learner's `jax` is jxkernel: `import jxkernel as
    jax` (this shell) and install_as_jax's alias (`import jax` in the kernel "JAX on
    jxkernel") alike; jxkernel.numpy only for a learner whose jxkernel is `jxkernel`."""
    from jxkernel.as_jax import _jax_module
    ok(shell, "a30 = jnp.ones(3)")
    cell = "%%jit\nb30 = np.sin(a30)"
    hints = {}
    for spelling, names in [("as", {}), ("alias", {"jax": _jax_module()}),
                            ("jxkernel", {"jax": None, "jxkernel": jxkernel})]:
        for name, value in names.items():
            monkeypatch.setitem(shell.user_ns, name, value)
        ran = run(shell, cell)
        assert isinstance(ran.error.original, jxkernel.errors.TracerArrayConversionError)
        hints[spelling] = ran.error.hint
    jax_numpy = "NumPy functions cannot run on traced values: use jax.numpy (jnp) on them instead."
    assert hints == {"as": jax_numpy, "alias": jax_numpy,
                     "jxkernel": jax_numpy.replace("jax.numpy", "jxkernel.numpy")}


def test_error_inside_a_function_from_an_earlier_cell(shell):
    ok(shell, "def f8(x, n):\n    if n > 1:\n        return x * n\n    return x\na8 = jnp.ones(2)\n"
              "n8 = 2.0")
    ran = run(shell, "%%jit\nb8 = f8(a8, n8)")
    err = ran.error
    assert err.line == 2 and err.code == "if n > 1:"          # the call, and the line in f8
    assert len(err.where) == 2 and "in f8" in err.where[1]
    assert re.search(r"cell\[\d+\], line 2 -> In\[\d+\], line 2, in f8: if n > 1:", ran.stdout)


def test_other_errors_are_reported_too_and_the_shell_keeps_going(shell):
    ran = run(shell, "%%jit\nb9 = undefined_name_9 + 1")
    assert isinstance(ran.error, CellError) and "NameError" in str(ran.error)
    assert ran.error.line == 2
    ok(shell, "z9 = 1 + 1")
    assert shell.user_ns["z9"] == 2


def test_pytrees_grad_and_closures_over_earlier_cells(shell):
    ok(shell, "p10 = {'w': jnp.ones((3, 3)), 'b': jnp.zeros(3)}\nx10 = jnp.arange(3.0)\n"
              "def loss10(p, x):\n    return jnp.sum(jnp.tanh(p['w'] @ x + p['b']) ** 2)")
    body = ("%%jit\ng10 = jax.grad(loss10)(p10, x10)\n"
            "p10 = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, p10, g10)\nloss10(p10, x10)")
    ns = shell.user_ns
    before = float(jxkernel.jit(ns["loss10"])(ns["p10"], ns["x10"]))
    first = ok(shell, body)
    second = ok(shell, body)                              # a hit, with the updated params
    assert not second.shown("compiled")
    assert float(second.result) < float(first.result) < before
    assert set(shell.user_ns["p10"]) == {"w", "b"} and shell.user_ns["p10"]["w"].shape == (3, 3)
    # redefining the function an earlier cell made recompiles (it is a static input)
    ok(shell, "def loss10(p, x):\n    return jnp.sum(p['w'] @ x)")
    assert ok(shell, body).shown("because static loss10:")


def test_vmap_and_control_flow_in_a_cell(shell):
    ok(shell, "x11 = jnp.arange(4.0)")
    ran = ok(shell, "%%jit\nys11 = jax.vmap(lambda v: v * 2)(jnp.stack([x11, x11]))\n"
                    "s11 = lax.fori_loop(0, 3, lambda i, acc: acc + x11, jnp.zeros(4))\n"
                    "ys11.sum() + s11.sum()")
    assert float(ran.result) == pytest.approx(2 * 2 * 6 + 3 * 6)


def test_non_array_inputs_are_static_and_non_array_outputs_come_back(shell):
    ok(shell, "mode12 = 'double'\nx12 = jnp.ones(2)")
    body = ("%%jit\ndef helper12(v):\n    return v * 2 if mode12 == 'double' else v\n"
            "y12 = helper12(x12)\nlabel12 = mode12.upper()")
    ok(shell, body)
    assert shell.user_ns["label12"] == "DOUBLE" and callable(shell.user_ns["helper12"])
    del shell.user_ns["label12"]
    ok(shell, body)                                       # cached: static outputs still return
    assert shell.user_ns["label12"] == "DOUBLE"
    ok(shell, "bad12 = ['a', 'list']")
    ran = run(shell, "%%jit\ny12 = x12 if bad12 else x12")
    assert isinstance(ran.error, UsageError) and "unhashable" in str(ran.error)


def test_jit_cell_syntax_error_names_the_cell_and_line(shell):
    ran = run(shell, "%%jit\nsx1 = jnp.ones(3)\nsx2 = sx1 +")
    number = shell.execution_count - 1                   # the failed cell's prompt number
    assert isinstance(ran.error, UsageError)
    # the cell and its line as the notebook numbers them (the %%jit line is line 1) with a
    # caret, as IPython says a cell's SyntaxError; not ast's "(<unknown>, line 3)"
    assert str(ran.error) == (f"%%jit: the cell is not valid Python: invalid syntax, at "
                              f"In[{number}], line 3:\n    sx2 = sx1 +\n               ^")
    ok(shell, "sx3 = 1")                                 # the shell goes on


def test_donate(shell):
    ok(shell, "x13 = jnp.ones(1000)\nkeep13 = x13")
    ok(shell, "%%jit --donate x13\nx13 = x13 + 1")
    assert shell.user_ns["keep13"].is_deleted()
    np.testing.assert_allclose(np.asarray(shell.user_ns["x13"])[:2], [2, 2])
    ran = run(shell, "%%jit --donate nothere13\ny13 = x13")
    assert isinstance(ran.error, UsageError) and "not an input" in str(ran.error)


@pytest.mark.xla_only("CPU platform")
def test_backend_option(shell):
    ok(shell, "x14 = jnp.ones(2)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ran = ok(shell, "%%jit --backend cpu\ny14 = x14 * 2")
    assert ran.shown("for cpu")
    # the magic's option, not jit's deprecated backend= (JAX's DeprecationWarning naming
    # jxkernel's file)
    assert [w for w in caught if issubclass(w.category, DeprecationWarning)] == []
    if "gpu" not in {d.platform for d in _all_devices()}:
        ran = run(shell, "%%jit --backend gpu\ny14 = x14 * 2")
        assert isinstance(ran.error, UsageError) and "pip install" in str(ran.error)


def _all_devices():
    out = []
    for p in ("cpu", "gpu", "tpu"):
        try:
            out += jxkernel.devices(p)
        except (RuntimeError, ValueError):
            pass
    return out


def test_show_static_jaxpr_and_hlo(shell):
    ok(shell, "x15 = jnp.ones(3)\nn15 = 2\nname15 = 'sin'")
    ran = ok(shell, "%%jit --show all --static n15\n"
                    "y15 = jnp.sin(x15) * n15 if name15 == 'sin' else x15\ny15")
    static = ran.shown("traced vs static")[0]
    assert "traced  x15: f32[3]" in static and "static  n15: 2" in static
    assert "static  name15: 'sin'" in static and "outputs: y15: f32[3]" in static
    jaxpr = ran.shown("jaxpr of cell[")[0]
    assert "sin" in jaxpr and "equations per primitive" in jaxpr
    assert re.search(r"# In\[\d+\]:2", jaxpr)                 # the cell line of each equation
    hlo = ran.shown("HLO of cell[")[0]
    assert "stablehlo.sine" in hlo and "transcendentals" in hlo
    assert isinstance(run(shell, "%%jit --show nonsense\ny15 = x15").error, UsageError)


@pytest.mark.xla_only("XLA text")
def test_show_all_has_the_optimized_hlo(shell):
    ok(shell, "x15b = jnp.ones(3)")
    ran = ok(shell, "%%jit --show all\ny15b = jnp.sin(x15b)")
    assert "HloModule" in ran.shown("HLO of cell[")[0]


def test_edited_cell_with_an_id_says_so(shell):
    ok(shell, "x16 = jnp.ones(2)")
    ok(shell, "%%jit\ny16 = x16 * 2", cell_id="cell-16")
    ran = ok(shell, "%%jit\ny16 = x16 * 3", cell_id="cell-16")
    assert ran.shown("the cell's source changed")
    np.testing.assert_allclose(np.asarray(shell.user_ns["y16"]), [3, 3])


def test_the_same_text_in_another_cell_is_that_cells(shell):
    """JupyterLab's cells have ids: the same expression typed in a second cell is traced and
    named there (its lines said the first cell's, whose program it reused); the first cell
    run again keeps its own."""
    ok(shell, "x16c = jnp.ones(2)")
    first = ok(shell, "%jaxpr jnp.sin(x16c) * 2", cell_id="cell-16a")
    second = ok(shell, "%jaxpr jnp.sin(x16c) * 2", cell_id="cell-16b")
    again = ok(shell, "%jaxpr jnp.sin(x16c) * 2", cell_id="cell-16a")
    assert f"In[{first.count}]:1" in first.result.text, first.result.text
    assert f"In[{second.count}]:1" in second.result.text, second.result.text
    assert f"In[{first.count}]:1" in again.result.text, again.result.text


def test_a_line_magic_below_other_lines_names_its_own_line_of_the_cell(shell):
    """`%jaxpr ...` on line 3 of a cell: its expression's lines are the cell's line 3 (the
    jaxpr's source lines, the error's line, a compile note's "at In[n]:3"), not line 1 (it
    was cached as a source of its own, whose line 1 it is)."""
    ok(shell, "h16d = jax.jit(lambda v: v + 1)\nh16d(jnp.ones(2))")
    made = ok(shell, "x16d = jnp.ones(3)\ny16d = 2.0\n%jaxpr jnp.sin(x16d) * y16d")
    n = made.count
    assert f"# In[{n}]:3 (cell[{n}])" in made.result.text, made.result.text
    assert f"In[{n}]:1" not in made.result.text
    failed = run(shell, "x16d = jnp.ones(3)\n\n%jaxpr len(undefined_16d)")
    assert isinstance(failed.error, CellError)
    assert f"NameError in In[{failed.count}], line 3: len(undefined_16d)" in failed.printed, \
        failed.printed
    # a call of a jitted function on the magic's line, compiled again there
    noted = ok(shell, "v16d = jnp.ones(5)\n%jaxpr jnp.sin(h16d(v16d))")
    (note,) = noted.notes
    assert here(f"(compile #2, at In[{noted.count}]:2)") in note["text/plain"], note["text/plain"]
    assert f"called at In[{noted.count}]:2:  jnp.sin(h16d(v16d))" in note["text/plain"]
    # alone in its cell, line 1 as before
    alone = ok(shell, "%jaxpr jnp.cos(x16d)")
    assert f"# In[{alone.count}]:1 " in alone.result.text, alone.result.text


# ================================================================== %jaxpr, %%jaxpr, %hlo
def test_jaxpr_of_a_call(shell):
    ok(shell, "def f17(x, y):\n    return jnp.sin(x) * y\nx17 = jnp.ones(3)")
    viewer = ok(shell, "%jaxpr f17(x17, 2.0)").result
    assert type(viewer).__name__ == "JaxprViewer"
    assert viewer.counts["sin"] == 1 and viewer.counts["mul"] == 1
    assert "a:f32[3] b:f32[]" in viewer.text                # 2.0 is traced, as in make_jaxpr
    assert re.search(r"# In\[\d+\]:2 \(f17\)", viewer.text)
    viewer = ok(shell, "%jaxpr f17(x17, y=2)").result       # keyword arguments too
    assert viewer.counts["mul"] == 1 and "b:i32[]" in viewer.text
    viewer = ok(shell, "%jaxpr jax.grad(lambda v: jnp.sum(f17(v, 3.0)))(x17)").result
    assert "cos" in viewer.counts
    viewer = ok(shell, "%jaxpr x17 * 2 + 1").result           # an expression
    assert viewer.counts["mul"] == 1 and viewer.counts["add"] == 1


def test_jaxpr_cell_is_traced_not_run(shell):
    ok(shell, "x18 = jnp.ones(2)")
    viewer = ok(shell, "%%jaxpr\ny18 = jnp.cos(x18)\nprint('hi')").result
    assert viewer.counts == {"cos": 1}
    assert "y18" not in shell.user_ns
    assert isinstance(run(shell, "%jaxpr").error, UsageError)


def test_jaxpr_errors_point_at_the_cell(shell):
    ok(shell, "def f19(x):\n    if x > 0:\n        return x\n    return -x")
    ran = run(shell, "%jaxpr f19(jnp.ones(()))")
    assert isinstance(ran.error, CellError) and ran.error.code == "if x > 0:"
    assert "lax.cond" in ran.error.hint


def test_jaxpr_of_a_jitted_function_keeps_its_static_arguments(shell):
    ok(shell, "from functools import partial\n@partial(jax.jit, static_argnums=1)\n"
              "def g27(x, n):\n    return x * n if n > 1 else x\nx27 = jnp.ones(3)")
    viewer = ok(shell, "%jaxpr g27(x27, 3)").result
    assert viewer.counts == {"mul": 1} and "mul a 3.0:f32[]" in viewer.text   # n baked in


def test_traced_vs_static_of_a_function(shell):
    ok(shell, "def f28(x, n, scale=2.0, mode='sin'):\n    y = jnp.sin(x) * n\n"
              "    return y * scale\nx28 = jnp.ones(3)")
    view = ok(shell, "%jxtraced f28(x28, 3, mode='<cos>')").result
    assert type(view).__name__ == "CellView" and view.first_line == 1
    rows = {i["name"]: (i["kind"], i["detail"]) for i in view.inputs}
    assert rows == {"x": ("traced", "f32[3]"), "n": ("traced", "i32[] weak (Python int)"),
                    "scale": ("static", "default 2.0"), "mode": ("static", "'<cos>'")}
    assert view.outputs == [{"name": "returns", "detail": "f32[3]"}]
    assert "<span class='jx-traced' data-name='n'" in view.body_html     # marked in the source
    assert "&#x27;&lt;cos&gt;&#x27;" in view.body_html and "'<cos>'" not in view.body_html
    assert "  1 | def f28(x, n, scale=2.0, mode='sin'):" in view.text_repr()
    # a jitted function: its own static arguments
    view = ok(shell, "%jxtraced jax.jit(f28, static_argnames='n')(x28, 3)").result
    assert view.kind("n") == "static" and view.kind("x") == "traced"
    assert isinstance(run(shell, "%jxtraced len(x28)").error, UsageError)   # no source
    assert isinstance(run(shell, "%jxtraced x28 + 1").error, UsageError)   # not a call


def test_a_function_that_fails_to_trace_is_shown_with_its_line_marked(shell):
    ok(shell, "x29 = jnp.ones(2)\n\ndef f29(x, n):\n    y = x * 2\n    if n > 1:\n"
              "        y = y * n\n    return y")
    view = ok(shell, "%jxtraced f29(x29, 2)").result
    assert view.first_line == 3 and view.error["line"] == 3      # cell line 5: the `if`
    assert ">>  5 |     if n > 1:" in view.text_repr()
    assert "static_argnames='n'" in view.error["hint"] and "TracerBoolConversionError" in \
        view.error["message"]
    assert "jx-bad" in view.body_html
    ran = run(shell, "%jaxpr f29(x29, 2)")                    # %jaxpr shows the same view
    assert isinstance(ran.error, CellError) and ran.shown(">>  5 |     if n > 1:")
    assert "static_argnames='n'" in ran.error.hint
    assert "In[" in "".join(ran.error._render_traceback_()) and \
        "ipython-input" not in "".join(ran.error._render_traceback_())
    ok(shell, "def g29(x, n, mode):\n    return x * n if n > 1 else x")
    ran = run(shell, "%jaxpr g29(x29, 2, mode='<a>')")      # a static keyword argument too
    assert "make n static" in ran.error.hint and "static_argnames='n'" in ran.error.hint
    assert ran.shown("static  mode: '<a>'")


@pytest.mark.xla_only("XLA text")     # the NumPy backend's: test_notebook_numpy_views.py
def test_hlo(shell):
    ok(shell, "x20 = jnp.ones((4, 4))")
    view = ok(shell, "%hlo jnp.dot(x20, x20)").result
    assert "stablehlo.dot_general" in view.stablehlo
    assert "HloModule" in view.optimized
    assert view.cost.get("flops", 0) >= 2 * 4 * 4 * 4 - 16
    text = repr(view)
    assert "XLA cost analysis" in text and "flops" in text
    assert "&lt;" not in view._repr_mimebundle_()["text/plain"]


# ================================================================== %timeit
# The side of _slow_call's matrices. On a CPU, three 700x700 matmuls (2 GFLOP) take ~15-25
# ms, a thousand times the µs a run that does not wait takes; 1400 (16 GFLOP, ~0.2 s of CPU a
# call) spent 4 s of the file's 11 s of CPU on the ~18 calls of the two tests below. A GPU
# keeps 1400: 0.2 ms on an H200, where 700's 0.03 ms would be near the dispatch itself.
N = 1400 if gpu_tier.ON_GPU else 700


def _slow_call(shell):
    """A jitted computation taking far longer than its dispatch (three NxN matmuls), and its
    time measured directly; `slow_f` is left fresh, so that %timeit's first run compiles."""
    ok(shell, f"slow_x = jnp.ones(({N}, {N})) / {N}")
    f, x = jxkernel.jit(lambda a: ((a @ a) @ a) @ a), shell.user_ns["slow_x"]
    f(x).block_until_ready()
    times = []
    for _ in range(2):
        start = time.perf_counter()
        f(x).block_until_ready()
        times.append(time.perf_counter() - start)
    shell.user_ns["slow_f"] = jxkernel.jit(lambda a: ((a @ a) @ a) @ a)
    return min(times)


@pytest.fixture
def blocked(monkeypatch):
    """Records every Array that %timeit waits on (counting, not timing: the suite runs on a
    shared machine, so timings prove nothing there)."""
    from jxkernel.xla.array import Array
    seen = []
    original = Array.block_until_ready

    def recording(self):
        seen.append(self.shape)
        return original(self)
    monkeypatch.setattr(Array, "block_until_ready", recording)
    return seen


# async dispatch (returning before the result is ready) is XLA's runtime; the NumPy backend's
# %timeit: test_notebook_numpy_views.py
@pytest.mark.xla_only("XLA compiler")
def test_timeit_blocks_on_results_and_keeps_compilation_out(shell, blocked):
    direct = _slow_call(shell)
    before = len(events_of("<lambda>"))
    ran = ok(shell, "r21 = %timeit -o -n 1 -r 3 --dispatch slow_f(slow_x)")
    result = shell.user_ns["r21"]
    assert here("Compiled on the first run") in ran.stdout
    assert "not part of the timing" in ran.stdout
    assert len(events_of("<lambda>")) == before + 1          # compiled once, in the warm-up
    assert blocked.count((N, N)) >= 3                   # every timed run waited
    # (N: a call far longer than its dispatch, above) A timed run that waited takes
    # about as long as the call timed directly; one that did not, the time to queue the work
    # (µs). A fifth of the direct time leaves room for load on either side. (That
    # block_until_ready waits: tests/xla/test_runtime_execute.py, on the GPU too)
    assert result.best >= direct / 5, (direct, result.best)
    assert hasattr(result, "dispatch") and 0 < result.dispatch.best < result.best
    assert "dispatch only:" in ran.stdout and "per loop" in ran.stdout


def test_timeit_blocks_on_assigned_names_and_pytrees(shell, blocked):
    _slow_call(shell)
    ok(shell, "slow_f(slow_x).block_until_ready()")
    blocked.clear()
    ok(shell, "%timeit -q -n 1 -r 2 -v r22 out22 = {'a': [slow_f(slow_x)], 'b': slow_x + 1}")
    assert blocked.count((N, N)) >= 2 * 2               # both leaves, in both runs
    blocked.clear()
    ok(shell, "%%timeit -q -n 1 -r 2 -v r22b y22 = slow_x\nz22 = slow_f(y22)")
    assert blocked.count((N, N)) >= 2                   # z22 (a new result) in both runs


def test_timeit_keeps_ipython_options(shell):
    ran = ok(shell, "%timeit -n 3 -r 2 -p 2 1 + 1")
    assert "2 runs, 3 loops each" in ran.stdout
    ran = ok(shell, "r23 = %timeit -q -o -n 2 -r 2 1 + 1")
    assert ran.stdout == "" and shell.user_ns["r23"].loops == 2
    assert not hasattr(shell.user_ns["r23"], "dispatch")
    ran = ok(shell, "%%timeit -n 1 -r 1\nfor i23 in range(3):\n    pass")
    assert "1 loop each" in ran.stdout


def test_timeit_says_it_waited_where_jaxs_would_time_the_dispatch(shell):
    """Under JAX 0.10.2 `%timeit f(x)` of a jitted call does not wait for its work (measured in
    a real IPython kernel: 16.3 µs per loop for x @ x @ x on f32[1500,1500], 346 ms with
    .block_until_ready()), and counts it only as calls queue up (benchmarking.md's f_jit on
    f32[1000,1000]: 103 ms unblocked, 112 ms blocked; magics/timing.waited_line): one line
    says jxkernel waited, that JAX's does not, never that it times the dispatch alone, and
    what JAX's %timeit needs, where the statement waited for nothing itself."""
    ok(shell, "w25 = jax.jit(lambda v: v * 2)\nv25 = jnp.ones(3)")
    said = "jxkernel waited for each run's result; JAX's %timeit does not"
    ran = ok(shell, "%timeit -n 1 -r 1 w25(v25)")
    assert said in ran.stdout and "write `%timeit jax.block_until_ready(w25(v25))`." in ran.stdout
    assert "dispatch alone" not in ran.stdout and "can be far below this one" in ran.stdout
    # a train step's tuple has no .block_until_ready(); jax.block_until_ready takes any pytree
    ran = ok(shell, "%timeit -n 1 -r 1 (w25(v25), 'loss', print)")
    assert "write `%timeit jax.block_until_ready((w25(v25), 'loss', print))`." in ran.stdout
    assert said not in ok(shell, "%timeit -n 1 -r 1 jax.block_until_ready(w25(v25))").stdout
    assert said not in ok(shell, "%timeit -n 1 -r 1 w25(v25).block_until_ready()").stdout
    assert said not in ok(shell, "%timeit -n 1 -r 1 1 + 1").stdout       # no Array waited for
    assert ok(shell, "%timeit -q -n 1 -r 1 w25(v25)").stdout == ""
    ran = ok(shell, "%%timeit -n 1 -r 1\nu25 = w25(v25)")
    assert said in ran.stdout and "`jax.block_until_ready(...)` around its result" in ran.stdout


# ================================================================== backends and log
@pytest.mark.xla_only("CPU platform")
def test_backend_selector_and_switching(shell):
    from jxkernel.notebook.widgets.backend import BackendSelector
    selector = ok(shell, "%jxbackend").result
    assert isinstance(selector, BackendSelector)
    values = [v for _, v in selector.dropdown.options]
    default = f"{jxkernel.default_backend()}:0"             # gpu:0 in the GPU tier
    assert "cpu:0" in values and selector.dropdown.value == default
    from jxkernel.core.native import STATE               # the compiled fast path: on or why not
    assert f"fast path: {STATE}" in selector.text_repr() and STATE[:3] in selector.fastpath.value
    assert "fast path: " in selector.html_repr()
    for missing in set(("gpu", "tpu")) - {d.platform for d in _all_devices()}:
        assert missing in selector.missing and missing in selector.missing_html.value
        assert "install" in selector.missing[missing]
    try:
        selector.select("cpu:0")
        assert config.jax_platform_name == "cpu" and "cpu:0" in selector.status.value
        assert config.jax_default_device == jxkernel.devices("cpu")[0]
        ok(shell, "x24 = jnp.ones(2)")
        ran = ok(shell, "%%jit\ny24 = x24 * 2")
        assert ran.shown("for cpu:0")                          # the compile note says where
        note = ok(shell, "%jxbackend cpu").result
        assert "run on cpu:0" in repr(note)
        assert "* cpu:0" in selector.text_repr()
        assert isinstance(run(shell, "%jxbackend warp").error, UsageError)
        assert isinstance(run(shell, "%jxbackend cpu:99").error, UsageError)
    finally:
        state_of(shell).restore_config()
    assert config.jax_default_device is None and config.jax_platform_name is None


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("several devices")
def test_backend_choice_moves_later_work_in_a_two_device_process():
    """The selector's choice is where jit calls, %%jit cells and eager ops run (in a process
    with two CPU devices: tests/notebook/test_notebook_devices.py)."""
    assert_pytest_passes(["tests/notebook/test_notebook_devices.py"], {"JXKERNEL_CPU_DEVICES": "2"})


def test_recompilation_log_is_live(shell):
    ok(shell, "x25 = jnp.ones(2)")
    first = ok(shell, "%%jit\ny25 = x25 * 5")
    label = re.search(r"(cell\[\d+\])", first.texts[0]).group(1)
    log = ok(shell, f"%jxcompiles {label}").result
    assert type(log).__name__ == "RecompileLog"
    assert log.filter.value == label and all(e.function == label for e in log.shown())
    assert label in log.filter.options and "first call" in log.table.value
    ok(shell, "%%jit\ny25 = x25 * 5")                        # a hit: post_run_cell refreshes
    assert re.search(rf"{re.escape(label)}</b></td><td>1</td><td>1</td>", log.stats.value)
    ok(shell, "x25 = jnp.ones(3)")
    ok(shell, "%%jit\ny25 = x25 * 5")                        # a miss: the event arrives live
    assert [e.reason for e in log.shown()] == ["first call", "x25: f32[2] -> f32[3]"]
    assert "x25: f32[2] -&gt; f32[3]" in log.table.value
    assert log.figure is None                                # plotly only when asked for
    log.timeline_button.click()
    assert log.figure in log.children and log.timeline_button.layout.display == "none"
    first_trace, recompile_trace = log.figure.data
    assert len(first_trace.x) >= 1 and list(recompile_trace.y).count(label) == 1
    text = log.text_repr()
    assert f"{label}: 2 / 1" in text
    log.filter.value = "(all functions)"
    assert len(log.shown()) == len(compile_log.compile_events())
    log.close()
    n = len(log.events)
    ok(shell, "x25 = jnp.ones(4)")
    ok(shell, "%%jit\ny25 = x25 * 5")
    assert len(log.events) == n                              # unsubscribed


def test_compile_log_of_a_name_finds_its_function_or_says_it_is_unknown(shell):
    # a jitted function bound to another name is logged under its function's name: the log
    # of `step` showed "no compilations yet" after step had compiled
    ok(shell, "def update27(v):\n    return v * 2\nstep27 = jax.jit(update27)\nstep27(1.0)")
    log = ok(shell, "%jxcompiles step27").result
    assert log.filter.value == "update27" and [e.reason for e in log.shown()] == ["first call"]
    log.close()
    # a name neither logged nor defined: said so, not an empty log (it read "no compilations
    # yet", as if the function existed and would compile)
    ran = run(shell, "%jxcompiles nosuchfn27")
    assert type(ran.error).__name__ == "UsageError"
    assert str(ran.error).startswith("%jxcompiles nosuchfn27: no compilation of a function "
                                     "named 'nosuchfn27' is logged, and 'nosuchfn27' is not "
                                     "defined. Logged so far: ")
    assert "update27" in str(ran.error)
    ok(shell, "x27 = jnp.ones(2)")
    assert "'x27' is not a function (its type is ArrayImpl)" in str(run(shell, "%jxcompiles x27").error)
    # a lambda shares its name with every other lambda: the log of `grow` is grow's alone (it
    # listed the compiles of each jitted lambda of the session under "<lambda>")
    ok(shell, "other27 = jax.jit(lambda v: v * 3)\nother27(1.0)\n"
              "grow27 = jax.jit(lambda v: v.sum())\nfor n in range(1, 4):\n    grow27(jnp.ones(n))")
    log = ok(shell, "%jxcompiles grow27").result
    assert [e.reason for e in log.shown()][1:] == ["v: f32[1] -> f32[2]", "v: f32[1] -> f32[3]"]
    assert len(log.shown()) == 3 and log.filter.value.startswith("<lambda>@")
    # the filter shows the name typed, not the key (a temporary file's path)
    assert ("grow27 (<lambda>)", log.filter.value) in log.filter.options
    assert log.filter.label == "grow27 (<lambda>)"
    log.close()
    ok(shell, "def later27(v):\n    return v")        # defined, not compiled yet: its empty log
    log = ok(shell, "%jxcompiles later27").result
    assert log.shown() == [] and "no compilations yet" in log.table.value
    log.close()


# ================================================================== displays and escaping
def test_a_donated_array_shown_says_why_without_a_traceback(shell):
    # repr raises JAX's RuntimeError (as jax's Array); the notebook's display printed that as
    # a traceback through jxkernel/xla/array.py under the view
    ran = ok(shell, "donor28 = jax.jit(lambda s: s * 2, donate_argnums=0)\n"
                    "state28 = jnp.ones(3)\nnew28 = donor28(state28)\nstate28")
    assert "Traceback" not in ran.stdout and "array.py" not in ran.stdout, ran.stdout
    data, _ = shell.display_formatter.format(shell.user_ns["state28"])
    why = ("Array has been deleted with shape=float32[3]. It was donated to jit(<lambda>) as its "
           "argument 's': use that call's result in its place, or do not donate it.")
    assert data["text/plain"] == why
    assert "It was donated to jit(&lt;lambda&gt;)" in data["text/html"]
    data, _ = shell.display_formatter.format([jxkernel.numpy.arange(2.0),
                                              {"a": jxkernel.numpy.ones((2, 2))}])
    assert data["text/plain"] == ("[Array([0., 1.], dtype=float32),\n {'a': Array([[1., 1.],\n"
                                  "         [1., 1.]], dtype=float32)}]")


def test_rich_displays_for_jaxprs_and_arrays(shell):
    ran = ok(shell, "jax.make_jaxpr(lambda v: v * 2)(1.0)")
    bundle = ran.outputs[0] if ran.outputs else None
    formatter = shell.display_formatter
    data, _ = formatter.format(jxkernel.make_jaxpr(lambda v: v * 2)(1.0))
    assert "application/vnd.jupyter.widget-view+json" in data and "jx-viewer" in data["text/html"]
    assert "mul" in data["text/plain"]
    data, _ = formatter.format(jxkernel.numpy.array([1.0, 2.0, np.nan]))
    assert "min 1 · max 2" in data["text/html"] and "1 NaN" in data["text/html"]
    del bundle


def test_user_data_is_escaped_in_html(shell):
    ok(shell, "s26 = '<script>alert(1)</script>'\nx26 = jnp.ones(2)")
    ran = ok(shell, "%%jit --show static\nprint('<b>bold</b>')\ny26 = x26 if s26 else -x26")
    html = "".join(o.get("text/html", "") for o in ran.outputs)
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>bold</b>" not in html and "&lt;b&gt;bold&lt;/b&gt;" in html
    # a function named <script>: in the compile log and the jaxpr viewer
    ok(shell, "def evil26(v):\n    return v + 1\nevil26.__name__ = '<script>x</script>'\n"
              "jevil26 = jax.jit(evil26)\nout26 = jevil26(1.0)")
    log = ok(shell, "%jxcompiles").result
    assert "&lt;script&gt;x&lt;/script&gt;" in log.table.value
    assert "<script>x" not in log.table.value
    log.close()
    viewer = ok(shell, "%jaxpr (lambda v: jevil26(v) * 2)(1.0)").result
    assert "<script>" not in viewer.body_html and "&lt;script&gt;" in viewer.body_html
    assert "<script>x" not in viewer.html_repr()
