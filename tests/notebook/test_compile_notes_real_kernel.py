"""The recompile notes a learner sees under a cell, in a real ipykernel (as JupyterLab runs
one) with `import jax` answered by jxkernel (JXKERNEL_AS_JAX=1), against what JAX 0.10.2
logged for the same program (tests/data/recompile_reference.json, the corpus of
tests/views/test_recompile_corpus.py): for five scenarios of five kinds of miss, one note
per miss JAX logs after the first, each naming JAX's function, its call's line and the line
it was defined on, and the change JAX names (a path's shape or dtype, a weak type, a config
option, a dict key, a function made anew)."""
import re

import pytest

import locations                        # tests/support
from real_kernel import alias_kernel_cells
from recompile_cases import SCENARIOS   # tests/data
from note_words import here  # noqa: E402  (tests/support)

REFERENCE = locations.recorded("recompile_reference.json")["scenarios"]
CHOSEN = ["dict_leaf_shape", "accumulator_starts_as_python_float", "enable_x64_toggled",
          "dict_key_added", "jit_in_a_loop_lambda"]
CALL_LINE = re.compile(r"TRACING CACHE MISS at <recompile:[^>]+>:(\d+)")


@pytest.fixture(scope="module")
def cells():
    """{scenario: (its cell's execution count, the notes' text/plain)}, one kernel for all."""
    found = alias_kernel_cells("import jax, jax.numpy as jnp\n",
                               {name: SCENARIOS[name][1] for name in CHOSEN})
    for name, cell in found.items():
        assert cell.status == "ok", (name, cell)
    return {name: (cell.count, "\n".join(cell.notes)) for name, cell in found.items()}


def _type(jax_type: str) -> str:
    """JAX's "f32[]{weak_type=True}" as a note writes it: "f32[] (weak)"."""
    return jax_type.replace("{weak_type=True}", " (weak)").replace("{weak_type=False}", "")


@pytest.mark.parametrize("name", CHOSEN)
def test_each_note_says_what_jax_logged(name, cells):
    count, text = cells[name]
    # one note per miss JAX logs; misses telling one story (a lambda made anew on each turn of
    # a loop) are one note with their count, "compiled again ×2 (", said once per miss here
    notes = [line for line in text.splitlines() if line.startswith("⚙ ") and
             re.search(here(r" compiled again (×\d+ )?\("), line)
             for _ in range(int((re.search(r" again ×(\d+) \(", line) or [0, 1])[1]))]
    misses, messages = REFERENCE[name]["misses"][1:], REFERENCE[name]["messages"][1:]
    assert len(notes) == len(misses), (text, misses)
    for note, miss, message in zip(notes, misses, messages):
        head = rf"⚙ {re.escape(miss['function'])} " + here(r"compiled again (×\d+ )?\(")
        assert re.match(head, note), (note, miss)
        assert f"at In[{count}]:{CALL_LINE.match(message).group(1)})" in note, (note, message)
        assert f"{miss['function']} defined at In[{count}]:{miss['line']}" in text
        for change in miss["changes"]:
            kind, path = change["kind"], change["path"]
            if kind in ("shape", "dtype", "weak_type", "config"):
                said = f"{path}: {kind} {_type(change['before'])} -> {_type(change['after'])}"
                assert said in note, (note, change)
            else:                      # a dict's keys: each key JAX names is the note's path
                keys = re.findall(r"'([^']+)'", change["why"].partition("key sets:")[2])
                assert keys and all(f"['{k}']: structure " in note for k in keys), (note, change)
        if miss["kind"] == "never seen function":      # JAX: "maybe ... re-defined repeatedly"
            assert miss["redefined_hint"] and "a new jit object" in note, (note, miss)
