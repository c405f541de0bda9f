"""Errors in JAX 0.10.2's whole words (tests/data/jax_error_texts_cases.py, recorded by
reference/make_jax_error_texts_reference.py): a traced `if` (no advice of ours after JAX's),
an unhashable static argument (no argument named, no advice), Python's own TypeErrors on an
array (its class printed 'jaxlib._jax.ArrayImpl'), multigammaln's and bernoulli's traced
count, an FFI target no handler is registered for (jaxlib's JaxRuntimeError). What jxkernel
adds for a learner is the notebook card's (tests/notebook/test_notebook_error_cards.py)."""
import re

import pytest

import jxkernel
import jax_error_texts_cases as cases        # tests/data, on pytest's pythonpath
import locations  # tests/support: the repository's folders

RECORDED = locations.jax_answers("jax_error_texts_reference.json")["cases"]
_OURS: dict = {}


def ours(case):
    if not _OURS:
        _OURS.update(cases.run(jxkernel, cases.CASES))
    return _OURS[case]


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted({**cases.CASES, **cases.NAMED, **cases.MADE_INTO_ARRAYS,
                                       **cases.FFI})


@pytest.mark.parametrize("case", sorted(cases.NAMED))
def test_a_class_is_named_by_its_public_name(case):
    """A ShapeDtypeStruct where an array goes: JAX prints `<class 'jax.ShapeDtypeStruct'>`
    (its public name), jxkernel `<class 'jxkernel.ShapeDtypeStruct'>` (it printed its
    internal module's path, jxkernel.core.avals)."""
    from surface_gaps_cases import as_jxkernel            # tests/data
    assert cases.run(jxkernel, {case: cases.NAMED[case]})[case] == as_jxkernel(RECORDED[case])


@pytest.mark.parametrize("case", sorted(cases.CASES))
def test_the_error_is_jax_s(case):
    assert ours(case) == RECORDED[case]


@pytest.mark.parametrize("case", sorted(cases.MADE_INTO_ARRAYS))
def test_data_of_no_jax_type_is_refused_in_jax_s_words_for_its_dtype(case):
    """JAX's TypeError, its class; its text names JAX's internal `stage`, so jxkernel's says
    what JAX's result_type says of the same value: "Value '...' with dtype datetime64[D] is not
    a valid JAX array type" (not "not supported by jxkernel", as if JAX had such arrays)."""
    found = cases.run(jxkernel, {case: cases.MADE_INTO_ARRAYS[case]})[case]
    assert found["error"] == RECORDED[case]["error"] == "TypeError"
    assert "stage" in RECORDED[case]["message"]
    assert re.fullmatch(r"Value '.*' with dtype \S+ is not a valid JAX array type\. Only "
                        r"arrays of numeric types are supported by JAX\.", found["message"],
                        re.S), found["message"]


@pytest.mark.xla_only("XLA compiler")    # foreign functions are XLA's custom calls
@pytest.mark.parametrize("case", sorted(cases.FFI))
def test_an_unknown_ffi_target_is_jaxlib_s_runtime_error(case):
    """jaxlib's JaxRuntimeError as it is (jax.errors.JaxRuntimeError), not a CompileError
    whose text adds "XLA could not compile the module"."""
    assert cases.run(jxkernel, {case: cases.FFI[case]})[case] == RECORDED[case]
    with pytest.raises(jxkernel.errors.JaxRuntimeError):
        jxkernel.block_until_ready(eval(cases.FFI[case], {
            "jax": jxkernel, "x": jxkernel.numpy.ones(2),
            "S": jxkernel.ShapeDtypeStruct((2,), jxkernel.numpy.float32)}))


def test_an_arrays_class_is_named_arrayimpl_and_printed_as_jaxlibs():
    """Python prints the class by its C-level name, JAX's `jaxlib._jax.ArrayImpl`; its
    __name__, __qualname__ and repr stay jxkernel's ArrayImpl (user code checks the name)."""
    import collections.abc
    import pickle
    x = jxkernel.numpy.ones(2)
    assert (type(x).__name__, type(x).__qualname__) == ("ArrayImpl", "ArrayImpl")
    assert repr(type(x)) == "<class 'jxkernel.xla.array.ArrayImpl'>"
    assert not isinstance(x, collections.abc.Hashable)
    assert type(pickle.loads(pickle.dumps(x))) is type(x)


def test_a_jitted_functions_class_is_named_pjitfunction_and_printed_as_jaxlibs():
    """JAX's jitted function is jaxlib's C type `jaxlib._jax.PjitFunction`, the name its
    messages print (the cases "jitted_*" above); its __name__ and __qualname__ stay
    PjitFunction (libraries tell a jitted function by that name: Chex)."""
    kind = type(jxkernel.jit(abs))
    assert kind.__name__ == kind.__qualname__ == "PjitFunction"
    with pytest.raises(TypeError, match="not 'jaxlib._jax.PjitFunction'"):
        float(jxkernel.jit(abs))
