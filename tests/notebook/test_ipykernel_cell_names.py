"""In a real ipykernel (as JupyterLab runs one), a %%jit cell's views name it by the number
its prompt shows: the execute_reply's execution_count is N, and the compile note, the error
and the compile log say cell[N] and In[N] (ipykernel counts the cell before running it).

One kernel serves every check (module-scoped); skipped when ipykernel is missing."""
import re

import pytest

pytest.importorskip("ipykernel")
pytest.importorskip("jupyter_client")

import locations  # noqa: E402  (tests/support)
from real_kernel import TIMEOUT, kernel_cell, running_kernel  # noqa: E402
from note_words import here  # noqa: E402  (tests/support)

# how JAX's persistent-cache lines begin (jax._src.compiler, jax._src.compilation_cache)
PERSISTENT_LINES = ("PERSISTENT COMPILATION CACHE", "Writing ", "Not writing persistent",
                    "Persistent compilation cache hit")


LOADING = {}        # the execute_reply and text of the cell that ran %load_ext jxkernel


@pytest.fixture(scope="module")
def kernel():
    with running_kernel(TIMEOUT) as client:
        # a line magic in the cell that loads the extension too (named one too high on
        # IPython 9, whose execution_count is the next prompt's while a cell runs)
        LOADING["reply"], LOADING["text"] = reply_and_text(
            client, "%load_ext jxkernel\nimport jxkernel.numpy as jnp\nx = jnp.ones(3)\n"
                    "%jaxpr jnp.sin(x) * 5")
        assert LOADING["reply"]["status"] == "ok", LOADING["reply"]
        yield client


def reply_and_text(client, code):
    """(the execute_reply's content, the cell's outputs as text: KernelCell.text)."""
    cell = kernel_cell(client, code)
    return cell.reply, cell.text


def test_a_compiled_cell_is_named_by_its_prompt_number(kernel):
    reply, text = reply_and_text(kernel, "%%jit\ny = x * 2")
    n = reply["execution_count"]
    assert reply["status"] == "ok" and here(f"⚙ compiled cell[{n}] ") in text, (n, text)
    reply, text = reply_and_text(kernel, "from jxkernel import compile_log\n"
                                  "print(compile_log.compile_events()[-1].function)")
    assert text.strip() == f"cell[{n}]"


def test_an_error_names_the_cell_and_its_line_by_the_prompt_number(kernel):
    reply, text = reply_and_text(kernel, "%%jit\nz = x * undefined_name")
    n = reply["execution_count"]
    assert reply["status"] == "error" and reply["ename"] == "CellError"
    assert f"NameError in cell[{n}], line 2: z = x * undefined_name" in text, (n, text)
    assert f"cell[{n + 1}]" not in text


def test_a_line_magics_call_is_named_in_n_by_the_prompt_number(kernel):
    reply, text = reply_and_text(kernel, "%jaxpr len(undefined_name)")
    n = reply["execution_count"]
    assert reply["status"] == "error" and f"NameError in In[{n}]" in text, (n, text)
    assert f"In[{n + 1}]" not in text


def test_a_line_magic_below_other_lines_is_named_by_its_own_line(kernel):
    """`%jaxpr` on a cell's line 3 (ipykernel's cell file is /tmp/ipykernel_<pid>/<hash>.py):
    its jaxpr's lines and its error say In[n]:3 / line 3, the cell's line, not line 1; a
    jitted call compiled again on a magic's line 2 is noted at In[n]:2."""
    cell = kernel_cell(kernel, "x3 = jnp.ones(3)\ny3 = 2.0\n%jaxpr jnp.sin(x3) * y3")
    n = cell.count
    assert f"# In[{n}]:3 (cell[{n}])" in cell.text and f"In[{n}]:1" not in cell.text, cell.text
    cell = kernel_cell(kernel, "x3 = jnp.ones(3)\n\n%jaxpr len(undefined_3)")
    assert f"NameError in In[{cell.count}], line 3: len(undefined_3)" in cell.text, cell.text
    kernel_cell(kernel, "import jxkernel as jax\nh3 = jax.jit(lambda v: v + 1)\nh3(x3)")
    cell = kernel_cell(kernel, "v3 = jnp.ones(5)\n%jaxpr jnp.sin(h3(v3))")
    (note,) = cell.compile_notes
    assert here(f"(compile #2, at In[{cell.count}]:2)") in note, note


def test_a_line_magic_in_the_cell_that_loads_the_extension_is_named_by_its_prompt(kernel):
    n = LOADING["reply"]["execution_count"]
    # (the %jaxpr stands on the cell's line 4)
    assert f"# In[{n}]:4 (cell[{n}])" in LOADING["text"], (n, LOADING["text"])
    assert f"In[{n + 1}]" not in LOADING["text"]


def test_an_error_card_names_the_cell_not_ipykernels_file(kernel):
    """In ipykernel a cell's file is /tmp/ipykernel_<pid>/<hash>.py: the error output, the card
    and the traceback it folds say In[n] instead; the execute reply keeps the whole
    traceback (for nbclient and the like)."""
    cell = kernel_cell(kernel, "import jxkernel as jax\n@jax.jit\ndef relu_sum(x):\n"
                               "    if x.sum() > 0:\n        return x.sum()\n    return 0.0\n"
                               "relu_sum(jnp.arange(3.0))")
    reply, n = cell.reply, cell.count
    (error,), (card,) = cell.tracebacks, cell.card_outputs
    assert error.startswith(f"TracerBoolConversionError in In[{n}], line 4, in relu_sum: ")
    folded = card["application/vnd.jxkernel.error+json"]["traceback"]
    assert f"while tracing the function relu_sum at In[{n}], line 2 for jit" in folded
    for text in (error, card["text/plain"], card["text/html"], folded):
        assert "ipykernel_" not in text, text
    assert reply["status"] == "error"
    assert any("depends on the value of the argument x" in line
               for line in reply["traceback"])
    # the message itself too: the reply's evalue is what nbclient and Colab show, and what a
    # later print(e) prints
    assert "ipykernel_" not in reply["evalue"], reply["evalue"]
    assert f"relu_sum at In[{n}], line 2 for jit" in reply["evalue"]


def test_the_cache_miss_log_names_cells_not_ipykernels_files(kernel):
    """jax_explain_cache_misses's log, JAX's text (`TRACING CACHE MISS at FILE:LINE`), with
    the cell named as the cards name it: ipykernel's /tmp/ipykernel_<pid>/<hash>.py is not
    the learner's."""
    reply, _ = reply_and_text(kernel, "import jxkernel as jax\n"
                               "jax.config.update('jax_explain_cache_misses', True)\n"
                               "def scaled(v):\n    return v * 2\n"
                               "scaled_jit = jax.jit(scaled)\nscaled_jit(jnp.ones(2))")
    defined = reply["execution_count"]
    try:
        reply, text = reply_and_text(kernel, "scaled_jit(jnp.ones(3))")
    finally:
        reply_and_text(kernel, "jax.config.update('jax_explain_cache_misses', False)")
    n = reply["execution_count"]
    assert f"TRACING CACHE MISS at In[{n}], line 1 (<module>):" in text, text
    assert f"  for scaled defined at In[{defined}], line 3" in text, text
    assert "ipykernel_" not in text, text


def test_a_jit_cells_cache_miss_is_logged_at_the_cell_not_ipythons_magic(kernel):
    """A %%jit cell's program is called by the notebook for the cell: its log line said
    `TRACING CACHE MISS at .../IPython/core/interactiveshell.py:2644 (run_cell_magic)`, the
    innermost frame outside jxkernel; the cell is the caller."""
    reply_and_text(kernel, "import jxkernel as jax\n"
                    "jax.config.update('jax_explain_cache_misses', True)")
    try:
        reply, text = reply_and_text(kernel, "%%jit\nlogged_y = x * 3")
    finally:
        reply_and_text(kernel, "jax.config.update('jax_explain_cache_misses', False)")
    n = reply["execution_count"]
    assert f"TRACING CACHE MISS at In[{n}], line 1 (<module>):" in text, text
    assert "interactiveshell" not in text and "run_cell_magic" not in text, text


def test_fail_on_recompiles_key_shows_the_function_and_cell_not_ipykernels_file(kernel):
    """fail_on_recompile(f) returns f's function_key; as a cell's last line it showed
    'f@/tmp/ipykernel_<pid>/<hash>.py:1#<id>'. It shows f's name and cell, and is still the
    key: turning the guard off by it works."""
    reply, _ = reply_and_text(kernel, "import jxkernel as jax\nfrom jxkernel import compile_log\n"
                               "guarded = jax.jit(lambda v: v + 1)\nguarded(jnp.ones(2))")
    defined = reply["execution_count"]
    reply, text = reply_and_text(kernel, "key = compile_log.fail_on_recompile(guarded)\nkey")
    assert reply["status"] == "ok", reply
    assert text == f"<function_key of <lambda>, defined at In[{defined}], line 3>", text
    reply, text = reply_and_text(kernel, "compile_log.failing_on_recompile()")
    assert text == f"[<function_key of <lambda>, defined at In[{defined}], line 3>]", text
    reply, text = reply_and_text(kernel, "print(key == guarded.function_key)\n"
                                  "compile_log.fail_on_recompile(key, False)\n"
                                  "print(guarded._fail_on_recompile)")
    assert text.split() == ["True", "False"] and "ipykernel_" not in text, text


def test_a_calls_column_in_a_cell_is_where_jaxs_log_puts_it_in_words(kernel):
    """JAX 0.10.2 in a real ipykernel (reference/make_cell_site_reference.py) logs a call site
    as ipykernel's file, 'FILE:1:16 (<module>)', its column counted from 0 (none where it is
    0). The same cells here name the cell, the line and the column in words, the column as
    JupyterLab's editor counts it (from 1): 'In[n], line 1, column 17 (<module>)' (it read
    'In[n], line 1:16', the column glued to the line)."""
    recorded = locations.recorded("cell_site_reference.json")
    first = recorded["runs"][0]["execution_count"]     # JAX's count of the first cell

    def in_words(text, ours_of):
        """JAX's message with each cell's file named as jxkernel names it."""
        def named(m):
            cell = f"In[{ours_of[recorded['files'][m.group(1)] - first]}]"
            line = f", line {m.group(2)}" if m.group(2) else ""
            return cell + line + (f", column {int(m.group(3)) + 1}" if m.group(3) else "")
        return re.sub(r"(/tmp/ipykernel_<pid>/\d+\.py)(?::(\d+)(?::(\d+))?)?", named, text)

    reply_and_text(kernel, "import jxkernel as jax")
    counts, texts = [], []
    try:
        for code in recorded["cells"]:
            reply, text = reply_and_text(kernel, code)
            assert reply["status"] == "ok", (code, text)
            counts.append(reply["execution_count"])
            texts.append(text)
    finally:
        reply_and_text(kernel, "jax.config.update('jax_explain_cache_misses', False)")
    for text, run in zip(texts, recorded["runs"]):
        ours = [m.split("\n")[0] for m in re.split(r"(?m)^(?=TRACING CACHE MISS)", text)
                if m.startswith("TRACING CACHE MISS")]
        assert ours == [in_words(m.split("\n")[0], counts) for m in run["misses"]], text
        for m in run["misses"]:           # the function's own cell, where it was defined
            defined = in_words(m.split("\n")[1], counts)
            assert defined in text, (defined, text)
    assert "line 1, column 17 (<module>):" in texts[2] and ":16" not in texts[2], texts[2]
    # and nothing of the persistent cache: JAX logs its lines at WARNING only where the user
    # set a cache folder, and neither kernel had one (real_kernel's keeps the tests' folder in
    # XDG_CACHE_HOME, where a learner's default one is)
    for text, run in zip(texts, recorded["runs"]):
        ours = [line for line in text.splitlines() if line.startswith(PERSISTENT_LINES)]
        assert ours == run["persistent"], text


# a learner's programs (tests/data/recompile_cases.py, "learner4_*"), each typed as a cell:
# what JAX 0.10.2 logged for each (recompile_reference.json) is in the cell's output, line for
# line, its file's places in the cell's words; jxkernel's own lines (what changed, the fix)
# come after JAX's
LEARNER_CELLS = ("learner4_last_batch_smaller", "learner4_arange_then_linspace",
                 "learner4_learning_rate_weak", "learner4_static_steps_in_a_loop",
                 "learner4_global_threshold_changed", "learner4_x64_switched_on_later",
                 "learner4_bound_method_jitted_each_step", "learner4_partial_jitted_each_step",
                 "learner4_params_dict_gains_a_key")


def test_a_learners_cells_say_what_jax_says(kernel):
    from recompile_cases import SCENARIOS          # tests/data
    recorded = locations.recorded("recompile_reference.json")["scenarios"]
    reply_and_text(kernel, "import jxkernel as jax, numpy as np\n"
                    "jax.config.update('jax_explain_cache_misses', True)")
    try:
        for name in LEARNER_CELLS:
            reply, text = reply_and_text(kernel, SCENARIOS[name][1])
            assert reply["status"] == "ok", (name, text)
            n = reply["execution_count"]

            def in_words(m, n=n):
                line = f", line {m.group(1)}"
                return f"In[{n}]" + line + (f", column {int(m.group(2)) + 1}" if m.group(2)
                                            else "")
            ours = [m for m in re.split(r"(?m)^(?=TRACING CACHE MISS)", text)
                    if m.startswith("TRACING CACHE MISS")]
            theirs = [re.sub(rf"<recompile:{name}>:(\d+)(?::(\d+))?", in_words, m)
                      for m in recorded[name]["messages"]]
            assert len(ours) == len(theirs), (name, text)
            for mine, jax_text in zip(ours, theirs):     # (the recording drops JAX's ids)
                lines = re.sub(r" id=\d+", "", mine).splitlines()
                assert lines[:len(jax_text.splitlines())] == jax_text.splitlines(), \
                    (name, mine, jax_text)
            assert "PERSISTENT COMPILATION CACHE" not in text, text
    finally:
        reply_and_text(kernel, "jax.config.update('jax_explain_cache_misses', False)")
