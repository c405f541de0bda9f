"""The note under a cell whose gradient holding NaN where the function's value is finite was
taken under jit or vmap (jxkernel/notebook/notes/nan_notes.py, gradient_calls.py): `jax.jit(
jax.grad(f))(0.)`, a jitted step taking the gradient, `jax.vmap(jax.grad(f))(xs)`. What it
says is checked against JAX 0.10.2 (tests/data/nan_jit_gradient_reference.json): the
program's result holds NaN there (at the examples named), jax_debug_nans raises for it as the
note says, and the line the note writes gives a finite result under JAX."""
import re

import numpy as np
import pytest

pytest.importorskip("IPython")

import jxkernel
import locations  # tests/support
from numerics import assert_tree_close  # tests/support
import nan_jit_gradient_cases as cases  # tests/data
from ipython_shell import ran_ok, shell_fixture  # tests/support
from registered_library import import_library  # tests/support

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True)
THEIRS = locations.jax_answers("nan_jit_gradient_reference.json")
NOTE = "⚠ the gradient holds NaN"
ULPS = 4
# what each note's title says of where the gradient was taken, after "(at ": S the cell
# defining f, P the program's
CONTEXT = {
    "jit_of_grad": r"In\[P\]:1, under jit",
    "grad_inside_step": r"In\[S\]:5, inside step \(jitted\), called at In\[P\]:1",
    "vmap_of_grad": r"In\[P\]:1, for example 0 of the vmapped batch of 2",
    "jit_of_vmap_of_grad": r"In\[P\]:1, under jit, for examples 0 and 3 of the vmapped batch "
                           r"of 4",
    "training_loop": r"In\[S\]:5, inside step \(jitted\), called at In\[P\]:3",
    "donating_training_loop": r"In\[S\]:4, inside step \(jitted\), called at In\[P\]:3",
    "inner_jit": r"In\[S\]:5, inside outer \(jitted\), called at In\[P\]:1",
    "norm_inside_step": r"In\[S\]:5, inside step \(jitted\), called at In\[P\]:1",
}


def test_jxkernel_gives_these_results_as_jax_did():
    ours = cases.run(jxkernel)
    assert ours.keys() == THEIRS.keys()
    for name, theirs in THEIRS.items():
        assert cases.debug_nans(jxkernel, name) == theirs["debug_nans"], name
        for key in ("out", "fixed_out"):
            if key in theirs:
                assert_tree_close(ours[name][key], theirs[key], ULPS, err_msg=f"{name}.{key}")


def _told(shell, name) -> tuple:
    """(the note's title, its body's lines, the cells of f and of the program) for the case
    run in two cells."""
    source, program, _, _ = cases.CASES[name]
    defined = ran_ok(shell, source).count
    ran = ran_ok(shell, program)
    (note,) = ran.shown(NOTE)
    title, *body = note.splitlines()
    return title, body, defined, ran.count


def _context(name, defined, program) -> str:
    return CONTEXT[name].replace("S", str(defined)).replace("P", str(program))


@pytest.mark.parametrize("name", [n for n, c in cases.CASES.items() if c[3] is not None])
def test_a_where_passing_nan_back_under_jit_or_vmap_is_told_with_its_line_rewritten(shell,
                                                                                     name):
    _, _, line, fix = cases.CASES[name]
    title, body, defined, program = _told(shell, name)
    assert re.fullmatch(r"⚠ the gradient holds NaN, though f's value is finite \(at "
                        + _context(name, defined, program) + rf"\): the jnp.where at "
                        rf"In\[{defined}\]:{line} passed it back from the branch it did not "
                        r"take", title), title
    assert body[-len(fix.splitlines()):] == ["  " + x for x in fix.splitlines()]
    # what it claims, as JAX gave it: NaN in the result (the examples named, where a batch);
    # the fixed function's result finite, jitted or not
    theirs = THEIRS[name]
    assert np.isnan(theirs["out"]).any() and np.isfinite(theirs["fixed_out"]).all()
    named = re.search(r"for examples? ([\d, and]+) of", title)
    if named:
        assert [int(i) for i in re.findall(r"\d+", named.group(1))] == \
            np.flatnonzero(np.isnan(theirs["out"])).tolist()
    if "jit" in title:
        assert "its program was run again, equation by equation" in body[0]
        assert "where the branch is taken nothing changes, jitted or not:" in "\n".join(body)
    # the fixed function, defined as the note writes it, gives JAX's result and no note
    ran_ok(shell, cases.fixed(name))
    assert ran_ok(shell, cases.CASES[name][1]).shown(NOTE) == []
    assert_tree_close(np.asarray(shell.user_ns["out"]).tolist(), theirs["fixed_out"], ULPS)


def test_a_nan_made_elsewhere_inside_a_jitted_step_is_told_at_its_line_in_words(shell):
    title, body, defined, program = _told(shell, "norm_inside_step")
    assert re.fullmatch(r"⚠ the gradient holds NaN, though f's value is finite \(at "
                        + _context("norm_inside_step", defined, program) +
                        rf"\): first made at In\[{defined}\]:2, differentiating that line",
                        title), title
    # the option it names raises for this jitted step, in JAX as here
    assert "jax.config.update('jax_debug_nans', True) raises" in "\n".join(body)
    assert THEIRS["norm_inside_step"]["debug_nans"] == "invalid value (nan) encountered in mul"
    assert np.isnan(THEIRS["norm_inside_step"]["out"]).all()


def test_a_loops_first_nan_step_is_told_though_later_steps_hold_nan_inputs(shell):
    # (the loop's steps 5 to 11 start from a NaN w; step 4, told, the last with a finite w)
    title, _, _, _ = _told(shell, "training_loop")
    assert np.isnan(float(shell.user_ns["out"])) and np.isnan(THEIRS["training_loop"]["out"])
    assert THEIRS["training_loop"]["debug_nans"] == "invalid value (nan) encountered in sqrt"
    assert "the jnp.where at" in title


# the value cases' note titles, after "(at ": S the cell defining the function, P the program's
VALUE_CONTEXT = {
    "value_nan_training_loop": r"In\[S\]:5, inside step \(jitted\), called at In\[P\]:3",
    "value_nan_eager": r"In\[P\]:1",
    "value_nan_finite_gradient": r"In\[P\]:1, under jit",
}


@pytest.mark.parametrize("name", cases.VALUE_CASES)
def test_a_value_gone_nan_is_told_with_the_operation_jax_debug_nans_names(shell, name):
    """A function's value NaN though its inputs hold none (a loss under sqrt walking below
    0): the note names the operation that first made it and its line, the operation JAX
    0.10.2's jax_debug_nans raises at (recorded), and says the gradient is NaN too only
    where it is (log's is finite)."""
    source, program, line, prim, gradient_nan = cases.VALUE_CASES[name]
    defined = ran_ok(shell, source).count
    ran = ran_ok(shell, program)
    fname = "loss" if source.startswith("def loss") else "f"
    (note,) = ran.shown(f"⚠ {fname}'s value is NaN")
    title, *body = note.splitlines()
    context = VALUE_CONTEXT[name].replace("S", str(defined)).replace("P", str(ran.count))
    assert re.fullmatch(rf"⚠ {fname}'s value is NaN: first made by {prim} at "
                        rf"In\[{defined}\]:{line} \({fname} at {context}\)", title), title
    theirs = THEIRS[name]
    assert np.isnan(theirs["out"]) and np.isnan(float(shell.user_ns["out"]))
    assert theirs["debug_nans"] == f"invalid value (nan) encountered in {prim}"
    text = " ".join(body)
    assert text.startswith(f"{fname}'s inputs hold no NaN. "), text
    assert ("Its gradient holds NaN too" in text) == gradient_nan, text
    assert "jax.config.update('jax_debug_nans', True) raises at that operation" in text
    assert ran_ok(shell, program).shown("⚠") == []          # told once, at its line


def test_a_call_given_nan_after_calls_let_by_says_to_run_the_cell_again(shell):
    """Where a looked-at call of a jitted step is given NaN after calls went by unlooked at
    (core/watches.Schedule), the note says so, and that the next cell looks at every call:
    the record's `missed`, as gradient_calls.WatchedProgram.called sets it."""
    from jxkernel.notebook.notes import nan_notes
    from jxkernel.transforms.ad import reverse
    ran_ok(shell, "x = 1")
    reverse.grad_calls.missed = ("step", ("<ipython-input-9-0>", 4))
    told = nan_notes._INSTALLED[0].cell_finished(set())
    assert told.title.startswith("⚠ step was given NaN (at ") and \
        "after calls of it that went by unlooked at: one of them may have made it" in told.title
    assert "The next cell to run looks at every call of step" in told.body
    assert reverse.grad_calls.missed is None          # (each cell its own)


def test_the_jitted_functions_prints_and_callbacks_are_not_run_again(shell):
    # a Python print in the step and in f: at the trace alone, and the note's work prints
    # nothing (the step's program is run again without its Python; f's traced again, its
    # prints dropped)
    ran_ok(shell, "def f(x):\n    print('tracing f')\n    return jnp.where(x > 0, jnp.log(x), 0.)\n"
                  "@jax.jit\ndef step(x):\n    print('tracing step')\n"
                  "    return x - 0.1 * jax.grad(f)(x)")
    ran = ran_ok(shell, "out = step(0.0)")
    assert len(ran.shown(NOTE)) == 1
    assert ran.printed.count("tracing f") == 1 and ran.printed.count("tracing step") == 1
    # a step calling back into Python: its program is not run again, and no note is made
    ran_ok(shell, "@jax.jit\ndef noisy(x):\n    jax.debug.print('x is {}', x)\n"
                  "    return x - 0.1 * jax.grad(f)(x)")
    ran = ran_ok(shell, "out = noisy(0.0)")
    assert ran.printed.count("x is 0.0") == 1 and ran.shown(NOTE) == []


def test_a_line_is_told_once_jitted_or_not(shell):
    ran_ok(shell, cases.CASES["grad_inside_step"][0])
    assert len(ran_ok(shell, "out = step(0.0)").shown(NOTE)) == 1
    assert ran_ok(shell, "out = step(0.0)").shown(NOTE) == []
    assert ran_ok(shell, "g = jax.grad(f)(0.0)").shown(NOTE) == []


def test_only_a_jit_whose_trace_took_a_gradient_is_looked_at_while_watched(shell):
    from jxkernel.core.watches import NEVER
    ran_ok(shell, cases.CASES["grad_inside_step"][0] +
           "@jax.jit\ndef plain(x):\n    return jnp.log(x) * 2\n")
    ran_ok(shell, "x = jnp.array(1.0)\nfor i in range(3):\n    a, b = step(x), plain(x)")
    step, plain = shell.user_ns["step"], shell.user_ns["plain"]
    scheduled = [e for e in _entries(step) if e.schedule is not None]
    # each of a cell's first calls looked at (its result's NaN): test_watch_schedule.py
    assert [e.schedule.looked for e in scheduled] == [3]
    assert [(e.look_at, e.schedule) for e in _entries(plain)] == [(NEVER, None)] * len(
        _entries(plain))                            # the fast paths alone, as unwatched
    # the extension unloaded: the step's calls stay on the fast paths
    shell.run_line_magic("unload_ext", "jxkernel")
    ran_ok(shell, "for i in range(3):\n    a = step(x)")
    assert scheduled[0].look_at == NEVER and step._last


def _entries(jitted) -> list:
    (entry,) = jitted._cache.values()
    return [e for e in (entry, entry.twin) if e is not None]


def test_a_donating_step_is_looked_at_and_still_donates(shell):
    # its inputs are gone after the call: the record keeps their values on the host before it
    # (gradient_calls.WatchedProgram.before_donating), and the step still deletes them
    ran_ok(shell, cases.CASES["donating_training_loop"][0])
    ran = ran_ok(shell, "w = jnp.array(0.0)\nout = step(w)")
    assert np.isnan(float(shell.user_ns["out"])) and len(ran.shown(NOTE)) == 1
    assert shell.user_ns["w"].is_deleted()
    # a key among its inputs (a dropout key) has no value on the host: kept as it is, it is
    # there to run the program again unless the step deleted it (no note then), and either
    # call runs as written
    keyed = ("def g{n}(x, k):\n    return jnp.where(x > 0, jnp.log(x), 0.0) + 0 * "
             "jax.random.normal(k)\ndef kstep{n}(x, k):\n    return x - 0.1 * "
             "jax.grad(g{n})(x, k)\nkstep{n} = jax.jit(kstep{n}, donate_argnums={donated})")
    ran_ok(shell, keyed.format(n=1, donated="(0, 1)"))
    ran = ran_ok(shell, "k1 = jax.random.key(1)\nout = kstep1(jnp.array(0.0), k1)")
    # (jit deletes a donated buffer only where a result reuses it: none reuses a key's here,
    # and the key, kept, runs the program again)
    assert np.isnan(float(shell.user_ns["out"]))
    assert len(ran.shown(NOTE)) == (0 if shell.user_ns["k1"].is_deleted() else 1), ran.texts
    ran_ok(shell, keyed.format(n=2, donated="0"))
    ran = ran_ok(shell, "out = kstep2(jnp.array(0.0), jax.random.key(0))")
    assert np.isnan(float(shell.user_ns["out"])) and len(ran.shown(NOTE)) == 1


def test_a_small_call_whose_values_a_later_call_donates_is_told(shell):
    # the jitted gradient's input, donated to the update after it in the cell: the record of
    # a call of at most SMALL numbers holds its values on the host
    ran_ok(shell, cases.LOG + "gstep = jax.jit(jax.grad(f))\n"
                  "update = jax.jit(lambda x, g: x - g, donate_argnums=0)")
    ran = ran_ok(shell, "x0 = x = jnp.array(0.0)\ng = gstep(x)\nx = update(x, g)")
    (note,) = ran.shown(NOTE)
    assert f"(at In[{ran.count}]:2, under jit)" in note.splitlines()[0]
    assert shell.user_ns["x0"].is_deleted()


# a library's own jit and value_and_grad, as Flax's nnx.jit and nnx.value_and_grad call
# JAX's from their files (an installed package's: under site-packages)
GRADLIB = ("import jxkernel as jax\n"
           "def value_and_grad(f):\n"
           "    return jax.value_and_grad(f)\n"
           "def jit(f):\n"
           "    jitted = jax.jit(f)\n"
           "    def call(*args):\n"
           "        return jitted(*args)\n"
           "    return call\n")


def test_a_gradient_taken_through_a_librarys_functions_is_told_at_the_learners_lines(
        shell, tmp_path):
    # the note named the library's lines, where it called value_and_grad and the jitted
    # step (Flax's autodiff.py:255 and compilation.py:852 for nnx's)
    (tmp_path / "site-packages").mkdir()
    shell.user_ns["gradlib"] = import_library(tmp_path / "site-packages", "gradlib", GRADLIB)
    defined = ran_ok(shell, cases.LOG + "@gradlib.jit\ndef step(x):\n"
                            "    return x - 0.1 * gradlib.value_and_grad(f)(x)[1]").count
    ran = ran_ok(shell, "out = step(0.0)")
    (note,) = ran.shown(NOTE)
    assert note.splitlines()[0].startswith(
        f"⚠ the gradient holds NaN, though f's value is finite (at In[{defined}]:5, inside "
        f"step (jitted), called at In[{ran.count}]:1): the jnp.where at In[{defined}]:2"), note


def test_the_record_keeps_no_tracer_alive(shell):
    # what stands for the step's values is kept with its program: Vars, never a tracer, which
    # jax_check_tracer_leaks would find alive after the trace
    ran_ok(shell, cases.CASES["grad_inside_step"][0])
    ran_ok(shell, "jax.config.update('jax_check_tracer_leaks', True)")
    try:
        assert len(ran_ok(shell, "out = step(0.0)").shown(NOTE)) == 1
    finally:
        ran_ok(shell, "jax.config.update('jax_check_tracer_leaks', False)")


def test_a_gradient_inside_a_loop_body_under_jit_is_not_followed(shell):
    # its values are the scan body's, run once per step: not told, and nothing fails
    ran_ok(shell, cases.LOG + "@jax.jit\ndef total(xs):\n    return jax.lax.scan(lambda c, x: "
                  "(c + jax.grad(f)(x), None), 0.0, xs)[0]")
    ran = ran_ok(shell, "out = total(jnp.array([0.0, 1.0]))")
    assert np.isnan(float(shell.user_ns["out"])) and ran.shown(NOTE) == []


def test_timeit_of_a_watched_step_records_nothing_and_keeps_the_fast_path(shell):
    """%timeit of a jitted step that takes a gradient: the record is paused while timing (each
    recorded call's values were looked at, a wait, and the step kept off jit's fast paths: a
    small step timed about 55 µs where it runs in 4-5), and it is back after."""
    from jxkernel.transforms.ad import reverse
    ran_ok(shell, "def f(x):\n    return jnp.where(x > 0, jnp.log(x), 0.0)\n@jax.jit\n"
                  "def step(x):\n    return x - 0.1 * jax.grad(f)(x)\n_ = step(1.0)")
    record = reverse.grad_calls
    assert record is not None
    count = "from jxkernel.transforms.ad import reverse as _r\n_n = len(_r.grad_calls)"
    ran_ok(shell, "%timeit -n 20 -r 2 -q step(1.0)\n" + count)
    assert shell.user_ns["_n"] == 0 and reverse.grad_calls is record
    ran_ok(shell, "_ = step(2.0)\n_ = step(3.0)\n" + count)     # recorded again after
    assert shell.user_ns["_n"] == 2


@pytest.mark.tells_a_bug
def test_a_bug_in_following_a_gradient_is_told_at_its_line_and_the_call_goes_on(shell,
                                                                                monkeypatch):
    # it was silent: a note missing with no word why (a comment said the cell's end would
    # tell it; nothing did)
    from jxkernel.notebook.notes import gradient_calls

    def broken(*args):
        raise ValueError("a bug of ours, on purpose")
    monkeypatch.setattr(gradient_calls._Taken, "of", broken)
    with pytest.warns(RuntimeWarning, match=r"jxkernel could not follow this gradient call for "
                      r"its NaN note \(it raised ValueError: a bug of ours, on purpose\)\. The "
                      r"call ran as written; only that note may be missing\. This is a bug in "
                      r"jxkernel") as told:
        ran = ran_ok(shell, "g = jax.jit(jax.grad(lambda x: jnp.sin(x) * 2.0))(1.0)",
                     tells_a_bug=True)
    from jxkernel.notebook.display import cell_name      # (the cell's file, shown as In[N])
    assert cell_name(told[0].filename) == f"In[{ran.count}]" and told[0].lineno == 1
    assert abs(float(shell.user_ns["g"]) - 2 * np.cos(1.0)) < 1e-6     # f32: a few ulps
