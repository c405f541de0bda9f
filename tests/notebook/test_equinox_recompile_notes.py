"""A learner's eqx.filter_jit train step compiling again, in a real kernel with `import jax`
answered by jxkernel (JXKERNEL_AS_JAX=1), against JAX 0.10.2 with Equinox 0.13.8 and Optax
0.2.8 for the same cells (tests/data/equinox_recompile_reference.json, recorded by
reference/make_equinox_recompile_reference.py from tests/data/equinox_recompile_cases.py).

jax.jit compiles Equinox's own `fun_wrapped` (equinox/_jit.py), the learner's function among its
static arguments: the compile is the learner's (compile_record.whose), so the cell notes it, in
the learner's names (`x`, `n`), while JAX's log keeps Equinox's paths, as JAX's does."""
import importlib.util
import json

import pytest

# looked up, not imported: Equinox imports `jax`, which in this process is the real one
if importlib.util.find_spec("equinox") is None or importlib.util.find_spec("optax") is None:
    pytest.skip("needs equinox and optax (the kernel imports them)", allow_module_level=True)

import locations                        # tests/support
from equinox_recompile_cases import CELLS, PADDED, SCALE_FIXED, miss_lines  # tests/data
from learner_equinox_cases import SETUP
from real_kernel import alias_kernel_cells
from note_words import here  # noqa: E402  (tests/support)

JAX = locations.recorded("equinox_recompile_reference.json")


@pytest.fixture(scope="module")
def cells():
    """{cell: its KernelCell (compile_notes, stderr: the log)}, the cells run in CELLS' order
    after SETUP in one kernel, JAX's cache-miss log on; last, "%jxcompiles"."""
    return alias_kernel_cells(SETUP + "jax.config.update('jax_explain_cache_misses', True)\n",
                              {**CELLS, "%jxcompiles": "%jxcompiles"})


def test_jaxs_log_of_each_cell_is_jaxs(cells):
    """The tracing cache misses logged, cell by cell, are JAX's: Equinox's paths
    (dynamic_nodonate['rest'][13]) and file, none for the padded batch."""
    for name in CELLS:
        assert cells[name].status == "ok", (name, cells[name])
        ours = [m for m in miss_lines(cells[name].stderr) if m[0].split()[0] in
                ("make_step", "scale", "scale_traced")]
        theirs = JAX[name]
        if name == "scale_again":       # the Static's repr: jxkernel's module and PyTreeDef's
            ours, theirs = [m[:1] for m in ours], [m[:1] for m in theirs]
        assert ours == theirs, (name, cells[name].stderr)


def test_the_last_smaller_batch_is_noted_in_the_learners_names(cells):
    """JAX's log names dynamic_nodonate['rest'][13] and [14]; the note names make_step's
    parameters x and y, the learner's cell where make_step was defined, and the fix for them."""
    ran = cells["last_batch"]
    (note,) = ran.compile_notes
    at = f"In[{ran.count}]:2"
    assert note.startswith(here(f"⚙ make_step compiled again (compile #2, at {at}): x: shape "
                                "f32[8,1,28,28] -> f32[5,1,28,28] (and 1 more) · fix: Pad it to "
                                "the 8 rows compiled before")), note
    assert "y: shape i32[8] -> i32[5]" in note and "make_step defined at In[" in note, note
    assert "dynamic_nodonate" not in note and "static_argnums" not in note, note
    assert "dynamic_nodonate['rest'][13]" in ran.stderr, ran.stderr


def test_the_notes_padding_pasted_compiles_nothing_again(cells):
    """The note's snippet, pasted before the call (PADDED), compiles make_step no more, under
    JAX (no tracing miss) and here (no note); the step's loss is finite."""
    snippet = [line.strip() for line in cells["last_batch"].compile_notes[0].splitlines()
               if line.strip().startswith(("n = ", "x = ", "y = ", "mask = "))]
    assert snippet and all(line in PADDED for line in snippet), snippet
    assert JAX["padded"] == [] and cells["padded"].compile_notes == [], cells["padded"]
    assert JAX["losses"]["padded_loss"] == JAX["losses"]["padded_loss"]     # not NaN


def test_a_python_number_is_named_and_the_fix_is_an_array_not_static_argnums(cells):
    """scale(x, 2) then scale(x, 3): JAX's log says Equinox's whole `static` differs; the note
    says n changed 2 -> 3 and advises jnp.asarray(n), which compiles once under JAX
    (SCALE_FIXED: one miss, its first) and here (no note)."""
    (note,) = cells["scale_again"].compile_notes
    assert note.startswith(here("⚙ scale compiled again (compile #2, at In[")) and \
        "n: static 2 -> 3 · fix: If scale uses n as a number only" in note, note
    assert "jnp.asarray(n)" in note and "static_argnums" not in note, note
    assert "jnp.asarray(2)" in SCALE_FIXED and len(JAX["scale_fixed"]) == 1
    assert cells["scale_fixed"].compile_notes == [], cells["scale_fixed"]




def test_jxcompiles_tells_the_changes_in_the_learners_names_too(cells):
    """%jxcompiles' rows and card for make_step say what the note says (x's shape), not
    Equinox's dynamic_nodonate paths (compile_notes.reason_said, signature_said, said_changes)."""
    shown = json.dumps([c for kind, c in cells["%jxcompiles"].messages
                        if kind in ("comm_open", "comm_msg", "display_data")])
    assert "<b>make_step</b>" in shown and "x: f32[5,1,28,28]" in shown, shown
    assert "x: f32[8,1,28,28] -&gt; f32[5,1,28,28]" in shown, shown     # the reason
    assert "dynamic_nodonate" not in shown, shown
