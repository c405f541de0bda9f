"""A learner debugging a JAX program in the notebook (JAX 0.10.2's debugging pages and their
mistakes), against what JAX said for the same code (tests/data/learner_debugging_reference.json,
recorded by reference/make_learner_debugging_reference.py from
tests/data/learner_debugging_cases.py): the messages are JAX's, and a failed check names the
learner's line."""

import pytest
from learner_debugging_cases import (ERROR_SETS_CELL, FORMAT_CELL, FORMAT_FIXED_CELL,  # tests/data
                                     FORMAT_FIXED_LINE, check_format_args, checkify_causes)

import jxkernel as jax
import locations  # tests/support: the repository's folders
from real_kernel import TIMEOUT, kernel_cell, running_alias_kernel  # tests/support

JAX = locations.jax_answers("learner_debugging_reference.json")


@pytest.mark.parametrize("case", sorted(JAX["checkify_causes"]))
def test_a_failed_check_names_the_learners_line_where_the_nan_index_or_check_was(case):
    """err.throw()'s JaxRuntimeError says what failed; its cause (the NaNError, OOBError or
    FailedCheckError) carries the place as its traceback, which a notebook shows above it:
    `z = jnp.sin(y)` for the NaN, `y = x[i]` for the index, the check's own line. Before, the
    cause had no frame and the learner was not told where (JAX shows the line)."""
    assert checkify_causes(jax)[case] == JAX["checkify_causes"][case]


# flags.md's jax_disable_jit example, as the page writes it ("Enters PDB breakpoint!")
DISABLE_JIT_BREAKPOINT = """\
jax.config.update("jax_disable_jit", True)

def f(x):
  y = jnp.log(x)
  if jnp.isnan(y):
    breakpoint()
  return y
print(jax.jit(f)(-2.))
jax.config.update("jax_disable_jit", False)
"""


def _answered(client, code: str, answers: list) -> tuple:
    """Run `code` answering its input requests (a debugger's prompts) with `answers` in order:
    (the reply, the prompts asked, the stdout text, the notes' text/plain)."""
    prompts, out, notes = [], [], []
    pending = list(answers)

    def answer(msg):
        prompts.append(msg["content"]["prompt"])
        client.input(pending.pop(0) if pending else "c")

    def output(msg):
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream" and content["name"] == "stdout":
            out.append(content["text"])
        elif kind == "display_data" and content["data"].get("text/plain", "").startswith("⚠"):
            notes.append(content["data"]["text/plain"])
    reply = client.execute_interactive(code, allow_stdin=True, stdin_hook=answer,
                                       output_hook=output, timeout=TIMEOUT)
    return reply["content"], prompts, "".join(out), notes


@pytest.fixture(scope="module")
def kernel():
    with running_alias_kernel(locations.ROOT) as client:
        setup = kernel_cell(client, "import jax, jax.numpy as jnp\nassert jax.jit is jxkernel.jit")
        assert setup.status == "ok", setup
        yield client


def test_a_breakpoint_that_does_not_stop_in_a_kernel_gets_a_note_with_pdb_that_does(kernel):
    """ipykernel hands breakpoint() to debugpy (JupyterLab's visual debugger), which returns at
    once while that debugger is off: the page's example prints nan with no prompt, in JAX
    0.10.2's own kernel too (seen in JupyterLab). The note says so, and its line,
    `import pdb; pdb.set_trace()` in place of breakpoint(), stops there: `p y` shows the nan."""
    reply, prompts, out, notes = _answered(kernel, DISABLE_JIT_BREAKPOINT, [])
    assert reply["status"] == "ok" and prompts == [] and out == "nan\n", (reply, prompts, out)
    (note,) = notes
    assert note.startswith("⚠ breakpoint() did not stop (at In["), note
    assert ":6, ran once): in a Jupyter kernel it goes to JupyterLab's visual debugger" in note
    fix = "import pdb; pdb.set_trace()"
    assert f"\n  {fix}\n" in note, note
    fixed = DISABLE_JIT_BREAKPOINT.replace("breakpoint()", fix)
    reply, prompts, out, notes = _answered(kernel, fixed, ["p y", "c"])
    assert reply["status"] == "ok" and notes == [], (reply, notes)
    assert prompts == ["ipdb> ", "ipdb> "], prompts
    assert "Array(nan, dtype=float32, weak_type=True)" in out and out.endswith("nan\n"), out


def test_checkify_check_given_a_python_int_says_jaxs_words_and_the_fixed_cell_runs_as_jaxs():
    """The checkify guide's `i=i` cell, checkified with the error sets and called with 100:
    JAX's TypeError; the card's line pasted, each of the page's calls says what JAX's
    says (jnp.asarray(i) alone prints `TypedInt(-1, dtype=int32)` under JAX 0.10.2)."""
    assert check_format_args(jax) == JAX["check_format_args"]


def test_checkify_check_given_a_python_int_gets_a_card_writing_the_check_with_an_array(kernel):
    """In the kernel: the card names the check's line and writes it back with i as an int32
    array (the line FORMAT_FIXED_CELL pastes, whose messages JAX recorded above)."""
    cell = kernel_cell(kernel, "from jax.experimental import checkify\n" + FORMAT_CELL)
    assert cell.status == "ok", cell
    cell = kernel_cell(kernel, ERROR_SETS_CELL)
    assert [cell.reply["ename"], cell.reply["evalue"]] == JAX["check_format_args"]["error_sets"]
    (card,) = cell.cards
    assert card["kind"] == "check-format-args", card
    assert card["title"] == "checkify.check was given a Python int to format (100)", card
    assert card["where"]["code"] == \
        'checkify.check(i >= 0, "index needs to be non-negative, got {i}", i=i)', card["where"]
    assert card["rewrite"].split("    #")[0] == FORMAT_FIXED_LINE, card["rewrite"]
    cell = kernel_cell(kernel, FORMAT_FIXED_CELL + "print(fixed_messages)")
    assert cell.status == "ok", cell


def test_a_failed_checks_line_shows_above_its_error_in_the_kernels_traceback(kernel):
    """In a kernel (ipykernel's cell files are not on disk), IPython's traceback of the cause
    lists the learner's cell and line with its neighbours, as under JAX 0.10.2 (`Cell In[1],
    line 4, in f()`, `----> 4 z = jnp.sin(y)`). The stand-in frame had no line of its own
    (f_lineno None): IPython's formatter stopped at an assertion and printed "Unexpected
    exception formatting exception" with jxkernel's frames."""
    cell = kernel_cell(kernel, "from jax.experimental import checkify\n"
                               "def g(x, i):\n"
                               "  y = x[i]\n"
                               "  z = jnp.sin(y)\n"
                               "  return z\n"
                               "checked_g = checkify.checkify(g, errors=checkify.float_checks)")
    assert cell.status == "ok", cell
    count = cell.count
    cell = kernel_cell(kernel, "err, z = checked_g(jnp.array([jnp.inf, 1]), 0)\n"
                               "err.throw()")
    assert (cell.reply["ename"], cell.reply["evalue"]) == ("JaxRuntimeError",
                                                           "nan generated by primitive: sin.")
    shown = "\n".join(cell.tracebacks)
    assert "Unexpected exception formatting" not in shown and "jxkernel" not in shown, shown
    cause = shown.split("The above exception was the direct cause")[0]
    assert f"Cell In[{count}], line 4, in g()" in cause, cause
    assert "----> 4   z = jnp.sin(y)" in cause and "      3   y = x[i]" in cause, cause


def test_a_check_staged_without_checkify_shows_the_checks_line_in_the_cards_traceback(kernel):
    """jax.jit(f) of a function holding checkify.check: the error is raised compiling, at the
    call; its cause (JaxStackTraceBeforeTransformation, as JAX's) names the check's line, which
    the card's folded traceback shows, as JAX's traceback does (`Cell In[1], line 2, in f()`)."""
    count = kernel_cell(kernel, "from jax.experimental import checkify\n"
                                "def f(x, i):\n"
                                "  checkify.check(i >= 0, 'index needs to be non-negative!')\n"
                                "  return x[i]").count
    cell = kernel_cell(kernel, "jax.jit(f)(jnp.ones((5,)), -1)")
    assert cell.reply["ename"] == "ValueError", cell.reply
    (card,) = cell.cards
    assert card["kind"] == "checkify-unwrapped", card
    cause = card["traceback"].split("The above exception was the direct cause")[0]
    assert cause.splitlines()[1].startswith("JaxStackTraceBeforeTransformation"), cause
    assert f"Cell In[{count}], line 3, in f()" in cause, cause
    assert "----> 3   checkify.check(i >= 0, 'index needs to be non-negative!')" in cause, cause


def test_a_check_failing_outside_checkify_names_the_cell_not_the_kernels_loop(kernel):
    """checkify.check run eagerly (no checkify): JaxRuntimeError at once, its cause's traceback
    the learner's frames only, the calling cell and the check's line; the kernel's loop above
    them (runpy, traitlets, tornado: JAX 0.10.2 lists those and more) is left out."""
    count = kernel_cell(kernel, "from jax.experimental import checkify\n"
                                "def h(x, i):\n"
                                "  checkify.check(i >= 0, 'index needs to be non-negative!')\n"
                                "  return x[i]").count
    cell = kernel_cell(kernel, "h(jnp.ones((5,)), -1)")
    assert (cell.reply["ename"], cell.reply["evalue"]) == (
        "JaxRuntimeError", "index needs to be non-negative! (`check` failed)"), cell.reply
    shown = "\n".join(cell.tracebacks)
    cause = shown.split("The above exception was the direct cause")[0]
    assert [line for line in cause.splitlines() if line.startswith(("Cell ", "File "))] == [
        f"Cell In[{count + 1}], line 1", f"Cell In[{count}], line 3, in h()"], cause
