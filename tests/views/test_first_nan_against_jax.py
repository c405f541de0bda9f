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


def _found(name):
    fn, args = cases.CASES[name](jxkernel)
    return step(fn, *args).first_nan()


@pytest.mark.parametrize("name", MADE_BY_AN_EQUATION)
def test_first_nan_names_jaxs_primitive_and_line(name):
    jax = JAX[name]["eager"]
    found = _found(name).innermost
    assert found.primitive == jax["primitive"]
    if jax["line"] is not None:        # grad's backward pass: JAX names no learner line
        path, line = found.source.rsplit(":", 1)
        assert (os.path.basename(path), int(line)) == ("first_nan_cases.py", jax["line"])


def test_the_backward_pass_nan_is_on_the_line_of_the_sqrt_whose_derivative_made_it():
    """JAX's traceback names no line of the learner's for grad's NaN; the stepper names the
    forward line whose derivative rule made it."""
    found = _found("grad_sqrt_at_zero").innermost
    assert found.source_line == "return jnp.where(x > 0, jnp.sqrt(x), 0.0).sum()"


def test_a_nan_argument_is_the_inputs_where_jax_names_the_first_operation_on_it():
    found = _found("nan_input")
    assert (found.index, found.input) == (None, "args[0]")
    assert JAX["nan_input"]["eager"]["primitive"] == JAX["nan_input"]["jit"]["primitive"] == "add"
    fn, args = cases.CASES["nan_input"](jxkernel)
    assert [str(e.primitive) for e in step(fn, *args).equations][0] == "add"


def test_under_jit_jax_names_the_same_primitives_and_misses_a_nan_the_output_drops():
    differ = {n for n, r in JAX.items() if r["jit"] != r["eager"]}
    assert differ == {"masked_log"} and JAX["masked_log"]["jit"] is None
    assert _found("masked_log").innermost.primitive == "log"


def test_jxkernels_debug_nans_names_what_jaxs_names():
    """The same programs under jxkernel's own jax_debug_nans, eagerly and jitted: the
    primitive, the learner's line, whether it raised, all JAX's."""
    assert cases.run(jxkernel)["cases"] == JAX
