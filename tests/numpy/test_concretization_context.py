"""Where a traced value reached a jnp argument that must be concrete, JAX's
ConcretizationTypeError says so on its second line, each function in its own words ("M
argument of jnp.hanning", "It arose in the jnp.arange argument 'stop'", "The error occurred
because of argument 'length' of jnp.bincount."): tests/data/concretization_context_cases.py,
recorded by reference/make_concretization_context_reference.py."""
import json
from pathlib import Path

import pytest

import jxkernel

import concretization_context_cases as cases   # tests/data, on pytest's pythonpath

RECORDED = json.loads((Path(__file__).parents[1] / "data" /
                       "concretization_context_reference.json").read_text())["cases"]
_OURS: dict = {}


def ours(name):
    if not _OURS:
        _OURS.update((k, v.replace(cases.__file__, "<cases>"))
                     for k, v in cases.run(jxkernel).items())
    return _OURS[name]


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted(cases.CASES)


# core/errors.py (not explain14's) still writes a line of advice where JAX's message has a
# blank line: the change is in explain14's report; then these pass, and the marks go
_ADVICE = {name for name, text in RECORDED.items()
           if text.startswith("ConcretizationTypeError: ")}


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(
        strict=True, reason="core/errors.py's own line (explain14's report)"))
    if name in _ADVICE else name for name in sorted(cases.CASES)])
def test_the_error_is_jax_s_whole_text(name):
    """JAX's class and whole text; a jnp function JAX jits with the argument static fails
    on hashing the tracer, in JAX's words too."""
    assert ours(name) == RECORDED[name]


@pytest.mark.parametrize("name", sorted(_ADVICE))
def test_the_error_says_where_it_arose_as_jax_does(name):
    """Until core/errors.py's change: JAX's lines but the one before the link (the tracer,
    where it arose, which argument it depends on), and the link."""
    theirs, mine = RECORDED[name].split("\n"), ours(name).split("\n")
    assert mine[:-2] + mine[-1:] == theirs[:-2] + theirs[-1:], (mine, theirs)
