"""What jax_log_compiles and jax_explain_cache_misses print for small learner programs, as
JAX 0.10.2 prints it: tests/data/learner_log_cases.py, JAX's lines recorded per step by
reference/make_learner_log_reference.py (tests/data/learner_log_reference.json). The same
miss messages (JAX's whole, then jxkernel's own indented lines) and the same compile lines
in the same order (the "Compiling" line up to its types, which jxkernel writes its way), per
step, where they are about the learner's functions.

The differences left are listed in DIFFERENT, each with why; their test checks that they
still differ as said (a fix shows there first)."""
import re

import numpy as np
import pytest

import jxkernel

import learner_log_cases as cases   # tests/data, on pytest's pythonpath
import locations                    # tests/support
from logged import logged_messages, logged_steps      # tests/support

RECORDED = locations.recorded("learner_log_reference.json")["cases"]
ID = re.compile(r" id=(\d+)")


_LOGGED: dict = {}


def logged(name):
    """(misses per step, compile lines per step) of case `name` under jxkernel, once."""
    if name not in _LOGGED:
        _LOGGED[name] = logged_steps(jxkernel, cases, name)
    return _LOGGED[name]


# JAX's "re-defined repeatedly?" hint is keyed on the call site, and a miss at no call site
# ("at :", a jit traced inside make_jaxpr's trace) shares "" with every such miss before it in
# the process: the recording's cases ran in their order, pytest's in another (and after other
# tests), so the hint is not compared there
NO_SITE = "TRACING CACHE MISS at :\n"
HINT = ("\n  but seen another function defined on the same line; maybe the function is"
        "\n  being re-defined repeatedly, preventing caching?")


def as_jax(ours: str, theirs: str) -> bool:
    """Whether `ours` is JAX's message `theirs` whole, then jxkernel's own lines only, each
    indented (what changed in its words, "(it is: a new object ...)", a fix and its code);
    ids written " id=<id>" on both."""
    ours = ID.sub(" id=<id>", ours)
    if theirs.startswith(NO_SITE):      # (the hint at no call site: whatever ran before)
        ours, theirs = ours.replace(HINT, ""), theirs.replace(HINT, "")
    more = ours[len(theirs):]
    return ours.startswith(theirs) and (not more or more.startswith("\n") and all(
        line.startswith("  ") for line in more[1:].split("\n")))


def head(line: str) -> str:
    """A compile line up to the types, which jxkernel's "Compiling" line writes its way."""
    return line.partition(" with global shapes and types")[0].removesuffix(" (memory cache)")


def misses_differ(name) -> list:
    """The steps of case `name` whose TRACING CACHE MISS messages are not JAX's."""
    ours, theirs = logged(name)[0], RECORDED[name]["steps"]
    assert [label for label, _ in ours] == [label for label, _ in theirs]
    return [label for (label, mine), (_, jax_says) in zip(ours, theirs)
            if len(mine) != len(jax_says) or not all(map(as_jax, mine, jax_says))]


def lines_differ(name) -> list:
    """The steps of case `name` whose jax_log_compiles lines are not JAX's."""
    ours, theirs = logged(name)[1], RECORDED[name]["log_compiles"]
    assert [label for label, _ in ours] == [label for label, _ in theirs]
    return [label for (label, mine), (_, jax_says) in zip(ours, theirs)
            if list(map(head, mine)) != list(map(head, jax_says))]


# The differences left, per case: the steps whose lines differ, and why (each kept on
# purpose: they are about JAX's own eager helpers, which jxkernel has no counterpart for).
DIFFERENT_LINES = {
    # JAX's grad makes the cotangent 1.0 of the loss by an eager convert_element_type, a jit
    # of its own ("Compiling jit(convert_element_type)"); jxkernel makes it on the host
    "grad_of_jit": ["grad"],
    # JAX's eager lax.cond first converts the Python bool predicate to int32 by a jit of
    # its internal `stage` helper; jxkernel converts it on the host (one program: jit(cond))
    "cond_eager": ["cond"],
    # jax.random.key(0) compiles JAX's internal seeding function, `_threefry_seed`; jxkernel's
    # is named `random_seed` (the primitive's name): an internal helper's name, not the
    # learner's function
    "random_in_jit": ["key"],
    # an eager shard_map: JAX 0.10.2 runs each step (the input's split, each primitive, the
    # result put together) as a jit of a new internal function, "jit(<unnamed function>)",
    # traced and compiled anew at every call (with a TRACING CACHE MISS for "<unknown>" at
    # the learner's line each time); jxkernel runs the same steps as eager shard_map programs
    # ("jit(shard_map)", one more: the blocks gathered before they are put together), kept
    # for the next call (no miss, nothing compiled again)
    "shard_map_eager": ["shard_map"],
}
DIFFERENT_MISSES = {"shard_map_eager": ["shard_map"]}


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_each_step_logs_the_misses_jax_logs(name):
    """JAX's TRACING CACHE MISS messages, in JAX's order: an outer jit's miss before those of
    what its trace meets (a jit inside it, a scan body, cond branches, a shard_map body, a
    checkpointed function), none for pmap's `_fun` (JAX's own function)."""
    assert misses_differ(name) == DIFFERENT_MISSES.get(name, [])


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_each_step_logs_jaxs_compile_lines(name):
    """jax_log_compiles's lines in JAX's order, up to the types ("Finished tracing f for
    jit" also where make_jaxpr's trace raises, as JAX logs it before the error)."""
    assert lines_differ(name) == DIFFERENT_LINES.get(name, [])


def test_a_cases_lines_do_not_depend_on_what_ran_before_it():
    """A program another test compiled earlier in the process (here jnp_eager_ops' eager add,
    of the same types) is compiled again for the case, as in the recording's process: its
    compile lines were missing when the view files ran in another order (seed 93)."""
    x = np.ones(3, np.float32)
    jxkernel.numpy.add(x, x)
    lines = dict(logged_steps(jxkernel, cases, "jnp_eager_ops")[1])
    assert list(map(head, lines["add"])) == list(map(head, dict(
        RECORDED["jnp_eager_ops"]["log_compiles"])["add"]))


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted(cases.CASES)
    assert set(DIFFERENT_LINES) | set(DIFFERENT_MISSES) <= set(cases.CASES)


def test_the_differences_left_are_jaxs_helpers_only():
    """Where the compile lines differ, JAX's extra or other programs are its own helpers
    (named as listed), never one of the learner's functions: the learner's programs' lines
    are all there, as JAX's, in JAX's order."""
    helpers = {"grad_of_jit": {"convert_element_type"}, "cond_eager": {"stage"},
               "random_in_jit": {"_threefry_seed"}}
    for name, theirs_only in helpers.items():
        for (label, mine), (_, jax_says) in zip(logged(name)[1],
                                                RECORDED[name]["log_compiles"]):
            kept = [head(x) for x in jax_says if not any(
                f"jit({h})" in x or f"tracing {h} for" in x for h in theirs_only)]
            ours = [head(x) for x in mine if "random_seed" not in x]
            assert ours == kept, (name, label)


def test_pmap_keeps_its_compile_in_the_notes_without_a_miss_logged():
    """pmap's jit of `_fun` logs no TRACING CACHE MISS (JAX logs none: its function is JAX's),
    but its compile stays the learner's event (the notebook's notes name it)."""
    def f(x):
        return x * 2
    record = jxkernel.core.compile_record
    before = record.last_seq()
    with logged_messages() as messages, \
            jxkernel.config.override("jax_explain_cache_misses", True):
        jxkernel.pmap(f)(np.ones((1, 3), np.float32))
    events = [e for e in record.events_since(before + 1) if e.function == "_fun"]
    assert len(events) == 1 and events[0].origin == "user" and events[0].miss
    assert not [m for m in messages if m.startswith("TRACING CACHE MISS")], messages
