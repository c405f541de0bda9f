"""A weak type flipping at a Python number the learner passed: the fix rewrites that call
(`f(jnp.asarray(1.0, jnp.float32))`), names the call and the number, and pasted at the line it
names leaves one trace, under jxkernel and under JAX 0.10.2 (tests/data/
weak_type_calls_reference.json, reference/make_weak_type_calls_reference.py). The fix it
replaces, `x = jnp.asarray(x, jnp.float32)`, named the parameter: pasted at the call, it
changed nothing."""
import re

import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import compile_log

from weak_type_calls_cases import ARRAYS_BY_NAME, CASES, DTYPE_CASES, pasted  # tests/data
import locations  # tests/support: the repository's folders

REFERENCE = locations.recorded("weak_type_calls_reference.json")


def run(source, path):
    """The compile events of the program `source`, run from the file `path` (linecache reads
    the learner's lines from it, as from a notebook's cell)."""
    path.write_text(source)
    start = compile_log.last_seq() + 1
    exec(compile(source, str(path), "exec"), {"jax": jxkernel, "jnp": jnp})
    return [e for e in compile_log.events_since(start) if e.source and str(path) in e.source]


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_fix_names_the_call_and_pasted_traces_once_as_in_jax(name, tmp_path):
    _, program, line, fixed = CASES[name]
    events = run(program, tmp_path / f"{name}.py")
    assert len(events) == REFERENCE["cases"][name]["program"]["traces"] == 2, \
        [(e.reason, e.changes) for e in events]
    (change,) = events[-1].changes
    assert change.kind == "weak_type"
    assert change.snippet == f"{fixed}    # line {line}", change.snippet
    # the call and the number as the learner wrote them, and why jnp.asarray(number) is not it
    learners = program.splitlines()[line - 1]
    number = re.search(r"jnp\.asarray\((.+?), jnp\.", fixed).group(1)
    said = (rf"{re.escape(number)}, an array made from a Python number without a dtype "
            r"\(weakly typed as the number is\)," if name in ARRAYS_BY_NAME else
            rf"the Python number {re.escape(number)},?")
    told = re.search(rf"{said} in (.+?),? \(line {line}\)", change.fix)
    assert told and told.group(1) in learners and number in told.group(1), change.fix
    assert f"jnp.asarray({number}) alone stays weak" in change.fix
    # pasted where it says: one trace, as JAX traces the pasted program once
    again = run(pasted(name), tmp_path / f"{name}_pasted.py")
    assert [e.reason for e in again] == ["first call"], [(e.reason, e.changes) for e in again]
    assert REFERENCE["cases"][name]["pasted"]["traces"] == 1


def test_asarray_of_a_python_float_stays_weak_as_in_jax():
    """Why the fix gives a dtype: jnp.asarray(1.0) is weak in JAX 0.10.2 (no fix of a weak
    side), jnp.asarray(1.0, jnp.float32) is not."""
    assert jnp.asarray(1.0).weak_type is REFERENCE["asarray_of_a_float_is_weak"] is True
    assert jnp.asarray(1.0, jnp.float32).weak_type is \
        REFERENCE["asarray_with_dtype_is_weak"] is False


def test_a_line_that_cannot_be_read_keeps_the_plain_fix():
    """Source compiled from a string linecache does not hold: no call to rewrite, the fix in
    words of the parameter, as before."""
    source = ("@jax.jit\ndef f(x):\n    return x * 2\n"
              "f(jnp.asarray(1.0, jnp.float32))\nf(1.0)\n")
    start = compile_log.last_seq() + 1
    exec(compile(source, "<not-a-file>", "exec"), {"jax": jxkernel, "jnp": jnp})
    event = [e for e in compile_log.events_since(start) if "<not-a-file>" in (e.source or "")][-1]
    (change,) = event.changes
    assert change.kind == "weak_type" and "# line" not in change.snippet


@pytest.mark.parametrize("name", sorted(DTYPE_CASES))
def test_a_dtypes_cast_is_written_at_the_call_and_pasted_traces_once_as_in_jax(name, tmp_path):
    """The same for a dtype: the cast is in the call whose dtype is not the one cast to (the
    plain fix, `x = jnp.asarray(x, jnp.float32)`, named the parameter, no variable at
    `f(jnp.arange(3))`)."""
    _, program, line, fixed = DTYPE_CASES[name]
    events = run(program, tmp_path / f"{name}.py")
    assert len(events) == REFERENCE["cases"][name]["program"]["traces"] == 2
    (change,) = events[-1].changes
    assert change.kind == "dtype" and change.snippet == f"{fixed}    # line {line}", change
    assert f"(line {line})" in change.fix and "inside f changes nothing" in change.fix
    again = run(pasted(name), tmp_path / f"{name}_pasted.py")
    assert [e.reason for e in again] == ["first call"], [(e.reason, e.changes) for e in again]
    assert REFERENCE["cases"][name]["pasted"]["traces"] == 1
