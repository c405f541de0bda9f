"""A learner debugging a JAX program in the notebook (JAX 0.10.2's debugging pages and their
mistakes), against what JAX said for the same code (tests/data/learner_debugging_reference.json,
recorded by reference/make_learner_debugging_reference.py from
tests/data/learner_debugging_cases.py): the messages are JAX's, and a failed check names the
learner's line."""
import json
import os

import pytest
from learner_debugging_cases import checkify_causes  # tests/data

import jxkernel as jax
import locations  # tests/support: the repository's folders
from real_kernel import TIMEOUT, execute, running_alias_kernel  # tests/support

with open(os.path.join(locations.DATA, "learner_debugging_reference.json")) as f:
    JAX = json.load(f)


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
        reply, _ = execute(client, "import jax, jax.numpy as jnp\nassert jax.jit is jxkernel.jit")
        assert reply["status"] == "ok", reply
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
