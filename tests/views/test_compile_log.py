"""The compile log: the record (jxkernel/core/compile_record.py) and its explainer
(jxkernel/views/recompile_explainer.py), as users reach them (`jxkernel.compile_log`).

Every compiled program is in it (what the notebook's status bar counts, the Compilations panel
lists and %jxcompiles prints), with why: jit's cache misses, and pmap, an eager shard_map, an
ahead-of-time `.lower().compile()`, an eager operation.

compile_log.fail_on_recompile: a jitted function's re-compilation raises RecompileError at
the caller's line, naming the function, both signatures and the reason, before compiling."""
import gc
import sys
import warnings

import numpy as np
import pytest

import jxkernel
import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import compile_log
from jxkernel.errors import RecompileError
from jxkernel.xla import Phases

from doc_examples import check_docstring_examples      # tests/support
from note_words import here      # tests/support
from fresh_process import run_code                        # tests/support


def test_the_records_docstring_examples_run_as_written():
    """core/compile_record.py's examples, each with the module's names and its own imports
    alone (as `pytest --doctest-modules` runs them): none names what it does not define."""
    check_docstring_examples("jxkernel.core.compile_record", standalone=True)


def test_a_static_unequal_but_written_the_same_is_told_so():
    """An eager program compiled again for a parameter equal in text to the last one's but not
    in value (two Exporteds of one function, its repr cut short) says so, not that the same
    signature compiled again (which stays for a program dropped from the cache)."""
    record = lambda value: compile_log.record_compiled(        # noqa: E731
        "stat_test (eager)", (("args[0]", "f32[3]"),), Phases(), "cpu",
        statics=(("p", value),)).reason
    first, other, same = record(("x" * 70, 1)), record(("x" * 70, 2)), record(("x" * 70, 2))
    assert (first, other) == ("first call", "p: not equal to the value compiled before, though "
                                            "written the same")
    assert same.startswith("the same signature compiled again")


def test_a_static_that_compares_elementwise_is_explained_without_a_warning():
    """A static NumPy scalar then a tuple (`np.float32(2) == ((1, 2),)` is an array, no bool):
    the compile is explained, where the explainer raised and the call warned (jnp.pad's
    end_values)."""
    def ramp_end(x, e):
        return x + np.sum(e)
    f = jax.jit(ramp_end, static_argnums=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(1.0, np.float32(2.0))
        f(1.0, ((1, 2),))
    event = compile_log.compile_events("ramp_end")[-1]
    assert event.reason == "static e: np.float32(2.0) -> ((1, 2),)"


# ---------------------------------------------------------------- every program is logged
def test_record_compiled_says_what_changed_since_the_last_signature():
    first = compile_log.record_compiled("pmap(g_test)", (("args[0]", "f32[2,3]"),), Phases(),
                                        "cpu")
    again = compile_log.record_compiled("pmap(g_test)", (("args[0]", "f32[2,5]"),), Phases(),
                                        "cpu")
    assert (first.reason, again.reason) == ("first call", "args[0]: f32[2,3] -> f32[2,5]")
    assert compile_log.compile_events("pmap(g_test)")[-1].seq == again.seq


def test_record_compiled_compares_with_the_last_kept_event_of_its_key(monkeypatch):
    """record_compiled finds the last signature of a function (of its key, where given) without
    reading the kept events (compile_record's newest-event tables): other keys' events apart,
    and a function whose events all left the record (MAX_EVENTS) compiles a first call."""
    from jxkernel.core import compile_record
    monkeypatch.setattr(compile_record, "MAX_EVENTS", 3)

    def reason(shape, key=None, name="pmap(k_test)"):
        return compile_log.record_compiled(name, (("args[0]", shape),), Phases(), "cpu",
                                           key).reason
    k1, k2 = object(), object()
    assert [reason("f32[1]", k1), reason("f32[2]", k2), reason("f32[3]", k1),
            reason("f32[4]")] == ["first call", "first call",
                                  "args[0]: f32[1] -> f32[3]", "args[0]: f32[3] -> f32[4]"]
    # two more events push out k2's one event and k1's last
    assert [reason("i32[1]", name="other_k_test"), reason("f32[5]", k2),
            reason("f32[6]", k1)] == ["first call"] * 3
    for _ in range(3):
        reason("i32[1]", name="other_k_test")
    assert [reason("f32[7]"), reason("f32[8]"), reason("f32[9]", k1)] == [
        "first call", "args[0]: f32[7] -> f32[8]", "first call"]


def test_an_eager_operations_colored_parameter_is_written_without_color_codes():
    """An eager lax.scan in a notebook's kernel: its jaxpr parameter's repr is colored there
    (as JAX colors a jaxpr), and went into the "Compiling ..." log line with its escape
    codes; the signature holds the text alone."""
    class Colored:
        def __repr__(self):
            return "{ \x1b[34;1mlambda\x1b[39;22m ; a\x1b[35m:f32[3]\x1b[39m. }"
    event = compile_log.record_compiled("scan_color_test (eager)", (("args[0]", "f32[3]"),),
                                        Phases(), "cpu", statics=(("jaxpr", Colored()),))
    assert dict(event.signature)["jaxpr"] == "static { lambda ; a:f32[3]. }"


def test_an_ahead_of_time_compile_is_logged_against_its_jit():
    f = jax.jit(lambda x: x * 3.0)
    events = []
    unsubscribe = compile_log.subscribe(events.append)
    try:
        compiled = f.lower(jnp.ones(3)).compile()
        with compile_log.unlogged():                 # a tool's own compile stays out
            f.lower(jnp.ones(4)).compile()
    finally:
        unsubscribe()
    # the first compile of f: its trace's miss, told as a call's would be (JAX's call after
    # it reuses the trace and the program: no miss, nothing compiled)
    assert [(e.key is f, e.reason, e.miss, e.signature) for e in events] == \
        [(True, "first call", True, (("x", "f32[3]"),))]
    assert compiled(jnp.ones(3)).tolist() == [3.0, 3.0, 3.0]
    start = compile_log.last_seq() + 1
    assert f(jnp.ones(3)).tolist() == [3.0, 3.0, 3.0] and f.cache_hits() == 1
    # the tool's compile (unlogged) is not the user's: f(ones(4)) traces, compiles, tells
    assert f(jnp.ones(4)).tolist() == [3.0] * 4
    (again,) = [e for e in compile_log.events_since(start) if e.key is f]
    assert again.miss and again.reason == "x: f32[3] -> f32[4]", again


def test_an_eager_operation_that_compiles_is_logged():
    x = jnp.ones((3, 17, 2))                     # a shape no other test gives cos
    events = []
    unsubscribe = compile_log.subscribe(events.append)
    try:
        jnp.cos(x)
        jnp.cos(x)                               # compiled once per operand types
    finally:
        unsubscribe()
    # "first call", or what changed since the last call another test made of cos in this
    # worker: its shape ("f32[4] -> f32[3,17,2]") or its number of arguments ("2 arguments -> 1")
    assert [(e.function, e.signature) for e in events] == \
        [("cos (eager)", (("args[0]", "f32[3,17,2]"),))]
    assert events[0].reason == "first call" or events[0].reason.endswith("-> f32[3,17,2]") \
        or events[0].reason.endswith("arguments -> 1"), events[0].reason


SCRIPT = """
import jxkernel as jax, jxkernel.numpy as jnp
from jxkernel import compile_log
from jxkernel.sharding import AxisType, PartitionSpec as P
double = jax.pmap(lambda row: row * 2)
double(jnp.ones((4, 2))); double(jnp.ones((4, 2))); double(jnp.ones((4, 3)))
mesh = jax.make_mesh((4,), ("data",), axis_types=(AxisType.Auto,))
total = jax.shard_map(lambda b: jax.lax.psum(b.sum(), "data"), mesh=mesh, in_specs=P("data"),
                      out_specs=P())
total(jnp.ones(8))
first = len(compile_log.compile_events())
total(jnp.ones(8))
for e in compile_log.compile_events():
    print(e.function, "|", e.reason, "|", compile_log.signature_text(e.signature))
print(first)
"""


@pytest.mark.cpu_only("simulated CPU devices")
def test_pmap_and_shard_map_compilations_are_logged_once_each_with_the_reason():
    ran = run_code(SCRIPT, {"JXKERNEL_CPU_DEVICES": "4"}, timeout=120)
    lines = ran.stdout.splitlines()
    assert lines[:2] == [
        "_fun | first call | row: f32[4,2]",
        "_fun | row: f32[4,2] -> f32[4,3] | row: f32[4,3]",
    ]       # pmap is a jit of a shard_map of `_fun` (JAX 0.10.2's name), with fun's arguments
    # called outside jit, the shard_map runs eagerly as JAX's: its input split into blocks,
    # each primitive on every device's blocks, the blocks put together (a program each),
    # all on the first call; the second call compiles nothing
    assert lines[2] == "shard_map | first call | args[0]: f32[8] P()"
    assert all(line.startswith("shard_map | ") for line in lines[3:-1])
    assert int(lines[-1]) == len(lines) - 1


# ---------------------------------------------------------------- fail_on_recompile
def events_of(f):
    return [e for e in compile_log.compile_events() if e.key is f]


def test_a_new_shape_raises_at_the_caller_with_both_signatures_and_the_reason():
    def scale(x):
        return x * 3.0
    f = jxkernel.jit(scale)
    np.testing.assert_array_equal(np.asarray(f(jnp.ones(3))), [3.0, 3.0, 3.0])   # first call
    key = compile_log.fail_on_recompile(f)
    assert key == f.function_key == events_of(f)[0].function_key
    assert key.startswith(f"scale@{__file__}:") and key in compile_log.failing_on_recompile()
    np.testing.assert_array_equal(np.asarray(f(jnp.arange(3.0))), [0.0, 3.0, 6.0])  # same shape
    with pytest.raises(RecompileError) as info:
        line = sys._getframe().f_lineno + 1
        f(jnp.ones(4))
    err = info.value
    assert (err.function, err.function_key, err.reason) == ("scale", key, "x: f32[3] -> f32[4]")
    assert (err.old_signature, err.new_signature) == ("x: f32[3]", "x: f32[4]")
    assert (err.source.file, err.source.line) == (__file__, line)
    text = str(err)
    assert here("jit(scale) would recompile because x: f32[3] -> f32[4]") in text
    assert here("compiled for: (x: f32[3])") in text and here("called with:  (x: f32[4])") in text
    assert f"called at {__file__}:{line}" in text
    assert len(events_of(f)) == 1 and f._cache_size() == 1      # nothing was compiled
    # the function keeps working at its compiled signature after the error
    np.testing.assert_array_equal(np.asarray(f(jnp.ones(3) * 2)), [6.0, 6.0, 6.0])

    assert compile_log.fail_on_recompile(f, False) == key       # off: it compiles again
    assert key not in compile_log.failing_on_recompile()
    np.testing.assert_array_equal(np.asarray(f(jnp.ones(4))), [3.0] * 4)
    assert [e.reason for e in events_of(f)] == ["first call", "x: f32[3] -> f32[4]"]


def test_by_function_key_and_for_static_arguments():
    f = jxkernel.jit(lambda x, n: x * n, static_argnums=1)
    f(jnp.ones(2), 2)
    key = events_of(f)[0].function_key
    assert compile_log.fail_on_recompile(key) == key
    assert f._fail_on_recompile is True
    with pytest.raises(RecompileError, match=r"because static n: 2 -> 3") as info:
        f(jnp.ones(2), 3)
    assert info.value.old_signature == "x: f32[2], n: static 2"
    assert info.value.new_signature == "x: f32[2], n: static 3"
    np.testing.assert_array_equal(np.asarray(f(jnp.ones(2), 2)), [2.0, 2.0])
    compile_log.fail_on_recompile(key, enabled=False)
    np.testing.assert_array_equal(np.asarray(f(jnp.ones(2), 3)), [3.0, 3.0])


def test_the_first_compilation_is_never_refused():
    f = jxkernel.jit(lambda x: x + 1)
    compile_log.fail_on_recompile(f)             # on before any call: the first call compiles
    np.testing.assert_array_equal(np.asarray(f(jnp.zeros(2))), [1.0, 1.0])
    with pytest.raises(RecompileError, match=r"x: f32\[2\] -> f32\[5\]"):
        f(jnp.zeros(5))
    compile_log.fail_on_recompile(f, False)


def test_no_recompile_is_at_the_top_level_as_a_block_and_a_decorator():
    # jxkernel.no_recompile: where docs/seeing_inside.md and the recompile explanations send
    # a user (jxkernel.notebook re-exports the same guard for %jxguard's users)
    assert jxkernel.no_recompile is compile_log.no_recompile
    f = jxkernel.jit(lambda x: x * 2)
    f(jnp.ones(2))
    with jxkernel.no_recompile(f):
        f(jnp.zeros(2))                                     # same signature: runs
        with pytest.raises(RecompileError, match=r"x: f32\[2\] -> f32\[3\]"):
            f(jnp.ones(3))
    assert f._fail_on_recompile is False                    # off again after the block

    @jxkernel.no_recompile()                                # every jitted function, per call
    def step(x):
        return f(x)
    with pytest.raises(RecompileError):
        step(jnp.ones(4))
    np.testing.assert_array_equal(np.asarray(f(jnp.ones(4))), [2.0] * 4)   # off outside


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(KeyError, match="no live jitted function has function_key 'nope'"):
        compile_log.fail_on_recompile("nope")
    with pytest.raises(TypeError, match="must be a jitted function .* got function"):
        compile_log.fail_on_recompile(lambda x: x)
    with pytest.raises(TypeError, match="`enabled` must be True or False, got 1"):
        compile_log.fail_on_recompile(jxkernel.jit(lambda x: x), 1)


def test_events_are_numbered_and_keyed():
    f = jxkernel.jit(lambda x: -x)
    before = compile_log.last_seq()
    f(jnp.ones(1))
    f(jnp.ones(2))
    mine = events_of(f)
    assert [e.seq for e in mine] == [before + 1, before + 2] == \
        [e.seq for e in compile_log.events_since(before + 1)]
    assert compile_log.last_seq() == before + 2
    assert mine[0].function_key == mine[1].function_key == f.function_key
    assert compile_log.function_key("g", None) == "g@?"


def test_an_event_holds_the_program_its_miss_traced_weakly():
    # what the key-reuse note reads (notebook/notes/key_notes.py): each miss's own trace, for a
    # call and for an ahead-of-time compile; the log keeps it no longer than the jit does
    f = jxkernel.jit(lambda x: x * 2)
    f(jnp.ones(1))
    f(jnp.ones(2, jnp.int32))
    first, second = events_of(f)
    assert str(first.jaxpr.jaxpr.invars[0].aval) == "float32[1]"
    assert str(second.jaxpr.jaxpr.invars[0].aval) == "int32[2]"
    g = jxkernel.jit(lambda x: x + 1)
    g.lower(jnp.ones(3)).compile()
    assert str(events_of(g)[0].jaxpr.jaxpr.invars[0].aval) == "float32[3]"
    del f, g
    gc.collect()
    assert first.jaxpr is None and first.jaxpr_id is not None


def test_events_since_finds_its_first_event_without_reading_every_kept_one(monkeypatch):
    # a notebook cell's end asks for the events since its start (compile_notes, effect_notes,
    # the comm), and the record keeps up to MAX_EVENTS (10,000, reached in a test process): the
    # events are in order of seq, so the first one asked for is found by bisection
    from jxkernel.core import compile_record
    reads = [0]

    class Event:
        def __init__(self, seq):
            self._seq = seq

        @property
        def seq(self):
            reads[0] += 1
            return self._seq

    kept = [Event(seq) for seq in range(100, 100 + compile_record.MAX_EVENTS)]
    monkeypatch.setattr(compile_record, "_events", kept)
    for since, first in [(9_000, 9_000), (50, 100), (100, 100), (10_099, 10_099)]:
        reads[0] = 0
        got = compile_record.events_since(since)
        assert got[0] is kept[first - 100] and got == kept[first - 100:], since
        assert reads[0] <= 20, (since, reads[0])      # log2(10,000) ~ 14; all would be 10,000
    assert compile_record.events_since(10_100) == []

# ---------------------------------------------------------------- a broken explainer
class _BrokenExplainer:
    """Every method the record calls raises, as a bug in the explainer would."""
    def __getattr__(self, name):
        def broken(*args, **kwargs):
            raise ZeroDivisionError(f"explainer bug in {name}")
        return broken


@pytest.mark.tells_a_bug
def test_a_bug_in_the_explainer_warns_and_never_fails_the_users_call(monkeypatch):
    from jxkernel.core import compile_record
    monkeypatch.setattr(compile_record, "_explainer", _BrokenExplainer())
    f = jax.jit(lambda x: x * 2.0)
    events = []
    unsubscribe = compile_log.subscribe(events.append)
    try:
        with pytest.warns(RuntimeWarning, match=r"recompile explainer raised ZeroDivisionError"
                                                r".*while explaining a compile") as first:
            out = f(jnp.ones(3))
        # where in jxkernel it broke, for the report: the innermost frame of jxkernel's (the
        # broken stand-in is this file's: the record's call of it)
        assert " (at jxkernel/core/compile_record.py:" in str(first[0].message), first[0].message
        with _explain_on(), pytest.warns(RuntimeWarning, match="explainer raised") as caught:
            out2 = f(jnp.ones(4))                       # a new shape, explained to the log too
        assert [str(w.message).split(" while ")[1].split(";")[0] for w in caught] == \
            ["explaining a compile", "writing the cache-miss log"]
        assert {w.filename for w in caught} == {__file__}     # at the user's line, not ours
    finally:
        unsubscribe()
    np.testing.assert_array_equal(np.asarray(out), np.full(3, 2.0, np.float32))   # exact: x*2
    np.testing.assert_array_equal(np.asarray(out2), np.full(4, 2.0, np.float32))
    assert [e.function for e in events] == ["<lambda>", "<lambda>"]   # logged, plain reasons
    assert events[1].reason != ""


@pytest.mark.tells_a_bug
def test_a_compile_the_explainer_failed_on_is_told_by_what_changed(monkeypatch):
    # the fallback's reason against an explained signature: a new static value (it read "2
    # arguments -> 1", and a weakly typed argument "i32[] (weak) -> i32[]", neither so)
    from jxkernel.core import compile_record
    f = jax.jit(lambda x, y: x + 3, static_argnums=[1])
    f(1, 1)
    monkeypatch.setattr(compile_record, "_explainer", _BrokenExplainer())
    with pytest.warns(RuntimeWarning, match="explainer raised"):
        f(1, 2)
    assert [e.reason for e in compile_log.compile_events() if e.key is f][-1] == \
        "y: static 1 -> static 2"


class _explain_on:
    def __enter__(self):
        self.old = jax.config.jax_explain_cache_misses
        jax.config.update("jax_explain_cache_misses", True)

    def __exit__(self, *exc):
        jax.config.update("jax_explain_cache_misses", self.old)


def test_a_tools_compile_is_not_what_a_later_miss_is_explained_against():
    # a workshop check (or any tool inside unlogged()) compiling the learner's jit: the log
    # does not show it, so the learner's next miss is explained against their own calls
    from jxkernel.core import compile_record
    f = jax.jit(lambda s: s * 2)
    f(jnp.ones(9999))
    with compile_record.unlogged():
        f(jnp.ones(3))                 # by text the nearest earlier key, were it remembered
    events = []
    unsubscribe = compile_log.subscribe(events.append)
    try:
        f(jnp.ones(7))
    finally:
        unsubscribe()
    assert events[-1].reason == "s: f32[9999] -> f32[7]"
    assert events[-1].nth == 2
