"""The note under a cell that made one of the user's compiled functions compile again
(jxkernel/notebook/notes/compile_notes.py), in a real InteractiveShell: what it says (function,
what changed, the fix, the cell line), when it says nothing (a first compile, a cache hit,
jxkernel's own functions, eager operations), %jxnotes all|recompiles|off, and how the
compile record tells the user's compiles from jxkernel's (CompileEvent.origin, call_site)."""
import logging
import re
from html import escape as html_escape

import pytest

pytest.importorskip("IPython")
pytest.importorskip("ipywidgets")

from IPython.core.error import UsageError  # noqa: E402

import jxkernel  # noqa: E402
from jxkernel import compile_log, config  # noqa: E402
from jxkernel.core.compile_record import EAGER, INTERNAL, USER, origin_of  # noqa: E402
from jxkernel.core.source_info import PACKAGE_DIR  # noqa: E402
from jxkernel.notebook.notes.compile_notes import change_line, fix_in_brief  # noqa: E402
from jxkernel.notebook.widgets.recompiles import ALL, RecompileLog  # noqa: E402
from ipython_shell import logs_closed, shell_fixture, ran_ok as ok  # noqa: E402, F401
from note_words import here  # noqa: E402
from registered_library import excluded, import_library  # noqa: E402


shell = shell_fixture("import jxkernel as jax\nimport jxkernel.numpy as jnp\n"
                      "from jxkernel import random", store_history=True)


# logs_closed (imported above, a fixture): a log left open redraws its table at every later
# compile of the module's shell
pytestmark = pytest.mark.usefixtures("logs_closed")


@pytest.fixture(autouse=True)
def default_mode():
    config.update("jxkernel_compile_notes", "recompiles")
    yield
    config.update("jxkernel_compile_notes", "recompiles")


def events_of(jitted):
    return [e for e in compile_log.compile_events() if e.key is jitted]


# What changed and the fixes are the explainer's (jxkernel/views/recompile_explainer.py): the expected
# lines are made from the events' Changes, so that rewording a fix does not break these tests.
def test_a_plain_jit_that_compiles_again_says_so_under_the_cell(shell):
    # the tour's cell: a new shape, then an int for a float, then a hit
    first = ok(shell, "def fn1(x, y):\n    return jnp.sin(x) * y + 1.0\n\n"
                      "fn1_jit = jax.jit(fn1)\nx1 = jnp.arange(4.0)\nfn1_jit(x1, 2.0)")
    assert first.notes == []                                   # a first compile: quiet
    ran = ok(shell, "x1 = jnp.arange(5.0)\nfn1_jit(x1, 2.0)   # a new shape\n"
                    "fn1_jit(x1, 3)     # an int\nfn1_jit(x1, 4)")
    _, shape, dtype = events_of(shell.user_ns["fn1_jit"])
    assert [(c.path, c.kind) for c in shape.changes] == [("x", "shape")]
    assert [(c.path, c.kind) for c in dtype.changes] == [("y", "dtype")]
    (note,) = ran.notes                                        # one note for the cell
    title = note["text/plain"].splitlines()[0]
    n = ran.count
    assert title == here(f"⚙ 2 recompile(s) in this cell: fn1: ") + change_line(shape)
    # (the fix as the note tells it where the event ran: said_changes, "traces anew" on NumPy)
    assert change_line(shape) == \
        f"{shape.changes[0]} · fix: {fix_in_brief(shape.said_changes[0].fix)}"
    text = note["text/plain"]
    assert here(f"fn1 compiled again (compile #2, at In[{n}]:2): ") + change_line(shape) in text
    assert here(f"fn1 compiled again (compile #3, at In[{n}]:3): ") + change_line(dtype) in text
    assert f"called at In[{n}]:3:  fn1_jit(x1, 3)     # an int" in text
    assert f"fn1 defined at In[{first.count}]:1" in text
    assert dtype.changes[0].snippet.splitlines()[0] in text   # the fix as code
    # in the notebook: one line (the <summary>), the details on click
    html = note["text/html"]
    assert html.startswith("<details class='jx-note jx-compile'")
    summary = re.search(r"<summary[^>]*>(.*?)</summary>", html).group(1)
    assert html_escape(change_line(shape), quote=True) in summary
    assert "white-space:nowrap" in html
    assert ok(shell, "fn1_jit(x1, 4)").notes == []             # a cache hit says nothing


def test_a_padding_fix_names_an_earlier_call_in_another_cell_by_its_cell(shell):
    # the earlier call sat in another cell: "pad line 6's jnp.ones(3)" read as this cell's
    # line 6, which it has not (the browser test's notebook showed it)
    first = ok(shell, "def g1(x):\n    return jnp.sin(x) * 2.0\n\ng1_jit = jax.jit(g1)\n"
                      "g1_jit(jnp.ones(3)).shape")
    again = ok(shell, "g1_jit(jnp.ones(4)).shape")
    (change,) = events_of(shell.user_ns["g1_jit"])[1].changes
    assert change.snippet.endswith(f"\n# pad In[{first.count}]:5's jnp.ones(3) so too: an "
                                   "unpadded length is a program of its own"), change.snippet
    assert f"# pad In[{first.count}]:5's jnp.ones(3) so too" in again.notes[0]["text/plain"]


def test_one_recompile_is_one_line_with_the_change_and_the_fix(shell):
    ok(shell, "fn2 = jax.jit(lambda v, n: v * n, static_argnums=1)\nfn2(jnp.ones(2), 3)")
    ran = ok(shell, "fn2(jnp.ones(2), 4)")
    (note,) = ran.notes
    change = events_of(shell.user_ns["fn2"])[-1].changes[0]
    assert (change.path, change.kind, change.old, change.new) == ("n", "static", "3", "4")
    assert note["text/plain"].splitlines()[0] == (
        here(f"⚙ <lambda> compiled again (compile #2, at In[{ran.count}]:1): ") +
        f"{change} · fix: {fix_in_brief(change.fix)}")


def test_a_jit_of_a_library_function_names_where_it_is_defined_in_the_package(shell):
    """Exercise 02's summed = jax.jit(jnp.sum): the note says jnp.sum is defined in
    jxkernel/numpy/..., a path inside the package, never this machine's install path."""
    # jit(jnp.sum)'s cache is jnp.sum's, as JAX's caches are per function: shapes no other
    # test gives it, so that this call compiles whatever ran before in the process
    ok(shell, "summed_n = jax.jit(jnp.sum)\nsummed_n(jnp.ones((5, 13)))")
    (note,) = ok(shell, "summed_n(jnp.ones((6, 13)))").notes
    (defined,) = [line for line in note["text/plain"].splitlines()
                  if " defined at " in line]
    assert re.search(r"sum defined at jxkernel/numpy/\w+\.py:\d+$", defined.strip()), defined
    assert PACKAGE_DIR not in note["text/plain"] and PACKAGE_DIR not in note["text/html"]


def test_a_cell_that_logged_more_than_the_log_keeps_counts_only_what_it_keeps(shell,
                                                                              monkeypatch):
    """jit-compilation's %timeit of a jit made anew per call logged 16,220 compiles in one
    cell, and the note said "×8359": the log keeps its last MAX_EVENTS events (10,000), so
    the cell's first ones were gone. The count is of the kept events, and the title says how
    many earlier ones it leaves out (here with the log cut to 4 events)."""
    from jxkernel.core import compile_record
    monkeypatch.setattr(compile_record, "MAX_EVENTS", 4)
    ran = ok(shell, "for i in range(7):\n    jax.jit(lambda v: v * 3.5)(jnp.ones(3))")
    (note,) = ran.notes
    title = note["text/plain"].splitlines()[0]
    assert title.startswith(here(f"⚙ <lambda> compiled again ×4 (a new jit object, at "
                                 f"In[{ran.count}]:2): ")), title
    assert title.endswith(" (counting only what the compile log still keeps: this cell's first "
                          "3 events are past the last 4 it keeps)"), title
    monkeypatch.undo()
    (note,) = ok(shell, "for i in range(3):\n    jax.jit(lambda v: v * 4.5)(jnp.ones(3))").notes
    assert "compile log still keeps" not in note["text/plain"]


def test_a_jit_made_anew_in_a_loop_and_a_pmap_are_noted(shell):
    ran = ok(shell, "for i in range(3):\n    jax.jit(lambda v: v * 2.25)(jnp.ones(3))")
    (note,) = ran.notes
    last = compile_log.compile_events()[-1]
    assert last.changes[0].kind == "fresh_jit"
    # the loop's two recompiles tell one story: told once, with its count and their time, as
    # the note's title (a header "2 recompile(s) in this cell" above it said it twice)
    assert note["text/plain"].startswith(
        here(f"⚙ <lambda> compiled again ×2 (a new jit object, at In[{ran.count}]:2): ") +
        change_line(last))
    assert note["text/plain"].count(here("compiled again")) == 1
    assert here("compiled for (v: f32[3]) 2 times, in ") in note["text/plain"]
    assert re.search(here(r"compiled for \(v: f32\[3\]\) 2 times, in [\d.]+ ms in all"),
                     note["text/plain"])
    ok(shell, "p10 = jax.pmap(lambda v: v * 10)\np10(jnp.ones((1, 3)))")
    (note,) = ok(shell, "p10(jnp.ones((1, 4)))").notes
    # numbered per name: pmap keeps no key (another test's pmap of a lambda counts too)
    # pmap is a jit of a shard_map of `_fun` (JAX 0.10.2's name), with fun's arguments
    assert re.search(here(r"_fun compiled again (compile #").replace("(", r"\(") + r"\d+, at In\[",
                     note["text/plain"])
    assert "v: shape f32[1,3] -> f32[1,4]" in note["text/plain"]


def test_the_fix_in_brief_is_its_last_sentence():
    assert fix_in_brief("Every new shape compiles anew. Pad x (a mask keeps it out).") == \
        "Pad x (a mask keeps it out)."
    assert fix_in_brief("Cast it, e.g. to jnp.float32.") == "Cast it, e.g. to jnp.float32."
    assert fix_in_brief("") == ""
    # a fix whose code is a pattern ends by saying so: the brief is the advice before that
    assert fix_in_brief("A new jit object compiles anew. Make it once and reuse it. The code "
                        "below is a pattern, in names of yours to fill in.") == \
        "Make it once and reuse it."


def test_a_fix_whose_dtype_changed_too_keeps_the_fix_it_adds_to(shell):
    """f32[3] then i32[4]: the fix pads (or buckets) and casts. The brief was its last
    sentence alone, "Its dtype changed too (float32 -> int32): cast it as well, ...", which
    tells a learner to do "as well" something the line does not show."""
    ok(shell, "def pad_cast(v):\n    return v * 2\njpc = jax.jit(pad_cast)\njpc(jnp.ones(3))")
    (note,) = ok(shell, "jpc(jnp.ones(4, jnp.int32))").notes
    first = note["text/plain"].splitlines()[0]
    assert "x: shape" not in first and "v: shape f32[3] -> i32[4]" in first, first
    brief = first.partition(" · fix: ")[2]
    assert brief.startswith("Pad or bucket v") and \
        brief.endswith("Its dtype changed too (float32 -> int32): cast it as well, so that "
                       "every call has one dtype."), brief


def _fix_templates():
    """Every fix text of jxkernel/views/signature_changes: its modules' (fix, code) pairs at
    module level, and fixes.py's table of them."""
    import importlib
    import pkgutil
    from jxkernel.views import signature_changes
    texts = {}
    for module in pkgutil.iter_modules(signature_changes.__path__):
        found = importlib.import_module(f"{signature_changes.__name__}.{module.name}")
        for name, value in vars(found).items():
            pairs = value.items() if isinstance(value, dict) else [(name, value)]
            for key, pair in pairs:
                if isinstance(pair, tuple) and len(pair) == 2 and \
                        all(isinstance(part, str) for part in pair):
                    texts[f"{module.name}.{name}[{key}]"] = pair[0]
    return texts


def test_no_fix_in_brief_is_the_sentence_saying_its_code_is_a_pattern():
    """A fix whose code is a pattern says so in PATTERN_SAID's words, which the note's brief
    leaves out: an array grown step by step said 'The code is a pattern, ...' in its own
    words, and its note's first line read '· fix: The code is a pattern, in names of yours
    to fill in.'"""
    texts = _fix_templates()
    assert "input_types._GROWN_STEP_FIX[_GROWN_STEP_FIX]" in texts and len(texts) > 20, \
        sorted(texts)
    said_so = {name: fix_in_brief(text) for name, text in texts.items()
               if fix_in_brief(text).startswith("The code")}
    assert not said_so, said_so


def test_two_functions_recompiled_in_one_cell_are_both_named(shell):
    ok(shell, "def a13(v):\n    return v + 13\ndef b13(v):\n    return v - 13\n"
              "ja13, jb13 = jax.jit(a13), jax.jit(b13)\nja13(jnp.ones(2)); jb13(jnp.ones(2))")
    (note,) = ok(shell, "ja13(jnp.ones(3)); jb13(jnp.ones(4))").notes
    first = events_of(shell.user_ns["ja13"])[-1]
    assert note["text/plain"].splitlines()[0] == \
        here("⚙ 2 recompile(s) in this cell (a13, b13): a13: ") + change_line(first)


def test_a_recompile_after_the_log_was_cleared_is_still_noted(shell):
    ok(shell, "fn12 = jax.jit(lambda v: v * 12)\nfn12(jnp.ones(2))\n%jxcompiles --clear")
    (note,) = ok(shell, "fn12(jnp.ones(3))").notes
    assert here("<lambda> compiled again (the log was cleared since its first, at In[") in \
        note["text/plain"]


def test_a_function_traced_before_but_never_compiled_is_not_said_to_compile_again(shell):
    """eval_shape traced g, then jax.jit(g) at another shape: JAX logs a miss against
    eval_shape's key (recompile_reference.json's eval_shape_then_jit_of_other_shape, held by
    tests/views/test_recompile_corpus.py) and compiles g once; the note said "compiled again
    (the log was cleared since its first ...)" of a log never cleared and a first compile."""
    ok(shell, "def g14(x):\n    return x * 2\n_ = jax.eval_shape(g14, jnp.ones(5))")
    (note,) = ok(shell, "jax.jit(g14)(jnp.ones(7))").notes
    text = note["text/plain"]
    assert text.startswith(here("⚙ g14 compiled (first compile, traced before, at In[")), text
    assert "x: shape f32[5] -> f32[7]" in text, text
    assert "what changed since the nearest earlier trace, and the fix:" in text, text
    assert "compiled again" not in text and "cleared" not in text, text
    # with a real recompile in the same cell, the title counts cache misses, not recompiles
    ok(shell, "h14 = jax.jit(lambda v: v + 1)\nh14(jnp.ones(2))")
    ok(shell, "def g15(x):\n    return x * 3\n_ = jax.eval_shape(g15, jnp.ones(8))")
    (note,) = ok(shell, "h14(jnp.ones(3)); jax.jit(g15)(jnp.ones(9))").notes
    assert note["text/plain"].startswith("⚙ 2 cache miss(es) in this cell (<lambda>, g15)"), \
        note["text/plain"]


def test_jit_made_again_of_the_same_function_counts_on_from_the_dropped_one(shell):
    # jit(step) written at each call: the jits share step's caches (the second call hits, as
    # in JAX), so the dtype change is step's second compile; the log was never cleared
    ok(shell, "def step13(w, lr):\n    return w - lr * w\njax.jit(step13)(jnp.ones(3), 1)")
    (note,) = ok(shell, "jax.jit(step13)(jnp.ones(3), 1)\njax.jit(step13)(jnp.ones(3), 0.1)").notes
    text = note["text/plain"]
    assert text.startswith(here("⚙ step13 compiled again (compile #2, at In[")), text
    assert "lr: dtype i32[] (weak) -> f32[] (weak)" in text and "cleared" not in text, text


def test_user_text_is_escaped_in_the_note(shell):
    ok(shell, "def ev3(v):\n    return v + 1\nev3.__name__ = '<img src=x onerror=alert(1)>'\n"
              "jev3 = jax.jit(ev3)\njev3(1.0)")
    (note,) = ok(shell, "jev3(jnp.ones(2))").notes
    assert "<img" not in note["text/html"] and "&lt;img src=x onerror=alert(1)&gt;" in \
        note["text/html"]


def test_jxkernels_own_functions_and_eager_operations_are_not_the_users(shell):
    ran = ok(shell, "k4 = random.PRNGKey(4)\nw4 = random.normal(k4, (3, 7))\n"
                    "w4b = random.normal(k4, (3, 8))          # _normal: a new static shape\n"
                    "a4 = jnp.arange(9.0)\na4[1:3] + a4[0:2]")
    assert ran.notes == []              # their static arguments are not the user's to change
    events = compile_log.events_since(0)
    normal = [e for e in events if e.function == "_normal" and
              "static (3, 8)" in compile_log.signature_text(e.signature)]
    assert normal and normal[-1].origin == INTERNAL and normal[-1].again
    assert normal[-1].source.startswith(PACKAGE_DIR)
    site = normal[-1].call_site                # the user's line that ran it
    assert (shell.compile.format_code_name(site.file)[1], site.line) == (f"In[{ran.count}]", 3)
    # an eager slice's signature holds its bounds: another slice is told as such
    slices = [e for e in events if e.function == "slice (eager)" and
              "static (0,)" in compile_log.signature_text(e.signature)]
    assert slices and slices[-1].origin == EAGER
    assert "the same signature" not in slices[-1].reason
    assert origin_of(PACKAGE_DIR + "numpy/reductions.py:209") == INTERNAL
    assert origin_of("train.py:3") == USER


def test_an_eager_shard_map_is_eager_work_and_a_jitted_one_the_users(shell):
    # run eagerly, a shard_map compiles one program per equation, named by no function of
    # the user's: eager work, as JAX's eager shard_map; jitted, it is the user's function
    ran = ok(shell, "from jxkernel.sharding import PartitionSpec as P\n"
                    "mesh14 = jax.make_mesh((1,), ('x',))\n"
                    "def body14(v):\n    return v * 14\n"
                    "s14 = jax.shard_map(body14, mesh=mesh14, in_specs=P(), out_specs=P())\n"
                    "s14(jnp.ones(4)); s14(jnp.ones(8))\njs14 = jax.jit(s14)\njs14(jnp.ones(4))")
    assert ran.notes == []
    # XLA compiles it per equation ("shard_map"); the NumPy backend's eager dispatch runs the
    # one shard_map equation, named as its eager operations are ("shard_map (eager)")
    mine = [e for e in compile_log.events_since(0)
            if e.function in ("shard_map", "shard_map (eager)")]
    assert mine and {e.origin for e in mine} == {EAGER}
    (note,) = ok(shell, "js14(jnp.ones(8))").notes
    assert note["text/plain"].startswith(here("⚙ body14 compiled again (compile #2, at In["))


def test_a_transformed_jit_run_outside_jit_is_eager_work(shell):
    # vmap of jxkernel's jitted relu: the jit equation runs eagerly, for each new shape
    ran = ok(shell, "from jxkernel import nn\nfor n in (15, 16):\n"
                    "    jax.vmap(nn.relu)(jnp.ones((2, n)))")
    assert ran.notes == []
    mine = [e for e in compile_log.events_since(0) if e.function == "relu" and
            e.reason.startswith("a transformed jitted function")]
    assert len(mine) >= 2 and {e.origin for e in mine} == {EAGER}


def test_a_jit_of_a_transformed_user_function_is_the_users(shell):
    # jit(hessian(f)) wraps jxkernel's wrappers (jacfwd's of jacrev's) of f: f is the user's,
    # defined in the cell, and its recompile is noted, as jit(partial(f, ...))'s
    ok(shell, "import functools\ndef f16(x, c=1.0):\n    return jnp.sum(jnp.sin(x) * c)\n"
              "h16 = jax.jit(jax.hessian(f16))\nq16 = jax.jit(functools.partial(f16, c=2.0))\n"
              "h16(jnp.ones(2)); q16(jnp.ones(2))")
    (note,) = ok(shell, "h16(jnp.ones(3)); q16(jnp.ones(3))").notes
    assert note["text/plain"].startswith(here("⚙ 2 recompile(s) in this cell: f16: "))
    for jitted in ("h16", "q16"):
        (first, again) = events_of(shell.user_ns[jitted])
        assert first.origin == again.origin == USER and again.source.rpartition(":")[2] == "2"


def test_all_notes_first_compiles_and_groups_the_rest(shell):
    assert "compile notes: all" in ok(shell, "%jxnotes all").stdout
    assert config.jxkernel_compile_notes == "all"
    ran = ok(shell, "fn5 = jax.jit(lambda v: v * 5.5)\nb5 = jnp.arange(13.0)\n"
                    "fn5(b5); b5[3:5] * 2; b5[4:6] * 2\nw5 = random.normal(random.PRNGKey(5), (5, 5))")
    (note,) = ran.notes
    text = note["text/plain"]
    assert text.startswith(here("⚙ <lambda> compiled (v: f32[13]")) and f"at In[{ran.count}]:3" in text
    eager = re.search(here(r"\d+ eager operation\(s\) \(each compiled once per operand types "
                           r"and parameters\): (.*)"), text).group(1)
    assert f"slice ×2 [In[{ran.count}]:3]" in eager           # one entry per primitive
    assert re.search(here(rf"compile\(s\) of jxkernel's own functions, for your calls: .*"
                          rf"_normal \[In\[{ran.count}\]:4\]"), text)
    ok(shell, "%jxnotes off")
    assert ok(shell, "fn5(jnp.ones(3))").notes == []           # a recompile, not noted
    ok(shell, "%jxnotes recompiles")
    assert config.jxkernel_compile_notes == "recompiles"
    with pytest.raises(UsageError):
        shell.run_line_magic("jxnotes", "loud")
    with pytest.raises(ValueError):
        config.update("jxkernel_compile_notes", "loud")


def test_a_jit_cell_notes_its_compiles_once(shell):
    ok(shell, "x6 = jnp.ones(2)\n%jxnotes all")
    ran = ok(shell, "%%jit\ny6 = x6 * 6")
    assert [o["text/plain"] for o in ran.notes if "cell[" in o["text/plain"]]  # %%jit's own
    assert not [o for o in ran.notes if "compiled (" in o["text/plain"]]      # not twice


def test_explain_cache_misses_leaves_jxkernels_misses_out(shell, caplog):
    with config.override("jax_explain_cache_misses", True), \
            caplog.at_level(logging.WARNING, logger="jxkernel.compile_log"):
        ok(shell, "fn7 = jax.jit(lambda v: v - 7)\nfn7(jnp.ones(2))\n"
                  "w7 = random.normal(random.PRNGKey(7), (7, 3))\njnp.ones(7)[2:5] * 7")
    # the tracing misses' logger (the persistent cache's lines, logger
    # jxkernel.compilation_cache, name every module compiled, jxkernel's too, as JAX's name
    # jit_convert_element_type and the like)
    logged = "\n".join(r.getMessage() for r in caplog.records
                       if r.name == "jxkernel.compile_log")
    assert re.search(r"never seen function:\n    <lambda> id=\d+ defined at", logged)
    assert "_normal" not in logged and "(eager)" not in logged


def test_the_log_lists_the_users_functions_first_and_groups_the_rest(shell):
    # as in a fresh kernel: an eager slice another test compiled earlier in this process would
    # be a cache hit here, or listed first with that test's line (seen when xdist ran
    # test_numpy_manipulation.py before this file in the same worker)
    compile_log.clear()
    jxkernel.clear_caches()
    ok(shell, "fn8 = jax.jit(lambda v: v / 8)\nfn8(jnp.ones(8))\nc8 = jnp.arange(17.0)\n"
              "c8[1:4] + c8[2:5]\nw8 = random.normal(random.PRNGKey(8), (8, 2))")
    log = RecompileLog(timeline=False)
    try:
        assert log.filter.value == "(your functions)"
        assert {e.origin for e in log.shown()} == {USER}
        assert "_normal" not in log.filter.options and "slice (eager)" not in \
            log.filter.options
        text = log.text_repr()
        mine, rest = text.split("function: misses / hits")
        assert "_normal" not in mine and "slice" not in mine
        # the rest folded with a count, one line per kind (learner6's log listed 29 eager
        # primitives under the learner's 23 compilations), as %jxreport folds them
        eager = [e for e in log.others() if e.origin == EAGER]
        assert re.search(here(rf"\n{len(eager)} compile\(s\) of eager operations \(\d+ of "
                              r"them\), folded: %jxcompiles \(eager operations\) lists them"), rest)
        assert re.search(here(r"\n\d+ compile\(s\) of jxkernel's own functions, for your "
                              r"calls \(1 of them\), folded: %jxcompiles \(jxkernel functions\) "
                              r"lists them$"), rest)
        assert "slice" not in rest and "_normal" not in rest
        assert "more of eager operations and jxkernel's or libraries' functions" in \
            log.summary.value
        # the HTML folds them too: one <details> per kind, its rows inside
        assert re.search(here(r"<details class='jx-group'><summary[^>]*><i>\d+ compile\(s\) of "
                              r"eager operations \(\d+ of them\)</i></summary><table[^>]*>.*"
                              r"<tr class='jx-group'><td>slice <span[^>]*>In\[\d+\]:\d+"),
                         log.stats.value)
        log.filter.value = "(eager operations)"
        assert {e.origin for e in log.shown()} == {EAGER}
        # the command the folded line names lists them, typed as said or quoted
        for typed in ("(eager operations)", '"(eager operations)"'):
            listed = shell.run_line_magic("jxcompiles", typed)
            try:
                assert listed.filter.value == "(eager operations)"
                assert re.match(rf"{len(eager)} {re.escape(here('compilation(s)'))}\n  1\. \w+ \(eager\)",
                                listed.text_repr())
            finally:
                listed.close()
        log.filter.value = ALL
        assert len(log.shown()) == len(compile_log.compile_events())
    finally:
        log.close()


def test_the_report_lists_the_users_functions_first(shell):
    from jxkernel.views.compile_report import report_data
    ok(shell, "c9 = jnp.arange(19.0)\nc9[1:4] * 9\nfn9 = jax.jit(lambda v: v % 9)\nfn9(c9)")
    origin = {e.function_key: e.origin for e in compile_log.compile_events()}
    origins = [origin[f["function_key"]] for f in report_data()["functions"]]
    assert USER in origins and EAGER in origins
    assert origins == sorted(origins, key=lambda o: o != USER)     # the user's first


def test_the_reports_export_folds_as_the_lab_view_and_jxcompiles_do(shell):
    """%jxreport's text and HTML tell what the lab's view tells (compile_report.group_of):
    your compiled functions and your compilations first, yours traced only inside another (a
    lax.cond branch: a row of zeros) folded apart, eager operations and jxkernel's functions
    folded with a count; and %jxcompiles folds the same way. jax.random.normal's `_normal`
    is named by the user's lines that called it, not by jxkernel's file (JAX 0.10.2 logs
    "Compiling jit(_normal) ..." with no file: tests/data/compile_report_names_reference.json)."""
    from jxkernel.views import compile_report
    compile_log.clear()
    jxkernel.clear_caches()              # every program compiles here, eager ones too
    ran = ok(shell, "fn41 = jax.jit(lambda v: jax.lax.cond(v.sum() > 0, lambda u: u + 1, "
                    "lambda u: u - 1, v))\nfn41(jnp.ones(3))\n"
                    "n41 = random.normal(random.key(41), (2,))\nn41b = random.normal("
                    "random.key(41), ())")
    cell = f"In[{ran.count}]"
    data = compile_report.report_data()
    groups = compile_report.grouped_report(data)
    yours, inside, others = (groups[g] for g in ("yours", "inside", "others"))
    assert [f["function"] for f in yours["functions"]] == ["<lambda>"]
    assert [f["function"] for f in inside["functions"]] == ["<lambda>", "<lambda>"]
    assert {e["origin"] for e in others["events"]} == {EAGER, INTERNAL}
    (normal,) = [f for f in others["functions"] if f["function"] == "_normal"]
    assert normal["source"] == f"called at {cell}:3, {cell}:4"
    assert all(e["source"] is None for e in data["events"] if e["function"] == "_normal")
    assert "samplers.py" not in compile_report.to_text(data) + compile_report.to_html(data)

    text = compile_report.to_text(data)
    lines = text.splitlines()
    mine = sum(e["inlined_into"] is None for e in yours["events"])
    assert lines[1] == here(f"your functions: {mine} compilation(s) (0 recompilation(s)) of 1 "
                            f"function(s); {len(others['events'])} more of eager operations "
                            f"and jxkernel's or libraries' functions, folded below")
    at = {line: i for i, line in enumerate(lines)}
    folded_at = at[here(f"{len(others['events'])} compilation(s) of eager operations and "
                        f"jxkernel's or libraries' functions ({len(others['functions'])} of "
                        f"them), for your calls:")]
    inside_at = at["2 function(s) of yours traced inside another (a lax.cond branch, a loop "
                   "body), nothing compiled of their own:"]
    assert at[here("function: compilations / cache hits")] < inside_at < folded_at
    assert all(("(eager)" not in line and "_normal" not in line) for line in lines[:inside_at])
    assert f"  _normal (called at {cell}:3, {cell}:4): 2 / 0" in lines[folded_at:]
    page = compile_report.to_html(data)
    assert page.count("<details class='jx-folded'>") == 2
    yours_part, inside_part, others_part = page.split("<details")
    assert "traced inside another" in inside_part and "(eager)" in others_part
    assert "(eager)" not in yours_part + inside_part and "_normal" not in yours_part

    log = RecompileLog(timeline=False)
    try:
        text = log.text_repr()
        assert ("2 function(s) of yours traced inside another (a lax.cond branch, a loop body), "
                "nothing compiled of their own: <lambda> ×2") in text
        assert "  <lambda>: 1 / 0" in text.split("function: misses / hits")[1]
        assert "<summary style='cursor:pointer'>2 function(s) of yours traced inside" in \
            log.stats.value
    finally:
        log.close()


def _jax_facts() -> dict:
    import locations  # tests/support: the repository's folders
    return locations.jax_answers("compile_report_names_reference.json")


def test_the_report_names_jxkernels_own_program_as_jax_logs_it(shell):
    """jax.random.normal's program: JAX 0.10.2 logs it as jit(_normal), with no file; the
    report names it so, and where the user called it."""
    jax_names = {m.group(1) for line in _jax_facts()["normal"]
                 for m in [re.match(r"Compiling jit\((\w+)\)", line)] if m}
    assert jax_names == {"_normal"} and not any(".py" in line for line in _jax_facts()["normal"])
    from jxkernel.views import compile_report
    compile_log.clear()
    jxkernel.clear_caches()
    ran = ok(shell, "k42 = random.key(42)\nn42 = random.normal(k42, (3,))\n"
                    "n42b = random.normal(k42, ())")
    rows = [f for f in compile_report.report_data()["functions"] if f["function"] in jax_names]
    assert [r["source"] for r in rows] == [f"called at In[{ran.count}]:2, In[{ran.count}]:3"]
    assert rows[0]["compilations"] == 2          # JAX's log: two "Compiling jit(_normal)"
    assert sum("Compiling jit(_normal)" in line for line in _jax_facts()["normal"]) == 2


def test_a_scans_int_start_retrace_note_is_jaxs_and_its_fix_traces_once(shell):
    """lax.scan(body, 0, floats): JAX 0.10.2 traces body twice, its miss "at c, now
    f32[]{weak_type=False} and before i32[]{weak_type=True}"; the note says the same change,
    and its fix, the learner's own line rewritten (`jax.lax.scan(body43, jnp.asarray(0,
    jnp.float32), floats43)`: it once named `init`, which this line lacks), traces once, as
    under JAX."""
    scan = _jax_facts()["scan"]
    assert "at c, now f32[]{weak_type=False} and before i32[]{weak_type=True}" in \
        scan["0"]["misses"][-1]
    compile_log.clear()
    ok(shell, "traces43 = []\ndef body43(c, x):\n    traces43.append(1)\n    return c + x, c\n"
              "floats43 = jnp.arange(3.0)")
    ran = ok(shell, "jax.lax.scan(body43, 0, floats43)")
    assert len(shell.user_ns["traces43"]) == scan["0"]["traces"] == 2
    (again,) = [e for e in compile_log.compile_events() if e.function == "body43" and e.again]
    (change,) = again.changes
    assert (change.path, change.old, change.new) == ("c", "i32[] (weak)", "f32[]")
    assert "⚙ body43 traced again (inside lax.scan" in ran.notes[0]["text/plain"]
    code = change.snippet.split("#")[0].strip()
    assert code == "jax.lax.scan(body43, jnp.asarray(0, jnp.float32), floats43)", code
    # a body not traced yet (body43's f32 trace is kept: a second scan of it traces nothing)
    ok(shell, "traces43.clear()\ndef body44(c, x):\n    traces43.append(1)\n    return c + x, c\n"
              "carry43, _ = " + code.replace("body43", "body44"))
    assert len(shell.user_ns["traces43"]) == scan["jnp.asarray(0, jnp.float32)"]["traces"] == 1
    assert str(shell.user_ns["carry43"].dtype) == scan["jnp.asarray(0, jnp.float32)"]["carry"]


def test_timeits_warm_up_names_the_users_functions_only(shell):
    ran = ok(shell, "%timeit -n 1 -r 1 jnp.arange(31.0)[3:7] * 31")
    assert here("Compiled on the first run (eager operations, or jxkernel's or libraries' own "
                "functions;") in ran.stdout
    ok(shell, "fn11 = jax.jit(lambda v: v * 11)")
    ran = ok(shell, "%timeit -n 1 -r 1 fn11(jnp.arange(37.0)[3:7])")
    assert re.search(here(r"Compiled on the first run \(<lambda>: first call and \d+ more;"),
                     ran.stdout)


def test_docstring_examples():
    from doc_examples import check_docstring_examples
    check_docstring_examples("jxkernel.notebook.notes.compile_notes")


def test_grad_of_a_jitted_function_on_a_new_shape_is_noted_with_its_cause(shell):
    # JAX logs grad(f)'s trace of f on a longer input as a miss of f ("at x, now f32[4] and
    # before f32[3]"); the cell says so, as f's recompile, not as eager work
    ok(shell, "f32_ = jax.jit(lambda x: (x * x).sum())\ng32 = jax.grad(f32_)\ng32(jnp.ones(3))")
    (note,) = ok(shell, "g32(jnp.ones(3)); g32(jnp.ones(4))").notes
    text = note["text/plain"]
    assert text.startswith(here("⚙ <lambda> compiled again (compile #2, at In[")) and \
        "): x: shape f32[3] -> f32[4] · fix: Pad or bucket x" in text, text
    first, again = [e for e in events_of(shell.user_ns["f32_"]) if e.miss]
    assert (first.reason, again.origin) == ("first call", USER)
    assert [(c.path, c.kind) for c in again.changes] == [("x", "shape")]


def test_a_jit_traced_again_inside_another_is_noted_as_a_retrace(shell):
    # grad of a jitted loss inside a jitted step: on a longer input JAX logs the loss's
    # tracing miss (nothing of the loss compiles: it is inlined into the step's program); the
    # cell says so beside the step's recompile, as a trace, not as a compile
    ok(shell, "loss57 = jax.jit(lambda x: (x * x).sum())\n"
              "step57 = jax.jit(lambda x: x - jax.grad(loss57)(x))\nstep57(jnp.ones(3))")
    notes = ok(shell, "step57(jnp.ones(4))").notes
    texts = [n["text/plain"] for n in notes]
    assert len(texts) == 1, texts
    (text,) = texts
    assert here("compiled again (compile #2") in text and "x: shape f32[3] -> f32[4]" in text, text
    assert "traced again (inside jit(<lambda>), at In[" in text, text
    assert "nothing compiled of its own" in text, text
    traced = [e for e in events_of(shell.user_ns["loss57"])]
    assert [(e.compiled, e.inlined_into, e.nth) for e in traced] == \
        [(False, "jit(<lambda>)", 0), (False, "jit(<lambda>)", 0)]
    assert [(c.path, c.kind) for c in traced[1].changes] == [("x", "shape")]


def test_a_jit_traced_by_eval_shape_is_told_that_nothing_compiles_and_when_it_would(shell):
    # Flax's key_concepts (cell 9): jax.eval_shape(partial(init_state, n)) of a jit with n
    # static, for two sizes. JAX traces init_state for each (its miss at no call site,
    # "TRACING CACHE MISS at :") and compiles nothing; init_state(4) later compiles
    # eval_shape's trace without a miss (recompile_reference.json's scenario). The note
    # said "inside jit(init_state) ... part of that one's program, if that compiles"
    import locations                            # tests/support
    from recompile_cases import SCENARIOS       # tests/data
    name = "eval_shape_of_partial_of_jit"
    theirs = locations.jax_answers("recompile_reference.json")["scenarios"][name]
    lines = SCENARIOS[name][1].splitlines()
    assert lines[5].startswith("jax.eval_shape(functools.partial(init_state, 4))")
    assert [m.startswith("TRACING CACHE MISS at :") for m in theirs["messages"]] == \
        [False, True, False, True] and theirs["lowerings"] == 1      # the call's, alone
    ok(shell, "\n".join(lines[:5]))
    (note,) = ok(shell, lines[5]).notes
    text = note["text/plain"]
    head, *_, last = text.splitlines()
    assert head.startswith("⚙ init_state traced again (by jax.eval_shape, for shapes only, "
                           "at In[") and "n: static 3 -> 4" in head, text
    assert last == here("traced for (n: static 4) by jax.eval_shape(init_state), for shapes "
                        "only: nothing compiled (JAX compiles nothing here either); init_state "
                        "called with these arguments compiles this trace then, without tracing "
                        "it again")
    assert "jit(init_state)" not in text and "if that compiles" not in text, text
    # the fix's cost of a new value, true where it stands: eval_shape traces it, and the call
    # that follows compiles it (it said "compiles anew" of eval_shape's trace); on the NumPy
    # backend nothing compiles, then either
    anew = "traces anew." if jxkernel.default_backend() == "numpy" else \
        "traces anew (and compiles anew when called)."
    assert f"Each new value of a static argument {anew}" in text and \
        "argument compiles anew" not in text, text
    # as said: the call compiles eval_shape's trace, traced no more
    start = compile_log.last_seq() + 1
    assert ok(shell, lines[6]).notes == []
    (call,) = [e for e in compile_log.events_since(start) if e.function == "init_state"]
    assert call.compiled and not call.miss


# ------------------------------------------------------------------ control-flow bodies
def test_a_scan_body_traced_again_is_noted_as_a_retrace_with_a_fix_that_applies(shell):
    """A body's retrace (a miss of its trace cache, as JAX's jax_explain_cache_misses logs
    it) is noted under the cell as a retrace inside the loop, never as a compile: the first
    trace is quiet, a new carry shape names the body, the change and the cell line; a lambda
    made anew in a loop gets "define it once" (the same types: the fix applies), and one
    reading a changing global gets "take k as an input" (made once, it would keep k's old
    value), both told as retraces in the title."""
    first = ok(shell, "def cf_body(c, x):\n    return c + x, None\n"
                      "jax.lax.scan(cf_body, jnp.zeros(3), jnp.ones((5, 3)))")
    assert first.notes == []
    ran = ok(shell, "jax.lax.scan(cf_body, jnp.zeros(4), jnp.ones((5, 4)))")
    (note,) = ran.notes
    title = note["text/plain"].splitlines()[0]
    assert title.startswith(f"⚙ cf_body traced again (inside lax.scan, at In[{ran.count}]:1): "
                            "c: shape f32[3] -> f32[4] (and 1 more) · fix: "), title
    text = note["text/plain"]
    assert "what changed since the nearest earlier trace" in text and "compiled for" not in text
    ran = ok(shell, "for i in range(3):\n"
                    "    jax.lax.scan(lambda c, x: (c + x, None), 0.0, jnp.ones(3))")
    (note,) = ran.notes
    title = note["text/plain"].splitlines()[0]
    assert title.startswith("⚙ <lambda> traced again ×2 (inside ") and \
        "Define it once" in title, title
    ran = ok(shell, "for k in (1.0, 2.0):\n"
                    "    jax.lax.cond(True, lambda x: x * k, lambda x: x, jnp.ones(2))")
    (note,) = ran.notes
    assert "reads k from outside" in note["text/plain"] and \
        "taking k as an input" in note["text/plain"], note["text/plain"]
    ok(shell, "%jxnotes off")
    assert ok(shell, "jax.lax.scan(cf_body, jnp.zeros(5), jnp.ones((5, 5)))").notes == []


def test_a_loop_compiling_every_step_is_told_in_full_three_times_then_a_line_each(shell):
    """A learner's loop with a static value per step: the first compiles are told in full,
    the next ones one line each, the rest counted -- the note does not drown its cell (30
    compiles read 30 stories of ~10 lines each); the same fix at the same line (each step's
    new static value) is written out once, the next detailed ones a title each saying so."""
    from jxkernel.notebook.notes.compile_notes import DETAILED, LISTED
    ran = ok(shell, "fn30 = jax.jit(lambda v, n: v * n, static_argnums=1)\n"
                    "for n in range(31):\n    fn30(jnp.ones(2), n)")
    (note,) = ran.notes
    text = note["text/plain"]
    assert text.splitlines()[0].startswith(here("⚙ 30 recompile(s) in this cell: <lambda>: "))
    assert text.count(here("what changed since the nearest earlier compile")) == 1
    assert text.count("· the same fix as above") == DETAILED - 1
    assert text.count(here("compiled again (compile #")) == DETAILED + LISTED
    assert f"… and {30 - DETAILED - LISTED} more (%jxcompiles lists them all)" in text
    assert len(text.splitlines()) < 60, len(text.splitlines())


def test_a_cell_run_again_says_so_and_its_fix_applies(shell):
    """A cell defining and calling a jitted lambda, run again: a new function object (JAX:
    "never seen function"), told as the cell run again -- not as a loop -- with the fix of a
    cell of its own; applied (the jit in a cell run once, the call in a cell run twice), the
    second run compiles nothing and says nothing."""
    cell = "fr1 = jax.jit(lambda v: v * 3.5)\nfr1(jnp.ones(3))"
    first = ok(shell, cell)
    ran = ok(shell, cell)
    (note,) = ran.notes
    (change,) = events_of(shell.user_ns["fr1"])[-1].changes
    assert change.kind == "fresh_jit"
    assert f"In[{ran.count}] defined this function anew (In[{first.count}] defined one of " \
        "the same code)" in change.fix
    assert "for batch in batches" not in change.snippet
    # (the cell's own lines, not the pattern `f = jax.jit(lambda ...: ...)`)
    assert change.snippet == (
        "fr1 = jax.jit(lambda v: v * 3.5)    # in a cell of its own, run once\n"
        "# in the cells that call it, run as often as you like:\n"
        f"fr1(jnp.ones(3))    # In[{ran.count}]:2"), change.snippet
    assert "a pattern, in names of yours to fill in" not in change.fix
    assert fix_in_brief(change.fix) in note["text/plain"]
    # the fix applied
    ok(shell, "fr2 = jax.jit(lambda v: v * 4.5)")
    start = compile_log.last_seq() + 1
    assert ok(shell, "fr2(jnp.ones(3))").notes == []
    assert ok(shell, "fr2(jnp.ones(3))").notes == []
    assert len([e for e in compile_log.events_since(start) if e.key is shell.user_ns["fr2"]]) == 1


def test_a_decorated_def_in_a_cell_run_again_is_told_to_move_as_it_is(shell):
    """A cell with `@jax.jit def` and its call, run again: the fix moves that def, decorator
    and all, to a cell of its own (it showed `frd = jax.jit(frd)`, a jit of the jitted
    function, itself made anew each time its cell ran); applied, one compile."""
    cell = "@jax.jit\ndef frd(v):\n    return v * 6.5\nfrd(jnp.ones(3))"
    ok(shell, cell)
    ok(shell, cell)
    (change,) = events_of(shell.user_ns["frd"])[-1].changes
    assert change.kind == "fresh_jit" and change.snippet.startswith(
        "def frd(v):    # with its decorator and body, in a cell of its own, run once"), \
        change.snippet
    assert "jax.jit(frd)" not in change.snippet
    # (its call was `out = frd(x)`, an x the cells need not have: a pattern now, said so)
    assert "out = frd(...)" in change.snippet and \
        "a pattern, in names of yours to fill in" in change.fix
    ok(shell, "@jax.jit\ndef frd2(v):\n    return v * 7.5")      # the fix applied
    start = compile_log.last_seq() + 1
    assert ok(shell, "frd2(jnp.ones(3))").notes == []
    assert ok(shell, "frd2(jnp.ones(3))").notes == []
    assert len([e for e in compile_log.events_since(start) if e.key is shell.user_ns["frd2"]]) == 1


def test_a_decorated_defs_fix_calls_it_by_its_name(shell):
    """`@jax.jit def scale(x, factor=2.0)` called without factor, then with it (two pytree
    structures in JAX 0.10.2: learner5_decorated_keyword_left_out_then_passed): the fix is
    the learner's call that left factor out, by its name, given the default (it was the
    pattern `scale(..., factor=factor)`); pasted over that line, one compile, as JAX lowers
    it once (pasted_fixes_reference.json's default_left_out_then_passed)."""
    ok(shell, "@jax.jit\ndef scale11(x, factor=2.0):\n    return x * factor\n"
              "scale11(jnp.ones(2))\nscale11(jnp.ones(2), factor=3.0)")
    (change,) = events_of(shell.user_ns["scale11"])[-1].changes
    assert change.kind == "structure"
    assert change.snippet == "scale11(jnp.ones(2), factor=2.0)    # line 4: factor passed, its " \
        "default, as line 5 passes one", change.snippet
    start = compile_log.last_seq() + 1
    ok(shell, "@jax.jit\ndef scale12(x, factor=2.0):\n    return x * factor\n" +
              change.snippet.replace("scale11", "scale12") +
              "\nscale12(jnp.ones(2), factor=3.0)")
    assert len([e for e in compile_log.events_since(start)
                if e.key is shell.user_ns["scale12"]]) == 1


def test_a_lambda_remade_in_a_loop_inside_one_cell_is_still_told_as_a_loop(shell):
    ran = ok(shell, "for i in range(2):\n    jax.jit(lambda v: v * 5.5)(jnp.ones(3))")
    (note,) = ran.notes
    change = compile_log.compile_events()[-1].changes[0]
    # (the loop's note: the jit, made and called on one line, made once above the loop)
    assert change.kind == "fresh_jit" and "above the loop that runs it" in change.snippet
    assert "defined this function anew" not in note["text/plain"]


# A learner's cells from JAX's tutorials (tests/data/recompile_cases.py has each as a scenario,
# its cause recorded under JAX 0.10.2): the note under the cell says JAX's cause with a fix
# that works, and the fix applied in a cell of its own compiles once and says nothing
def test_a_state_started_as_a_python_float_is_told_to_start_as_an_array(shell):
    """velocity_starts_as_python_float: JAX names v, f32[] (weak) -> f32[3]; the fix (once
    `jnp.atleast_1d(v)`, which made f32[1], a third shape) makes v with its array shape."""
    ok(shell, "def upd_v(w, v):\n    v = 0.9 * v + w\n    return w - 0.1 * v, v\n"
              "upd_v_jit = jax.jit(upd_v)\nw_v, v_v = jnp.ones(3), 0.0")
    ran = ok(shell, "for _ in range(3):\n    w_v, v_v = upd_v_jit(w_v, v_v)")
    (note,) = ran.notes
    (change,) = events_of(shell.user_ns["upd_v_jit"])[-1].said_changes     # as the note says
    # the weak flag is said where it changed with the shape (JAX: f32[]{weak_type=True})
    assert (change.path, change.kind, change.old, change.new) == ("v", "shape", "f32[] (weak)",
                                                                  "f32[3]")
    assert note["text/plain"].splitlines()[0].endswith(fix_in_brief(change.fix))
    assert "atleast_1d" not in note["text/plain"]
    # v_v = jnp.broadcast_to(...), as shown: in the name the learner passed (v_v), not the
    # parameter's (v, nowhere in the learner's cells)
    fixed = change.snippet.split("    #")[0]
    assert fixed.startswith("v_v = jnp.broadcast_to(jnp.asarray(v_v, "), fixed
    # (a def of its own: jit(upd_v) again shares upd_v's traces, as JAX's cache is per function)
    ok(shell, "def upd_v2(w, v):\n    v = 0.9 * v + w\n    return w - 0.1 * v, v\n"
              "upd_v2_jit = jax.jit(upd_v2)\nw_v, v_v = jnp.ones(3), 0.0")
    ran = ok(shell, f"{fixed}\nfor _ in range(3):\n    w_v, v_v = upd_v2_jit(w_v, v_v)")
    assert ran.notes == [] and len(events_of(shell.user_ns["upd_v2_jit"])) == 1


def test_x64_switched_on_names_the_config_alone_as_jax(shell):
    """enable_x64_context: JAX names jax_enable_x64 alone; the note once added "x: dtype
    f32[] -> f64[]" with `x = float(x)`, which x already was."""
    ok(shell, "x64_jit = jax.jit(lambda v: v * 2.75)\nx64_jit(1.0)")
    ran = ok(shell, "with jax.enable_x64(True):\n    x64_jit(1.0)")
    (note,) = ran.notes
    (change,) = events_of(shell.user_ns["x64_jit"])[-1].changes
    assert (change.path, change.kind) == ("jax_enable_x64", "config")
    told = [line for line in note["text/plain"].splitlines() if here("compiled for") not in line]
    assert "float(" not in "\n".join(told) and "f64" not in "\n".join(told), told


def test_a_lambda_passed_static_each_call_is_told_to_be_made_once(shell):
    """static_lambda_each_call: JAX names the static function (Static(val=<function
    <lambda>>)); the fix once was a __hash__ "in class function"."""
    ok(shell, "def apply_fn(fn, v):\n    return fn(v)\n"
              "apply_jit = jax.jit(apply_fn, static_argnums=0)")
    ran = ok(shell, "for _ in range(2):\n    apply_jit(lambda v: v * 2, jnp.ones(3))")
    (note,) = ran.notes
    (change,) = events_of(shell.user_ns["apply_jit"])[-1].changes
    assert (change.path, change.kind) == ("fn", "static")
    assert "Make it once, outside the loop" in note["text/plain"]
    assert "__hash__" not in note["text/plain"]
    ok(shell, "def apply_fn2(fn, v):\n    return fn(v)\n"
              "apply2_jit = jax.jit(apply_fn2, static_argnums=0)\ndouble = lambda v: v * 2")
    ran = ok(shell, "for _ in range(2):\n    apply2_jit(double, jnp.ones(3))")
    assert ran.notes == [] and len(events_of(shell.user_ns["apply2_jit"])) == 1


def test_a_jitted_def_redefined_in_a_later_cell_is_a_first_compile_as_in_jax(shell):
    """jit_decorated_def_in_two_cells: a @jax.jit def changed in a later cell is a new
    function (JAX: "never seen function", no hint): a first compile, said nothing of; the
    first cell's source run again is told as that cell's code made anew, with the fix of a
    cell of its own."""
    first = "@jax.jit\ndef rd(v):\n    return v * 6.5\nrd(jnp.ones(3))"
    assert ok(shell, first).notes == []
    assert ok(shell, "@jax.jit\ndef rd(v):\n    return v * 7.5\nrd(jnp.ones(3))").notes == []
    (event,) = events_of(shell.user_ns["rd"])
    assert event.reason == "first call" and event.changes == ()
    ran = ok(shell, first)
    (note,) = ran.notes
    (change,) = events_of(shell.user_ns["rd"])[-1].changes
    assert change.kind == "fresh_jit" and "defined this function anew" in change.fix
    assert fix_in_brief(change.fix) in note["text/plain"]


def _stale(ran) -> list:
    return [o for o in ran.outputs if o["text/plain"].startswith("⚠")]


def test_a_global_changed_after_the_trace_is_noted_once_under_the_cell(shell):
    """JAX keeps the value a jitted function read from a global when it was traced (recorded:
    tests/data/recompile_reference.json's closure_number_rebound answers with the old k).
    The cell that changes it gets a note naming the function, the value as traced and now,
    and how to pass it instead; later cells say nothing more of it, and %jxnotes off
    silences it."""
    first = ok(shell, "scale_g = 2.0\n@jax.jit\ndef mul_g(x):\n    return x * scale_g\n"
                      "mul_g(1.0)")
    assert _stale(first) == []
    ran = ok(shell, "scale_g = 3.0\n_out_g = mul_g(1.0)")
    assert float(shell.user_ns["_out_g"]) == 2.0           # the old value, as JAX
    (note,) = _stale(ran)
    text = note["text/plain"]
    assert text.splitlines()[0] == here(f"⚠ mul_g read scale_g = 2.0 when traced (at "
                                        f"In[{first.count}]:5); scale_g is 3.0 now, and its "
                                        f"compiled program keeps 2.0")
    assert "def mul_g(..., scale_g): ..." in text
    assert "<details class='jx-note jx-compile'" in note["text/html"]
    assert _stale(ok(shell, "mul_g(1.0)")) == []            # told once
    ok(shell, "%jxnotes off")
    assert _stale(ok(shell, "@jax.jit\ndef mul_h(x):\n    return x * scale_g\nmul_h(1.0)\n"
                            "scale_g = 4.0")) == []


def test_a_field_of_a_static_self_set_after_the_trace_is_noted_and_its_fix_runs(shell):
    """`@partial(jax.jit, static_argnums=0)` on a method, then `m.w = ...`: JAX 0.10.2 reuses
    the old program (tests/data/stale_static_reference.json's self_static), silently. The
    cell gets a note naming self.w as traced and now, and its fix pasted (the class a pytree,
    self traced) gives the new w's result, as JAX's does (the reference's fix)."""
    first = ok(shell, "from functools import partial\nclass Lin:\n"
                      "    def __init__(self, w):\n        self.w = w\n"
                      "    @partial(jax.jit, static_argnums=0)\n"
                      "    def predict(self, x):\n        return x @ self.w\n"
                      "lin = Lin(jnp.ones((3, 2)))\nlin.predict(jnp.ones((1, 3)))")
    assert _stale(first) == []
    ran = ok(shell, "lin.w = jnp.zeros((3, 2))\n_out_s = lin.predict(jnp.ones((1, 3)))")
    assert shell.user_ns["_out_s"].tolist() == [[3.0, 3.0]]      # the old w, as JAX
    (note,) = _stale(ran)
    text = note["text/plain"]
    assert text.splitlines()[0].startswith(here(
        f"⚠ predict read self.w = [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]] (float32[3,2]) when "
        f"traced (at In[{first.count}]:9); self.w is [[0.0, 0.0], "))
    assert "Lin keeps object's own hash and == (by identity)" in text
    fix = "\n".join(line[2:] for line in text.split("it is given:\n", 1)[1].splitlines())
    ok(shell, "class Lin:\n    def __init__(self, w):\n        self.w = w\n"
              "    @jax.jit\n    def predict(self, x):\n        return x @ self.w\n" + fix)
    ok(shell, "lin2 = Lin(jnp.ones((3, 2)))\n_a = lin2.predict(jnp.ones((1, 3)))\n"
              "lin2.w = jnp.zeros((3, 2))\n_b = lin2.predict(jnp.ones((1, 3)))")
    assert (shell.user_ns["_a"].tolist(), shell.user_ns["_b"].tolist()) == \
        ([[3.0, 3.0]], [[0.0, 0.0]])


def test_a_global_read_by_a_helper_names_the_helper_and_the_fix_passes_it_on(shell):
    """A jitted step calling a helper that reads a global: JAX keeps the old value (recorded:
    helper_global_rebound), so the note names the helper, and its fix (a parameter of both,
    passed on) applied in the notebook uses the new value on the next call, as JAX does
    (helper_global_passed_on), without a recompile."""
    ok(shell, "lr_h = 0.5\ndef update_h(w):\n    return w * lr_h\n@jax.jit\n"
              "def step_h(w):\n    return update_h(w) + 1\nstep_h(2.0)")
    (note,) = _stale(ok(shell, "lr_h = 0.25"))
    text = note["text/plain"]
    assert text.splitlines()[0].startswith(
        "⚠ step_h read lr_h = 0.5 (in update_h, which it calls) when traced (at In["), text
    assert "def update_h(..., lr_h): ...\n  def step_h(..., lr_h): ...  # calls " \
        "update_h(..., lr_h); then call step_h(..., lr_h)" in text, text
    fixed = ok(shell, "def update_h(w, lr_h):\n    return w * lr_h\n@jax.jit\n"
                      "def step_h(w, lr_h):\n    return update_h(w, lr_h) + 1\n"
                      "_a_h = step_h(2.0, 0.5); _b_h = step_h(2.0, 0.25)")
    assert (float(shell.user_ns["_a_h"]), float(shell.user_ns["_b_h"])) == (2.0, 1.5)
    assert _stale(fixed) == [] and len(events_of(shell.user_ns["step_h"])) == 1


def test_a_recompile_under_grad_is_counted_with_the_jits_own_compiles(shell):
    """grad of a jitted function on a new shape compiles the function again: its note said
    "the log was cleared since its first" (counted apart from the jit's own compiles, as its
    first), though nothing was cleared; it is the function's compile #2."""
    ok(shell, "fn14 = jax.jit(lambda v: (v ** 2).sum())\nfn14(jnp.ones(3))")
    (note,) = ok(shell, "jax.grad(fn14)(jnp.ones(5))").notes
    title = note["text/plain"].splitlines()[0]
    assert title.startswith(here("⚙ <lambda> compiled again (compile #2, at In[")), title
    assert "cleared" not in note["text/plain"]


def test_a_compile_in_a_magics_run_is_called_at_the_cells_line_as_typed(shell):
    """%timeit's warm-up run compiles: the note named IPython's run_line_magic as the caller
    (`called at :  result = fn(*args, **kwargs)`, IPython's own line); IPython's frames are
    not the user's, so it is the cell's line, shown as typed (not IPython's
    get_ipython().run_line_magic(...) rewrite of it)."""
    ok(shell, "fn15 = jax.jit(lambda v: v * 15)\nfn15(jnp.ones(2))")
    ran = ok(shell, "%timeit -n1 -r1 fn15(jnp.ones(4))")
    (note,) = ran.notes
    text = note["text/plain"]
    assert f"at In[{ran.count}]:1)" in text.splitlines()[0], text
    assert f"called at In[{ran.count}]:1:  %timeit -n1 -r1 fn15(jnp.ones(4))" in text, text
    assert "run_line_magic" not in text and "fn(*args" not in text


def test_a_callable_object_jitted_anew_is_noted_with_a_fix_that_applies(shell):
    """jax.jit(Model(k)) in a loop: a new callable object each time, which JAX 0.10.2 traces
    and compiles each time too (recompile_cases.py's callable_object_jitted_anew); it went
    by with no note (an object has no code of its own: no lineage). Its class's __call__ is
    its code now, and the fix (a pytree model passed to one jitted function) is the program
    callable_object_jitted_anew_fixed, which JAX lowers once."""
    ok(shell, "class Scale16:\n    def __init__(self, k):\n        self.k = k\n"
              "    def __call__(self, v):\n        return v * self.k\n")
    (note,) = ok(shell, "for k in (1.0, 2.0):\n    jax.jit(Scale16(k))(jnp.ones(3))").notes
    text = note["text/plain"]
    assert text.startswith(here("⚙ a Scale16 object compiled again (a new jit object, at In[")), text
    assert "Scale16, lambda m: ((m.k,), None), lambda _, leaves: Scale16(*leaves))" in text
    assert "apply = jax.jit(lambda model, x: model(x))" in text


def test_a_jitted_callable_object_is_named_as_an_object_and_where_its_call_is(shell):
    """jax.jit(Model()) made once, called with a new length: JAX 0.10.2's log names the
    function <unknown>, defined nowhere (recompile_cases.py's callable_object_new_shape); the
    note names an object of the class, where its __call__ is, and that JAX's log says
    <unknown> (the class itself was not jitted, nor is "Encoder" in JAX's log)."""
    defined = ok(shell, "class Encoder17:\n    def __call__(self, v):\n        return v * 2\n"
                        "enc17 = jax.jit(Encoder17())\nenc17(jnp.ones(3))")
    ran = ok(shell, "enc17(jnp.ones(4))")
    (note,) = ran.notes
    text = note["text/plain"]
    assert text.startswith(here(f"⚙ an Encoder17 object compiled again (compile #2, at "
                                f"In[{ran.count}]:1): v: shape f32[3] -> f32[4]")), text
    assert (f"an Encoder17 object: its class's __call__ defined at In[{defined.count}]:2 "
            f"(JAX's jax_explain_cache_misses log names a jitted object <unknown>, defined "
            f"nowhere)") in text
    (event,) = events_of(shell.user_ns["enc17"])[-1:]
    assert event.source is None and event.call_class == "Encoder17"
    assert event.function == "<unnamed function>"     # JAX's name of the jit (its log's)


LIBRARY_WITH_JITS = ("import jxkernel as jax\n"
                     "@jax.jit\n"
                     "def lib_scale(x):\n"
                     "    return x * 2\n"
                     "def lib_loop(x):\n"
                     "    return jax.lax.fori_loop(0, 2, lambda i, c: c * 2, x)\n")


def test_a_registered_librarys_own_jits_and_bodies_are_not_the_users(shell, tmp_path):
    """A library that registers its files as excluded (source_info_util.register_exclusion,
    as Flax and Equinox do) before it defines its `@jit`s: those compile for the user's calls
    but are not the user's (JAX's explain_cache_misses logs no miss of them, as of
    jxkernel's): no recompile note, its loop bodies no retrace events, and with `%jxnotes
    all` a line of libraries' functions. Not registered, the same library is the user's."""
    path = str(tmp_path / "lib_with_jits.py")
    with excluded(path):
        lib = import_library(tmp_path, "lib_with_jits", LIBRARY_WITH_JITS)
        shell.user_ns["lib18"] = lib
        assert origin_of(f"{path}:3") == INTERNAL
        start = compile_log.last_seq() + 1
        ok(shell, "lib18.lib_scale(jnp.ones(3)); lib18.lib_loop(jnp.ones(3))")
        assert ok(shell, "lib18.lib_scale(jnp.ones(4)); lib18.lib_loop(jnp.ones(4))").notes \
            == []
        mine = [e for e in compile_log.events_since(start) if (e.source or "").startswith(path)]
        assert [e.origin for e in mine] == [INTERNAL] * 2          # lib_scale's, no bodies
        ok(shell, "%jxnotes all")
        (note,) = ok(shell, "lib18.lib_scale(jnp.ones(5))").notes
        assert re.search(here(r"1 compile\(s\) of libraries' own functions, for your calls: "
                              r"lib_scale \(lib_with_jits\) \[In\[\d+\]:1\]"),
                         note["text/plain"]), \
            note["text/plain"]
        assert "jxkernel's own functions" not in note["text/plain"]
        ok(shell, "%jxnotes recompiles")
    assert origin_of(f"{path}:3") == USER
    lib = import_library(tmp_path, "lib_with_jits", LIBRARY_WITH_JITS)   # its jits anew
    shell.user_ns["lib18"] = lib
    start = compile_log.last_seq() + 1
    ok(shell, "lib18.lib_scale(jnp.ones(3)); lib18.lib_loop(jnp.ones(3))")
    (note,) = ok(shell, "lib18.lib_scale(jnp.ones(4)); lib18.lib_loop(jnp.ones(4))").notes
    # lib_scale compiled again, the loop's body traced again (nothing compiled of its own):
    # JAX's log has two cache misses, not two recompiles
    assert note["text/plain"].startswith("⚙ 2 cache miss(es) in this cell (lib_scale, <lambda>)")
    mine = [e for e in compile_log.events_since(start) if (e.source or "").startswith(path)]
    assert {e.origin for e in mine} == {USER} and len(mine) == 4    # two jits, two bodies


def test_a_compile_after_clear_caches_says_the_caches_were_cleared(shell):
    # JAX's log after jax.clear_caches(): "never seen function", the same id again
    # (tests/data/trace_time_misses_reference.json, case clear_caches); the note says why a
    # function that compiled before compiled as one never seen, not "first call"
    ok(shell, "fn61 = jax.jit(lambda v: v * 61)\nfn61(jnp.ones(2))")
    (note,) = ok(shell, "jax.clear_caches()\nfn61(jnp.ones(2))").notes
    text = note["text/plain"]
    assert text.startswith(here("⚙ <lambda> compiled again (compile #2, at In[")) and \
        text.splitlines()[0].endswith("): its caches were cleared (jax.clear_caches() or its "
                                      ".clear_cache()): traced anew, as a function never seen "
                                      "(JAX's log: \"never seen function\", the same id)"), text
    assert "first call" not in text


def test_an_eval_shape_trace_compiled_after_another_compile_says_so(shell):
    # eval_shape traced at f32[2] (JAX logs the miss there), a call at f32[3] compiled, then
    # the call at f32[2] compiles eval_shape's trace: no miss (JAX logs none), compile #2
    ok(shell, "fn62 = jax.jit(lambda v: v * 62)\njax.eval_shape(fn62, jnp.ones(2))\n"
              "fn62(jnp.ones(3))")
    (note,) = ok(shell, "fn62(jnp.ones(2))").notes
    assert note["text/plain"].splitlines()[0].endswith(here(
        "): its trace made before (by eval_shape, .trace or .lower, where its miss was logged) "
        "compiled now")), note["text/plain"]


def test_an_explicit_aot_compile_after_a_call_is_a_new_jit_and_gets_no_fix(shell):
    """`jax.jit(f, static_argnums=0).lower(7).compile()` after `jax.jit(f)(3)`, nothing
    cleared: the new jit's first compile (not "the log was cleared"), what changed as JAX's
    jax_explain_cache_misses logs a miss for it too (tests/data/aot_compile_log_reference.json,
    reference/make_aot_compile_log_reference.py), and no fix: the learner asked for it."""
    import locations
    jax_log = locations.recorded("aot_compile_log_reference.json")
    # JAX: the call's miss is a function never seen; each explicit compile is a miss it logs,
    # and XLA compiles
    assert "never seen function:" in jax_log["call"]["miss"][1]
    for step in ("aot_static_7", "aot_static_8"):
        assert jax_log[step]["miss"][0].startswith("TRACING CACHE MISS")
        assert jax_log[step]["xla_compiled"]
    ok(shell, "def fa81(x):\n    return 2 * x")
    # alone, in a fresh notebook's sense (no other compile of fa81): a first compile, no note
    assert not ok(shell, "jax.jit(fa81, static_argnums=0).lower(5).compile()").notes
    ok(shell, "def fa82(x):\n    return 2 * x\njax.jit(fa82)(3)")
    (note,) = ok(shell, jax_log["aot_static_7"]["source"].replace("(f,", "(fa82,")).notes
    text = note["text/plain"]
    first = text.splitlines()[0]
    assert first.startswith(here("⚙ fa82 compiled again (a new jit object, at In[")), first
    assert first.endswith("x: traced i32[] (weak) -> static 7"), first
    assert "cleared" not in text and "fix" not in text and "Treat it" not in text, text
    assert "compiled ahead of time, as this line asked" in text, text
    # a call that compiles again still gets its fix
    (note,) = ok(shell, "jax.jit(fa82)(3.0)").notes
    assert "fix" in note["text/plain"], note["text/plain"]
