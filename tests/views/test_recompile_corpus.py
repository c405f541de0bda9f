"""The recompile explainer against JAX 0.10.2, scenario by scenario.

tests/data/recompile_cases.py holds the scenarios (source text, run with `jax` = jxkernel
here); tests/data/recompile_reference.json what JAX logged for each with
`jax_explain_cache_misses` on (reference/make_recompile_reference.py). For each scenario:

* jxkernel's compile events of the scenario's functions are as many as JAX's tracing-cache
  misses (the known differences below are strict xfails, with why);
* each event's explanation names the cause JAX names for the same miss: a first call (or a
  new function object of the same code, `fresh_jit`) where JAX says "never seen function";
  the same leaves and kinds (shape, dtype, weak type) where JAX lists "different input
  types"; a static value, a static/traced flip or a structure change where JAX says
  "different input pytree"; the same config option where JAX says "Tracing context doesn't
  match" -- and no cause JAX does not name. A `constant` change (a closed-over value that
  differs) is a note, not a cause: it rides along with a miss JAX explains otherwise.
"""
import json
import os
import re
import sys

import pytest

import jxkernel
from jxkernel import compile_log
from jxkernel.errors import RecompileError

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
from recompile_cases import FILE_PREFIX, RAISES, SCENARIOS, run  # noqa: E402

with open(os.path.join(DATA, "recompile_reference.json")) as f:
    REFERENCE = json.load(f)["scenarios"]

# jxkernel kind -> the kind of miss JAX logs for it
JAX_KIND = {"shape": "types", "dtype": "types", "weak_type": "types", "static": "tree",
            "traced": "tree", "structure": "tree", "config": "config",
            "fresh_jit": "never seen function"}
NOTES = {"constant"}          # said beside a cause, never instead of one

# scenarios whose count differs from JAX's, and why (strict: a fix makes them pass)
KNOWN_COUNT = {
    "lower_then_call": "jit(f).lower(x).compile() then f(x): JAX's call reuses the trace of "
                       "lower (one miss); jxkernel's call traces and compiles again",
    "export_symbolic": "export.export(f)(symbolic shape) traces f in JAX (a miss the next "
                       "call is compared with); jxkernel's export logs no compile event",
}
# where a new function object of the same code is named (fresh_jit) on every miss but the
# first; everywhere else it must not be
FRESH = {"jit_in_a_loop_lambda", "cell_rerun", "closure_factory", "partial_in_a_loop"}


def jx_events(name):
    start = compile_log.last_seq() + 1
    result = run(jxkernel, name)
    mine = [e for e in compile_log.events_since(start)
            if (e.source or "").startswith(f"{FILE_PREFIX}{name}>")]
    return result, mine


def jax_cause(event):
    """The kind of JAX miss jxkernel's explanation of `event` amounts to."""
    causes = {JAX_KIND[c.kind] for c in event.changes if c.kind not in NOTES}
    if not causes:
        assert event.reason in ("first call", "ahead of time: .lower(...).compile()"), \
            f"an event with no change is not a first call: {event.reason!r}"
        return "never seen function"
    assert len(causes) == 1, f"more than one kind of cause: {event.changes}"
    return causes.pop()


_STATIC_VAL = re.compile(r"Static\(val=(.*)\)$")


def check_like_jax(event, miss):
    cause = jax_cause(event)
    assert cause == miss["kind"], (event.reason, event.changes, miss)
    if event.reason == "first call":           # (b): nothing but "a new object" beside it
        assert {c.kind for c in event.changes} <= {"fresh_jit"} | NOTES, event.changes
    if cause == "types":
        jx = sorted((c.path, c.kind) for c in event.changes if c.kind not in NOTES)
        assert jx == sorted((c["path"], c["kind"]) for c in miss["changes"]), \
            (event.changes, miss["changes"])
    elif cause == "config":
        assert sorted(c.path for c in event.changes if c.kind == "config") == \
            sorted(c["path"] for c in miss["changes"])
    elif cause == "tree":
        for c in event.changes:
            if c.kind != "static":
                continue
            found = [_STATIC_VAL.search(m["after"]) for m in miss["changes"]]
            values = [m.group(1) for m in found if m]
            if not c.new.startswith("<"):              # an object's repr holds its address
                assert c.new in values, (c, miss["changes"])


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario_like_jax(name):
    expected = REFERENCE[name]
    result, events = jx_events(name)
    if name in RAISES:
        assert type(result).__name__ == expected["error"]
        assert events == [] and expected["misses"] == []
        return
    if name in KNOWN_COUNT:
        if len(events) != len(expected["misses"]):
            pytest.xfail(KNOWN_COUNT[name])
        raise AssertionError(f"{name} matches JAX now: take it out of KNOWN_COUNT")
    assert len(events) == len(expected["misses"]), \
        [(e.reason, e.changes) for e in events]
    for i, (event, miss) in enumerate(zip(events, expected["misses"])):
        check_like_jax(event, miss)
        fresh = any(c.kind == "fresh_jit" for c in event.changes)
        assert fresh == (name in FRESH and i > 0), (name, i, event.changes)


def test_the_corpus_is_large_enough_and_recorded():
    assert len(SCENARIOS) >= 30 and set(REFERENCE) == set(SCENARIOS)


# ================================================================== the fixes apply
def test_a_fix_never_makes_an_array_static():
    result, events = jx_events("same_function_two_statics")
    (change,) = events[-1].changes
    assert change.kind == "traced" and "static_argnames=('n',)" in change.snippet  # a float
    f = jxkernel.jit(lambda x, w: x * w.sum())
    g = jxkernel.jit(f._fun, static_argnums=1)
    f(jxkernel.numpy.ones(2), jxkernel.numpy.ones(3))
    try:
        g(jxkernel.numpy.ones(2), jxkernel.numpy.ones(3))   # an array can't be static
    except (ValueError, TypeError):
        pass
    events = [e for e in compile_log.compile_events() if e.key is g]
    for e in events:
        for c in e.changes:
            assert "static_arg" not in c.snippet or c.kind == "static", c


def test_a_static_object_that_hashes_by_identity_says_so():
    _, events = jx_events("static_self")
    (change,) = events[-1].changes
    assert change.kind == "static"
    assert "identity" in change.fix and "drop it from static_argnums" not in change.fix


def test_structure_fixes_fit_the_container():
    fixes = {}
    for name in ("dict_key_added", "list_length", "tuple_vs_list", "keyword_vs_positional",
                 "default_argument_passed", "none_leaf"):
        _, events = jx_events(name)
        (change,) = events[-1].changes
        assert change.kind == "structure"
        fixes[name] = change
    assert "{**defaults" in fixes["dict_key_added"].snippet
    for name in ("list_length", "tuple_vs_list", "keyword_vs_positional",
                 "default_argument_passed"):
        assert "{**defaults" not in fixes[name].snippet, (name, fixes[name])
    assert "keyword" in fixes["keyword_vs_positional"].fix
    assert "y" in fixes["default_argument_passed"].fix


# ================================================================== the guard's error
def test_a_refusal_names_the_users_function_and_a_call_that_applies():
    def shift(x):
        return x + 1
    f = jxkernel.jit(shift)
    f(jxkernel.numpy.ones(3))
    compile_log.fail_on_recompile(f)
    with pytest.raises(RecompileError) as info:
        f(jxkernel.numpy.ones(4))
    text = str(info.value)
    assert "jit(shift)" in text and "x: f32[3] -> f32[4]" in text
    assert "fail_on_recompile(f, False)" in text, text      # f: the name it is called by
    assert "#" not in text.split("fail_on_recompile(", 1)[1], text    # no internal key
    compile_log.fail_on_recompile(f, False)


def test_a_refusal_inside_a_library_function_names_the_call_not_the_library_file():
    x = jxkernel.numpy.ones(5)
    jxkernel.numpy.sum(x)
    with compile_log.no_recompile(), pytest.raises(RecompileError) as info:
        jxkernel.numpy.sum(jxkernel.numpy.ones(7))
    text = str(info.value)
    assert "jxkernel/numpy" not in text and not re.search(r"#\d{6,}", text), text
    assert "sum" in text and "f32[5] -> f32[7]" in text
    assert "no_recompile" in text                  # the switch that is on is the global one
