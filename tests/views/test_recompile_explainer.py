"""The recompile explainer (CompileEvent.changes: what changed against the nearest earlier
signature, with the fix), the no_recompile guard and the compile report, all without IPython.

Each case jits its own function, so the events it reads are its own."""
import dataclasses
import html.parser
import json
import pathlib
import re
import sched
import sys

import numpy as np
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import compile_log, compile_report, config
from jxkernel.core import compile_record
from jxkernel.compile_log import Change, no_recompile
from jxkernel.core import compile_record
from jxkernel.errors import RecompileError
from jxkernel.xla import Phases
from registered_library import excluded, import_library
from doc_examples import check_docstring_examples      # tests/support
from note_words import here      # tests/support
# tests/data: JAX's cases of an __eq__ that raises and of one unequal to itself
from api_file_gaps_cases import (HashableWithoutEq, HashedByFieldEqRaises,
                                 HashedByFieldUnequalToItself)
from jxkernel.tree_util.recursion_room import room


def events_of(f):
    return [e for e in compile_log.compile_events() if e.key is f]


def last_changes(f):
    return [(c.path, c.kind, c.old, c.new) for c in events_of(f)[-1].changes]


def test_the_docstring_examples_run_on_their_own():
    """The module's examples import what they use (they failed under
    `pytest --doctest-modules jxkernel/views/recompile_explainer.py`: jxkernel, Phases)."""
    check_docstring_examples("jxkernel.views.recompile_explainer")
    import doctest
    from jxkernel.views import recompile_explainer
    # and with the module's own names alone, as pytest's --doctest-modules runs them
    assert doctest.testmod(recompile_explainer).failed == 0


def test_a_decorated_functions_fix_is_its_decorator(tmp_path):
    """A function jitted by its decorator with a static argument the loop changes: the fix
    shows the decorator without static_argnames (it showed `jax.jit(power)`, which jits the
    jitted function, its n still static: an error for a traced n). Applied, one compile for
    every n, as JAX lowers learner4_static_steps_in_a_loop_fixed once."""
    source = ("import functools\n"
              "@functools.partial(jax.jit, static_argnames='n')\n"
              "def power(x, n):\n"
              "    return x ** n\n"
              "for n in range(1, 4):\n"
              "    power(jnp.ones(3), n=n)\n")

    def run(text, name):              # from a file, as a cell's lines are in linecache
        path = tmp_path / name
        path.write_text(text)
        scope = {"jax": jxkernel, "jnp": jnp}
        exec(compile(text, str(path), "exec"), scope)
        return events_of(scope["power"])

    change = run(source, "learner.py")[-1].changes[0]
    assert change.kind == "static" and change.snippet == (
        "@jax.jit    # n traced: one program for all its values\n"
        "def power(x, n):"), change.snippet
    fixed = source.replace("@functools.partial(jax.jit, static_argnames='n')\n"
                           "def power(x, n):", change.snippet)
    assert [e.reason for e in run(fixed, "fixed.py")] == ["first call"]


# ================================================================== each kind of change
def test_a_new_shape_says_which_argument_and_suggests_bucketing():
    f = jxkernel.jit(lambda x: x + 21)
    f(jnp.ones(3))
    f(jnp.ones(4))
    first, again = events_of(f)
    assert first.changes == () and first.reason == "first call"
    assert again.reason == "x: f32[3] -> f32[4]"                  # the one-line reason stays
    (change,) = again.changes
    assert (change.path, change.kind, change.old, change.new) == ("x", "shape", "f32[3]", "f32[4]")
    assert "bucket" in change.fix and "x = jnp.pad(x," in change.snippet
    assert str(change) == "x: shape f32[3] -> f32[4]"


def test_a_new_rank_is_told_as_expected_with_no_code_that_cannot_work():
    """f32[3], then f32[]: jnp.atleast_1d (once advised) makes f32[1], a third shape; no
    reshape makes the two calls one program, so no code is offered."""
    f = jxkernel.jit(lambda x: x + 22)
    f(jnp.ones(3))
    f(jnp.ones(()))
    (change,) = events_of(f)[-1].changes
    assert (change.kind, change.old, change.new) == ("shape", "f32[3]", "f32[]")
    assert "a compile per rank is expected" in change.fix and change.snippet == ""


def test_a_new_dtype_suggests_casting_to_the_old_one():
    f = jxkernel.jit(lambda x: x * 2)
    f(jnp.ones(3))
    f(jnp.ones(3, jnp.int32))
    assert last_changes(f) == [("x", "dtype", "f32[3]", "i32[3]")]
    # the cast in the call that passed int32 (`x = jnp.asarray(x, ...)` named the parameter,
    # no variable at that call: tests/views/test_weak_type_calls.py)
    assert events_of(f)[-1].changes[0].snippet.startswith(
        "f(jnp.asarray(jnp.ones(3, jnp.int32), jnp.float32))    # line ")


def test_a_key_of_another_impl_is_told_to_keep_one_impl_with_no_cast(recwarn):
    # JAX: "different input types: * at k, now key<fry>[] and before key<rbg>[]"
    # (recompile_cases' prng_key_impl_changed); the explainer once read .kind of the key
    # dtype and gave up with a RuntimeWarning
    f = jxkernel.jit(lambda k: jxkernel.random.uniform(k, (3,)))
    f(jxkernel.random.key(0, impl="rbg"))
    f(jxkernel.random.key(1))
    assert last_changes(f) == [("k", "dtype", "key<rbg>[]", "key<fry>[]")]
    (change,) = events_of(f)[-1].changes
    assert "the same impl=" in change.fix and change.snippet == ""
    assert not [w for w in recwarn if "recompile explainer raised" in str(w.message)]


def test_numbers_then_keys_are_two_types_with_no_cast_offered(recwarn):
    # JAX: "different input types: * at x, now key<fry>[4] and before f32[4]" (recompile_cases'
    # numbers_then_keys); the explainer once offered a cast and crashed on the key's dtype
    # (stop 71's CI, jnp.where of keys after jnp.where of floats)
    f = jxkernel.jit(lambda x: x[::-1])
    f(jnp.ones(4))
    f(jxkernel.random.split(jxkernel.random.key(0), 4))
    assert last_changes(f) == [("x", "dtype", "f32[4]", "key<fry>[4]")]
    (change,) = events_of(f)[-1].changes
    assert "no cast turns one into the other" in change.fix and change.snippet == ""
    c = jnp.array([True, False, True, False])
    jnp.where(c, jnp.ones(4), jnp.zeros(4))
    keys = jxkernel.random.split(jxkernel.random.key(0), 4)
    jnp.where(c, keys, keys[::-1])
    assert not [w for w in recwarn if "recompile explainer raised" in str(w.message)]


def test_a_weak_type_flip_from_a_python_float_to_an_f32_array():
    f = jxkernel.jit(lambda x: x * 2)
    f(1.0)
    f(jnp.asarray(1.0, jnp.float32))
    assert events_of(f)[-1].reason == "x: weak_type True -> False"
    assert last_changes(f) == [("x", "weak_type", "f32[] (weak)", "f32[]")]
    change = events_of(f)[-1].changes[0]
    assert "weakly typed" in change.fix
    # the number at the first call, rewritten there (a cast of the parameter x, the fix it
    # was, names no variable at `f(1.0)`: tests/views/test_weak_type_calls.py)
    assert "the Python number 1.0 in f(1.0)" in change.fix
    assert change.snippet.startswith("f(jnp.asarray(1.0, jnp.float32))    # line ")


def test_a_new_static_value_and_a_static_argument_passed_after_its_default():
    f = jxkernel.jit(lambda x, n=2: x * n, static_argnames="n")
    f(jnp.ones(2), n=2)
    f(jnp.ones(2), n=3)
    assert last_changes(f) == [("n", "static", "2", "3")]
    assert "drop it from static_argnums" in events_of(f)[-1].changes[0].fix
    g = jxkernel.jit(lambda x, n=2: x * n, static_argnames="n")
    g(jnp.ones(2))                                       # n not passed: its default
    g(jnp.ones(2), n=3)
    assert last_changes(g) == [("n", "static", "(not passed: its default)", "3")]
    # the one-line reason names it too (it used to blame the configuration)
    assert events_of(g)[-1].reason == "static n: (not passed: its default) -> 3"


def test_a_static_whose_eq_raises_is_explained_without_a_bug_of_the_explainers(recwarn):
    # jit's cache never compares 1 with it (another type), so the call compiles, as JAX's;
    # the explainer's own `1 == obj` asks obj.__eq__, which raised inside it: "This is a bug
    # in jxkernel" and a compile logged with no reason (a `--dist loadfile` run met it)
    f = jxkernel.jit(lambda x, y: x + 3, static_argnums=[1])
    f(1, 1)
    assert int(f(1, HashableWithoutEq())) == 4
    assert [c[:2] for c in last_changes(f)] == [("y", "static")]
    assert events_of(f)[-1].reason.startswith("static y: 1 -> ")
    assert not [w for w in recwarn if "bug in jxkernel" in str(w.message)]


@pytest.mark.parametrize("kind, said", [
    (HashedByFieldEqRaises, "only this very HashedByFieldEqRaises object reuses its program: "
     "HashedByFieldEqRaises's __eq__ raises, so a call with an equal copy raises a ValueError."),
    (HashedByFieldUnequalToItself, "only this very HashedByFieldUnequalToItself object reuses "
     "its program: HashedByFieldUnequalToItself's __eq__ calls a HashedByFieldUnequalToItself "
     "unequal even to itself, so an equal copy compiles anew.")])
def test_a_static_object_whose_eq_fails_is_not_said_to_reuse_a_program(kind, said):
    # a class of number fields gets "register it as a pytree"; the sentence before it says
    # what its own __eq__ makes of an equal copy (it said "a H with equal fields reuses its
    # program"). JAX 0.10.2 does as said: api_file_gaps' static_argument_eq_raises and
    # static_argument_eq_false_or_raising, which test_api_file_gaps holds jxkernel to
    f = jxkernel.jit(lambda x, y: x + 3, static_argnums=[1])
    f(1, 1)
    f(1, kind(2))
    (change,) = events_of(f)[-1].changes
    assert said in change.fix and "equal fields reuses" not in change.fix
    assert "register_pytree_node" in change.snippet
    if kind is HashedByFieldEqRaises:
        with pytest.raises(ValueError, match="static arguments should be comparable"):
            f(1, kind(2))
    else:
        f(1, kind(2))
        assert events_of(f)[-1].compiled


def power(x, n):
    return x * n


def test_an_argument_traced_in_one_jit_and_static_in_another():
    jxkernel.jit(power)(jnp.ones(2), 2.0)                  # n traced: f32[] (weak)
    static = jxkernel.jit(power, static_argnums=1)
    static(jnp.ones(2), 2.0)                                # n static 2.0
    # as JAX's tracing cache (keyed on the function, not the jit object): the same function
    # seen before, its argument n now static; not a "new jit object" nor a "first call"
    (traced,) = events_of(static)[0].changes
    assert (traced.path, traced.kind, traced.old, traced.new) == \
        ("n", "traced", "f32[] (weak)", "static 2.0")
    assert events_of(static)[0].reason == "n: traced f32[] (weak) -> static 2.0"
    assert "static_argnames=('n',)" in traced.snippet


def test_a_pytree_leaf_is_named_by_its_path_and_a_new_key_is_a_structure_change():
    f = jxkernel.jit(lambda params: params["w"] * 2)
    f({"w": jnp.ones(2)})
    f({"w": jnp.ones(3)})
    assert last_changes(f) == [("params['w']", "shape", "f32[2]", "f32[3]")]
    f({"w": jnp.ones(3), "b": jnp.ones(1)})
    assert last_changes(f) == [("params['b']", "structure", "absent", "f32[1]")]
    assert "params = {**defaults, **params}" in events_of(f)[-1].changes[0].snippet


W_GLOBAL = jnp.ones(1)


def scale_by_global(x):
    return x * W_GLOBAL


def test_a_changed_closed_over_global_is_not_seen_until_something_else_recompiles():
    """As in JAX: a closed-over array is a constant baked in at trace time. Rebinding the
    global makes no recompile (the old value stays in use); the next recompile picks the new
    value up, and its explanation says so."""
    global W_GLOBAL
    f = jxkernel.jit(scale_by_global)
    np.testing.assert_array_equal(np.asarray(f(jnp.ones(3))), [1, 1, 1])
    try:
        W_GLOBAL = jnp.full(1, 2.0)
        np.testing.assert_array_equal(np.asarray(f(jnp.ones(3))), [1, 1, 1])   # stale, a hit
        assert len(events_of(f)) == 1
        np.testing.assert_array_equal(np.asarray(f(jnp.ones(4))), [2, 2, 2, 2])  # new shape
    finally:
        W_GLOBAL = jnp.ones(1)
    assert last_changes(f) == [("x", "shape", "f32[3]", "f32[4]"),
                               ("W_GLOBAL (closed over)", "constant", "[1.]", "[2.]")]
    assert "Pass it as an argument" in events_of(f)[-1].changes[1].fix


def test_an_equal_constant_made_anew_by_each_trace_is_no_change():
    f = jxkernel.jit(lambda x: x * jnp.asarray(np.arange(3.0)))   # a fresh constant per trace
    f(jnp.ones(3))
    f(jnp.ones(3, jnp.int32))
    assert [c.kind for c in events_of(f)[-1].changes] == ["dtype"]


def test_flipping_x64_is_a_config_change():
    f = jxkernel.jit(lambda x: x + 23)
    f(1.0)
    with config.override("jax_enable_x64", True):
        f(1.0)
    # as JAX 0.10.2 names it (recompile_reference.json, enable_x64_context): the config
    # alone; the f32 -> f64 of the Python float is x64's doing, and "x = float(x)" (once
    # advised beside it) could not stop it
    assert last_changes(f) == [("jax_enable_x64", "config", "False", "True")]
    assert events_of(f)[-1].reason == "jax_enable_x64: config False -> True"
    assert 'jax.config.update("jax_enable_x64", True)' in events_of(f)[-1].changes[0].snippet


def test_jit_made_anew_in_a_loop_suggests_hoisting_it():
    for _ in range(2):              # a function made anew (same code) is a new cache key
        def double(x):
            return x * 2
        jitted = jxkernel.jit(double)
        jitted(jnp.ones(3))
    event = events_of(jitted)[0]
    assert event.reason == "first call"                 # for this jit object, it is
    (change,) = event.changes
    assert (change.kind, change.old) == ("fresh_jit", "jit(double) compiled for (x: f32[3])")
    assert change.snippet.startswith("f_jit = jax.jit(f)            # once, outside the loop")
    # said in words, never by the explainer's own key for it ("fresh_jit")
    assert str(change) == "(jit object): jit(double) compiled for (x: f32[3]) -> a new jit object"


def test_explanation_text():
    change = Change("x", "shape", "f32[3]", "f32[4]", "Pad it.", "x = pad(x)\ny = 1")
    assert compile_log.explanation_text([change]) == (
        "  x: shape f32[3] -> f32[4]\n"
        "    fix: Pad it.\n"
        "      x = pad(x)\n"
        "      y = 1")


# ================================================================== the guard
def test_explain_cache_misses_logs_where_the_call_is_and_what_changed(caplog):
    def scaled(x):
        return x * 5
    f = jxkernel.jit(scaled)
    with caplog.at_level("WARNING", logger="jxkernel.compile_log"):
        f(jnp.ones(3))                       # off by default: nothing logged
        with jxkernel.config.override("jax_explain_cache_misses", True):
            f(jnp.ones(3))                   # a cache hit: nothing logged
            f(jnp.ones(4)); line = sys._getframe().f_lineno
    # (the persistent cache's lines, where a folder is set, have a logger of their own)
    (record,) = [r for r in caplog.records if r.name == "jxkernel.compile_log"]
    assert record.levelname == "WARNING"
    # JAX's file:line:column (the call starts at column 12 of its line)
    where = f"test_recompile_explainer.py:{line}:12 (test_explain_cache_misses_logs_where_the_ca"
    text = record.getMessage().splitlines()
    assert text[0].startswith("TRACING CACHE MISS at ") and where in text[0], text[0]
    assert text[1].startswith("  for scaled defined at ") and text[2].startswith("  all previously")
    # JAX's line for the kind of difference, then each change with its fix
    assert text[3] == "  different input types:"
    assert text[4] == "  * at x, now f32[4] and before f32[3]" and "bucket" in text[5]  # JAX's line
    g = jxkernel.jit(lambda x: x)
    with caplog.at_level("WARNING", logger="jxkernel.compile_log"), \
            jxkernel.config.override("jax_explain_cache_misses", True):
        g(1.0)
    assert [r for r in caplog.records if r.name == "jxkernel.compile_log"][-1] \
        .getMessage().splitlines()[1:] == [
        "  never seen function:",    # JAX's id of the function object, as JAX writes it
        f"    <lambda> id={id(g._fun)} defined at {events_of(g)[0].source}"]


def test_explain_cache_misses_skips_a_library_registered_with_source_info(caplog, tmp_path):
    # JAX 0.10.2 (the same library under .venv-jax, its jitted function called with a float,
    # then an int): two TRACING CACHE MISS logs; none once the library is registered with
    # source_info_util.register_exclusion (JAX's explain asks is_user_filename of the file),
    # two still when it is registered with traceback_util only.
    def misses(name, **lists) -> int:
        lib = import_library(tmp_path, name, "import jxkernel\n\n@jxkernel.jit\n"
                                             "def twice(x):\n    return x * 2\n")
        caplog.clear()
        with excluded(lib.__file__, **lists), \
                caplog.at_level("WARNING", logger="jxkernel.compile_log"), \
                jxkernel.config.override("jax_explain_cache_misses", True):
            lib.twice(1.0)
            lib.twice(1)
        return len([r for r in caplog.records if r.name == "jxkernel.compile_log"])

    assert misses("explained_library", tracebacks=False, user_line=False) == 2  # a real file
    assert misses("explained_library_hidden", user_line=False) == 2
    assert misses("unexplained_library", tracebacks=False) == 0


def test_no_recompile_as_a_context_manager_raises_at_the_callers_line_and_restores():
    f = jxkernel.jit(lambda x: x - 1)
    f(jnp.ones(2))
    with pytest.raises(RecompileError) as info:
        with no_recompile(f):
            assert f._fail_on_recompile is True
            np.testing.assert_array_equal(np.asarray(f(jnp.zeros(2))), [-1, -1])   # a hit
            line = sys._getframe().f_lineno + 1
            f(jnp.ones(5))
    assert f._fail_on_recompile is False                 # restored, though the block raised
    err = info.value
    assert (err.source.file, err.source.line) == (__file__, line)
    assert err.reason == "x: f32[2] -> f32[5]"
    assert [(c.path, c.kind) for c in err.changes] == [("x", "shape")]
    notes = "\n".join(err.__notes__)
    assert "What changed, and the fix:\n  x: shape f32[2] -> f32[5]" in notes
    assert len(events_of(f)) == 1
    f(jnp.ones(5))                                        # off again: compiles
    assert len(events_of(f)) == 2


def test_no_recompile_keeps_a_switch_that_was_on_and_nests():
    f = jxkernel.jit(lambda x: x * 3)
    f(jnp.ones(2))
    compile_log.fail_on_recompile(f)
    try:
        with no_recompile(f):
            with no_recompile(f):
                pass
        assert f._fail_on_recompile is True
    finally:
        compile_log.fail_on_recompile(f, False)


def test_a_refusal_names_the_function_as_the_users_frame_holds_it():
    # the name comes from the innermost frame of the user's: not a standard library's frame
    # between (sched calling the function for the user), which holds it as `action`
    guarded = jxkernel.jit(lambda x: x * 6)
    guarded(jnp.ones(2))
    compile_log.fail_on_recompile(guarded)
    try:
        runner = sched.scheduler()
        runner.enter(0, 1, guarded, (jnp.ones(3),))
        with pytest.raises(RecompileError) as info:
            runner.run()
    finally:
        compile_log.fail_on_recompile(guarded, False)
    text = "\n".join([str(info.value), *getattr(info.value, "__notes__", ())])
    assert "fail_on_recompile(guarded, False)" in text and "(action" not in text, text


def test_no_recompile_for_every_function_and_as_a_decorator():
    f = jxkernel.jit(lambda x: x * 4)
    g = jxkernel.jit(lambda x: x * 5)
    f(jnp.ones(2))

    @no_recompile()
    def step(x):
        g(x)                 # g's first compile is allowed
        return f(x)
    step(jnp.ones(2))
    with pytest.raises(RecompileError, match=r"x: f32\[2\] -> f32\[3\]") as info:
        step(jnp.ones(3))
    assert info.value.function_key == g.function_key      # g is called first in step
    assert compile_log.failing_on_any_recompile() is False
    assert len(events_of(g)) == 1 and len(events_of(f)) == 1
    f(jnp.ones(3))                                        # outside step: compiles
    assert len(events_of(f)) == 2


def test_no_recompile_rejects_what_is_not_a_jitted_function():
    with pytest.raises(TypeError, match=r"must be a jitted function .* got function"):
        no_recompile(lambda x: x)
    with pytest.raises(KeyError, match="no live jitted function has function_key 'nope'"):
        no_recompile("nope")
    with pytest.raises(TypeError, match="decorates a function; got 3"):
        no_recompile()(3)


# ================================================================== the report
def test_the_json_report_counts_compilations_hits_and_explanations():
    f = jxkernel.jit(lambda x: x / 2)
    f(jnp.ones(2))
    f(jnp.ones(2))
    f(jnp.ones(2))                                        # two hits
    f(jnp.ones(3))
    data = json.loads(compile_report.report("json"))
    assert data["version"] == 1 and list(data)[0] == "version"
    (row,) = [r for r in data["functions"] if r["function_key"] == f.function_key]
    assert (row["compilations"], row["recompilations"], row["cache_hits"]) == (2, 1, 2)
    mine = [e for e in data["events"] if e["function_key"] == f.function_key]
    assert [e["reason"] for e in mine] == ["first call", "x: f32[2] -> f32[3]"]
    assert mine[1]["explanation"][0]["kind"] == "shape"
    assert set(mine[1]["explanation"][0]) == {"path", "kind", "old", "new", "fix", "snippet"}
    # the log's other events: compilations, and retraces that compiled nothing (a jit traced
    # inside another traced function)
    assert data["totals"]["compilations"] + data["totals"]["retraces"] == len(data["events"])
    assert data["totals"]["compilations"] == sum(e["inlined_into"] is None
                                                 for e in data["events"])
    assert data["totals"]["cache_hits"] == sum(r["cache_hits"] for r in data["functions"])


def test_the_json_reports_events_say_whose_work_they_were():
    """%jxreport's events say whose work they were, as the panel's do (compile_record.whose,
    the notes', %jxcompiles' and the status bar's answer: a library's, an installed package's
    too, is origin internal with library true): a reader of the file tells the user's
    compilations from eager operations and jxkernel's own (they were left out of the report's
    events, though the comm's had them)."""
    f = jxkernel.jit(lambda x: x - 5)
    f(jnp.ones(2))
    jnp.ones(7) * jnp.arange(7.0)                          # an eager operation
    data = compile_report.report_data()
    (mine,) = [e for e in data["events"] if e["function_key"] == f.function_key]
    assert (mine["origin"], mine["library"]) == ("user", False)
    assert {e["origin"] for e in data["events"]} >= {"user", "eager"}
    whose = {e.seq: compile_record.whose(e) for e in compile_log.compile_events()}
    said = {e["seq"]: (e["origin"], e["library"]) for e in data["events"]}
    assert said == {seq: ("internal", True) if kind == compile_record.LIBRARY else (kind, False)
                    for seq, kind in whose.items()}


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = set(), []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_the_html_report_is_a_page_with_every_name_escaped(tmp_path):
    def evil(x):
        return x + 3
    evil.__name__ = "<script>alert(1)</script>"
    f = jxkernel.jit(evil)
    f(jnp.ones(2))
    f(jnp.ones(3))
    path = tmp_path / "report.html"
    text = compile_report.report("html", str(path))
    assert path.read_text(encoding="utf-8") == text
    assert text.startswith("<!DOCTYPE html>") and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    parsed = _Tags()
    parsed.feed(text)
    assert "script" not in parsed.tags                    # the name stayed text
    assert "<script>alert(1)</script>" in "".join(parsed.text)
    assert here("Every new shape compiles anew.") in "".join(parsed.text)    # (traces on NumPy)


def test_the_text_report():
    change = Change("x", "shape", "f32[3]", "f32[4]", "Pad it.", "x = pad(x)")
    events = [compile_log.CompileEvent("f", "a.py:1", (("x", "f32[3]"),), "first call",
                                       Phases(0.001, 0.002, 0.003, "compiled"), "cpu", seq=1),
              compile_log.CompileEvent("f", "a.py:1", (("x", "f32[4]"),), "x: f32[3] -> f32[4]",
                                       Phases(0.001, 0.001, 0.002, "memory"), "cpu", seq=2,
                                       changes=(change,))]
    assert compile_report.to_text(compile_report.report_data(events)) == (
        "2 compilation(s) (1 recompilation(s)) of 1 function(s), 0 cache hit(s); trace 2.0 ms, "
        "lower 3.0 ms, compile 5.0 ms\n"
        "function: compilations / cache hits\n"
        "  f (a.py:1): 2 / 0\n"
        "#1 f: first call (6.0 ms, compiled)\n"
        "#2 f: x: f32[3] -> f32[4] (4.0 ms, memory)\n"
        "    x: shape f32[3] -> f32[4]\n"
        "      fix: Pad it.\n"
        "        x = pad(x)")


def test_the_reports_on_the_numpy_backend_count_cache_misses_traced():
    # the NumPy backend compiles nothing (a miss traces, NumPy runs the jaxpr): the report's
    # text and HTML, and the panel's JSON fixes, say so with the CPU's facts (miss_words)
    change = Change("x", "shape", "f32[3]", "f32[4]", "Every new shape compiles anew. Pad it.")
    events = [compile_log.CompileEvent("f", "a.py:1", (("x", "f32[3]"),), "first call",
                                       Phases(0.001, 0.002, 0.003, "compiled"), "numpy", seq=1),
              compile_log.CompileEvent("f", "a.py:1", (("x", "f32[4]"),), "x: f32[3] -> f32[4]",
                                       Phases(0.001, 0.001, 0.002, "compiled"), "numpy", seq=2,
                                       changes=(change,))]
    data = compile_report.report_data(events)
    assert compile_report.to_text(data) == (
        "2 cache miss(es) (1 again) of 1 function(s), 0 cache hit(s); trace 2.0 ms, "
        "lower 3.0 ms, prepare 5.0 ms\n"
        "function: cache misses / cache hits\n"
        "  f (a.py:1): 2 / 0\n"
        "#1 f: first call (6.0 ms, traced)\n"
        "#2 f: x: f32[3] -> f32[4] (4.0 ms, traced)\n"
        "    x: shape f32[3] -> f32[4]\n"
        "      fix: Every new shape traces anew. Pad it.")
    html = compile_report.to_html(data, page=False)
    assert "<p>2 cache miss(es), 1 again, " in html and "prepare 2.0 ms (traced, numpy)" in html
    assert "compiled" not in compile_report.to_text(data) and "compiles anew" not in html
    # its tables and headings too (they said compilations, recompilations, compile ms)
    assert "<h2>jxkernel cache miss report</h2>" in html and "<h3>Cache misses</h3>" in html
    assert "<th>cache misses</th><th>again</th><th>cache hits</th>" in html, html
    assert "<th>prepare ms</th>" in html and "compil" not in html.replace("jx-recompile", "")
    # on the CPU the same events' fix says what a new shape costs there
    on_cpu = dataclasses.replace(events[1], backend="cpu")
    assert compile_report.event_json(on_cpu)["explanation"][0]["fix"] == change.fix
    assert on_cpu.said_changes == (change,)


def test_a_report_without_functions_of_yours_has_no_empty_table():
    """The HTML (and text) report with none of the user's functions: one sentence, not an
    empty "Functions" table and "none yet"; with eager operations only, the line counting
    them (yours: 0) says it, and their table stays folded."""
    empty = compile_report.report_data([])
    html, text = compile_report.to_html(empty), compile_report.to_text(empty)
    assert "<h3>Functions</h3>" not in html and "none yet" not in html
    assert compile_report.NONE_OF_YOURS in html and compile_report.NONE_OF_YOURS in text
    assert "function: compilations / cache hits" not in text
    eager = compile_log.CompileEvent("add (eager)", "", (("x", "f32[3]"),), "first call",
                                     Phases(0.001, 0.001, 0.001, "compiled"), "cpu", seq=1,
                                     origin=compile_record.EAGER)
    data = compile_report.report_data([eager])
    html = compile_report.to_html(data, page=False)
    assert html.count("<h3>Functions</h3>") == 1 and html.index("<details") < html.index(
        "<h3>Functions</h3>"), html
    assert "your functions: 0 compilation(s)" in html and compile_report.NONE_OF_YOURS not in html


def test_report_rejects_a_bad_format_or_file():
    with pytest.raises(ValueError, match="`format` must be one of dict, json, html, text; got 'pdf'"):
        compile_report.report("pdf")
    with pytest.raises(TypeError, match="`file` must be a path .* got int 3"):
        compile_report.report("json", 3)


@pytest.mark.xla_only("XLA compiler")      # XLA's compilation cache on disk
def test_explain_cache_misses_tells_the_persistent_caches_misses_and_writes(tmp_path, caplog):
    """As JAX 0.10.2 (jax._src.compiler, jax._src.compilation_cache), where a cache folder is
    set: "PERSISTENT COMPILATION CACHE MISS for 'jit_f' with key 'jit_f-<hash>'" and "Writing
    jit_f to persistent compilation cache with key ...", at WARNING with
    jax_explain_cache_misses on (DEBUG otherwise); a program found in memory (a new jit of the
    same code) logs neither, and one found on disk "Persistent compilation cache hit for ...",
    at DEBUG (WARNING with jax_log_compiles on)."""
    def persisted(x):
        return x * 7 + 1
    logger = "jxkernel.compilation_cache"
    with jxkernel.config.override("jax_compilation_cache_dir", str(tmp_path)), \
            jxkernel.config.override("jax_persistent_cache_min_compile_time_secs", 0.0), \
            caplog.at_level("DEBUG", logger=logger):
        with jxkernel.config.override("jax_explain_cache_misses", True):
            jxkernel.jit(persisted)(jnp.ones(11))
            jxkernel.jit(persisted)(jnp.ones(11))        # the same program, in memory
        mine = [r for r in caplog.records if r.name == logger and "jit_persisted" in
                r.getMessage()]
        assert [r.levelname for r in mine] == ["WARNING", "WARNING"], mine
        miss, write = (r.getMessage() for r in mine)
        assert re.fullmatch(r"PERSISTENT COMPILATION CACHE MISS for 'jit_persisted' with key "
                            r"'jit_persisted-[0-9a-f]{64}'", miss), miss
        assert write == miss.replace("PERSISTENT COMPILATION CACHE MISS for 'jit_persisted'",
                                     "Writing jit_persisted to persistent compilation cache"), \
            write
        caplog.clear()
        jxkernel.jit(persisted)(jnp.ones(12))          # explain off: DEBUG
        assert {r.levelname for r in caplog.records if r.name == logger} == {"DEBUG"}
        caplog.clear()
        jxkernel.clear_caches()                        # memory dropped: found on disk
        with jxkernel.config.override("jax_explain_cache_misses", True):
            jxkernel.jit(persisted)(jnp.ones(11))
        mine = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == logger
                and "jit_persisted" in r.getMessage()]
        assert [(level, text.split(" with key")[0]) for level, text in mine] == \
            [("DEBUG", "Persistent compilation cache hit for 'jit_persisted'")], mine


def test_persistent_cache_enabled_as_jax_means_it_with_its_lines_quiet_otherwise(caplog):
    """JAX's is_persistent_cache_enabled(): a folder set and the cache on. jxkernel's default
    folder is used without one, quietly: with jax_explain_cache_misses on, a new function logs
    one record (the tracing miss), as in JAX 0.10.2's api_test (expected_log_len 1)."""
    from jxkernel._jax._src.compilation_cache import is_persistent_cache_enabled
    with jxkernel.config.override("jax_compilation_cache_dir", None):
        assert not is_persistent_cache_enabled()
        def quiet(x):
            return x * 9 - 2
        with caplog.at_level("WARNING"), \
                jxkernel.config.override("jax_explain_cache_misses", True):
            jxkernel.jit(quiet)(jnp.ones(13))
        mine = [r.getMessage() for r in caplog.records if "quiet" in r.getMessage()]
        assert len(mine) == 1 and "never seen function" in mine[0], mine
    with jxkernel.config.override("jax_compilation_cache_dir", "/nonexistent/jx"):
        assert is_persistent_cache_enabled()
        with jxkernel.config.override("jax_enable_compilation_cache", False):
            assert not is_persistent_cache_enabled()


def test_a_trace_options_fix_names_its_own_context_manager():
    # the fix for jax_numpy_rank_promotion named `jax.default_matmul_precision(...)` (every
    # option's fix did); each names the context manager JAX has under the option's name
    from jxkernel.views.signature_changes.change import Signature
    from jxkernel.views.signature_changes.compare import explain_changes
    tree = jxkernel.tree_util.tree_structure(())
    def signature(value):
        return Signature((), tree, (), (("jax_numpy_rank_promotion", value),))
    (change,) = explain_changes(signature("allow"), signature("raise"))
    assert "`with jax.numpy_rank_promotion(...)` block or jax.config.update" in change.fix
    assert "default_matmul_precision" not in change.fix
    with jxkernel.numpy_rank_promotion("raise"):        # the named manager exists and sets it
        assert jxkernel.config.jax_numpy_rank_promotion == "raise"


def test_a_loop_bodys_structure_change_names_the_node_that_changed():
    # a body's signature is its arguments' tuple alone, not a call's (args, kwargs): the node
    # was named by the wrong keys ("carry[1]"), and where no leaf had that name the explainer
    # raised KeyError (a RuntimeWarning in Equinox's while_loop tests, which fail on warnings)
    import numpy as np
    from jxkernel.core.avals import ShapedArray
    from jxkernel.views.signature_changes.change import Signature
    from jxkernel.views.signature_changes.compare import explain_changes
    a = ShapedArray((), np.float32)
    tree = jxkernel.tree_util.tree_structure
    old = Signature((("carry[0]", a), ("carry[1]", a), ("carry[2][0]", a), ("carry[2][1]", a)),
                    tree(((1.0, 1.0, (1.0, 1.0)),)))
    new = Signature((("carry[0]", a), ("carry[1]", a), ("carry[2][0]", a)),
                    tree(((1.0, 1.0, (1.0, None)),)))
    assert [str(c) for c in explain_changes(old, new)] == ["carry[2][1]: structure f32[] -> None"]


def _scale(x, lr):                     # lr only computes: traced works (one program)
    return x - lr * x


def _grid(x, n):                       # n sets a shape: it must stay static
    return jnp.zeros((n, 3)) + x


def test_a_static_arguments_fix_follows_how_the_function_uses_it():
    """Read from the function's source (views/argument_uses): one that only computes with
    the static argument is told to trace it, with its own name in the code (not a generic
    `f`); one that sets a shape with it is told it must stay static. Both applied: the
    traced one compiles once for two values, the shape one raises if traced, as JAX
    (tests/data/learner_mistakes_reference.json: zeros_of_traced_n)."""
    f = jxkernel.jit(_scale, static_argnames="lr")
    f(jnp.ones(3), lr=0.1)
    f(jnp.ones(3), lr=0.2)
    (change,) = events_of(f)[-1].changes
    assert change.kind == "static" and "_scale only computes with lr" in change.fix
    # bound to the name it is called by (f), as pasted over `f = jax.jit(_scale, ...)`
    assert change.snippet == "f = jax.jit(_scale)    # lr traced: one program for all its values"
    traced = jxkernel.jit(_scale)                                      # the snippet, applied
    traced(jnp.ones(3), 0.1), traced(jnp.ones(3), 0.2)
    assert len(events_of(traced)) == 1
    g = jxkernel.jit(_grid, static_argnums=1)
    g(1.0, 2)
    g(1.0, 3)
    (change,) = events_of(g)[-1].changes
    assert "_grid needs n as a Python value (a shape or a size)" in change.fix and "must stay static" in change.fix
    assert change.snippet == ""                                 # no traced code offered
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
        jxkernel.jit(_grid)(1.0, 2)


def test_a_shape_change_with_a_dtype_change_is_told_to_cast_too():
    # y: f32[3] -> i32[4] was told to pad alone, which still compiles once per dtype; as
    # JAX's log says, both changed ("* at y, now i32[4] and before f32[3]")
    import numpy as np
    from jxkernel.core.avals import ShapedArray
    from jxkernel.views.signature_changes.change import Signature, jax_line
    from jxkernel.views.signature_changes.compare import explain_changes
    tree = jxkernel.tree_util.tree_structure((1,))
    old = Signature((("y", ShapedArray((3,), np.float32)),), tree)
    new = Signature((("y", ShapedArray((4,), np.int32)),), tree)
    (change,) = explain_changes(old, new)
    assert jax_line(change) == "* at y, now i32[4] and before f32[3]"
    assert "dtype changed too (float32 -> int32)" in change.fix
    assert change.snippet.splitlines()[0] == "y = jnp.asarray(y, jnp.float32)"
    namespace = {"jnp": jnp, "y": jnp.arange(4, dtype=jnp.int32)}
    exec(change.snippet, namespace)                 # the fix runs, and gives the old dtype
    assert namespace["y"].dtype == jnp.float32 and namespace["y"].shape == (4,)



def test_reading_what_a_closure_holds_costs_no_recursion_room_on_a_dict_that_holds_itself():
    """The fresh-function explainer reads the values a closure holds (does one hold a
    function?, holding_functions). It read them with jaxlib's recursive flatten, which on a
    dict holding itself raised deep down and never gave back the recursion depth it took: the
    process had no room left, and a fresh clone's pytest worker died sending its next report
    (stop 89's CI; in a notebook, every later cell raised RecursionError)."""
    from jxkernel.views.signature_changes.fresh_functions import holding_functions

    def make(env, opt):
        def step(x):
            return opt(x) * len(env)
        return step
    env = {"a": 1, "z": 2}
    env["itself"] = env
    step = make(env, abs)
    before = room()
    assert holding_functions(step, ("env", "opt")) == [("opt", "builtin_function_or_method",
                                                          "Python functions")]
    assert room() == before
    deep = [1]
    for _ in range(200):
        deep = [deep]
    assert holding_functions(make(deep, 2), ("env", "opt")) == []    # too deep to read: passed
    assert room() == before


@pytest.mark.parametrize("name", sorted(
    p.stem for p in (pathlib.Path(jxkernel.__file__).parent / "views" / "signature_changes")
    .glob("*.py")))
def test_the_signature_changes_examples_run_with_their_modules_names_alone(name):
    """Each signature_changes module's docstring examples, with the module's own names alone
    (as `pytest --doctest-modules` runs them): structure's and compare's named jax, jnp and
    ShapedArray, which those modules do not import, and failed so."""
    import doctest
    import importlib
    module = importlib.import_module(f"jxkernel.views.signature_changes.{name}")
    assert doctest.testmod(module).failed == 0
