"""The note under a cell that called a dynamic slice or update with a start known when the line
ran that XLA moved (jxkernel/notebook/notes/clamped_start_notes.py; which start XLA uses:
jxkernel/lax/slicing/clamped_starts.py). What it says is checked against JAX 0.10.2's answers
(tests/data/clamped_starts_reference.json): the window it says was read is what JAX read, the
place it says the update landed is where JAX wrote it, and each fix it prints, run under JAX,
reads (or writes) the window at the start it names, zeros (or nothing) outside the operand."""
import ast
import re

import numpy as np
import pytest

pytest.importorskip("IPython")

import jxkernel
from jxkernel.lax.slicing import dynamic_slices, start_watch
from jxkernel.lax.slicing.clamped_starts import used_start
import clamped_starts_cases as cases  # tests/data
import locations  # tests/support
from doc_examples import check_docstring_examples  # tests/support
from ipython_shell import ran_ok, shell_fixture  # tests/support

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp, numpy as np\n"
                      "lax = jax.lax")
NOTE = "⚠ lax.dynamic_"
TITLE = re.compile(r"⚠ lax\.(\w+) moved its (start|index) (.+?) to (.+?) \(at In\[\d+\]:1\): "
                   r"(.+), so it (read|wrote the update at) (\[[^\]]*\]), and raised nothing")
THEIRS = locations.jax_answers("clamped_starts_reference.json")


def _notes(ran) -> list:
    return ran.shown(NOTE)


def _run(shell, name):
    operand, update, call = cases.CASES[name]
    ran_ok(shell, f"x = {operand}\nu = {update}")
    return ran_ok(shell, f"out = {call}")


def _as_numpy(expression: str):
    """A case's operand or update, made by NumPy (`jnp.arange(10)` as `np.arange(10)`)."""
    return np.asarray(eval(expression.replace("jnp.", "np."), {"np": np}))


class Told:
    """A case's note, read: its title's parts, the axis it names (the first moved), and the
    operand as NumPy makes it."""

    def __init__(self, shell, name):
        self.operand, self.update, self.call = cases.CASES[name]
        (self.note,) = _notes(_run(shell, name))
        self.title = self.note.splitlines()[0]
        found = TITLE.fullmatch(self.title)
        assert found, self.title
        self.function, _, asked, used, self.why, self.did, window = found.groups()
        self.asked, self.used = ast.literal_eval(asked), ast.literal_eval(used)
        self.axis = int(re.search(r"on axis (\d)", self.why).group(1))
        self.a = _as_numpy(self.operand)
        if "vmap" in self.call:            # the note's window is a row's
            self.a = self.a[0]
        self.window = tuple(slice(None) if part == ":" else slice(*map(int, part.split(":")))
                            for part in window[1:-1].split(", "))

    def starts(self, told) -> tuple:
        """The starts of all axes: an _in_dim function's one start, with 0 on the others."""
        return told if isinstance(told, tuple) else tuple(
            told if k == self.axis else 0 for k in range(self.a.ndim))


def _placed(a, starts, sizes):
    """The window of `sizes` at `starts` (not clamped) of `a`, 0 where it lies outside `a`."""
    out = np.zeros(sizes, a.dtype)
    for pos in np.ndindex(*sizes):
        at = tuple(s + p for s, p in zip(starts, pos))
        if all(0 <= i < d for i, d in zip(at, a.shape)):
            out[pos] = a[at]
    return out


def _written(a, u, starts):
    """`a` with `u` written at `starts` (not clamped), what lies outside `a` dropped."""
    out = a.copy()
    for pos in np.ndindex(*u.shape):
        at = tuple(s + p for s, p in zip(starts, pos))
        if all(0 <= i < d for i, d in zip(at, a.shape)):
            out[at] = u[pos]
    return out


def test_the_start_used_is_the_one_jax_read_from():
    # each start from -25 to 25, windows of 1, 4 and 10 of 10 elements: a negative start is
    # counted from the end once (-11 reads from 0, where Python's -11 % 10 would be 9)
    for n, read_from in THEIRS["sweep"].items():
        assert [used_start(s, 10, int(n)) for s in cases.SWEEP_STARTS] == read_from, n
    assert cases.sweep(jxkernel) == THEIRS["sweep"]
    check_docstring_examples("jxkernel.lax.slicing.clamped_starts")
    check_docstring_examples("jxkernel.notebook.notes.clamped_start_notes",
                             skip_module_docstring=True)


@pytest.mark.parametrize("name", list(cases.MOVED))
def test_a_moved_start_is_told_with_the_window_jax_used(shell, name):
    told = Told(shell, name)
    assert f"lax.{told.function}(" in told.call
    assert all(str(v) in told.call for v in np.ravel(told.asked))   # the start asked: the call's
    # the window starts at the start it says XLA used
    assert tuple(w.start or 0 for w in told.window) == told.starts(told.used), told.title
    answer = np.asarray(THEIRS[name]["call"]["result"])
    assert np.asarray(shell.user_ns["out"]).tolist() == answer.tolist()    # jxkernel's too
    if "vmap" in told.call:
        answer = answer[0]
    if told.did == "read":                 # JAX read that window
        expected = told.a[told.window]
        if "keepdims=False" in told.call:
            expected = np.squeeze(expected, told.axis)
    else:                                  # JAX wrote the update there, and only there
        expected = told.a.copy()
        expected[told.window] = np.reshape(_as_numpy(told.update), expected[told.window].shape)
    assert answer.tolist() == expected.tolist()
    if "counted from the end is" in told.why:      # a negative start, counted from the end
        assert any(v < 0 for v in np.ravel(told.asked))


# the cases whose call names the operand and update otherwise than x and u (a lambda's
# arguments): the fix printed names them so, JAX ran it with x and u, the same arrays
NAMED_IN_CALL = {"slice_jit_closure": {"x": "a"}, "slice_jit_static_arg": {"x": "a"},
                 "update_jit_closure": {"x": "a", "u": "b"}}


def _printed(name) -> str:
    """The fix as the note prints it: FIXES' with the call's own names."""
    names = NAMED_IN_CALL.get(name, {})
    return re.sub(r"\b[xu]\b", lambda found: names.get(found[0], found[0]), cases.FIXES[name])


@pytest.mark.parametrize("name", list(cases.FIXES))
def test_the_fix_it_prints_reads_or_writes_where_it_says_under_jax(shell, name):
    told = Told(shell, name)
    assert "\n    " + _printed(name) + "\n" in told.note   # the fix JAX ran, as it is printed
    placed = re.search(r"(?:read the window|write it) at (\(.*?\)|-?\d+)", told.note).group(1)
    starts = told.starts(ast.literal_eval(placed))
    answer = np.asarray(THEIRS[name]["fix"]["result"])
    if told.did == "read":                 # the window at that start, zeros outside x
        call = np.asarray(THEIRS[name]["call"]["result"])
        keepdims = "keepdims=False" not in told.call
        sizes = call.shape if keepdims else np.expand_dims(call, told.axis).shape
        expected = _placed(told.a, starts, sizes)
        assert answer.tolist() == (expected if keepdims else
                                   np.squeeze(expected, told.axis)).tolist()
    else:                                  # the update at that start, none of it outside x
        u = _as_numpy(told.update)
        u = u if u.ndim == told.a.ndim else np.expand_dims(u, told.axis)
        assert answer.tolist() == _written(told.a, u, starts).tolist()
    # and so under jxkernel, with no note: no start of the fix moves
    ran = ran_ok(shell, f"fixed = {cases.FIXES[name]}")
    assert _notes(ran) == []
    assert np.asarray(shell.user_ns["fixed"]).tolist() == answer.tolist()


# each case of no note, and the case of its kind that gets one
TOLD_BESIDE = {"slice_in_bounds": "slice_past_the_end",
               "slice_negative_in_bounds": "slice_negative_wraps_past",
               "index_in_dim_last": "index_in_dim_past",
               "update_2d_in_bounds": "update_2d",
               "slice_traced_start": "slice_jit_static_arg",
               "update_traced_start": "update_jit_closure"}


@pytest.mark.parametrize("name", list(cases.UNMOVED))
def test_no_note_where_no_known_start_moves(shell, name):
    # (a traced start is the jitted call's note's: notebook/notes/index_calls.py)
    notes = _notes(_run(shell, name))
    assert [n for n in notes if ", jitted (at " not in n] == []
    assert len(notes) == ("traced" in name)
    assert np.asarray(shell.user_ns["out"]).tolist() == THEIRS[name]["call"]["result"]
    assert len(_notes(_run(shell, TOLD_BESIDE[name]))) == 1
    # a traced start is moved all the same, as the same start static: its value is not
    # known when the line runs
    if "traced" in name:
        assert THEIRS[name]["call"] == THEIRS[TOLD_BESIDE[name]]["call"]


def test_a_loops_first_moved_start_is_the_one_told(shell):
    ran = ran_ok(shell, "x = jnp.arange(10)\nfor k in range(7, 40):\n"
                        "    w = lax.dynamic_slice(x, (k,), (4,))")
    (note,) = _notes(ran)
    assert note.startswith("⚠ lax.dynamic_slice moved its start (7,) to (6,)"), note


def test_a_line_is_told_once_and_jxnotes_off_silences_it(shell):
    ran_ok(shell, "x = jnp.arange(10)\ndef window(i):\n    return lax.dynamic_slice(x, (i,), (4,))")
    assert len(_notes(ran_ok(shell, "w = window(8)"))) == 1
    assert _notes(ran_ok(shell, "w = window(9)")) == []          # the same line: told once
    before = jxkernel.config.jxkernel_compile_notes
    ran_ok(shell, "%jxnotes off")
    try:
        assert _notes(ran_ok(shell, "w = lax.dynamic_slice(x, (7,), (4,))")) == []
    finally:
        # the mode it had ("%jxnotes all" here left every later test of the worker in "all":
        # first compiles told, and test_installed_library_notes failed in a whole run)
        ran_ok(shell, f"%jxnotes {before}")


def test_jxkernels_own_dynamic_slices_are_not_told_at_the_learners_line(shell):
    # a dynamic slice of jxkernel's own inside a jnp function (compiled here as if it were one
    # of jxkernel's files) is not the learner's: only the line that called lax's is
    inside = {"lax": jxkernel.lax}
    exec(compile("def last_four(a):\n    return lax.dynamic_slice(a, (a.shape[0],), (4,))\n",
                 dynamic_slices.__file__.replace("dynamic_slices.py", "slice_pad.py"), "exec"),
         inside)
    shell.user_ns["last_four"] = inside["last_four"]
    assert _notes(ran_ok(shell, "out = last_four(jnp.arange(10))")) == []
    assert len(_notes(ran_ok(shell, "out = lax.dynamic_slice(jnp.arange(10), (10,), (4,))"))) == 1


def test_without_the_notebook_no_start_is_looked_at(monkeypatch):
    # a script's eager dynamic slice must not wait for a start to copy it to the host, nor
    # look for the user's line: only the loaded extension has starts looked at
    x = jxkernel.numpy.arange(10)
    start_watch.moved.clear()
    for watched in (False, True):
        monkeypatch.setattr(start_watch, "watching", watched)
        jxkernel.lax.dynamic_slice(x, (8,), (4,))
        jxkernel.lax.dynamic_update_slice(x, x[:4], (jxkernel.numpy.array(9),))
    assert [(m.asked, m.used, m.use) for m in start_watch.moved] == [
        ((8,), (6,), "read"), ((9,), (6,), "update")]          # (this file is the user's)
    start_watch.moved.clear()


# the learner's own names in the fix: the case's call (recorded under JAX with x and u) written
# with other names, and the fix as the note must print it
NAMED = {
    "slice_past_the_end": ("frames", None, "jax.lax.dynamic_slice(frames, (8,), (4,))",
                           "jax.lax.dynamic_slice(jnp.pad(frames, ((0, 2),)), (8,), (4,))"),
    "update_past_the_end": ("buf", "patch", "lax.dynamic_update_slice(buf, patch, (8,))",
                            "lax.dynamic_update_slice(jnp.pad(buf, ((0, 2),)), patch, (8,))"
                            "[0:10]"),
}


@pytest.mark.parametrize("name", list(NAMED))
def test_the_fix_names_the_learners_operand_and_update(shell, name):
    operand, update, call = cases.CASES[name]
    x, u, written, fixed = NAMED[name]
    ran_ok(shell, f"{x} = {operand}\n" + (f"{u} = {update}" if u else ""))
    (note,) = _notes(ran_ok(shell, f"out = {written}"))
    assert "\n    " + fixed + "\n" in note
    assert fixed == cases.FIXES[name].replace("lax.", written[:written.index("dynamic")], 1
                                              ).replace("(x,", f"({x},").replace(", u,", f", {u},")
    assert "your operand" not in note and "your update" not in note
    # it runs, and gives what JAX gave for the same fix written with x and u
    ran = ran_ok(shell, f"fixed = {fixed}")
    assert _notes(ran) == []
    assert np.asarray(shell.user_ns["fixed"]).tolist() == THEIRS[name]["fix"]["result"]


def test_an_operand_written_long_is_named_x_and_the_note_says_so(shell):
    ran_ok(shell, "x = jnp.arange(10)")
    (note,) = _notes(ran_ok(shell, "out = lax.dynamic_slice(jnp.concatenate([x, x, x])[:10] + "
                                   "jnp.zeros(10, int), "
                                   "(8,), (4,))"))
    assert "pad the operand first (x: your operand):\n    " + cases.FIXES[
        "slice_past_the_end"] + "\n" in note
