"""Errors about static arguments against JAX 0.10.2's (tests/data/static_hints_reference.json,
recorded by reference/make_static_hints_reference.py from tests/data/static_hints_cases.py):
an unhashable static argument's ValueError is JAX's text (an Array's type written as JAX's
`jaxlib._jax.ArrayImpl`), with jxkernel's naming of the argument and advice; a traced value used
as a Python one is JAX's text, with a hint whose advice can work: static is offered only where
the same run with the argument static works, and "cannot be static" said only where it fails."""
import json
import re
from pathlib import Path

import pytest

import jxkernel

import static_hints_cases as cases   # tests/data, on pytest's pythonpath

RECORDED = json.loads((Path(__file__).parents[1] / "data" /
                       "static_hints_reference.json").read_text())["cases"]
OURS = {}
# jxkernel's words inside JAX's sentence: the argument and its function
NAMED = re.compile(r", passed as static argument '\w+' of \w+(?=\. The error was:)")


def ours(name):
    if not OURS:
        OURS.update(cases.run(jxkernel))
        for fact in OURS.values():
            fact["text"] = fact["text"].replace(cases.__file__, "<cases>")
    return OURS[name]


UNHASHABLE = sorted(n for n, f in RECORDED.items() if f["error"] == "ValueError")
TRACED = sorted(cases.TRACED)


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted(UNHASHABLE + TRACED)


@pytest.mark.parametrize("name", UNHASHABLE)
def test_an_unhashable_static_argument_is_jaxs_error(name):
    """JAX's whole text (its last line "TypeError: unhashable type: ...", then a newline), the
    argument named in its sentence (jit's, not make_jaxpr's, which names none), then advice."""
    said, jax_said = ours(name), RECORDED[name]
    assert said["error"] == jax_said["error"] == "ValueError"
    text = NAMED.sub("", said["text"])
    assert text.startswith(jax_said["text"]), (text, jax_said["text"])
    advice = text[len(jax_said["text"]):]
    assert (advice == "") == name.startswith("make_jaxpr"), advice
    assert (NAMED.search(said["text"]) is None) == name.startswith("make_jaxpr")


def test_an_arrays_type_reads_as_jaxs():
    assert "<class 'jaxlib._jax.ArrayImpl'>" in ours("array")["text"]
    assert "TypeError: unhashable type: 'jaxlib._jax.ArrayImpl'\n" in ours("array")["text"]
    assert "jxkernel" not in ours("array_by_name")["text"]


def _split(text):
    """(JAX's lines before the link, jxkernel's hint lines, the link line)."""
    lines = text.split("\n")
    return lines[:-1], lines[-1]


@pytest.mark.parametrize("name", TRACED)
def test_a_traced_value_used_as_a_python_one_is_jaxs_error_and_a_hint(name):
    """JAX's lines, in order, up to its link; jxkernel's hint between (in the blank line JAX
    leaves before a ConcretizationTypeError's link); the link last."""
    said, jax_said = ours(name), RECORDED[name]
    assert said["error"] == jax_said["error"]
    mine, link = _split(said["text"])
    theirs, their_link = _split(jax_said["text"])
    assert link == their_link
    theirs = [line for line in theirs if line]         # (the blank line the hint fills)
    assert mine[:len(theirs)] == theirs, (mine, theirs)
    assert mine[len(theirs):], "no hint"


OFFERS_STATIC = re.compile(r"mark (it|the argument) static")


@pytest.mark.parametrize("name", TRACED)
def test_the_hint_offers_static_only_where_it_works(name):
    """Advice to mark the argument static where JAX's run with it static works; "cannot be
    static" only where that run fails (an Array, a value grad or an outer jit traces)."""
    works = RECORDED[name]["static_works"]
    assert ours(name)["static_works"] == works
    hint = "\n".join(_split(ours(name)["text"])[0][len(
        [line for line in _split(RECORDED[name]["text"])[0] if line]):])
    if OFFERS_STATIC.search(hint):
        assert works, hint
    if "cannot be static" in hint:
        assert not works, hint
