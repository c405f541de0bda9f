"""A library's own Tracer subclass built by JAX's constructor contract, Tracer.__init__(trace,
aval), as JAX's tests/errors_test.py builds one: its type, repr and the jax.errors messages
made with it, against real JAX 0.10.2 (reference/make_tracer_contract_reference.py)."""

import numpy as np
import pytest

import locations  # tests/support: the repository's folders

import jxkernel as jax
from jxkernel import core
from jxkernel.core.avals import ShapedArray

JAX = locations.jax_answers("tracer_contract_reference.json")


class FakeTracer(core.Tracer):            # errors_test's, verbatim in spirit: no type
    def __init__(self, trace):
        super().__init__(trace, None)


class Typed(core.Tracer):
    pass


def test_a_typed_subclass_has_the_type_it_was_given():
    t = Typed(None, ShapedArray((2, 3), np.dtype("float32")))
    assert (list(t.shape), str(t.dtype), t.ndim) == \
        (JAX["typed"]["shape"], JAX["typed"]["dtype"], JAX["typed"]["ndim"])
    assert str(jax.errors.TracerBoolConversionError(t)) == JAX["typed"]["bool_error"]


def test_repr_of_a_tracer_without_a_type_or_trace():
    assert repr(FakeTracer(None)) == JAX["repr"]


# the messages jxkernel writes exactly as JAX's for such a tracer
@pytest.mark.parametrize("name", ["JAXIndexError", "KeyReuseError", "TracerArrayConversionError",
                                  "TracerBoolConversionError", "TracerIntegerConversionError",
                                  "UnexpectedTracerError"])
def test_error_text_with_a_tracer_without_a_type(name):
    assert str(getattr(jax.errors, name)(FakeTracer(None))) == JAX["errors"][name]


def test_concretization_error_names_the_missing_type_and_its_page():
    # JAX's text has one more blank line before "See" (its own "\n" after an empty origin);
    # the words and the page are the same
    ours = str(jax.errors.ConcretizationTypeError(FakeTracer(None)))
    theirs = JAX["errors"]["ConcretizationTypeError"]
    assert ours.split("\n")[0] == theirs.split("\n")[0]
    assert ours.split("\n")[-1] == theirs.split("\n")[-1]
