"""The note under a cell that drew with a PRNG key it had drawn with before
(jxkernel/notebook/notes/key_notes.py): JAX gives the same random bits again and says nothing.

Each program of tests/data/key_reuse_note_cases.py runs here cell by cell in IPython: a note
exactly where the case says (the first use and the reuse it names, eagerly or inside a jitted
function), none for the programs that only look like a reuse (split, fold_in, jit, one seed
twice, a cell run again, cond branches, a scan splitting its key). What the note
says is checked against JAX 0.10.2's answers for the same programs
(tests/data/key_reuse_note_reference.json, reference/make_key_reuse_note_reference.py): "the
same numbers" only where they were; KeyReuseError promised for a typed key, where JAX's
checker raised at that line, and not for a raw PRNGKey key, which it lets through; the advice,
written into the program, gives two draws that differ and no reuse.
"""
import collections
import re

import numpy as np
import pytest

pytest.importorskip("IPython")

import jxkernel
import key_reuse_note_cases as cases  # tests/data
import locations  # tests/support
from ipython_shell import ran_ok, run_cell, shell_fixture  # tests/support
from jxkernel import random as jr
from jxkernel.notebook.notes import key_advice, key_notes
from jxkernel.notebook.state import State
from jxkernel.random import key_reuse, keys
from registered_library import excluded, import_library  # tests/support

shell = shell_fixture("import jxkernel as jax", fresh=True)
THEIRS = locations.jax_answers("key_reuse_note_reference.json")
NOTE = "⚠ key reused"
SAME_BITS = "so the same random bits again (the same numbers, for the same other arguments)"
TITLE = re.compile(r"⚠ key reused \(at In\[(\d+)\]:(\d+)\): ([\w']+ )?(\w+) drew with the key "
                   r"that (?:[\w']+ )?(\w+) used (?:at In\[(\d+)\]:(\d+)|earlier on the same "
                   r"line)(, the same line run before| on the loop's previous iteration| for the "
                   r"leaf before)?, (.*)")


def _run_case(shell, name):
    """The notes each cell of the case showed, and each cell's prompt number."""
    notes, counts = [], []
    for source in cases.CASES[name]["cells"]:
        ran = ran_ok(shell, source)
        assert "Error in callback" not in ran.printed, ran.printed     # (the note's own error)
        notes.append(ran.shown(NOTE))
        counts.append(ran.count)
    return notes, counts


def test_the_same_cases():
    assert sorted(cases.CASES) == sorted(THEIRS)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_a_note_where_a_key_is_reused_and_what_it_says_is_what_jax_did(shell, name):
    notes, counts = _run_case(shell, name)
    expected, theirs = cases.CASES[name]["note"], THEIRS[name]
    if expected is None:
        assert notes == [[]] * len(notes)
        return
    (first_cell, first_line), (cell, line) = expected
    assert [len(n) for n in notes] == [int(i == cell) for i in range(len(notes))]
    (note,) = notes[cell]
    found = TITLE.fullmatch(note.splitlines()[0])
    assert found, note
    at, drew, used, first_at, what = (found.group(1, 2), found.group(4), found.group(5),
                                      found.group(6, 7), found.group(9))
    if first_at == (None, None):                    # "earlier on the same line"
        first_at = at
    # two calls on one line are not a line run again (a loop's, told "run before")
    assert ("earlier on the same line" in note.splitlines()[0]) is name.endswith("_one_line")
    assert at == (str(counts[cell]), str(line))
    assert first_at == (str(counts[first_cell]), str(first_line))
    # the same numbers: only where JAX drew them (same call twice); other calls, the same bits
    if what == "so the same numbers again":
        assert drew == used and theirs["same"] is True
    elif drew == used:      # other arguments, or ones read from names: the bits, not numbers
        assert what == SAME_BITS
    else:
        assert what == "so numbers from the same random bits, not independent ones"
        assert drew != used and theirs.get("same") is not True
    # KeyReuseError promised where JAX raised it at this line; a raw key's note says it does
    # not, and that a typed one would (its twin case); inside a jitted function, at the line
    # that called (traced) it
    typed = name.startswith("typed_")
    taken = cases.CASES[name].get("taken")
    if "call" in cases.CASES[name]:
        raised_at = list(cases.CASES[name]["call"])
        assert "the call that traces this function raises KeyReuseError" in note
        assert ("lets this key through" in note) is not typed
        assert theirs["raises"] is None if not typed else theirs["raises"]["at"] == raised_at
        twin = THEIRS["typed_" + name.split("_", 1)[1]]["raises"]
        assert twin["error"] == "KeyReuseError" and twin["at"] == raised_at
        loop = any(w in name for w in ("_scan_", "_fori_", "_map_"))
        assert (found.group(8) is not None) is loop       # the loop's words
        if taken is not None:       # keys[0] taken twice in the trace: the second slice
            assert twin["message"] == "In slice, argument 0 is already consumed."
    elif taken is not None:
        _taken_checker_is_jaxs(note, name, typed, taken,
                               list(cases.CASES[name].get("checked", (cell, line))))
    elif typed:
        assert ("jax.config.update('jax_debug_key_reuse', True) before the key is made (at the "
                "notebook's top), and a line like this one raises KeyReuseError") in note
        assert "lets this key through" not in note
        assert theirs["raises"]["error"] == "KeyReuseError"
        assert theirs["raises"]["at"] == [cell, line]
    else:
        assert "lets this key through" in note and "before the key is made" not in note
        assert theirs["raises"] is None
        twin = THEIRS["typed_" + name[len("raw_"):]]
        if "refused" in twin:       # the checker on in the cell, its error caught there
            assert twin["refused"].startswith("Previously-consumed key passed to")
        else:
            assert twin["raises"]["error"] == "KeyReuseError" and \
                twin["raises"]["at"] == [cell, line]


SLICED = "Previously-consumed key passed to slice at index 0"
TAKEN_TWICE = "taking the same key from the array by its index a second time raises KeyReuseError"


VMAP_TAKEN = ("taking the same key from the array a second time inside the vmapped function "
              "(by its index or by a for loop) raises KeyReuseError")


def _taken_checker_is_jaxs(note, name, typed, taken, at):
    """One key of an array taken twice: by index, JAX 0.10.2's checker raises at the second
    taking ("passed to slice"; at the reuse line in these cases), for a typed key; a for
    loop's or unpacking's keys it does not follow eagerly, in a vmapped function it does (a
    slice too: at the second loop's line); a raw key it lets through (its typed twin's
    answer then)."""
    twin = THEIRS["typed_" + name.split("_", 1)[1]]["raises"]
    if name.split("_", 1)[1].startswith("vmap_"):
        assert VMAP_TAKEN in note
        assert twin == {"error": "KeyReuseError", "message": SLICED, "at": at}
        assert ("lets this key through" in note) is not typed
    elif taken == "index":
        assert TAKEN_TWICE in note
        assert twin == {"error": "KeyReuseError", "message": SLICED, "at": at}
        assert ("lets this key through" in note) is not typed
    else:
        assert "not the keys a for loop or unpacking takes" in note or \
            "does not follow the keys a for loop or unpacking takes" in note
        assert "raises KeyReuseError" not in note and twin is None
    assert THEIRS[name]["raises"] == (twin if typed else None)


def test_jxkernels_checker_answers_these_programs_as_jax(shell):
    # the same programs as plain code: the numbers, and jax_debug_key_reuse's errors and lines
    assert cases.run(jxkernel) == THEIRS


def _advice_of(shell, name):
    """The case's cell as lines, and the lines of code its note offers (their `# at` gone)."""
    (cell,) = cases.CASES[name]["cells"]
    (note,) = _run_case(shell, name)[0][0]
    code = [re.sub(r"    # at In\[\d+\]:\d+$", "", line[2:])
            for line in note.splitlines() if line.startswith("  ")]
    return note, cell.splitlines(), code


def _draws_two_different_arrays(shell, fixed, ran_under_jax=None):
    """`fixed`, the learner's cell with the note's fix, is the case JAX 0.10.2 ran and found
    drawing two different arrays, raising nothing; here it runs with no note, a != b."""
    if ran_under_jax is not None:
        assert fixed == cases.CASES[ran_under_jax]["cells"][0]
        assert THEIRS[ran_under_jax] == {"raises": None, "same": False}
    ran = ran_ok(shell, fixed)
    assert ran.shown(NOTE) == []
    assert not np.array_equal(shell.user_ns["a"], shell.user_ns["b"])


@pytest.mark.parametrize("kind", ["typed", "raw"])
def test_a_loop_inside_a_function_is_told_as_its_loop_and_split_at_each_pass(shell, kind):
    """init(key, 2) drawing with its key at each pass of its own loop, called once: not "a
    key of its own for each call" (it was called once; JAX 0.10.2's two arrays are the same
    all the same), but the key split at each pass before the draw, the note's two lines in
    place of the draw's, which JAX ran to two different arrays."""
    note, lines, code = _advice_of(shell, f"{kind}_loop_in_a_function")
    assert "init drew at this line again with the same key, in its loop at line 4 (`for i in " \
        "range(n):`)" in note and "ran this line again" not in note, note
    assert THEIRS[f"{kind}_loop_in_a_function"]["same"] is True
    _draws_two_different_arrays(shell, "\n".join(lines[:4] + code + lines[5:]),
                                f"{kind}_loop_in_a_function_advice")


@pytest.mark.parametrize("kind", ["typed", "raw"])
def test_the_advice_written_into_the_program_draws_two_different_arrays(shell, kind):
    _, lines, code = _advice_of(shell, f"{kind}_twice")
    _draws_two_different_arrays(shell, "\n".join(lines[:1] + code), f"{kind}_advice")


@pytest.mark.parametrize("kind", ["typed", "raw"])
def test_a_key_taken_again_by_index_is_told_to_take_one_no_line_took(shell, kind):
    # keys[0] twice: the reuse line rewritten with keys[1], the case JAX ran (index_advice)
    note, lines, code = _advice_of(shell, f"{kind}_index_twice")
    assert "Taking keys[0] again makes a new object, not a new key" in note
    assert code == ["b = jax.random.normal(keys[1], (2,))"]
    _draws_two_different_arrays(shell, "\n".join(lines[:3] + code), f"{kind}_index_advice")
    # k = keys[1] drawn with, then keys[1]: keys[0] is the one no line took
    _, lines, code = _advice_of(shell, f"{kind}_index_held_then_again")
    assert code == ["b = jax.random.normal(keys[0], (2,))"]
    _draws_two_different_arrays(shell, "\n".join(lines[:4] + code), f"{kind}_index_held_advice")
    # keys[0][1] again: keys[0, 0], one index (JAX's checker counts keys[0] as the whole row)
    _, lines, code = _advice_of(shell, f"{kind}_index_two_axes")
    assert code == ["b = jax.random.normal(keys[0, 0], (2,))"]
    _draws_two_different_arrays(shell, "\n".join(lines[:3] + code),
                                f"{kind}_index_two_axes_advice")
    # two on one line: no line to rewrite, the rule in words
    (note,) = _run_case(shell, f"{kind}_index_one_line")[0][0]
    assert "Draw with a key of the array that no line has taken yet." in note


@pytest.mark.parametrize("kind", ["typed", "raw"])
@pytest.mark.parametrize("name", ["jit_index_twice", "jit_index_argument", "vmap_index_twice",
                                  "vmap_index_argument"])
def test_a_key_taken_again_inside_a_jitted_or_vmapped_function_is_told_to_take_another(
        shell, kind, name):
    # keys[0] twice in the function (split there, or given): the second draw's line
    # rewritten in the function with keys[1], the case JAX ran (drawing two different
    # arrays, its checker raising nothing)
    note, lines, code = _advice_of(shell, f"{kind}_{name}")
    assert "Taking keys[0] again makes a new object, not a new key" in note
    assert code == ["b = jax.random.normal(keys[1], (2,))"]
    (at,) = [i for i, line in enumerate(lines) if line.startswith("    b = ")]
    fixed = lines[:at] + ["    " + code[0]] + lines[at + 1:]
    _draws_two_different_arrays(shell, "\n".join(fixed), f"{kind}_{name.replace('_twice', '')}"
                                                         f"_advice")


@pytest.mark.parametrize("kind", ["typed", "raw"])
@pytest.mark.parametrize("where", ["jit", "vmap"])
def test_loops_over_one_array_inside_a_function_are_told_to_take_keys_of_their_own(
        shell, kind, where):
    (note,) = _run_case(shell, f"{kind}_{where}_loop_twice")[0][0]
    assert "(keys = jax.random.split(key, 2 * n), then for k in keys[:n] and for k in " \
        "keys[n:])" in note
    # as the case JAX ran with n = 3: two different draws, its checker raising nothing
    assert THEIRS[f"{kind}_{where}_loop_advice"] == {"raises": None, "same": False}
    ran = ran_ok(shell, cases.CASES[f"{kind}_{where}_loop_advice"]["cells"][0])
    assert ran.shown(NOTE) == []
    assert not np.array_equal(shell.user_ns["a"], shell.user_ns["b"])


@pytest.mark.parametrize("kind", ["typed", "raw"])
def test_loops_over_one_array_of_keys_are_told_to_take_keys_of_their_own(shell, kind):
    (note,) = _run_case(shell, f"{kind}_loop_twice")[0][0]
    assert "(keys = jax.random.split(key, 2 * n), then for k in keys[:n] and for k in " \
        "keys[n:])" in note
    # as the case JAX ran with n = 3 (loop_advice): two different draws, no note
    assert THEIRS[f"{kind}_loop_advice"] == {"raises": None, "same": False}
    ran = ran_ok(shell, cases.CASES[f"{kind}_loop_advice"]["cells"][0])
    assert ran.shown(NOTE) == []
    assert not np.array_equal(shell.user_ns["a"], shell.user_ns["b"])
    # a loop, then keys[0]: every key of the array was taken, so more keys are split
    (note,) = _run_case(shell, f"{kind}_loop_then_index")[0][0]
    assert "Every key of the array has been taken: make the array with as many keys as draws" \
        in note


def test_a_key_taken_again_in_a_loop_is_told_once_in_words(shell):
    ran = ran_ok(shell, "keys = jax.random.split(jax.random.key(0), 3)\n"
                        "for i in range(2):\n    x = jax.random.normal(keys[0])")
    (note,) = ran.shown(NOTE)
    assert re.match(r"⚠ key reused \(at In\[\d+\]:3\): normal drew with the key that normal "
                    r"used at In\[\d+\]:3, the same line run before, so the same numbers again",
                    note)
    assert "A line run again takes the same key each time: take the key at the loop's index" \
        in note and "  x = " not in note


def test_keys_taken_from_arrays_are_followed_only_while_the_notebook_watches(shell):
    from jxkernel.random import taken_keys
    from jxkernel.xla.array import KEY_DATA
    # the watch's record keys on the array's key: gone with the array, not held by it
    shell.user_ns["_watch"] = key_notes._INSTALLED[-1]
    ran_ok(shell, "before = len(_watch.consumed)\n"
                  "for i in range(200):\n"
                  "    ks = jax.random.split(jax.random.PRNGKey(i), 2)\n"
                  "    x = jax.random.normal(ks[0]) + jax.random.normal(list(ks)[1])\n"
                  "grown = len(_watch.consumed) - before")
    assert shell.user_ns["grown"] < 10
    # other arrays, and an index that is no static int, are not marked
    x = jxkernel.numpy.zeros((3, 2), dtype="uint32")
    assert taken_keys.taken(x[0]) is None and id(x) not in KEY_DATA
    ks = jr.split(jr.key(0), 3)
    assert taken_keys.taken(ks[jxkernel.numpy.array(0)]) is None
    assert taken_keys.taken(ks[1:]) is None and taken_keys.taken(ks[5 - 10]) is None
    shell.run_line_magic("unload_ext", "jxkernel")
    try:
        assert KEY_DATA == {}
        raw = jr.split(jr.PRNGKey(0), 3)
        assert taken_keys.taken(raw[0]) is None and taken_keys.taken(ks[0]) is None
        assert taken_keys.taken(next(iter(ks))) is None
    finally:
        shell.run_line_magic("load_ext", "jxkernel")


SPLIT_INSIDE = "Split the key inside the function, once, and draw with each new key once:"


@pytest.mark.parametrize("kind", ["typed", "raw"])
def test_the_advice_inside_a_jitted_function_draws_two_different_arrays(shell, kind):
    note, lines, code = _advice_of(shell, f"{kind}_jit_init")
    assert SPLIT_INSIDE in note
    assert code == ["k1, k2 = jax.random.split(key)", "a = jax.random.normal(k1, (3, 3))",
                    "b = jax.random.normal(k2, (3, 3))"]
    _draws_two_different_arrays(shell, "\n".join(lines[:3] + ["    " + c for c in code] +
                                                 lines[5:]), f"{kind}_jit_advice")


@pytest.mark.parametrize("name", ["typed_function_eagerly", "raw_grad_aux", "typed_vmap_pair"])
def test_the_advice_inside_a_function_run_without_jit_draws_two_different_arrays(shell, name):
    # eagerly, or under grad or vmap alone: the fix is written into the learner's function
    note, lines, code = _advice_of(shell, name)
    assert SPLIT_INSIDE in note
    assert code == ["k1, k2 = jax.random.split(key)", "a = jax.random.normal(k1, (3,))",
                    "b = jax.random.normal(k2, (3,))"]
    _draws_two_different_arrays(shell, "\n".join(lines[:2] + ["    " + c for c in code] +
                                                 lines[4:]))


@pytest.mark.parametrize("kind", ["typed", "raw"])
def test_the_advice_for_jax_tree_map_gives_each_leaf_its_own_key(shell, kind):
    # jax.tree.map called the lambda once per leaf with the one key: a key per leaf, mapped over
    note, lines, code = _advice_of(shell, f"{kind}_tree_map_global_key")
    assert "for the leaf before" in note and "jax.tree.map called the function" in note
    _draws_two_different_arrays(shell, "\n".join(lines[:2] + code + lines[3:]),
                                f"{kind}_tree_map_advice")


def test_the_tree_map_advice_rewrites_one_mapped_lambda_only():
    advice = key_advice.tree_map_advice
    assert advice("y = tree_map(lambda p, q: p + jr.uniform(k0, p.shape), t, u)",
                  "uniform").splitlines()[-2:] == [
        "  keys = jax.tree.unflatten(jax.tree.structure(t), list(jr.split(k0, "
        "len(jax.tree.leaves(t)))))",
        "  y = tree_map(lambda p, q, k: p + jr.uniform(k0, p.shape), t, u, keys)".replace(
            "uniform(k0", "uniform(k")]
    # a name k already in the lambda, a named function, a key given as a parameter: in words
    for line in ["y = jax.tree.map(lambda k: k + jax.random.normal(key, k.shape), t)",
                 "y = jax.tree.map(noisy, t)",
                 "y = jax.tree.map(lambda p, key: jax.random.normal(key, p.shape), t, ks)"]:
        assert advice(line, "normal").splitlines()[-1] == \
            "  jax.tree.map(lambda leaf, k: ..., tree, keys)    # draw with k", line


def test_a_jitted_function_traced_again_is_not_told_again(shell):
    # a raw key after a typed one: another trace of the same lines, told once
    ran_ok(shell, "@jax.jit\ndef init(key):\n    a = jax.random.normal(key, (2,))\n"
                  "    return a, jax.random.uniform(key, (2,))")
    assert len(ran_ok(shell, "a, b = init(jax.random.key(0))").shown(NOTE)) == 1
    assert ran_ok(shell, "a, b = init(jax.random.PRNGKey(0))").shown(NOTE) == []
    init = shell.user_ns["init"]
    assert len([e for e in jxkernel.compile_events() if e.key is init]) == 2    # traced


@pytest.mark.tells_a_bug
def test_a_bug_in_the_pass_is_told_at_the_learners_function_and_the_cell_goes_on(
        shell, monkeypatch):
    def broken(jaxpr):
        raise TypeError("a stand-in for a bug")
    monkeypatch.setattr(key_reuse, "reuses", broken)
    ran_ok(shell, "@jax.jit\ndef init(key):\n    a = jax.random.normal(key, (2,))\n"
                  "    return a, jax.random.uniform(key, (2,))")
    with pytest.warns(RuntimeWarning) as told:
        ran = ran_ok(shell, "a, b = init(jax.random.key(0))\nc = a + 1", tells_a_bug=True)
    assert ran.shown(NOTE) == [] and "c" in shell.user_ns
    (warning,) = [w for w in told if "reused keys" in str(w.message)]
    assert str(warning.message).startswith(
        "jxkernel could not check jit(init)'s program for reused keys (its check raised "
        "TypeError: a stand-in for a bug). The cell ran as written")
    assert re.fullmatch(r"In\[\d+\]", warning.filename) and warning.lineno == 1


def test_a_helper_called_twice_in_a_jitted_function_is_told_at_its_two_calls(shell):
    ran_ok(shell, "def noisy(key, x):\n    return x + jax.random.normal(key, x.shape)")
    cell = ("@jax.jit\ndef f(key, x):\n    y1 = noisy(key, x)\n    y2 = noisy(key, x)\n"
            "    return y1, y2\ny1, y2 = f(jax.random.key(0), jax.numpy.zeros(3))")
    (note,) = ran_ok(shell, cell).shown(NOTE)
    assert re.match(r"⚠ key reused \(at In\[\d+\]:4\): noisy's normal drew with the key that "
                    r"noisy's normal used at In\[\d+\]:3, " + re.escape(SAME_BITS), note)
    assert np.array_equal(shell.user_ns["y1"], shell.user_ns["y2"])        # as it says


def test_a_librarys_jitted_function_or_draws_inside_a_users_jit_get_no_note(shell, tmp_path):
    lib = import_library(tmp_path, "key_reuse_jit_library_mod",
                         "import jxkernel as jax\n"
                         "@jax.jit\n"
                         "def jitted_draws(key):\n"
                         "    return jax.random.normal(key), jax.random.normal(key)\n"
                         "def two_draws(key):\n"
                         "    return jax.random.normal(key), jax.random.normal(key)\n")
    shell.user_ns["lib"] = lib
    with excluded(lib.__file__):
        assert ran_ok(shell, "a, b = lib.jitted_draws(jax.random.key(0))").shown(NOTE) == []
        # the learner's jit of it: the draws are the library's lines, not the learner's
        assert ran_ok(shell, "a, b = jax.jit(lib.two_draws)(jax.random.key(0))"
                      ).shown(NOTE) == []


def test_nothing_traced_is_recorded_without_the_notebook(shell):
    shell.run_line_magic("unload_ext", "jxkernel")
    try:
        keys.traced_draws.clear()
        jxkernel.jit(lambda k: (jr.normal(k), jr.normal(k)))(jr.PRNGKey(3))
        assert keys.traced_draws == {}
    finally:
        shell.run_line_magic("load_ext", "jxkernel")


def test_the_traced_draws_kept_over_the_cells_are_bounded(shell, monkeypatch):
    monkeypatch.setattr(keys, "TRACED_DRAWS", 3)
    ran_ok(shell, "f = jax.jit(lambda k: (jax.random.normal(k), jax.random.uniform(k),\n"
                  "                       jax.random.gumbel(k), jax.random.cauchy(k)))\n"
                  "out = f(jax.random.key(5))")
    assert sorted(keys.traced_draws.values()) == ["cauchy", "gumbel", "uniform"]   # the newest


def test_a_compile_outside_a_cell_is_not_kept_by_the_watch(shell):
    # the extension stays loaded in a worker after its notebook tests (as in a notebook): a
    # user's jit compiled between cells (a test's, a comm's) must not pile up its programs
    ran_ok(shell, "x = 1")
    (watch,) = key_notes._INSTALLED
    jxkernel.jit(lambda k: (jr.normal(k), jr.normal(k)))(jr.key(3))
    assert watch.traced == []
    ran_ok(shell, "@jax.jit\ndef f(k):\n    return jax.random.normal(k), jax.random.normal(k)")
    assert len(ran_ok(shell, "f(jax.random.key(1))").shown(NOTE)) == 1    # in a cell: kept


# the pass the note asks (key_reuse.reuses) against JAX's checker, on jaxprs: a raw key
# reused is found by the pass, not raised by the checker (JAX's never sees it); the programs
# that only look like reuses are no reuse for either
def _twice(k):
    return jr.normal(k), jr.uniform(k)


def _cond(k):
    return jxkernel.lax.cond(True, lambda: jr.normal(k), lambda: jr.uniform(k))


def _fold_in_loop(k):
    return jxkernel.lax.fori_loop(0, 3, lambda i, x: x + jr.normal(jr.fold_in(k, i)), 0.0)


def _scan_split(k):
    def body(c, _):
        c, sub = jr.split(c)
        return c, jr.normal(sub)
    return jxkernel.lax.scan(body, k, None, length=3)


def _scan_reuse(k):
    return jxkernel.lax.scan(lambda c, _: (c, jr.normal(k)), 0.0, None, length=3)


def _nested_jit(k):
    inner = jxkernel.jit(jr.normal)
    return inner(k), inner(k)


@pytest.mark.parametrize("make", [jr.key, jr.PRNGKey])
@pytest.mark.parametrize("fun,loop", [(_twice, False), (_scan_reuse, True), (_nested_jit, False),
                                      (_cond, None), (_fold_in_loop, None), (_scan_split, None)])
def test_the_notes_pass_finds_raw_keys_too_and_leaves_the_checker_as_it_was(make, fun, loop):
    jaxpr = jxkernel.make_jaxpr(fun)(make(0)).jaxpr
    found = key_reuse.reuses(jaxpr)
    assert [(f[2], f[3]) for f in found] == ([] if loop is None else
                                            [(loop, make is jr.key)])
    if loop is not None:
        assert [e.primitive.name for e in found[0][0]][0] == ("scan" if loop else "jit")
    if loop is None or make is jr.PRNGKey:         # no reuse the checker sees: none raised
        key_reuse.jaxpr_type_signature(jaxpr)
    else:
        with pytest.raises(key_reuse.KeyReuseError):
            key_reuse.jaxpr_type_signature(jaxpr)


# one key of an array taken twice in a jaxpr (each taking a slice of the array): the note's
# pass finds the draws with it, not the takings; JAX's checker raises at the second taking
def _taken_twice(k):
    keys = jr.split(k, 3)
    return jr.normal(keys[0]), jr.normal(keys[0])


def _taken_by_two_indexings(k):
    keys = jr.split(k, (2, 3))
    return jr.normal(keys[0, 1]), jr.normal(keys[0][1])


def _taken_in_an_inner_jit(k):
    keys = jr.split(k, 3)
    first = jxkernel.jit(lambda ks: jr.normal(ks[0]))
    return first(keys), first(keys)


def _taken_by_loops(k):
    keys = jr.split(k, 2)
    return [jr.normal(x) for x in keys] + [jr.uniform(x) for x in keys]


def _taken_and_folded_in(k):
    keys = jr.split(k, 3)
    return jr.normal(jr.fold_in(keys[0], 1)), jr.normal(jr.fold_in(keys[0], 2))


def _taken_two_keys(k):
    keys = jr.split(k, 3)
    return jr.normal(keys[0]), jr.normal(keys[1]), jr.fold_in(keys[2], 0)


def _taken_in_each_branch(k):
    keys = jr.split(k, 3)
    return jxkernel.lax.cond(True, lambda: jr.normal(keys[0]), lambda: jr.uniform(keys[0]))


@pytest.mark.parametrize("make", [jr.key, jr.PRNGKey])
@pytest.mark.parametrize("fun,found,raises", [
    (_taken_twice, [("index", "index", (3,), (0,), [True, False, False])], True),
    (_taken_by_two_indexings, [("index", "index", (2, 3), (0, 1), [[True] * 3, [False] * 3])],
     True),
    (_taken_in_an_inner_jit, [("index", "index", (3,), (0,), [True, False, False])], True),
    (_taken_by_loops, [("loop", "loop", (2,), (i,), [True, True]) for i in (0, 1)], True),
    (_taken_and_folded_in, [], True), (_taken_two_keys, [], False),
    (_taken_in_each_branch, [], False)])
def test_the_notes_pass_follows_keys_taken_from_an_array(make, fun, found, raises):
    jaxpr = jxkernel.make_jaxpr(fun)(make(0)).jaxpr
    reused = key_reuse.reuses(jaxpr)
    assert [(r[2], r[3]) for r in reused] == [(False, make is jr.key)] * len(found)
    assert [(*r[4][:4], r[4].taken.tolist()) for r in reused] == found
    # the draws' equations, not the takings (slice): their lines are the note's
    assert all(r[0][0].primitive.name == r[1][0].primitive.name == "jit" for r in reused)
    if raises and make is jr.key:       # the checker: the second taking, a typed key's
        with pytest.raises(key_reuse.KeyReuseError, match="argument 0 is already consumed"):
            key_reuse.jaxpr_type_signature(jaxpr)
    else:
        key_reuse.jaxpr_type_signature(jaxpr)


def test_a_draw_the_checker_refused_is_not_told_beside_its_error(shell):
    # jax_debug_key_reuse on: JAX 0.10.2 raises KeyReuseError at the typed key's second draw,
    # which draws nothing (typed_checker_on_in_the_cell: caught, "refused"); the error's card
    # tells it, and a note beside it saying JAX said nothing would be false. Uncaught, a
    # cell later, and under vmap or grad (the draw inside the learner's function) alike
    assert THEIRS["typed_checker_on_in_the_cell"]["refused"].startswith(
        "Previously-consumed key passed to jit-compiled function")
    ran_ok(shell, "jax.config.update('jax_debug_key_reuse', True)\n"
                  "key = jax.random.key(0)\na = jax.random.normal(key, (3,))")
    try:
        for cell in ["b = jax.random.normal(key, (3,))",
                     "k1, k2 = jax.random.split(key)",
                     "def pair(key):\n    return jax.random.normal(key), jax.random.normal(key)\n"
                     "a, b = jax.vmap(pair)(jax.random.split(jax.random.key(1), 2))",
                     "def loss(w, key):\n    a = jax.random.normal(key, (3,))\n"
                     "    return (w * a * jax.random.normal(key, (3,))).sum()\n"
                     "g = jax.grad(loss)(jax.numpy.ones(3), jax.random.key(2))"]:
            ran = run_cell(shell, cell)
            assert type(ran.error).__name__ == "KeyReuseError", cell
            assert ran.shown(NOTE) == [], cell
    finally:
        jxkernel.config.update("jax_debug_key_reuse", False)
    # the key's draws JAX refused drew nothing: its next draw, the checker off, is told at
    # the first one (the same numbers as a's)
    (note,) = ran_ok(shell, "c = jax.random.normal(key, (3,))").shown(NOTE)
    assert re.match(r"⚠ key reused \(at In\[\d+\]:1\): normal drew with the key that normal "
                    r"used at In\[\d+\]:3, so the same numbers again", note)
    assert np.array_equal(shell.user_ns["a"], shell.user_ns["c"])


def test_a_call_that_raised_after_taking_its_key_drew_nothing(shell):
    # split's count refused after its key was checked (Python's TypeError, JAX's words): the
    # call returned no keys, so the key's next use is its first draw, and no note says
    # otherwise; inside the learner's function, and a line that drew and then raised, alike
    ran_ok(shell, "key = jax.random.key(4)\ndef halves(k):\n    return jax.random.split(k, 2.0)")
    for cell in ("jax.random.split(key, 2.0)", "ks = halves(key)"):
        ran = run_cell(shell, cell)
        assert type(ran.error) is TypeError and ran.shown(NOTE) == [], cell
    assert ran_ok(shell, "a = jax.random.normal(key, (3,))").shown(NOTE) == []
    # the draw returned, then its line raised: it drew, and the next use is told
    assert type(run_cell(shell, "b = jax.random.normal(key, (3,)) + 'text'").error) is TypeError
    (note,) = ran_ok(shell, "c = jax.random.normal(key, (3,))").shown(NOTE)
    assert re.match(r"⚠ key reused \(at In\[\d+\]:1\): normal drew with the key that normal "
                    r"used at In\[\d+\]:1", note), note


def test_a_key_that_split_consumed_is_told_to_draw_with_the_keys_it_made(shell):
    (note,) = _run_case(shell, "typed_split_then_draw")[0][0]
    assert re.search(r"The keys split made at In\[\d+\]:2 are new ones: draw with one of them",
                     note)


def test_one_line_reused_in_a_loop_is_told_once(shell):
    ran_ok(shell, "key = jax.random.key(1)\ndef draw():\n    return jax.random.normal(key)")
    ran = ran_ok(shell, "for i in range(3):\n    x = draw()")
    (note,) = ran.shown(NOTE)
    assert re.match(r"⚠ key reused \(at In\[\d+\]:3\): normal drew with the key that normal "
                    r"used at In\[\d+\]:3, the same line run before, so the same numbers again",
                    note)
    # inside a function, `key, subkey = split(key)` would make key local (UnboundLocalError)
    # and the function would draw the same numbers each call: no rewrite there
    assert "key, subkey = jax.random.split(key)); a function that draws is given its own " \
        "subkey as an argument at each call." in note and "# at" not in note
    assert len(ran_ok(shell, "y = draw()").shown(NOTE)) == 1          # another call: told
    ran = ran_ok(shell, "key = jax.random.PRNGKey(2)\nfor i in range(2):\n"
                        "    x = jax.random.normal(key)")                 # a cell's top level
    (note,) = ran.shown(NOTE)
    assert "  key, subkey = jax.random.split(key)\n  x = jax.random.normal(subkey)" in note


def test_a_cell_run_again_unchanged_is_not_told_again(shell):
    # ipykernel names a cell by its text (the same file when run again unchanged); IPython's
    # own shell by its text and count, which a cell that stores no history leaves as it is
    ran_ok(shell, "key = jax.random.key(1)\na = jax.random.normal(key)")
    again = "b = jax.random.normal(key)"
    assert len(ran_ok(shell, again, store_history=False).shown(NOTE)) == 1
    assert ran_ok(shell, again, store_history=False).shown(NOTE) == []      # told
    assert len(ran_ok(shell, again + "  # edited").shown(NOTE)) == 1       # another cell


def test_a_function_given_one_key_twice_is_told_at_its_two_calls(shell):
    ran_ok(shell, "def dropout(key, x, rate):\n"
                  "    keep = jax.random.bernoulli(key, 1 - rate, x.shape)\n"
                  "    return jax.numpy.where(keep, x / (1 - rate), 0.0)")
    cell = ("key = jax.random.PRNGKey(0)\nx = jax.numpy.ones(8)\n"
            "y1 = dropout(key, x, 0.5)\ny2 = dropout(key, x, 0.5)")
    (note,) = ran_ok(shell, cell).shown(NOTE)
    assert re.match(r"⚠ key reused \(at In\[\d+\]:4\): dropout's bernoulli drew with the key "
                    r"that dropout's bernoulli used at In\[\d+\]:3, " + re.escape(SAME_BITS),
                    note)      # (x, a name: its value may have changed between the calls)
    assert np.array_equal(shell.user_ns["y1"], shell.user_ns["y2"])        # as it says
    code = [re.sub(r"    # at In\[\d+\]:\d+$", "", line[2:])
            for line in note.splitlines() if line.startswith("  ")]
    assert code == ["key, subkey = jax.random.split(key)", "y1 = dropout(subkey, x, 0.5)",
                    "key, subkey = jax.random.split(key)", "y2 = dropout(subkey, x, 0.5)"]
    ran = ran_ok(shell, "\n".join(cell.splitlines()[:2] + code))          # the advice, run
    assert ran.shown(NOTE) == []
    assert not np.array_equal(shell.user_ns["y1"], shell.user_ns["y2"])


def test_a_workshop_check_giving_one_key_twice_gets_no_note(shell):
    # the check calls the learner's function twice with one key, on purpose (the same mask)
    ran_ok(shell, "from jxkernel.notebook.workshop import check\n"
                  "def dropout(key, x, rate):\n"
                  "    keep = jax.random.bernoulli(key, 1 - rate, x.shape)\n"
                  "    return jax.numpy.where(keep, x / (1 - rate), 0.0)")
    ran = ran_ok(shell, "check('rng-dropout', dropout)")
    assert "correct" in str(ran.result) and ran.shown(NOTE) == []


def test_a_librarys_draws_and_timeit_get_no_note(shell, tmp_path):
    lib = import_library(tmp_path, "key_reuse_library_mod",
                         "import jxkernel as jax\n"
                         "def two_draws(key):\n"
                         "    return jax.random.normal(key), jax.random.normal(key)\n")
    shell.user_ns["lib"] = lib
    with excluded(lib.__file__):
        assert ran_ok(shell, "a, b = lib.two_draws(jax.random.key(0))").shown(NOTE) == []
    ran = ran_ok(shell, "k = jax.random.key(0)\n%timeit -n2 -r1 jax.random.normal(k)")
    assert ran.shown(NOTE) == []


def test_nothing_is_recorded_without_the_notebook(shell):
    assert keys.consumed_keys is not None                # loaded: the draws are recorded
    shell.run_line_magic("unload_ext", "jxkernel")
    try:
        assert keys.consumed_keys is None
        # a State made apart (a test's, a docstring's: comm.Channel(State(shell=None)))
        # watches nothing: it left the record on for the rest of a worker's run
        State(shell=None)
        jr.normal(jr.key(0))
        assert keys.consumed_keys is None
    finally:
        shell.run_line_magic("load_ext", "jxkernel")


def test_a_long_loop_of_draws_holds_few_keys_alive(shell):
    # the record is read as it fills: at most 64 eager draws' keys, and 128 vmap tracers
    shell.user_ns["_watch"] = key_notes._INSTALLED[-1]
    ran_ok(shell, "import jxkernel.random.keys as _keys\nsizes, held = [], []\n"
                  "draw = jax.vmap(lambda k: jax.random.normal(k, (2,)))\n"
                  "for k in jax.random.split(jax.random.key(1), 300):\n"
                  "    jax.random.normal(k, ())\n    draw(jax.random.split(k))\n"
                  "    sizes.append(len(_keys.consumed_keys))\n"
                  "    held.append(len(_watch.tracers))")
    assert 0 < max(shell.user_ns["sizes"]) < 64
    assert 0 < max(shell.user_ns["held"]) <= 128


def test_a_reuse_line_is_rewritten_only_where_it_is_one_call_of_a_name():
    assert key_advice.split_fix("x = f(random.uniform(self.key, (2,)))", "uniform") == (
        "self.key", ("self.key, subkey = random.split(self.key)",
                     "x = f(random.uniform(subkey, (2,)))"))
    assert key_advice.split_fix("a, b = normal(k), normal(k)", "normal") is None
    assert key_advice.split_fix("y = jax.random.normal(keys[0])", "normal") is None


# One call of each public function that takes a key: KEEPS_KEY (the functions random/keys.py
# records no draw for) must be those whose jaxpr leaves the key unconsumed in key_reuse.py's
# signatures, the checker's own notion
CALLS = {
    "normal": lambda k: jr.normal(k, (2,)), "uniform": lambda k: jr.uniform(k, (2,)),
    "bits": lambda k: jr.bits(k, (2,)), "split": jr.split, "fold_in": lambda k: jr.fold_in(k, 1),
    "key_data": jr.key_data, "key_impl": jr.key_impl, "bernoulli": jr.bernoulli,
    "beta": lambda k: jr.beta(k, 1.0, 2.0), "gamma": lambda k: jr.gamma(k, 1.0),
    "loggamma": lambda k: jr.loggamma(k, 1.0), "poisson": lambda k: jr.poisson(k, 3.0),
    "categorical": lambda k: jr.categorical(k, jxkernel.numpy.zeros(3)),
    "choice": lambda k: jr.choice(k, 5), "permutation": lambda k: jr.permutation(k, 5),
    "randint": lambda k: jr.randint(k, (2,), 0, 5), "t": lambda k: jr.t(k, 2.0),
    "truncated_normal": lambda k: jr.truncated_normal(k, -1.0, 1.0),
    "rademacher": lambda k: jr.rademacher(k, (2,)), "gumbel": jr.gumbel,
    "binomial": lambda k: jr.binomial(k, 5, 0.5),
    "multinomial": lambda k: jr.multinomial(k, 5, jxkernel.numpy.ones(3) / 3),
    "dirichlet": lambda k: jr.dirichlet(k, jxkernel.numpy.ones(3)),
    "orthogonal": lambda k: jr.orthogonal(k, 2),
    "multivariate_normal": lambda k: jr.multivariate_normal(k, jxkernel.numpy.zeros(2),
                                                            jxkernel.numpy.eye(2)),
    "ball": lambda k: jr.ball(k, 2), "exponential": jr.exponential, "cauchy": jr.cauchy,
    "laplace": jr.laplace, "logistic": jr.logistic, "chisquare": lambda k: jr.chisquare(k, 2.0),
    "f": lambda k: jr.f(k, 2.0, 3.0), "geometric": lambda k: jr.geometric(k, 0.5),
    "generalized_normal": lambda k: jr.generalized_normal(k, 2.0), "lognormal": jr.lognormal,
    "maxwell": jr.maxwell, "double_sided_maxwell": lambda k: jr.double_sided_maxwell(k, 0., 1.),
    "pareto": lambda k: jr.pareto(k, 2.0), "rayleigh": lambda k: jr.rayleigh(k, 1.0),
    "triangular": lambda k: jr.triangular(k, 0.0, 0.5, 1.0), "wald": lambda k: jr.wald(k, 1.0),
    "weibull_min": lambda k: jr.weibull_min(k, 1.0, 1.0),
}


def test_every_public_function_taking_a_key_is_listed():
    import inspect
    takes_key = {name for name in dir(jr) if not name.startswith("_") and
                 inspect.isfunction(getattr(jr, name)) and
                 next(iter(inspect.signature(getattr(jr, name)).parameters), "") in
                 ("key", "keys")}
    # clone and wrap_key_data call no check_key (clone's key is the checker's fresh one)
    assert takes_key - {"clone"} == set(CALLS)


def _consumes(call) -> bool:
    """Whether the checker's signature of `call` (traced, nothing compiled) sinks its key."""
    signature = key_reuse.function_type_signature(
        lambda k: [o for o in [call(k)] if not isinstance(o, str)], jr.key(0))
    return any(sink.idx == 0 for sink in signature.sinks)


def test_the_functions_recorded_are_those_that_consume_their_key_in_the_checker():
    assert {name for name, call in CALLS.items() if not _consumes(call)} == keys.KEEPS_KEY


# eagerly (each a compile): the functions of no draw, and one of each module calling check_key
EAGER = ["fold_in", "key_data", "key_impl", "split", "bits", "normal", "rayleigh", "poisson",
         "permutation", "binomial", "orthogonal"]


@pytest.mark.parametrize("name", EAGER)
def test_an_eager_draw_is_recorded_once_with_its_key_and_function(name, monkeypatch):
    monkeypatch.setattr(keys, "consumed_keys", collections.deque(maxlen=64))
    for key in (jr.key(0), jr.PRNGKey(0)):
        CALLS[name](key)
        assert [(k is key, n, calls[0][:1]) for k, n, calls in keys.consumed_keys] == \
            ([] if name in keys.KEEPS_KEY else [(True, name, (__file__,))])   # this file's
        keys.consumed_keys.clear()


def test_the_draws_record_holds_no_key_that_live_arrays_lists(shell):
    # the record kept each drawn key until read (every 64 draws, the cell's end), and
    # jax.live_arrays() listed a key the cell had deleted; JAX 0.10.2 lists none (both
    # differences 0, tried by hand with Flax's surgery guide's count of live arrays)
    ran = ran_ok(shell, "n0 = len(jax.live_arrays())\n"
                        "k = jax.random.key(43); s = jax.random.split(k); del k, s\n"
                        "print(len(jax.live_arrays()) - n0)\n"
                        "u = jax.random.uniform(jax.random.key(44), (3,)); del u\n"
                        "print(len(jax.live_arrays()) - n0)\n"
                        "k = jax.random.key(0)\na = jax.random.normal(k)\n"
                        "n1 = len(jax.live_arrays())\nb = jax.random.normal(k)")
    assert ran.stdout.split() == ["0", "0"]
    assert ran.shown("⚠ key reused")       # (a reuse across the listing still told)
