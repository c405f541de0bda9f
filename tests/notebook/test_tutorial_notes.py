"""The notes a learner sees running JAX 0.10.2's own tutorials cell by cell, where one was
wrong or missing (docs/seeing_inside.md, "JAX's tutorials, cell by cell"): the cells verbatim
(tests/data/tutorial_notes_cases.py), the notes' claims held to what JAX computes for calls
made after them (tutorial_notes_reference.json, reference/make_tutorial_notes_reference.py).
One in-process shell for the module; shard_map's mesh cells run in a subprocess of 8 CPU
devices (tests/data/tutorial_mesh_cases.py, reference/make_tutorial_mesh_reference.py)."""
import re

import numpy as np
import pytest

pytest.importorskip("IPython")

from IPython.utils.capture import capture_output  # noqa: E402

import locations                                   # noqa: E402  tests/support
from backend_tier import devices_named_here        # noqa: E402  tests/support
from ipython_shell import ran_ok, shell_fixture    # noqa: E402
from tutorial_notes_cases import CASES, CHECKS, PRINT_FIX  # noqa: E402  tests/data
from note_words import here  # noqa: E402  (tests/support)

JAX = locations.recorded("tutorial_notes_reference.json")

shell = shell_fixture("import jxkernel as jax\nimport jxkernel.numpy as jnp\n"
                      "from jxkernel import jit, grad, vmap\nimport numpy as np\n"
                      "from jxkernel.experimental import io_callback\n"
                      "from functools import partial\nfrom jxkernel import custom_vjp, vjp\n"
                      "from jxkernel.lax import while_loop", store_history=True)


def _notes(outputs, start):
    """The text of each output (a displayed output's data) that starts with `start`."""
    return [o["text/plain"] for o in outputs if o.get("text/plain", "").startswith(start)]


def test_a_global_read_by_an_earlier_trace_is_noted_with_the_value_its_program_keeps(shell):
    """Common Gotchas' impure_uses_globals: traced with g = 0.0 (a scalar), g = 10.0, then
    traced again for an array (reading 10.0). The scalars' program keeps 0.0 ("Second call:
    5.0", JAX's too); no note said so, since only the latest trace's reads were kept."""
    recorded = JAX["cases"]["impure_uses_globals"]
    ran = ran_ok(shell, CASES["impure_uses_globals"])
    assert ran.stdout.splitlines() == recorded["printed"]
    notes = [o["text/plain"] for o in ran.outputs if o["text/plain"].startswith("⚠")]
    (note,) = notes
    first = note.splitlines()[0]
    assert first.startswith("⚠ impure_uses_globals read g = 0.0 when traced (at In["), first
    assert first.endswith(here("; g is 10.0 now, and the program compiled at that trace keeps "
                               "0.0"))
    # the claim, as JAX computes it: a scalar's call adds 0.0, an array's 10.0
    scalar, array = recorded["checks"]
    assert scalar == 1.0 + 0.0 and array == [1.0 + 10.0]
    assert [np.asarray(shell.ev(call)).tolist() for call in CHECKS["impure_uses_globals"]] == \
        recorded["checks"]


def test_a_printed_tracer_is_fixed_with_the_learners_own_print_rewritten(shell):
    """external-callbacks' `print("intermediate value: {}".format(y))` inside jit: the note
    offered `jax.debug.print("x = {}", x)`, which prints x, not y (NameError where there is
    no x). It offers the learner's line as jax.debug.print now; pasted in its place, JAX
    prints "intermediate value: 3" for f(2) and 4 for f(3) (recorded), and so does jxkernel."""
    recorded, fixed = JAX["cases"]["print_in_jit_format"], JAX["cases"]["print_in_jit_format_fixed"]
    ran = ran_ok(shell, CASES["print_in_jit_format"])
    assert ran.stdout.splitlines() == recorded["printed"]
    (note,) = _notes(ran.outputs, "⚠ print ran while tracing")
    assert note.splitlines()[-1].strip() == PRINT_FIX, note
    assert PRINT_FIX in CASES["print_in_jit_format_fixed"]
    assert fixed["printed"] == ["intermediate value: 3", "intermediate value: 4"]
    with capture_output() as cap:
        shell.run_cell(CASES["print_in_jit_format_fixed"], store_history=True)
        checks = [np.asarray(shell.ev(call)).tolist() for call in CHECKS["print_in_jit_format_fixed"]]
    assert cap.stdout.splitlines() == fixed["printed"]
    assert checks == fixed["checks"]
    assert not _notes([o.data for o in cap.outputs], "⚠")


def test_vmap_of_a_jit_called_before_on_the_whole_array_is_told_as_a_row(shell):
    """external-callbacks' numpy_random_like(x), then jax.vmap(numpy_random_like)(x): JAX
    misses ("now f32[] and before f32[5]") and compiles numpy_random_like twice (recorded).
    The note said so with the rank fix "make it that shape where it is made", which cannot
    be done to the row vmap gives; it says the row is vmap's and that both compiles are
    expected."""
    recorded = JAX["cases"]["vmap_of_a_jit"]
    (miss,) = recorded["misses"]
    assert "* at x, now f32[]({}) and before f32[5]({})" in miss
    assert recorded["compiles"]["numpy_random_like"] == 2
    ran = ran_ok(shell, CASES["vmap_of_a_jit"])
    assert [line for line in ran.stdout.splitlines() if not line.startswith("Out[")] == \
        recorded["printed"]
    (note,) = _notes(ran.outputs, "⚙")
    first = note.splitlines()[0]
    assert first.startswith(here("⚙ numpy_random_like compiled again (compile #2, at In[")), first
    assert "x: shape f32[5] -> f32[]" in first
    assert here("x is a row of what vmap maps over (f32[] now, f32[5] at the nearest earlier "
                "compile)") in note, note
    assert here("Nothing to fix: each compile is expected.") in note
    assert "where it is made" not in note


def test_a_new_jit_under_vmap_on_its_own_line_gets_no_note_as_jax_gives_no_hint(shell):
    """Custom derivative rules' `jit(log1pexp)(3.)`, `jit(grad(log1pexp))(3.)`, then
    `vmap(jit(grad(log1pexp)))(jnp.arange(3.))`: three jits, each "never seen function" to
    JAX, with no hint of a function re-defined (recorded). The third got "⚙ log1pexp compiled
    again (a new jit object)" with "make the jitted function once", which saves nothing there
    (one jit reused misses under vmap too). Run three times on one line, JAX hints twice and
    the note tells the two (×2)."""
    once, loop = JAX["cases"]["jit_of_grad_then_vmap"], \
        JAX["cases"]["jit_of_grad_then_vmap_in_a_loop"]
    assert (once["compiles"]["log1pexp"], once["never_seen"], once["same_line_hints"]) == \
        (3, 3, 0)
    assert (loop["compiles"]["log1pexp"], loop["never_seen"], loop["same_line_hints"]) == \
        (3, 3, 2)
    ran = ran_ok(shell, CASES["jit_of_grad_then_vmap"])
    assert [line for line in ran.stdout.splitlines() if not line.startswith("Out[")] == \
        once["printed"]
    assert _notes(ran.outputs, "⚙") == []
    ran = ran_ok(shell, CASES["jit_of_grad_then_vmap_in_a_loop"])
    (note,) = _notes(ran.outputs, "⚙")
    assert note.startswith(here("⚙ log1pexp compiled again ×2 (a new jit object")), note


def test_a_loop_body_closing_over_a_function_is_not_told_to_carry_it(shell):
    """Custom derivative rules' fixed_point: body_fun, made anew in each call, calls f (the
    `update` lambda newton_sqrt makes anew, then partial(rev_iter, f)). JAX traces cond_fun
    and body_fun 6 times each for the two grads (recorded, "never seen function"); the note
    says ×6 each. Its fix said "taking a, f as an input (in the carry)", and no carry holds a
    function: it names f as a function (a only as the carry's)."""
    first, grads = JAX["cases"]["fixed_point"], JAX["cases"]["fixed_point_grads"]
    assert grads["never_seen_by"] == {"body_fun": 6, "cond_fun": 6}
    assert ran_ok(shell, CASES["fixed_point"]).stdout.splitlines() == first["printed"]
    ran = ran_ok(shell, CASES["fixed_point_grads"])
    assert ran.stdout.splitlines() == grads["printed"]
    (note,) = _notes(ran.outputs, "⚙")
    assert "⚙ cond_fun traced again ×6" in note and "⚙ body_fun traced again ×6" in note, note
    assert "taking a, f as an input" not in note and "It calls f, a function from outside" \
        in note, note
    assert "Its a could go in as an input (in the carry: traced), but not f." in note


def test_a_print_line_is_told_once(shell):
    """A print of a tracer, from one line, under several cells (jax-primitives' `trace`
    helper: 10 notes on that page): JAX prints the tracer again at each trace (recorded),
    and the note is under the first cell alone."""
    first, again = JAX["cases"]["print_told_once_first"], JAX["cases"]["print_told_once_again"]
    assert first["printed"] == ["shown JitTracer(~float32[])"]
    assert again["printed"] == ["shown JitTracer(float32[2])"]
    ran_ok(shell, CASES["print_told_once_defs"])
    ran = ran_ok(shell, CASES["print_told_once_first"])
    assert [line for line in ran.stdout.splitlines() if not line.startswith("Out[")] == \
        first["printed"]
    (note,) = _notes(ran.outputs, "⚠ print ran while tracing")
    assert note.splitlines()[-1].strip() == "jax.debug.print('shown {}', x)", note
    ran = ran_ok(shell, CASES["print_told_once_again"])
    assert [line for line in ran.stdout.splitlines() if not line.startswith("Out[")] == \
        again["printed"]
    assert _notes(ran.outputs, "⚠") == []


# -- the deeper pages (stop 89, h-docnotes4): shard_map's cells 52-59, 8 CPU devices ----------

_MESH_RUN = r"""
import json
import jxkernel as jax
import tutorial_mesh_cases
from jxkernel import compile_log
from jxkernel.notebook.notes.compile_notes import change_line
notes = {}

def compiles():
    return sum(e.function == "loss" for e in compile_log.events_since(0))

def after(step, f):
    name = "predict" if step.startswith("predict") else "loss"
    (event,) = [e for e in compile_log.events_since(0) if e.function == name][-1:]
    if step in ("new_mesh", "predict_under_set_mesh"):
        notes[step] = [change_line(event), [[c.kind, c.path, c.fix, c.snippet]
                                            for c in event.changes]]

out = tutorial_mesh_cases.run(jax, "jxkernel.compile_log", compiles, after)
print(json.dumps({"steps": out, "notes": notes}))
"""


@pytest.fixture(scope="module")
def mesh_runs():
    """(jxkernel's steps and notes, JAX's steps): one subprocess for the module."""
    from fresh_process import run_against_reference
    return run_against_reference(_MESH_RUN, "tutorial_mesh_reference.json", devices=8)


def test_a_mesh_set_again_is_told_as_a_program_per_mesh_not_a_set_mesh_block(mesh_runs):
    """shard_map's `jax.set_mesh(mesh)` of 8 devices, then of 4 (called, no `with` block), and
    `jax.jit(loss)` under each, the batch split then replicated: JAX misses on the context's
    mesh and compiles loss again (recorded). The note said "The call ran inside a `with
    jax.set_mesh(...)` block, and compiled outside one before", both untrue, with "make the
    calls in the same place", and told batch[0] and batch[1] to be split as before
    (`batch[0] = jax.device_put(...)`: a tuple, and split so under the 4-device mesh JAX
    compiles again: "split_again"). It says a program per mesh now, and that the earlier
    mesh set again reuses the first program (JAX: "back", no miss, no compile)."""
    mine, jax = mesh_runs
    assert [jax[s]["compiles"] for s in ("first", "new_mesh", "split_again", "back")] == \
        [1, 2, 3, 3]
    assert jax["back"]["misses"] == [] and jax["new_mesh"]["misses"] == \
        jax["split_again"]["misses"]
    # (the mesh's devices as this run's backend names them: device_kind=numpy there)
    assert mine["steps"] == devices_named_here(jax)
    line, changes = mine["notes"]["new_mesh"]
    assert line.startswith("abstract_mesh_context_manager: config AbstractMesh('batch': 8"), line
    assert "(and 2 more) · fix: Nothing to fix where the new mesh is meant" in line, line
    (kind, path, fix, snippet), *splits = changes
    assert (kind, path, snippet) == ("config", "abstract_mesh_context_manager", "")
    assert "a program per mesh" in fix and "the earlier program is reused" in fix, fix
    assert "set_mesh(...)` block" not in fix and "same place" not in fix, fix
    assert [c[1] for c in splits] == ["batch[0]", "batch[1]"]
    for kind, path, fix, snippet in splits:
        assert snippet == "" and "split as before, it compiles again too" in fix, fix


def test_a_mesh_set_by_a_call_of_set_mesh_is_not_told_as_a_with_block(mesh_runs):
    """`jax.jit(predict)` called before shard_map's cell 55 (`jax.set_mesh(mesh)`, called as
    a function), then after it: JAX misses on the trace context's mesh (recorded). The note
    said "The call ran inside a `with jax.set_mesh(...)` block", untrue there; it names the
    mesh set_mesh set, called or as a block."""
    mine, jax = mesh_runs
    (miss,) = jax["predict_under_set_mesh"]["misses"]
    assert miss.startswith("* abstract_mesh_context_manager differs: now AbstractMesh("
                           "'batch': 8") and miss.endswith("and before None"), miss
    assert jax["predict_no_mesh"]["misses"] == []
    line, ((kind, path, fix, snippet),) = mine["notes"]["predict_under_set_mesh"]
    assert (kind, path) == ("config", "abstract_mesh_context_manager")
    assert fix.startswith("The call ran under a mesh jax.set_mesh set (called, or as a `with` "
                          "block), and compiled with no mesh set before"), fix
    assert "· fix: Make the calls under the same mesh" in line, line


# ---- stop 89 (h-docnotes3): tracing, jaxpr, JAX 101, custom_pytrees, complex-differentiation,
# array_refs, convolutions, autodiff_remat (THIRD in scripts/tutorial_notes.py)
JAX3 = locations.recorded("tutorial_notes3_reference.json")


def test_a_shape_computed_by_jnp_under_jit_is_fixed_with_numpys_call_on_the_line(shell):
    """tracing.md's `x.reshape(jnp.array(x.shape).prod())` under jit: JAX raises the same
    TypeError (recorded). The card said only "# a size? take it from a shape (n =
    x.shape[0])"; it offers the line with jnp's calls on shapes made NumPy's now, which JAX
    runs ("[1. 1. 1. 1. 1. 1.]", recorded: the page's own fix, np.prod(x.shape), in words)."""
    from ipython_shell import run_cell
    from tutorial_notes3_cases import CASES3
    recorded, fixed = JAX3["cases"]["reshape_by_a_jnp_product"], \
        JAX3["cases"]["reshape_by_a_jnp_product_fixed"]
    ran = run_cell(shell, CASES3["reshape_by_a_jnp_product"])
    assert f"{type(ran.error).__name__}: {str(ran.error).splitlines()[0]}" == recorded["error"]
    (card,) = ran.shown("A Python value was needed from a traced array")
    line = "return x.reshape(np.array(x.shape).prod())    # NumPy's: a Python value while tracing"
    assert line in card.splitlines()[card.splitlines().index("  try:") + 1], card
    assert "a size? take it from a shape" not in card
    assert "fix: It is made from shapes and constants alone" in card and \
        "jnp operations instead of Python ones" not in card, card
    assert line in CASES3["reshape_by_a_jnp_product_fixed"] and fixed["error"] is None
    assert run_cell(shell, CASES3["reshape_by_a_jnp_product_fixed"]).stdout.splitlines() == \
        fixed["printed"]


def test_a_tree_function_jax_removed_is_not_called_jxkernels_gap(shell):
    """JAX 101's pytrees chapter calls jax.tree_map, which JAX 0.6.0 removed: JAX 0.10.2 says
    "module 'jax' has no attribute 'tree_map'" (recorded). Under `import jax` the alias added
    "(jax is jxkernel here: jxkernel has no 'tree_map' yet)", untrue; it keeps JAX's words
    and names the replacement, which JAX has (recorded) and which runs the page's cell."""
    from jxkernel.as_jax import REMOVED_IN_0_6, _jax_module
    from tutorial_notes3_cases import CASES3, REMOVED_TREE_NAMES
    assert REMOVED_IN_0_6 == REMOVED_TREE_NAMES
    alias = _jax_module()
    for name, replacement in REMOVED_TREE_NAMES.items():
        recorded = JAX3["removed"][name]
        assert recorded["replacement_callable"], name
        with pytest.raises(AttributeError) as raised:
            getattr(alias, name)
        assert str(raised.value) == \
            f"{recorded['message']} (JAX 0.6.0 removed jax.{name}: use {replacement})"
    from ipython_shell import run_cell
    ran = run_cell(shell, CASES3["tree_map_removed"])     # `jax` is jxkernel itself here
    assert f"{type(ran.error).__name__}: {ran.error}".replace("'jxkernel'", "'jax'") == \
        JAX3["cases"]["tree_map_removed"]["error"]
    assert run_cell(shell, CASES3["tree_map_replaced"]).stdout.splitlines() == \
        JAX3["cases"]["tree_map_replaced"]["printed"]


def test_a_str_in_a_named_tuple_is_made_a_meta_field_of_a_registered_dataclass(shell):
    """custom_pytrees.md's `f(moc)`, moc a NamedTuple with a str `name`: JAX raises "...
    passed to the function at path x.name" (recorded). The card said "x.name is inside x: a
    dict or list cannot be static", untrue of a NamedTuple (hashable), with a comment for a
    fix. It offers the class as a registered dataclass with name a meta field (the page's own
    MyDataclassContainer); pasted in, JAX runs the call (3, recorded)."""
    from ipython_shell import run_cell
    from tutorial_notes3_cases import CASES3
    recorded, fixed = JAX3["cases"]["named_tuple_with_a_str"], \
        JAX3["cases"]["named_tuple_with_a_str_fixed"]
    ran = run_cell(shell, CASES3["named_tuple_with_a_str"])
    said = f"{type(ran.error).__name__}: {str(ran.error).splitlines()[0]}"
    assert re.sub(r" at 0x[0-9a-f]+", "", said) == recorded["error"]
    (card,) = ran.shown("jit was given a str")
    assert "dict or list" not in card
    assert "x.name is a field of MyOtherContainer, a NamedTuple" in card, card
    lines = card.splitlines()
    offered = "\n".join(line[4:] for line in lines[lines.index("  try:") + 1:]
                        if line.startswith("    "))
    assert offered in CASES3["named_tuple_with_a_str_fixed"], offered
    assert fixed["error"] is None
    assert run_cell(shell, CASES3["named_tuple_with_a_str_fixed"]).stdout.splitlines() == \
        fixed["printed"]


def test_a_pmap_given_a_pmaps_output_is_told_as_two_programs_with_nothing_to_fix(shell):
    """JAX 101's `jax.pmap(convolve)(xs, jax.pmap(convolve)(xs, ws))` after
    `jax.pmap(convolve)(xs, ws)`: JAX compiles jit(_fun) again (recorded), and the note said
    so, but offered `w = jax.device_put(w, jax.devices()[0])` before each call: with ws put
    on cpu:0 first, JAX compiles again all the same (recorded), and each kind called again
    compiles nothing. The note says the two programs are expected; a device_put first was
    told "traced before (under grad or vmap ...)", and is told the same now."""
    from ipython_shell import run_cell
    from tutorial_notes3_cases import CASES3
    compiles = {name: JAX3["cases"][name]["compiles"].get("_fun", 0)
                for name in ("pmap_first", "pmap_of_a_pmaps_output", "pmap_put_first",
                             "pmap_put_then_a_pmaps_output", "pmap_both_again")}
    assert compiles == {"pmap_first": 1, "pmap_of_a_pmaps_output": 1, "pmap_put_first": 1,
                        "pmap_put_then_a_pmaps_output": 1, "pmap_both_again": 0}
    run_cell(shell, CASES3["pmap_defs"])
    notes = {}
    for name in compiles:
        ran = run_cell(shell, CASES3[name])
        assert ran.error is None, ran.error
        notes[name] = [t for t in ran.texts if t.startswith("⚙")]
    assert [name for name, found in notes.items() if found] == \
        ["pmap_of_a_pmaps_output", "pmap_put_then_a_pmaps_output"]
    for name in ("pmap_of_a_pmaps_output", "pmap_put_then_a_pmaps_output"):
        (note,) = notes[name]
        assert note.startswith(here("⚙ _fun compiled again (compile #2, at In[")), note
        assert here("compile one program each, as JAX's pmap does") in note, note
        assert "Nothing to fix" in note
        assert "device_put" not in note and "under grad or vmap" not in note, note


def test_each_print_line_that_showed_a_tracer_is_rewritten(shell):
    """tracing.md's f prints x, y and result while traced (JAX prints three tracers,
    recorded). The note rewrote the first print alone, leaving two printing tracers; it
    rewrites each now, and the three lines pasted in print the values on each call, as JAX
    does (recorded)."""
    from ipython_shell import run_cell
    from tutorial_notes3_cases import CASES3
    recorded, fixed = JAX3["cases"]["three_prints"], JAX3["cases"]["three_prints_fixed"]
    ran = run_cell(shell, CASES3["three_prints"])
    assert [line for line in ran.stdout.splitlines() if not line.startswith("Out[")] == \
        recorded["printed"]
    (note,) = ran.shown("⚠ print ran while tracing")
    assert "in place of each of your 3 prints that showed a tracer:" in note, note
    offered = [line.strip().split("    # at In[")[0] for line in note.splitlines()[-3:]]
    assert offered == [line.strip() for line in CASES3["three_prints_fixed"].splitlines()
                       if "debug.print" in line], note
    again = run_cell(shell, CASES3["three_prints_fixed"])
    assert again.error is None and again.stdout.splitlines() == fixed["printed"]
    assert not again.shown("⚠")


def test_timeit_of_a_call_that_makes_a_jit_anew_inside_says_where_to_make_it_once(shell):
    """JAX 101's `%timeit g_inner_jitted_lambda(10, 20)`: the jit is made anew inside the
    function the statement calls (JAX compiles it on each of 3 calls, recorded). %timeit's
    line said "make it once before %timeit and time the call of that", which the statement
    (a call of g) has no jit to do with; it names the function and line now, and the jit
    made once outside it compiles once for the 3 calls under JAX (recorded)."""
    from ipython_shell import run_cell
    from tutorial_notes3_cases import CASES3
    made, once = JAX3["cases"]["jit_made_inside_a_called_function"], \
        JAX3["cases"]["jit_made_once_outside_the_function"]
    assert made["compiles"]["<lambda>"] == 3 and once["compiles"] == {"<lambda>": 1}
    setup = CASES3["jit_made_inside_a_called_function"].split("for _ in")[0]
    run_cell(shell, setup)
    said = run_cell(shell, "%timeit -n 3 -r 1 g_inner(x)").stdout
    line = next(t for t in said.splitlines()
                if t.startswith(here("The timed runs compiled too")))
    assert here("(3 compile(s) over 3 timed run(s): <lambda>: a new jit object)") in line, said
    assert re.search(here(r"A jit made anew inside g_inner \(at In\[\d+\]:3\) compiles on every "
                          r"call: make it once, outside it, and call that there\.$"), line), line
    assert "before %timeit" not in line
    said = run_cell(shell, CASES3["jit_made_once_outside_the_function"].split("for _ in")[0] +
                    "\n%timeit -n 3 -r 1 g_inner(x)").stdout
    assert here("The timed runs compiled too") not in said, said


def test_an_unregistered_class_cards_rewrite_is_whole_lines(shell):
    """custom_pytrees.md's jax.tree.map over Specials, its call written over five lines: JAX
    raises "unsupported operand type(s) for +: 'Special' and 'int'" (recorded). The card's
    code ended with the call's first line alone, `jax.tree.map(lambda x: x + 1,`, which does
    not run pasted; it says to run the call again now, and the registration line with the
    call after it gives JAX's Specials (recorded)."""
    from ipython_shell import run_cell
    from tutorial_notes3_cases import CASES3
    recorded, fixed = JAX3["cases"]["special_unregistered"], JAX3["cases"]["special_registered"]
    ran = run_cell(shell, CASES3["special_unregistered"])
    assert f"{type(ran.error).__name__}: {ran.error}" == recorded["error"]
    (card,) = ran.shown("Special is not a registered pytree")
    lines = card.splitlines()
    offered = [line.strip() for line in lines[lines.index("  try:") + 1:]
               if line.startswith("    ")]
    assert offered == ["jax.tree_util.register_dataclass(Special, data_fields=['x', 'y'], "
                       "meta_fields=[])    # once, after class Special",
                       "# then your call again, as it is"], card
    assert offered[0].split("    #")[0] in CASES3["special_registered"]
    assert run_cell(shell, CASES3["special_registered"]).stdout.splitlines() == \
        fixed["printed"]


def test_a_jit_of_a_partial_binding_nothing_is_not_told_to_pass_what_it_bound(shell):
    """JAX 101's g_inner_jitted_partial: `jax.jit(partial(unjitted_loop_body))(i)` in a
    loop, a partial binding nothing (JAX compiles it on each of 3 passes, recorded). The
    note's fix said "pass what the partial bound in the call", and it bound nothing; it says
    to call the jit made once, whose two lines pasted compile once under JAX (recorded)."""
    from ipython_shell import run_cell
    from tutorial_notes3_cases import CASES3
    made, fixed = JAX3["cases"]["jit_of_a_partial_binding_nothing"], \
        JAX3["cases"]["jit_of_a_partial_binding_nothing_fixed"]
    assert made["compiles"]["unjitted_loop_body"] == 3
    assert fixed["compiles"] == {"unjitted_loop_body": 1} and fixed["printed"] == made["printed"]
    ran = run_cell(shell, CASES3["jit_of_a_partial_binding_nothing"])
    assert ran.stdout.splitlines() == made["printed"]
    (note,) = ran.notes
    text = note["text/plain"]
    assert text.startswith(here("⚙ unjitted_loop_body compiled again ×2 (a new jit object")), text
    assert "call that (this partial binds nothing)" in text, text
    assert "pass what the partial bound" not in text
    lines = [line.strip().split("    # ")[0] for line in text.splitlines()
             if "unjitted_loop_body_jit" in line]
    assert lines == ["unjitted_loop_body_jit = jax.jit(unjitted_loop_body)",
                     "i = unjitted_loop_body_jit(i)"], text
    assert all(line in CASES3["jit_of_a_partial_binding_nothing_fixed"] for line in lines)
    again = run_cell(shell, CASES3["jit_of_a_partial_binding_nothing_fixed"])
    assert again.stdout.splitlines() == fixed["printed"] and not again.notes


# stop 115: the pages rerun (docs/seeing_inside.md); cases in tests/data/tutorial_notes4_cases.py,
# JAX's answers recorded by reference/make_tutorial_notes_reference.py's `fourth`
JAX4 = locations.recorded("tutorial_notes4_reference.json")


def test_a_number_written_in_a_call_then_an_array_is_not_told_to_grow_into_one(shell):
    """Common Gotchas' impure_print_side_effect(4.), (5.), then (jnp.array([5.])), "different
    type" on purpose. The note's fix, "If it is a state started as 0.0 ... make it with that
    shape from the start", made line 6's 4. an array: pasted, JAX prints "First call: [4.]"
    and still compiles twice (the 5. between), recorded. A number written in the earlier
    call is no state: the note says a compile each is expected, with no code."""
    from ipython_shell import run_cell
    from tutorial_notes4_cases import CASES4
    recorded = JAX4["cases"]["scalar_then_array_on_purpose"]
    old_fix = JAX4["cases"]["scalar_then_array_old_fix_pasted"]
    assert recorded["compiles"]["impure_print_side_effect"] == 2
    assert old_fix["compiles"]["impure_print_side_effect"] == 2      # the fix saved nothing
    assert old_fix["printed"][1] == "First call:  [4.]" != recorded["printed"][1]
    ran = run_cell(shell, CASES4["scalar_then_array_on_purpose"])
    assert ran.error is None and ran.stdout.splitlines() == recorded["printed"]
    (note,) = ran.shown("⚙")
    assert note.startswith(here("⚙ impure_print_side_effect compiled again (compile #2, at In[")), \
        note
    assert here("the number 4. written in the call at line 6") in note, note
    assert here("Nothing to fix where both calls are meant: a compile for each is expected.") \
        in note.splitlines()[0], note
    assert "broadcast_to" not in note and "state started as" not in note, note


def test_a_checks_number_then_its_array_is_not_told_to_broadcast_the_number(shell):
    """control-flow's jax_check_positive_even(24), then of jnp.array([-1, 2, 5]): the note's
    fix made the 24 an array of three "from the start", which JAX runs to print
    "[ True  True  True]" where the page prints True (recorded): a changed result, not a
    saved compile. Told now as two calls of two shapes, a compile each."""
    from ipython_shell import run_cell
    from tutorial_notes4_cases import CASES4
    first, second = (JAX4["cases"][name] for name in ("positive_even_of_a_number",
                                                      "positive_even_of_an_array"))
    assert first["printed"] == ["True", "True"]
    assert JAX4["cases"]["positive_even_old_fix_pasted"]["printed"] == ["[ True  True  True]"]
    ran = run_cell(shell, CASES4["positive_even_of_a_number"])
    assert ran.stdout.splitlines() == first["printed"] and not ran.shown("⚙")
    ran = run_cell(shell, CASES4["positive_even_of_an_array"])
    assert ran.stdout.splitlines() == second["printed"]
    (note,) = ran.shown("⚙")
    assert re.search(here(r"the number 24 written in the call at In\[\d+\]:13\)"), note), note
    assert "broadcast_to" not in note and "from the start" not in note, note


def test_a_key_told_reused_then_split_by_the_pages_loop_is_not_told_again(shell):
    """random-numbers' normal(key) twice (told: JAX's checker raises KeyReuseError there,
    recorded), then the page's loop, `new_key, subkey = random.split(key)`: its note said
    split drew with the key normal used, and rewrote the two earlier draws again. With the
    first note's rewrite in place the loop reuses nothing (JAX's checker, on, raises nothing,
    recorded); a split of a key told reused in an earlier cell is not told again."""
    from ipython_shell import run_cell
    from tutorial_notes4_cases import CASES4
    cases = JAX4["cases"]
    assert cases["checked_key_drawn_twice"]["error"].startswith("KeyReuseError")
    assert cases["checked_key_drawn_as_the_note_wrote"]["error"] is None
    assert cases["checked_split_loop"]["error"] is None
    run_cell(shell, "from jxkernel import random")
    assert run_cell(shell, CASES4["key_made"]).stdout.splitlines() == \
        cases["key_made"]["printed"]
    ran = run_cell(shell, CASES4["key_drawn_twice"])
    assert ran.stdout.splitlines() == cases["key_drawn_twice"]["printed"]
    (note,) = ran.shown("⚠ key reused")
    offered = [line.strip().split("    # at In[")[0] for line in note.splitlines()
               if line.startswith("  ")]
    assert offered == [line.split("    # at In[")[0] for line in
                       CASES4["checked_key_drawn_as_the_note_wrote"].splitlines()[1:]], note
    ran = run_cell(shell, CASES4["split_loop"])
    assert ran.error is None and ran.stdout.splitlines() == cases["split_loop"]["printed"]
    assert not ran.shown("⚠"), ran.shown("⚠")


def test_a_key_split_then_split_again_is_told_to_split_one_more_where_each_key_is_used(shell):
    """JAX 101's state chapter: `x_rng, noise_rng = jax.random.split(rng)`, each drawn with,
    then `params = init(rng)`, whose split takes rng again (JAX's checker raises
    KeyReuseError there, recorded). The note said "draw with one of them": init(x_rng), pasted,
    JAX's checker refuses too (recorded). Where the cell uses each key the split made, the
    note writes the split one key longer and init given that key, which JAX runs clean."""
    from ipython_shell import run_cell
    from tutorial_notes4_cases import CASES4
    cases = JAX4["cases"]
    assert cases["checked_state_data_then_init"]["error"].startswith("KeyReuseError")
    assert cases["checked_state_init_with_a_key_split_made"]["error"].startswith("KeyReuseError")
    assert cases["checked_state_split_one_more"]["error"] is None
    run_cell(shell, CASES4["state_init"])
    ran = run_cell(shell, CASES4["state_data_then_init"])
    assert ran.error is None
    (note,) = ran.shown("⚠ key reused")
    assert re.match(here(r"⚠ key reused \(at In\[\d+\]:11\): init's split drew with the key "
                         r"that split used at In\[\d+\]:5"), note), note
    assert "draw with one of them" not in note, note
    offered = [re.sub(r"In\[\d+\]", "In[8]", line.strip()) for line in note.splitlines()
               if line.startswith("  ")]
    assert offered == [line for line in CASES4["checked_state_split_one_more"].splitlines()
                       if "    # at In[" in line], note


def test_a_ref_written_in_place_in_a_jitted_function_is_not_told_left_as_it_was(shell):
    """array_refs' sin_inplace: `x_ref[...] = jnp.sin(x_ref[...])` inside jit, x_ref a Ref.
    The effect note said sin_inplace got a copy and "the x_ref you passed is left as it was",
    and offered `return x_ref` with `x_ref = sin_inplace(x_ref)`: JAX writes the Ref in place
    (the page prints sin of its values after the call, recorded) and refuses a Ref returned
    from jit (ValueError, recorded). An argument traced as a Ref gets no such note."""
    from ipython_shell import run_cell
    from tutorial_notes4_cases import CASES4
    cases = JAX4["cases"]
    assert cases["ref_returned"]["error"].startswith("ValueError: function sin_inplace")
    assert "mutable array references cannot be returned" in cases["ref_returned"]["error"]
    ran = run_cell(shell, CASES4["ref_written_in_place"])
    assert ran.error is None
    assert [line.split(" ", 1)[1] for line in ran.stdout.splitlines()] == \
        [line.split(" ", 1)[1] for line in cases["ref_written_in_place"]["printed"]]
    assert not ran.shown("⚠"), ran.shown("⚠")
    assert run_cell(shell, CASES4["ref_after"]).stdout.splitlines() == \
        cases["ref_after"]["printed"]
