"""Extended dtypes as a user defines them (an ExtendedDType subclass naming its `_rules`), as
JAX 0.10.2 runs them: convert_element_type to and from one is to_edtype / from_edtype, values
are EArrays made by the rules' result handler, and jit, vmap, grad (the rules' tangent dtype,
zero and add), scan and device_put carry them; inside a program they are their data
(core/physical.py). JAX's answers: tests/data/extended_dtype_reference.json
(reference/make_extended_dtype_reference.py); typed keys are the same mechanism, tested in
tests/random."""
import json
import types

import numpy as np
import pytest
from extended_dtype_cases import make_types, run_cases   # tests/data
from recorded_answers import check_answer

import jxkernel
from jxkernel import lax
from jxkernel._jax._src import core, dtypes, earray
from jxkernel._jax._src.interpreters import pxla
from jxkernel.core.physical import physical_aval
import locations  # tests/support

SRC = types.SimpleNamespace(core=core, dtypes=dtypes, earray=earray, pxla=pxla)

REFERENCE = locations.jax_answers("extended_dtype_reference.json")

RESULTS = {}

# cases where jxkernel's answer is known to differ from JAX's recorded one (none now)
DIFFERENT: dict = {}


def results():
    if not RESULTS:
        RESULTS.update(run_cases(jxkernel, SRC))
    return RESULTS


@pytest.mark.parametrize("case", sorted(REFERENCE))
def test_as_jax(case):
    check_answer(results(), REFERENCE, DIFFERENT, case)


def test_every_case_recorded():
    assert sorted(results()) == sorted(REFERENCE)


def test_eager_grad_accumulates_as_the_jit_does():
    # JAX 0.10.2's eager grad of this case raises (a KeyError: no adder registered for
    # EArray); jxkernel's gives the jit's answer, which JAX recorded
    maxf32, _ = make_types(jxkernel, SRC)
    jnp = jxkernel.numpy
    to_m = lambda x: lax.convert_element_type(x, maxf32)
    from_m = lambda e: lax.convert_element_type(e, np.float32)

    @jxkernel.custom_vjp
    def scaled(x, m):
        return x * from_m(m)
    scaled.defvjp(lambda x, m: (scaled(x, m), (x, m)),
                  lambda res, g: (g * from_m(res[1]), to_m(g * res[0])))

    def two_uses(x, s):
        m = to_m(s)
        return jnp.sum(scaled(x, m) + scaled(x * 3.0, m))
    x = jnp.array([1.0, -2.0, 3.0], np.float32)
    grads = jxkernel.grad(two_uses, (0, 1))(x, jnp.full(3, 2.0, np.float32))
    assert repr([np.asarray(g).tolist() for g in grads]) == \
        REFERENCE["grad_max_accumulates_jit"]


def test_physical_aval_follows_the_element():
    maxf32, pair = make_types(jxkernel, SRC)
    assert str(physical_aval(core.ShapedArray((4, 3), pair))) == "float32[4,3,2]"
    assert str(physical_aval(core.ShapedArray((4,), maxf32))) == "float32[4]"


def test_earray_holds_its_data_and_is_an_array():
    maxf32, _ = make_types(jxkernel, SRC)
    e = lax.convert_element_type(jxkernel.numpy.arange(3.0), maxf32)
    assert isinstance(e, jxkernel.Array) and type(e) is earray.EArray
    assert e.ndim == 1 and e.size == 3 and len(e) == 3
    assert np.asarray(e._data).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(NotImplementedError):
        iter(e)
    assert e.copy()._data is not e._data


def test_a_type_without_result_handler_comes_back_as_an_earray():
    _, pair = make_types(jxkernel, SRC)
    p = jxkernel.jit(lambda d: lax.convert_element_type(d, pair))(
        jxkernel.numpy.zeros((3, 2), np.float32))
    assert type(p) is earray.EArray and str(jxkernel.typeof(p)) == "pair[3]"


def test_from_edtype_transposes_to_to_edtype():
    # JAX 0.10.2 cannot run this one (its from_edtype transpose reads `.dtype` of the
    # undefined primal: AttributeError); the answer follows from the rules: the two
    # cotangents of `e` (2 and 5, each of maxf32) accumulate by max, so every entry is 5
    maxf32, _ = make_types(jxkernel, SRC)
    jnp = jxkernel.numpy

    def two_uses(x):
        e = lax.convert_element_type(x, maxf32)
        # (two conversions back: a float32 value used twice would sum its cotangents first)
        return jnp.sum(lax.convert_element_type(e, np.float32) * 2.0 +
                       lax.convert_element_type(e, np.float32) * 5.0)
    x = jnp.array([1.0, -2.0, 3.0], np.float32)
    for grad in (jxkernel.grad(two_uses), jxkernel.jit(jxkernel.grad(two_uses))):
        assert np.asarray(grad(x)).tolist() == [5.0, 5.0, 5.0]
    jaxpr = str(jxkernel.make_jaxpr(jxkernel.grad(two_uses))(x))
    assert "to_edtype[edtype=maxf32]" in jaxpr and "add_any" in jaxpr


def test_batched_conversions_keep_the_batch_axis_out_of_the_element():
    # vmap over the last axis of a pair's data: the batch axis goes to the front, never
    # among the element's trailing axis
    _, pair = make_types(jxkernel, SRC)
    data = jxkernel.numpy.arange(12.0, dtype=np.float32).reshape(3, 2, 2)
    out = jxkernel.vmap(lambda d: lax.convert_element_type(
        lax.convert_element_type(d, pair), np.float32), in_axes=2)(data)
    assert np.asarray(out).tolist() == np.moveaxis(np.asarray(data), 2, 0).tolist()


def test_docstring_examples():
    from doc_examples import check_docstring_examples
    from jxkernel.core.avals import ShapedArray
    from jxkernel.core.dtypes import ExtendedDType, extended
    names = {"ShapedArray": ShapedArray, "ExtendedDType": ExtendedDType, "extended": extended}
    check_docstring_examples("jxkernel.core.earray", names)
    check_docstring_examples("jxkernel._jax._src.interpreters.pxla")
    check_docstring_examples("jxkernel._jax._src.earray")
