"""The stepper's `first_nan()` (jxkernel/views/stepper.py) against JAX 0.10.2's
`jax_debug_nans` for the same programs (tests/data/first_nan_cases.py; the reference
first_nan_reference.json was recorded by reference/make_first_nan_reference.py): the
primitive it names, and the learner's line, are the ones JAX's FloatingPointError names when
the program runs eagerly (JAX's "de-optimized" run). Where the two differ by design, the
test says so: a NaN that came in with an argument is "in the input" for the stepper, while
JAX names the first operation whose output holds it; and under jit JAX checks only the
outputs, so a NaN a `where` drops raises nothing there (the stepper still shows the log that
made it, as JAX does eagerly)."""
import os

import pytest

import first_nan_cases as cases                 # tests/data
import locations                                 # tests/support

import jxkernel
from jxkernel.stepper import step

JAX = locations.recorded("first_nan_reference.json")["cases"]

MADE_BY_AN_EQUATION = sorted(set(cases.CASES) - {"nan_input"})
# grad's backward pass made the NaN: JAX's traceback ends at the line calling grad (or at none
# of the learner's), the stepper names the forward line whose derivative made it
# (each with the function whose forward line the stepper names)
BY_THE_BACKWARD_PASS = {"grad_sqrt_at_zero": cases.sqrt_at_zero,
                        "step_with_grad": cases.sqrt_at_zero, "grad_of_jit": cases.sqrt_times}


# a cond's, a scan's or a while's NaN: JAX's error names the loop's (the cond's) own line and
# primitive, which is the stepper's finding at the top; the stepper goes on into the branch or
# the iteration that made it (views/loop_bodies.py), to the body's line JAX does not name
ENTERED = {"scanned": ("iteration 0", cases.scanned, 2), "in_cond": ("branch 1", cases.in_cond, 1),
           "in_while": ("iteration 0", cases.in_while, 1)}


def _found(name):
    fn, args = cases.CASES[name](jxkernel)
    return step(fn, *args).first_nan()


@pytest.mark.parametrize("name", MADE_BY_AN_EQUATION)
def test_first_nan_names_jaxs_primitive_and_line(name):
    jax = JAX[name]["eager"]
    found = _found(name) if name in ENTERED else _found(name).innermost
    assert found.primitive == jax["primitive"]
    if name not in BY_THE_BACKWARD_PASS:
        path, line = found.source.rsplit(":", 1)
        assert (os.path.basename(path), int(line)) == ("first_nan_cases.py", jax["line"])


@pytest.mark.parametrize("name", sorted(ENTERED))
def test_a_loops_or_conds_nan_is_followed_into_the_iteration_or_branch_that_made_it(name):
    step_named, function, line = ENTERED[name]
    found = _found(name)
    assert (found.primitive, found.step) == (JAX[name]["eager"]["primitive"], step_named)
    inner = found.inside
    assert inner is not None and inner.innermost is inner and inner.primitive == "log"
    path, at = inner.source.rsplit(":", 1)
    assert (os.path.basename(path), int(at)) == ("first_nan_cases.py",
                                                 function.__code__.co_firstlineno + line)
    assert f"inside {found.primitive} ({step_named}): first NaN: equation" in str(found)
    # the stepper's JSON (the lab extension's view) says the same: the iteration or branch
    sent = found.to_json()
    assert (sent["step"], sent["inside"]["primitive"], sent["inside"]["step"]) == \
        (step_named, "log", None)


@pytest.mark.parametrize("name", sorted(BY_THE_BACKWARD_PASS))
def test_the_backward_pass_nan_is_on_the_line_of_the_sqrt_whose_derivative_made_it(name):
    """JAX's traceback names no line of the learner's for grad's NaN, or the line calling
    grad; the stepper names the forward line whose derivative rule made it."""
    assert JAX["grad_sqrt_at_zero"]["eager"]["line"] is JAX["grad_of_jit"]["eager"]["line"] is None
    assert JAX["step_with_grad"]["eager"]["line"] == cases.step_with_grad.__code__.co_firstlineno + 1
    found = _found(name).innermost
    path, line = found.source.rsplit(":", 1)
    forward = BY_THE_BACKWARD_PASS[name].__code__
    assert (os.path.basename(path), int(line)) == ("first_nan_cases.py", forward.co_firstlineno + 1)


def test_a_nan_argument_is_the_inputs_where_jax_names_the_first_operation_on_it():
    found = _found("nan_input")
    assert (found.index, found.input) == (None, "args[0]")
    assert JAX["nan_input"]["eager"]["primitive"] == JAX["nan_input"]["jit"]["primitive"] == "add"
    fn, args = cases.CASES["nan_input"](jxkernel)
    assert [str(e.primitive) for e in step(fn, *args).equations][0] == "add"


def test_under_jit_jax_names_the_same_primitives_and_misses_a_nan_the_output_drops():
    # (the jit said its "Calling the de-optimized version" line once more, its own, and its
    # rerun raised the operation's error without the source trace grad's backward pass chains)
    by_rerun = {"reruns_said": 0, "source_trace": 0, "source_line": 0}
    differ = {n for n, r in JAX.items() if r["jit"] is None or r["eager"] is None or {
        **r["jit"], **by_rerun} != {**r["eager"], **by_rerun}}
    assert {n for n, r in JAX.items() if r["eager"] and r["eager"]["source_trace"]} == {
        "grad_sqrt_at_zero", "step_with_grad", "grad_of_jit"}
    assert not any(r["jit"] and r["jit"]["source_trace"] for r in JAX.values())
    assert all(r["jit"]["reruns_said"] == r["eager"]["reruns_said"] + 1
               for n, r in JAX.items() if n not in differ)
    assert differ == {"masked_log"} and JAX["masked_log"]["jit"] is None
    assert _found("masked_log").innermost.primitive == "log"


def test_jxkernels_debug_nans_names_what_jaxs_names():
    """The same programs under jxkernel's own jax_debug_nans, eagerly and jitted: the
    primitive, the learner's line, whether it raised, how many times it printed JAX's
    "Calling the de-optimized version" line (once for each jit: not for lax.log, nor for an
    operation of grad's backward pass), whether the error chains the forward line's source
    trace (eager grad: yes; a jit's rerun: no), all JAX's."""
    assert cases.run(jxkernel)["cases"] == JAX
