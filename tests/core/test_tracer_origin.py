"""Where tracer errors say a value came from, against what JAX 0.10.2 says for the same
programs (tests/data/tracer_origin_reference.json, recorded by
reference/make_tracer_origin_reference.py): the arguments it depends on, or the operations
that made it a tracer with their lines; the frames an UnexpectedTracerError lists under
jax_tracer_error_num_traceback_frames; the tracers jax.checking_leaks lists."""
import functools
from collections import Counter

import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.core.config import Config
from tracer_origin_cases import run as facts_of      # tests/data
import locations  # tests/support: the repository's folders
from doc_examples import check_docstring_examples

JAX = locations.recorded("tracer_origin_reference.json")



@functools.cache
def ours() -> dict:
    return facts_of(jxkernel)

# jxkernel's tracer errors in JAX's whole words, up to JAX's link to the error's page (the
# advice is the notebook's card's: tests/notebook/test_notebook_error_cards.py)
TRACER_ERRORS = ["if_on_constant", "unrelated_literal", "numpy_constant", "no_literal",
                 "more_than_five", "in_helper", "two_arguments", "index_constant",
                 "jit_in_jit", "make_jaxpr", "scan_body", "where_of_constants",
                 "frames_1_operations", "fori_body_argument", "fori_body_argument_eager",
                 "scan_body_argument", "while_cond_argument", "cond_branch_operand",
                 "no_context_jit", "no_context_vmap"]
# a loop body's or a branch's inputs: named by the user's parameters, never offered static
BODY_ARGUMENTS = ["fori_body_argument", "fori_body_argument_eager", "scan_body_argument",
                  "while_cond_argument", "cond_branch_operand"]
EXACT = ["zeros_of_constant"]           # JAX's TypeError, which jxkernel adds nothing to
LEAKS = ["frames_default", "frames_0", "frames_1", "frames_3", "frames_10"]
# jax.checking_leaks: every tracer a leaked one keeps alive through its equations; along a
# chain in JAX's order, where values fan out in its garbage collector's (the same entries)
CHECKED_CHAINS = ["leak_chain", "leak_two_inputs", "leak_constants", "leak_argument",
                  "leak_square"]
CHECKED_FANS = ["leak_diamond", "leak_two_held", "leak_numpy_constant", "leak_where"]


@pytest.mark.parametrize("case", TRACER_ERRORS)
def test_a_tracer_error_says_where_the_value_came_from_in_jaxs_words(case):
    jax_said, said = JAX[case], ours()[case]
    assert said["error"] == jax_said["error"], case
    assert said["lines"] == jax_said["lines"], case


@pytest.mark.parametrize("case", BODY_ARGUMENTS)
def test_a_loop_bodys_input_is_named_and_never_advised_static(case):
    """JAX names the body's parameter the value depends on (recorded), and the message advises
    nothing (static_argnums cannot reach a loop's index or carry, nor a branch's operand; the
    card keeps it traced)."""
    said = ours()[case]["lines"]
    assert said[1].endswith("depends on the value of the argument " +
                            JAX[case]["lines"][1].rsplit(" ", 1)[1])
    assert not any("static" in line for line in said), said


def test_every_body_trace_is_one_whose_inputs_cannot_be_static():
    from jxkernel.core.errors import BODY_TRACES
    from jxkernel.lax._cf_bodies import _JAX_TRACED_FOR
    assert set(_JAX_TRACED_FOR.values()) | {"fori_loop"} == BODY_TRACES


def test_a_value_made_from_constants_lists_the_operations_that_made_it_a_tracer():
    lines = ours()["if_on_constant"]["lines"]
    assert "This value became a tracer due to JAX operations on these lines:" in lines[1]
    assert "  operation a:f32[] = sin 2.0:f32[]" in lines
    # at most 5, then JAX's note
    assert sum(line.startswith("  operation ") for line in ours()["more_than_five"]["lines"]) == 5
    assert JAX["more_than_five"]["lines"][-1] == "(Additional originating lines are not shown.)"
    # made from constants: JAX's lines and no more (no static advice: the card gives advice)
    assert ours()["numpy_constant"]["lines"] == JAX["numpy_constant"]["lines"]


@pytest.mark.parametrize("case", LEAKS)
def test_the_frames_of_a_leaked_value_follow_the_setting(case):
    assert ours()[case] == JAX[case], case


@pytest.mark.parametrize("case", EXACT)
def test_a_shape_error_says_where_the_size_came_from_as_jax_does(case):
    assert ours()[case] == JAX[case], case


@pytest.mark.parametrize("case", CHECKED_CHAINS)
def test_checking_leaks_lists_what_a_leaked_value_keeps_alive(case):
    assert ours()[case] == JAX[case], case


def _entries(said) -> Counter:
    return Counter("\n".join(said["lines"]).split("\n\n"))


@pytest.mark.parametrize("case", CHECKED_FANS)
def test_checking_leaks_lists_the_same_tracers_where_values_fan_out(case):
    assert ours()[case]["error"] == JAX[case]["error"]
    assert _entries(ours()[case]) == _entries(JAX[case]), case
    assert len(_entries(JAX[case])) > 3             # more than the leaked value and x


def test_the_setting_is_read_from_the_environment(monkeypatch):
    assert Config().jax_tracer_error_num_traceback_frames == 5         # JAX's default
    monkeypatch.setenv("JAX_TRACER_ERROR_NUM_TRACEBACK_FRAMES", "2")
    assert Config().jax_tracer_error_num_traceback_frames == 2


def test_the_setting_takes_an_int():
    with pytest.raises(TypeError, match="jax_tracer_error_num_traceback_frames takes an int"):
        jxkernel.config.update("jax_tracer_error_num_traceback_frames", "3")
    assert jxkernel.config.jax_tracer_error_num_traceback_frames == 5


def test_the_card_shows_the_operations_of_a_value_made_from_constants():
    from jxkernel.views.error_cards import card_for, render_html, render_text

    def g(x):
        return x if jnp.sin(2.0) * 3.0 > 0 else -x
    with pytest.raises(jxkernel.errors.TracerBoolConversionError) as caught:
        jxkernel.jit(g)(1.0)
    card = card_for(caught.value)
    assert [s["primitive"] for s in card.origin["steps"]] == ["sin", "mul", "gt"]
    text = render_text(card)
    assert "no argument: made from constants by jnp operations" in text, text
    assert "→ sin → f32[]" in text and "&gt;" not in text
    html = render_html(card)
    assert "jnp.sin(2.0) * 3.0 &gt; 0" in html and "3.0 > 0" not in html   # escaped


def test_a_value_closed_over_from_an_enclosing_trace_is_not_called_a_constant():
    """In a loop body, `x * 2` of the jitted function's x: JAX lists the body's operations
    (x is a constant of the body's jaxpr), but the value depends on an argument after all:
    neither the advice nor the card say it was made from constants."""
    from jxkernel.views.error_cards import card_for, render_text

    def f(x):
        return jxkernel.lax.fori_loop(0, 3, lambda i, c: c + int(x * 2), 0.0)
    with pytest.raises(jxkernel.errors.ConcretizationTypeError) as caught:
        jxkernel.jit(f)(1.0)
    message = str(caught.value)
    assert "This value became a tracer due to JAX operations on these lines:" in message
    assert "  operation a:f32[] = mul b 2.0:f32[]" in message
    assert "It depends on no argument" not in message
    card = card_for(caught.value)
    assert card.origin["steps"] == [] and "made from constants" not in render_text(card)


@pytest.mark.parametrize("module", ["jxkernel.core.tracer_errors.origin",
                                    "jxkernel.core.tracer_errors.leak_graph"])
def test_docstring_examples(module):
    check_docstring_examples(module)
