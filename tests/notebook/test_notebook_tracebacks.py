"""jxkernel's errors in IPython end at the user's lines (jxkernel/notebook/tracebacks.py)."""
import re

import pytest

pytest.importorskip("IPython")

from IPython.utils.capture import capture_output

from jxkernel.notebook import tracebacks
from jxkernel.views import error_cards
from ipython_shell import ran_failing, run_cell, shell_fixture
from registered_library import excluded, import_library

ANSI = re.compile(r"\x1b\[[0-9;]*m")


shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp\n"
                      "from jxkernel import compile_log", fresh=True)


def shown(shell, source) -> str:
    """What the shell prints for the cell (its traceback, colours removed), and the traceback
    an error card folds."""
    ran = ran_failing(shell, source)
    return "\n".join([ran.printed] + ran.folded)


def test_recompile_error_ends_at_the_calling_line(shell):
    shell.run_cell("double = jax.jit(lambda x: x * 2)\ndouble(jnp.ones(3))\n"
                   "_ = compile_log.fail_on_recompile(double, True)")
    try:
        text = shown(shell, "y = 1\ndouble(jnp.ones(5))")
    finally:     # the shell is the process's one instance: other tests' guard lists see it
        shell.run_cell("_ = compile_log.fail_on_recompile(double, False)")
    assert "RecompileError" in text and "----> 2 double(jnp.ones(5))" in text, text
    assert "/jxkernel/" not in text, text                 # none of jit's frames


def test_tracer_error_ends_at_the_traced_line(shell):
    text = shown(shell, "def g(x):\n    if x > 0:\n        return x\n    return -x\n"
                        "jax.jit(g)(1.0)")
    assert "----> 5 jax.jit(g)(1.0)" in text, text
    assert "----> 2     if x > 0:" in text, text           # g's frame, where it went wrong
    assert "TracerBoolConversionError" in text
    assert "/jxkernel/" not in text, text


def test_a_value_error_jxkernel_raises_ends_at_the_users_line(shell):
    text = shown(shell, "def loss(p, y):\n    return jnp.mean((p - y) ** 2)\n"
                        "with jax.numpy_rank_promotion('raise'):\n"
                        "    loss(jnp.ones(5), jnp.ones((5, 1)))")
    assert "ValueError: Operands could not be broadcast together for subtract" in text, text
    assert "----> 4     loss(jnp.ones(5), jnp.ones((5, 1)))" in text, text
    assert "----> 2     return jnp.mean((p - y) ** 2)" in text, text
    assert "/jxkernel/" not in text, text                  # none of jnp's frames


def test_other_errors_keep_their_tracebacks(shell):
    text = shown(shell, "def h():\n    raise ValueError('mine')\nh()")
    assert "ValueError: mine" in text and "----> 2     raise ValueError('mine')" in text, text


def test_filtering_off(shell, monkeypatch):
    shell.run_line_magic("unload_ext", "jxkernel")
    monkeypatch.setenv(tracebacks.FILTERING, "off")
    shell.run_line_magic("load_ext", "jxkernel")
    assert shell.custom_exceptions == ()
    text = shown(shell, "jax.jit(lambda x: int(x))(1.0)")
    assert "jit/function.py" in text, text


def test_another_custom_handler_is_kept(shell):
    shell.run_line_magic("unload_ext", "jxkernel")
    seen = []
    shell.set_custom_exc((KeyError,), lambda sh, *exc, tb_offset=None: seen.append(exc[0]))
    try:
        shell.run_line_magic("load_ext", "jxkernel")
        assert shell.custom_exceptions == (KeyError,)
        with capture_output():
            shell.run_cell("{}['k']")
        assert seen == [KeyError]
        shell.run_line_magic("unload_ext", "jxkernel")
        assert shell.custom_exceptions == (KeyError,)     # not ours: unloading leaves it
    finally:
        shell.set_custom_exc((), None)


def test_unload_removes_the_handler(shell):
    assert shell.custom_exceptions == tracebacks.ERRORS
    shell.run_line_magic("unload_ext", "jxkernel")
    assert shell.custom_exceptions == ()


def test_user_traceback_keeps_user_frames_in_order():
    import jxkernel

    def inner():
        jxkernel.jit(lambda x: int(x))(1.0)

    with pytest.raises(jxkernel.errors.ConcretizationTypeError) as info:
        inner()
    names = [t.tb_frame.f_code.co_name for t in tracebacks.walk(info.value.__traceback__)]
    kept = [t.tb_frame.f_code.co_name
            for t in tracebacks.walk(tracebacks.user_traceback(info.value.__traceback__))]
    assert "_call" in names                               # jit's own frames were there
    assert kept == ["test_user_traceback_keeps_user_frames_in_order", "inner", "<lambda>"], kept


def test_a_library_registered_with_traceback_util_leaves_the_filtered_traceback(tmp_path):
    # JAX 0.10.2 (a library file registered by jax._src.traceback_util.register_exclusion,
    # a shape error raised in it below a jitted user function, run under .venv-jax): its
    # filtered traceback drops the library's frame and keeps the user's; registered with
    # source_info_util.register_exclusion only, the library's frame stays.
    import jxkernel
    from jxkernel import config
    lib = import_library(tmp_path)

    def user():
        jxkernel.jit(lib.branch)(1.0)

    def kept() -> list:
        with pytest.raises(jxkernel.errors.TracerBoolConversionError) as info:
            user()
        return [t.tb_frame.f_code.co_filename
                for t in tracebacks.walk(tracebacks.user_traceback(info.value.__traceback__))]

    before = config.jax_traceback_filtering
    # the notebook's mode: the frames stay, marked (quiet_remove_frames would drop them
    # before user_traceback sees them)
    config.update("jax_traceback_filtering", "tracebackhide")
    try:
        assert kept() == [__file__, __file__, lib.__file__]    # a real file: the user's
        with excluded(lib.__file__, user_line=False):
            assert kept() == [__file__, __file__]
        with excluded(lib.__file__, tracebacks=False):         # source_info's list only
            assert kept() == [__file__, __file__, lib.__file__]
    finally:
        config.update("jax_traceback_filtering", before)


# ------------------------------------------------------------------ one error, said once
RELU_SUM = ("@jax.jit\ndef relu_sum(x):\n    if x.sum() > 0:\n        return x.sum()\n"
            "    return 0.0\nrelu_sum(jnp.arange(3.0))")
FIRST_LINE = "Attempted boolean conversion of traced array with shape bool[]."
REST = ("depends on the value of the argument x", "This concrete value was not available in Python")


def test_an_error_with_a_card_is_said_once(shell):
    ran = run_cell(shell, RELU_SUM)
    n = ran.count
    assert type(ran.error).__name__ == "TracerBoolConversionError"
    (card,) = ran.card_outputs
    # the error output: one line naming the error and the user's line, the card under it
    assert ran.stdout.splitlines() == [
        f"TracerBoolConversionError in In[{n}], line 3, in relu_sum: explained in the card "
        f"below"]
    text = ran.stdout + card["text/plain"]
    assert text.count(FIRST_LINE) == 1 and not any(s in text for s in REST), text
    assert len(text.splitlines()) <= 20
    html = card["text/html"]
    shown, folded = re.split(r"<details[^>]*>", html)
    assert shown.count(FIRST_LINE) == 1 and not any(s in shown for s in REST)
    # one click away: the filtered traceback, JAX's whole message, the cell named In[n]
    traceback = card[error_cards.MIME]["traceback"]
    assert "</summary>" in folded and all(s in traceback for s in REST)
    assert f"Cell In[{n}], line 3, in relu_sum" in traceback
    assert "----> 3     if x.sum() > 0:" in traceback and "/jxkernel/" not in traceback
    assert f"while tracing the function relu_sum at In[{n}], line 1 for jit" in traceback
    assert "<ipython-input-" not in traceback
    # as after any error, %tb prints the whole traceback (the card's text points to it)
    assert "(%tb shows the whole traceback)" in card["text/plain"]
    with capture_output() as cap:
        shell.run_line_magic("tb", "")
    assert "----> 3     if x.sum() > 0:" in ANSI.sub("", cap.stdout)


def test_cell_file_names_read_as_the_prompt_numbers(shell):
    names = shell.compile._filename_map
    names["/tmp/ipykernel_4692/1161316084.py"] = 7           # as ipykernel names In[7]'s file
    try:
        said = tracebacks.name_cells(
            "tracing relu_sum at /tmp/ipykernel_4692/1161316084.py:1 for jit; defined in "
            "/tmp/ipykernel_4692/1161316084.py; fail_on_recompile("
            "'f@/tmp/ipykernel_4692/1161316084.py:1#1403', False)")
    finally:
        del names["/tmp/ipykernel_4692/1161316084.py"]
    assert said == ("tracing relu_sum at In[7], line 1 for jit; defined in In[7]; "
                    "fail_on_recompile('f@/tmp/ipykernel_4692/1161316084.py:1#1403', False)")


def test_a_cells_line_and_column_read_as_words_the_column_as_the_editor_counts(shell):
    """JAX's 'FILE:1:16 (<module>)' (a column counted from 0) read 'In[7], line 1:16', the
    column glued to the line: it reads 'In[7], line 1, column 17', as JupyterLab's status bar
    counts the character the call starts at; a 'line' before the file is not said twice."""
    names = shell.compile._filename_map
    names["/tmp/ipykernel_4692/1161316084.py"] = 7
    try:
        said = [tracebacks.name_cells(text) for text in (
            "TRACING CACHE MISS at /tmp/ipykernel_4692/1161316084.py:1:16 (<module>):",
            "TRACING CACHE MISS at /tmp/ipykernel_4692/1161316084.py:1 (<module>):",
            "created on line /tmp/ipykernel_4692/1161316084.py:3:8 (helper).",
            "    from line /tmp/ipykernel_4692/1161316084.py:2 (f)")]
    finally:
        del names["/tmp/ipykernel_4692/1161316084.py"]
    assert said == ["TRACING CACHE MISS at In[7], line 1, column 17 (<module>):",
                    "TRACING CACHE MISS at In[7], line 1 (<module>):",
                    "created on In[7], line 3, column 9 (helper).",
                    "    from In[7], line 2 (f)"]


def test_a_failure_while_showing_keeps_the_handler(shell, monkeypatch):
    """Should the card's traceback fail to render, the error still shows (IPython's way) and
    the handler stays installed: IPython drops a handler that raises."""
    def broken(*args, **kwargs):
        raise RuntimeError("no traceback today")
    monkeypatch.setattr(tracebacks, "name_cells", broken)
    text = shown(shell, RELU_SUM)
    assert "TracerBoolConversionError" in text and "----> 3     if x.sum() > 0:" in text, text
    assert tracebacks.installed(shell)


def test_the_reply_of_jupyterlites_kernel_gets_one_line_under_the_card(shell, monkeypatch):
    """JupyterLite's Pyodide kernel (pyodide_kernel) records the last error as a dict, from
    which its execute reply reads ename, evalue and traceback by key; an error with a card
    must leave it a dict (a list there failed every such cell in the browser with "list
    indices must be integers or slices, not str"). JupyterLite shows that traceback as the
    cell's error output, after the card: one line saying the card is above it (the whole
    traceback showed there under the card, said twice)."""
    def pyodide_kernels(etype, evalue, stb):      # pyodide_kernel's interpreter, as it is
        shell._last_traceback = {"ename": str(etype), "evalue": str(evalue), "traceback": stb}
    monkeypatch.setattr(shell, "_showtraceback", pyodide_kernels, raising=False)
    monkeypatch.setattr(shell, "_last_traceback", None, raising=False)
    text = shown(shell, "def g(x):\n    if x > 0:\n        return x\n    return -x\n"
                        "jax.jit(g)(1.0)")
    assert "TracerBoolConversionError" in text
    last = shell._last_traceback
    assert set(last) == {"ename", "evalue", "traceback"}, last
    assert "TracerBoolConversionError" in last["ename"]
    (line,) = last["traceback"]
    assert re.fullmatch(r"TracerBoolConversionError in In\[\d+\], line 2, in g: explained in "
                        r"the card above", ANSI.sub("", line)), line


def test_a_failing_callbacks_logged_traceback_names_the_cell(shell):
    """A host callback that raises is logged as JAX 0.10.2 logs it ("jax.io_callback failed",
    with its traceback: tests/data/jax_tests_aot_reference.json); in the notebook the
    traceback's frames in the user's cells read In[n], not ipykernel's temporary files."""
    from logged import logged_messages
    source = ("def boom(x):\n    raise ValueError('no')\n\n"
              "def f(x):\n    return io_callback(boom, x, x)\n")
    assert shell.run_cell("from jxkernel.experimental import io_callback\n" + source,
                          store_history=True).success
    cell = shell.execution_count - 1
    with logged_messages("jax._src.callback", tracebacks=True) as messages:
        result = shell.run_cell("jax.jit(f)(jnp.float32(1.0)).block_until_ready()")
    assert not result.success
    assert messages and messages[0].startswith("jax.io_callback failed\nTraceback"), messages
    assert f'File "In[{cell}]", line 3, in boom' in messages[0], messages[0]   # after the import
    assert "ipykernel" not in messages[0] and "<ipython-input" not in messages[0]


def test_the_miss_log_is_jaxs_words_where_the_cells_note_tells_the_fix(shell):
    """With jax_explain_cache_misses on, a recompile's log is JAX's message alone while the
    compile notes are on (the cell's note tells the fix and its code: said once); with
    `%jxnotes off` nothing else tells it, and the log keeps jxkernel's indented fix lines."""
    import logging
    messages = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: messages.append(record.getMessage())
    log = logging.getLogger("jxkernel.compile_log")
    log.addHandler(handler)
    try:
        shell.run_cell("jax.config.update('jax_explain_cache_misses', True)\n"
                       "grown = jax.jit(lambda x: x * 2)\ngrown(jnp.ones(3))")
        with capture_output() as cap:
            shell.run_cell("grown(jnp.ones(4))")
        shell.run_line_magic("jxnotes", "off")
        shell.run_cell("grown(jnp.ones(5))")
    finally:
        shell.run_line_magic("jxnotes", "recompiles")
        shell.run_cell("jax.config.update('jax_explain_cache_misses', False)")
        log.removeHandler(handler)
    noted, unnoted = [m for m in messages if "all previously seen cache keys differ" in m]
    assert noted.splitlines()[-2:] == ["  different input types:",
                                      "  * at x, now f32[4] and before f32[3]"], noted
    note = "\n".join(str(o.data.get("text/plain", "")) for o in cap.outputs)
    assert "fix: " in note and "x = jnp.pad(x," in note, note
    assert unnoted.splitlines()[4] == "  * at x, now f32[5] and before f32[3]", unnoted
    assert unnoted.splitlines()[5].startswith("    fix: "), unnoted
