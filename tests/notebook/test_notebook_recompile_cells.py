"""Programs of several notebook cells (tests/data/recompile_cells_cases.py: a function defined
in one cell and jitted in another, a cell run again, a def redefined with a note's fix, a
class cell run again, a helper module reloaded), run cell by cell with `%load_ext jxkernel`,
against what JAX 0.10.2 logged and lowered for each cell (recompile_cells_reference.json):
a recompile JAX explains is noted under its cell and names JAX's leaves, a cell JAX explains
nothing of shows no note, each cell compiles as many programs of the learner's functions as
JAX lowered, and no note names jxkernel's modules or the kernel's files of the cells. The
`*_fixed` programs paste a note's code where it says; the tests below hold the notes to
that code.
"""
import sys

import pytest

pytest.importorskip("IPython")

from recompile_cells_cases import NOW_TRACED_CODE, PROGRAMS  # noqa: E402  (tests/data)
from ipython_shell import (_forget_user_names, logs_closed, ran_ok,  # noqa: E402, F401
                           shell_fixture)
import locations  # noqa: E402  (tests/support)
from note_words import here  # noqa: E402  (tests/support)

REFERENCE = locations.jax_answers("recompile_cells_reference.json")["programs"]

shell = shell_fixture("import jxkernel as jax\nimport jxkernel.numpy as jnp\nimport numpy as np",
                      store_history=True)

pytestmark = pytest.mark.usefixtures("logs_closed")

# where JAX hints "seen another function defined on the same line" for a def whose code
# changed (a def redefined while an old jit still holds the old one): a new function, which
# no note calls "the same code" (as a def changed in a new cell,
# test_notebook_compile_notes.py's test_a_jitted_def_redefined_in_a_later_cell_...)
CODE_CHANGED = {("def_redefined_old_jit_kept", 5)}
# a first trace in JAX's log ("never seen function", no hint) whose note says why: its caches
# were cleared (JAX's log names the same id: tests/data/trace_time_misses_reference.json)
CLEARED = {("clear_caches_in_its_own_cell", 3)}
# the same, a function of a module %autoreload reloaded after an edit (JAX hints nothing: the
# call is in another cell than the old function's): the note says the edit made it anew
RELOADED = {("jitted_def_in_module_autoreloaded", 4)}
# jxkernel's %timeit runs its statement once before the timed runs (magics/timing.py), whose
# compile the note leaves out ("compiled again ×4", as JAX's 4): one compile more than JAX's
WARM_UP = {("timeit_of_a_jitted_call", 3): 1}
# what names our internals or the kernel's files rather than the learner's cell and line
# (PjitFunction: the class of jxkernel's jit, as jaxlib's, no name in the learner's cells)
INTERNAL = ("jxkernel.", "_src.", "<flat index", "<ipython-input", "/tmp/ipykernel_",
            "PjitFunction")


def _explained(miss) -> bool:
    """Whether JAX's log says more of `miss` than a first trace."""
    return miss["kind"] != "never seen function" or miss["redefined_hint"]


@pytest.fixture
def learner_dir(tmp_path, monkeypatch):
    """The learner's working folder, where a cell saves the learner's module: on sys.path
    for this test alone, as a notebook's folder is, and its modules forgotten after."""
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for module in [m for m in sys.modules if m.startswith("rc_")]:
        del sys.modules[module]


def run_program(shell, name, folder=None) -> list:
    """[(Ran, the compiles in that cell of the learner's functions)] of program `name`'s
    cells, run in order in the names of a new kernel (as the recording ran each), `folder`
    their LEARNER_DIR. The learner's functions are those JAX missed in the program so far,
    as the recording counts its lowerings (a vmap of a jitted function, eager work to the
    notes, lowers jit(dot))."""
    from jxkernel import compile_log
    _forget_user_names(shell)
    ran_ok(shell, "import jxkernel as jax\nimport jxkernel.numpy as jnp\nimport numpy as np")
    if folder is not None:
        shell.user_ns["LEARNER_DIR"] = str(folder)
    out, names = [], set()
    for code, theirs in zip(PROGRAMS[name][1], REFERENCE[name]["cells"], strict=True):
        names |= {m["function"] for m in theirs["misses"]}
        start = compile_log.last_seq() + 1
        ran = ran_ok(shell, code)
        mine = [e for e in compile_log.events_since(start)
                if e.function in names and e.compiled]
        out.append((ran, mine))
    return out


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_each_cell_is_noted_as_jax_explains_it(shell, name, learner_dir):
    cells = REFERENCE[name]["cells"]
    for k, ((ran, compiled), theirs) in enumerate(zip(run_program(shell, name, learner_dir),
                                                      cells, strict=True), 1):
        notes = [n["text/plain"] for n in ran.notes]
        assert len(compiled) - WARM_UP.get((name, k), 0) == theirs["lowerings"], \
            (k, [e.reason for e in compiled])
        if any(map(_explained, theirs["misses"])) and (name, k) not in CODE_CHANGED:
            (note,) = notes
            first = note.splitlines()[0]
            for miss in theirs["misses"]:
                for change in miss["changes"] if miss["kind"] == "types" else ():
                    assert f"{change['path']}: " in note, (k, note, change)
            # JAX names what changed: a note never says the trace was reused for it
            assert "compiled now, without tracing again" not in first, (k, first)
        elif (name, k) in CLEARED:
            (note,) = notes
            assert "its caches were cleared" in note, note
        elif (name, k) in RELOADED:
            (note,) = notes
            assert "was reloaded after an edit" in note, note
        else:
            assert notes == [], (k, notes)
        for text in [n["text/plain"] for n in ran.outputs]:
            assert not any(word in text for word in INTERNAL), (k, text)


def _change_under(run):
    """The one change the note under a cell tells (`run`: run_program's (Ran, compiles)), as
    the note says it."""
    ran, compiled = run
    assert len(ran.notes) == 1, ran.notes
    (change,) = [e for e in compiled if e.again][-1].said_changes
    return change


def test_a_class_cell_run_again_is_a_new_class_as_in_jax(shell):
    """A registered dataclass's cell run again makes a new class of the same name: JAX
    0.10.2's treedefs of the two compare equal but hash apart, so jit traces anew ("so their
    Python types differ") and returns the new class. jxkernel found the old trace by
    equality alone: it returned the old class and noted "traced before (under grad or vmap,
    ...): compiled now, without tracing again"."""
    runs = run_program(shell, "dataclass_class_cell_run_again_returned")
    assert shell.user_ns["answer"] is REFERENCE["dataclass_class_cell_run_again_returned"][
        "answer"] is True
    runs = run_program(shell, "dataclass_model_class_cell_run_again")
    change = _change_under(runs[4])
    assert (change.path, change.kind, change.old, change.new) == \
        ("m", "structure", "a Lin", "a Lin (class Lin made anew)")
    assert "`class Lin` statement ran again" in change.fix
    assert "Define the class in a cell of its own, run once" in runs[4][0].notes[0]["text/plain"]


def test_a_static_argument_made_traced_as_a_note_said_is_kept_traced(shell):
    """A note said "drop n from static_argnums" and gave `power_jit = jax.jit(power)`; pasted
    in a new cell, the loop compiles once more (JAX logs it: "now pytree leaf and before
    Static"), and that note gave `jax.jit(power, static_argnames=('n',))`, n static again:
    JAX 0.10.2 then lowers n = 4 and 5 anew (static_n_then_the_old_fix_pasted). It gives the
    jit with n traced, which the new call used: pasted, no lowering for n up to 5."""
    runs = run_program(shell, "static_n_then_the_fix_pasted_in_a_new_cell")
    change = _change_under(runs[3])
    assert change.kind == "traced" and change.snippet == NOW_TRACED_CODE.format(fun="power")
    assert NOW_TRACED_CODE.format(fun="power2") in \
        PROGRAMS["static_n_then_the_fix_pasted_in_a_new_cell_fixed"][1]
    assert [c["lowerings"] for c in REFERENCE["static_n_then_the_old_fix_pasted"]["cells"]][-1] \
        == 2


def test_a_python_number_of_another_kind_is_cast_in_the_cells_names(shell):
    """`shift(x, 1.0)`, then `shift(x, 1)` in a later cell: the fix was `c = float(c)`, in the
    parameter's name, which the cell has not (pasted there: NameError; inside the jitted
    function float() of a tracer raises). It names the call's literal and calls with it, the
    code the _fixed program pastes (JAX 0.10.2: no lowering in that cell)."""
    runs = run_program(shell, "python_float_then_int_in_later_cell")
    change = _change_under(runs[1])
    fixed = PROGRAMS["python_float_then_int_in_later_cell_fixed"][1][1]
    assert change.snippet == fixed.replace("shift2", "shift"), change.snippet
    assert REFERENCE["python_float_then_int_in_later_cell_fixed"]["cells"][1]["lowerings"] == 0


def test_a_full_batch_is_not_told_to_be_padded_to_its_own_length(shell):
    """A loop cell of 32 rows, run again with 16: the padding pads to the 32 rows compiled
    before, and the earlier cell's 32 rows are that program already; the code ended "# pad
    In[N]:3's jnp.ones((batch, 4)) so too: an unpadded length is a program of its own", a
    program it has not. The code, pasted in the loop (the _fixed program), lowers nothing."""
    runs = run_program(shell, "train_loop_cell_with_a_new_batch_size")
    change = _change_under(runs[2])
    assert "so too" not in change.snippet, change.snippet
    fixed = PROGRAMS["train_loop_cell_with_a_new_batch_size_fixed"][1][2]
    pasted = "\n".join(line[4:] for line in fixed.splitlines()[2:])
    assert change.snippet == pasted.replace("step2", "step").replace("w3", "w"), change.snippet
    # where the earlier length is not the padded one, the comment stays (5 rows, then 7)
    runs = run_program(shell, "data_cell_rerun_with_a_new_length")
    assert "'s xs so too: an unpadded length is a program of its own" in \
        _change_under(runs[4]).snippet


def test_a_jit_of_the_jitted_def_is_told_to_jit_the_def_under_a_name_of_its_own(shell):
    """`lin5 = jax.jit(lin5)` in a cell run again jits the jit the first run made (JAX 0.10.2:
    "never seen function" with its hint, one lowering). The note took it for a wrapper made
    anew and gave `lin5_jit = jax.jit(PjitFunction(lin5))`, a name the cells have not; it
    gives the jit of the def under a name of its own, which the _fixed program pastes (its
    cell run twice: JAX lowers once)."""
    runs = run_program(shell, "rebinding_jit_cell_run_twice")
    change = _change_under(runs[4])
    assert "PjitFunction" not in change.snippet and "PjitFunction" not in change.fix
    fixed = PROGRAMS["rebinding_jit_cell_run_twice_fixed"][1]
    assert change.snippet.splitlines()[0] == fixed[1].replace("lin6", "lin5")
    assert [c["lowerings"] for c in REFERENCE["rebinding_jit_cell_run_twice_fixed"]["cells"]] \
        == [0, 0, 1, 0, 0]


def test_a_jit_made_and_called_in_a_function_is_padded_in_the_functions_names(shell):
    """`return jax.jit(body)(x)` in a function called from two cells, a new length: the
    padding named body's parameter v, which the function has not (pasted before that line:
    NameError); it names the x passed, the code the _fixed program pastes (JAX 0.10.2: one
    lowering for both lengths)."""
    runs = run_program(shell, "jit_inside_a_function_of_a_def")
    change = _change_under(runs[2])
    fixed = PROGRAMS["jit_inside_a_function_of_a_def_fixed"][1][0].splitlines()[3:6]
    assert change.snippet.splitlines() == [line[4:] for line in fixed], change.snippet
    assert [c["lowerings"] for c in REFERENCE["jit_inside_a_function_of_a_def_fixed"]["cells"]] \
        == [0, 1, 0]


def test_a_module_reloaded_before_each_call_is_told_as_a_reload(shell, learner_dir):
    """A cell that reloads the learner's module, jits its function and calls it, run again
    (JAX 0.10.2: "never seen function ... maybe the function is being re-defined
    repeatedly", a lowering per run): the note said "a lambda or nested def made anew" with
    a loop's pattern, which the cells have not. It names the reload: importlib.reload makes
    each of the module's functions anew; reload after an edit alone, the jit once after it
    (the _fixed program, the note's code in its cells: one lowering however often the call
    runs)."""
    runs = run_program(shell, "helper_module_reloaded_in_the_calling_cell", learner_dir)
    change = _change_under(runs[2])
    assert change.kind == "fresh_jit"
    assert change.fix.startswith("rc_helpers5.act5 is a new function object of the same code: "
                                 "reloading rc_helpers5 (importlib.reload) runs its file "
                                 "again"), change.fix
    assert "lambda or nested def" not in change.fix
    fixed = PROGRAMS["helper_module_reloaded_in_the_calling_cell_fixed"][1]
    code = [line.replace("5", "6") for line in change.snippet.splitlines()]
    assert "\n".join(code[:2]) == fixed[1] and code[2] == fixed[2].replace(
        "out = act6_jit(jnp.ones(3))", "out = act6_jit(...)"), change.snippet
    assert [c["lowerings"] for c in
            REFERENCE["helper_module_reloaded_in_the_calling_cell_fixed"]["cells"]] == [0, 0, 1, 0]


@pytest.mark.parametrize("name, said, brief", [
    ("jitted_def_in_module_edited_and_reloaded", "rc_model.step is a new function: rc_model "
     "was reloaded after an edit", "Nothing to fix: a compile per edit is expected."),
    ("jitted_def_in_module_edited_above_and_reloaded", "rc_model4.step4 is a new function: "
     "rc_model4 was reloaded after an edit", "Nothing to fix: a compile per edit is expected."),
    ("jitted_def_in_module_autoreloaded", "rc_model3.step3 is a new function: rc_model3 was "
     "reloaded after an edit", "Nothing to fix: a compile per edit is expected."),
    ("jitted_def_in_module_reloaded_unchanged", "rc_model2.step2 is a new function object of "
     "the same code: reloading rc_model2 (importlib.reload) runs its file again",
     "Reload rc_model2 only after you edit it")])
def test_a_modules_own_jit_reloaded_is_told_as_the_reload(shell, learner_dir, name, said,
                                                          brief):
    """A module whose `@jax.jit def step` the cells call, reloaded (importlib.reload, or
    %autoreload 2 after an edit) and called again (JAX 0.10.2: "never seen function", a
    lowering; with "maybe the function is being re-defined repeatedly" where the call is the
    old one's cell run again). An edited module's function is new code, which no lineage of
    its code held: the cell showed no note, as if its first call. It is told as the edit
    reloaded (a compile per edit, expected), the unedited one as a reload of the same code."""
    runs = run_program(shell, name, learner_dir)
    change = _change_under(runs[3])
    assert change.kind == "fresh_jit" and change.fix.startswith(said), change.fix
    assert here(f"· fix: {brief}") in runs[3][0].notes[0]["text/plain"].splitlines()[0]
    assert [c["lowerings"] for c in REFERENCE[name]["cells"]][3] == 1


def test_a_fix_at_a_call_in_another_cell_names_that_cells_line(shell):
    """An argument left to its default in one cell's call and passed 3.0 by position in the
    next: the fix gives the earlier cell's call the default, named by that cell's line
    ("In[7]:4": "line 4" read as the line of the cell the note is under), in its place as the
    later call passes it (by keyword, JAX 0.10.2 keys the two calls apart still). The code,
    pasted in the earlier cell (the _fixed program), lowers nothing in the later one."""
    runs = run_program(shell, "default_left_out_then_passed_in_a_later_cell")
    change = _change_under(runs[1])
    where = f"In[{runs[0][0].count}]:4"
    fixed = PROGRAMS["default_left_out_then_passed_in_a_later_cell_fixed"][1][0]
    assert change.snippet == fixed.splitlines()[-1].replace("scale9", "scale8").format(
        where=where), change.snippet
    assert f"its default, 2.0, in {where}'s call" in change.fix
    assert [c["lowerings"] for c in
            REFERENCE["default_left_out_then_passed_in_a_later_cell_fixed"]["cells"]] == [1, 0]


def test_a_call_is_not_rewritten_to_call_a_jit_made_in_a_later_cell(shell):
    """jax.jit(f) called in one cell, jax.jit(f, static_argnums=1) made and called in the
    next: the earlier call was told to call the later jit (`times_static(...)    # line 4`),
    which does not exist yet where the notebook runs from its top. The note gives the one
    jit to make and call everywhere; made in the earlier cell and called in both (the _fixed
    program), JAX 0.10.2 lowers nothing in the later one."""
    runs = run_program(shell, "traced_jit_then_static_jit_in_a_later_cell")
    change = _change_under(runs[1])
    fixed = PROGRAMS["traced_jit_then_static_jit_in_a_later_cell_fixed"][1][0]
    assert change.snippet == fixed.splitlines()[2].replace("times2", "times"), change.snippet
    assert [c["lowerings"] for c in
            REFERENCE["traced_jit_then_static_jit_in_a_later_cell_fixed"]["cells"]] == [1, 0]


def test_an_argument_moved_to_a_keyword_is_compared_with_the_key_jax_names(shell):
    """f(x, s=2.0), then f(x, 2.0), then f(x=x, s=2.0) in three cells: JAX 0.10.2's closest
    key for the third is the first's (one argument moved, x: "tuple of length 0 and before
    tuple of length 1", {'x'}). The note compared it with the latest, "scale, x: structure by
    position -> by keyword", and gave the pattern `mul10(..., s, x=s, x)`, no Python. It
    names x and gives the first cell's call with x by keyword, in that cell's line; pasted
    there (the _fixed program), JAX lowers nothing in the third cell."""
    runs = run_program(shell, "keyword_then_position_then_all_keywords")
    change = _change_under(runs[3])
    (miss,) = REFERENCE["keyword_then_position_then_all_keywords"]["cells"][3]["misses"]
    assert "symmetric difference of key sets: {'x'}" in miss["changes"][-1]["why"]
    assert (change.path, change.old, change.new) == ("x", "by position", "by keyword")
    where = f"In[{runs[1][0].count}]:1"
    fixed = PROGRAMS["keyword_then_position_then_all_keywords_fixed"][1][1]
    assert change.snippet == fixed.replace("mul11", "mul10").format(where=where), change.snippet
    assert [c["lowerings"] for c in
            REFERENCE["keyword_then_position_then_all_keywords_fixed"]["cells"]] == [0, 1, 1, 0]


def test_a_class_cell_edited_is_told_as_the_edit(shell):
    """A NamedTuple state's class cell edited (a field added) and run, the state made again
    and stepped: JAX 0.10.2 says "so their Python types differ" and lowers once, then reuses
    it. The note said the class was made anew "even of the same code" and to "define the
    class in a cell of its own, run once", which it was: it tells the edit, a compile per
    edit, nothing to fix. The class cell run again unedited is still told so."""
    runs = run_program(shell, "namedtuple_class_cell_edited_with_a_field")
    change = _change_under(runs[4])
    assert change.new.endswith("(class Opt5 edited)"), change
    assert here("Nothing to fix: a compile per edit is expected.") in change.fix
    assert "run once" not in runs[4][0].notes[0]["text/plain"]
    assert [c["lowerings"] for c in
            REFERENCE["namedtuple_class_cell_edited_with_a_field"]["cells"]] == [0, 0, 1, 0, 1, 0]
    runs = run_program(shell, "namedtuple_class_cell_run_again")
    change = _change_under(runs[4])
    assert change.new.endswith("(class Opt6 made anew)")
    assert "Define the class in a cell of its own, run once" in change.fix


def test_two_arguments_moved_to_keywords_are_moved_at_the_earlier_call(shell):
    """f(x, 2.0) in one cell, f(x=x, s=2.0) in the next (JAX 0.10.2: {'s' 'x'} came by
    keyword): the note gave the pattern `mul12(..., s, x=s, x)`, which is no Python. It gives
    the earlier cell's call with both by keyword, in that cell's line; pasted there (the
    _fixed program), JAX lowers nothing in the later cell."""
    runs = run_program(shell, "two_arguments_by_position_then_by_keyword")
    change = _change_under(runs[2])
    assert (change.path, change.old, change.new) == ("s, x", "by position", "by keyword")
    where = f"In[{runs[1][0].count}]:1"
    fixed = PROGRAMS["two_arguments_by_position_then_by_keyword_fixed"][1][1]
    assert change.snippet == fixed.replace("mul13", "mul12").format(where=where), change.snippet
    assert "Pass them the same way" in change.fix
    assert [c["lowerings"] for c in
            REFERENCE["two_arguments_by_position_then_by_keyword_fixed"]["cells"]] == [0, 1, 0]


def test_a_static_argument_of_two_kinds_is_told_a_program_per_kind_traced(shell):
    """n static, given 2 and then True: the note said to make it traced, "one program for
    all its values", but traced, 2 and True are two types (i32[] weak and bool[]), and JAX
    0.10.2 lowers again for True (the _traced program). It says so, and to pass one kind:
    traced and given int(True), the later cell lowers nothing (the _fixed program)."""
    runs = run_program(shell, "static_int_then_bool_in_a_later_cell")
    change = _change_under(runs[1])
    assert change.snippet == \
        "times3_jit = jax.jit(times3)    # n traced: one program per kind of value (int, bool)"
    assert "2 (int) and True (bool) are two types still" in change.fix
    assert runs[1][0].notes[0]["text/plain"].splitlines()[0].endswith(
        "fix: Make it traced (drop it from static_argnums/static_argnames) and pass n as one "
        "kind in every call.")
    lowered = {name: [c["lowerings"] for c in REFERENCE[name]["cells"]] for name in (
        "static_int_then_bool_in_a_later_cell_traced", "static_int_then_bool_in_a_later_cell_fixed")}
    assert lowered == {"static_int_then_bool_in_a_later_cell_traced": [1, 1],
                       "static_int_then_bool_in_a_later_cell_fixed": [1, 0]}


@pytest.mark.parametrize("name, neutral, used", [
    ("dataclass_mask_none_then_array_multiplied", "ones", "total7 multiplies by b.mask"),
    ("dict_keep_none_then_bool_in_where", "True", "pick1 selects with d['keep']")])
def test_none_made_an_array_keeps_the_result_by_how_the_function_uses_it(shell, name, neutral,
                                                                         used):
    """A field None in one cell's call, an array in the next: the note made the None zeros,
    and the function multiplies by it, so the pasted code gave 0.0 where the None call gave
    4.0 (JAX 0.10.2: the _zeros_pasted program). Read from the function's source (a product,
    a jnp.where condition), it gives ones (True for a bool), which keep the result: pasted in
    place of the first call (the _fixed program), JAX answers as the None call did and lowers
    nothing in the later cell. A use no value is known to mean nothing for (a masked mean)
    gets a pattern, its value left to fill in."""
    runs = run_program(shell, name)
    change = _change_under(runs[2])
    assert f"Zeros in place of None would change the result: {used}." in change.fix
    assert runs[2][0].notes[0]["text/plain"].splitlines()[0].endswith(
        f"fix: Pass an array in every call, {neutral} where it was None ({neutral} "
        f"{'selects every element' if neutral == 'True' else 'change no value'}, as without "
        f"it).")
    fixed = PROGRAMS[name + "_fixed"][1][1]
    renamed = {"total9": "total7", "Batch9": "Batch7", "pick2": "pick1"}
    for theirs, ours in renamed.items():
        fixed = fixed.replace(theirs, ours)
    where = f"In[{runs[1][0].count}]:1"
    assert change.snippet == fixed.replace("{where}", where), change.snippet
    ran = {s: REFERENCE[name + s] for s in ("", "_fixed")}
    assert ran[""]["answer"] == ran["_fixed"]["answer"] == 4.0
    assert [c["lowerings"] for c in ran["_fixed"]["cells"]] == [0, 1, 0]
    if name.startswith("dataclass"):            # the former code changed the answer
        assert REFERENCE[name + "_zeros_pasted"]["answer"] == 0.0
    change = _change_under(run_program(shell, "mask_none_then_array_in_a_masked_mean")[2])
    assert "jnp.full((4,), ...) if mask is None else mask" in change.snippet
    assert change.fix.endswith("The code below is a pattern, in names of yours to fill in.")


@pytest.mark.parametrize("name, called", [
    ("model_cell_run_again_jitting_in_init", "model3.step"),
    ("model_made_and_called_in_a_cell_run_again", "model4.step"),
    ("callable_object_jitted_in_a_cell_run_again", "scale5")])
def test_an_object_made_anew_by_a_cell_run_again_is_told_as_the_cell(shell, name, called):
    """A cell making a model whose __init__ jits its method (or jitting a callable object),
    run again, then the call: JAX 0.10.2 says "never seen function ... maybe the function is
    being re-defined repeatedly" and compiles again. The note said "Make the Model once,
    outside the loop" with a `for batch in batches` loop the cells have not (or, for the
    callable, to register it as a pytree and jit a lambda "once, outside the loop"). It names
    the cell that made the object and gives the cells' own lines: that line in a cell of its
    own, run once, the call in cells run as often as wished; pasted so (the _fixed program),
    the call's second run traces and lowers nothing."""
    from jxkernel import compile_log
    runs = run_program(shell, name)
    # (the events of the jit called: JAX names a callable object's function "<unknown>")
    jitted = eval(called, shell.user_ns)
    (change,) = [e for e in compile_log.events_since(0) if e.key is jitted][-1].said_changes
    assert change.kind == "fresh_jit"
    (note,) = runs[-1][0].notes
    text = note["text/plain"]
    assert "loop" not in change.snippet and "outside the loop" not in text, text
    made = runs[-1][0] if name.startswith("model_made") else runs[-2][0]
    assert f"made by a cell (In[{made.count}]:1: `" in change.fix, change.fix
    assert text.splitlines()[0].endswith(
        f"· fix: Make {called.split('.')[0]} in a cell of its own, run once, and call "
        f"{called + ' from other cells' if '.' in called else 'it from other cells'}: they "
        f"reuse its program however often they run."), text.splitlines()[0]
    fixed = PROGRAMS[name + "_fixed"][1]
    at = f"In[{runs[-1][0].count}]:{2 if name.startswith('model_made') else 1}"
    ours = {"Model8": "Model3", "model8": "model3", "Model9": "Model4", "model9": "model4",
            "Scale10": "Scale5", "scale10": "scale5"}
    pasted = "\n".join(fixed[1:3]).replace("{at}", at)
    for theirs, mine in ours.items():
        pasted = pasted.replace(theirs, mine)
    assert change.snippet == pasted, change.snippet
    cells = REFERENCE[name + "_fixed"]["cells"]
    assert [c["lowerings"] for c in cells][2:] == ([0, 0] if called == "scale5" else [1, 0])
    assert cells[3]["misses"] == [] and len(cells[2]["misses"]) == 1
    (miss,) = REFERENCE[name]["cells"][-1]["misses"]
    assert miss["redefined_hint"], miss


def test_a_jitted_lambda_in_a_cell_run_again_is_given_in_the_cells_names(shell):
    """`sq7 = jax.jit(lambda x: x * 2)` in a cell run again, called in another (JAX 0.10.2:
    "maybe the function is being re-defined repeatedly", a lowering): the note's code was the
    pattern `f = jax.jit(lambda ...: ...)`, names the cells have not; it is the cell's line and
    the call, which pasted (the _fixed program) lower once however often the call runs."""
    runs = run_program(shell, "lambda_jitted_in_a_cell_run_again")
    change = _change_under(runs[3])
    assert change.fix.startswith(f"In[{runs[2][0].count}] defined this function anew")
    fixed = PROGRAMS["lambda_jitted_in_a_cell_run_again_fixed"][1]
    assert change.snippet == "\n".join(fixed[:2]).replace("sq8", "sq7").replace(
        "{at}", f"In[{runs[3][0].count}]:1"), change.snippet
    assert "pattern" not in change.fix
    assert [c["lowerings"] for c in
            REFERENCE["lambda_jitted_in_a_cell_run_again_fixed"]["cells"]] == [0, 1, 0]
    (miss,) = REFERENCE["lambda_jitted_in_a_cell_run_again"]["cells"][3]["misses"]
    assert miss["redefined_hint"], miss
