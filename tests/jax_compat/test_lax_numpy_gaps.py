"""What JAX's tests/lax_numpy_test.py checks and jxkernel lacked, against JAX 0.10.2's recorded
answers (tests/data/lax_numpy_gaps_reference.json, made by
reference/make_lax_numpy_gaps_reference.py; under NumPy 2.5 its
lax_numpy_gaps_reference_numpy25.json): `device=` a sharding, arange under a transfer guard,
copies of arrays and tracers, jax_explicit_x64_dtypes, JAX's deprecations by id, masked
arrays refused, jnp.eye's far diagonals, itemsize_bits of the narrow dtypes, shapes, ranges;
and gaps left at stop 68: arguments of the functions JAX jits (its jit's errors), matvec/vecmat
core dimensions, trace's offset, unravel_index of floats, take of int8 indices, warnings of
jnp.array per element, pmax/pmin not differentiable, token results of control flow; and stop
70's: strings given to the reductions JAX runs under private jits, to power and the *_like
functions, a float count to tile, argmax of complex numbers, bincount's weights; jnp's
ufuncs' argument check, made before their jit (jnp.negative(object())); attributes of the
user's own set on an Array; randint's bounds and the samplers' shapes refused in JAX's words.
Each case's value is exact (shapes, dtypes, small integers held in floats) but those computed
in floating point (ROUNDED: their ulp bound; XLA may fuse a multiply-add)."""
import json
import re

import numpy as np
import pytest

import jxkernel as jax
from jxkernel.core import deprecations
from lax_numpy_gaps_cases import (cases, device_sharding_refusals, given_tokens, observe,
                                  text_as_dtype_deliberate, token_made_in_bodies,
                                  token_operator_deliberate)
import locations  # tests/support: the repository's folders
from recorded_answers import families_sorted

# NumPy 2.5 no longer reads 'a' as the dtype |S0: where JAX 0.10.2 named text given as a number
# ("Value 'a' with dtype |S0 is not a valid JAX array type"), it passes on NumPy's TypeError
# ("data type 'a' not understood"). Each NumPy has a recording of its own, JAX's whole answer
# under it (the reference script writes the one for the NumPy it runs on): every case is checked
# against what JAX said there, and a case added later is recorded for both or the test fails.
RECORDINGS = {"2.4": "lax_numpy_gaps_reference.json",
              "2.5": "lax_numpy_gaps_reference_numpy25.json"}


def _recording(numpy_version: str) -> dict:
    newer = np.lib.NumpyVersion(numpy_version) >= "2.5.0"
    return locations.recorded(RECORDINGS["2.5" if newer else "2.4"])


REFERENCE = _recording(np.__version__)
CASES = cases(jax)
# JAX's transfer-guard error is XLA's line alone; jxkernel's adds what to do (and may name the
# whole array where JAX's moved a scalar first): the same class and the same opening
_GUARDED = ("arange_guarded_start_stop", "zeros_guarded")
_GUARD_LINE = "INVALID_ARGUMENT: Disallowed host-to-device transfer: aval=ShapedArray("
# computed in float32: start * (1 - t) + stop * t, and base ** that; mgrid's complex steps
# are linspace's, whose products XLA's CPU contracts into FMAs at its default level
ROUNDED = {"linspace_ranks": 2, "logspace_ranks": 4, "mgrid_mixed_strict": 1}


def _assert_close(got, want, ulps):
    """`got` is `want` but for the float values, within `ulps` units in the last place."""
    if isinstance(want, dict) and "values" in want and want["dtype"].startswith("float"):
        assert {k: got[k] for k in ("dtype", "shape")} == {k: want[k] for k in ("dtype", "shape")}
        np.testing.assert_array_max_ulp(np.array(got["values"], want["dtype"]),
                                        np.array(want["values"], want["dtype"]), maxulp=ulps)
    elif isinstance(want, (list, dict)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in (zip(got, want) if isinstance(want, list) else
                     ((got[k], want[k]) for k in want)):
            _assert_close(g, w, ulps)
    else:
        assert got == want


@pytest.mark.parametrize("numpy_version", ["2.4.6", "2.5.5"])
def test_every_case_is_recorded(numpy_version):
    assert sorted(CASES) == sorted(_recording(numpy_version))


def test_the_numpy_25_recording_differs_where_numpy_no_longer_reads_a_as_a_dtype():
    older, newer = _recording("2.4.6"), _recording("2.5.5")
    differ = {name for name in older if families_sorted(older[name]) !=
              families_sorted(newer[name])}
    assert differ == {name for name in older if name.startswith(("string_", "text_"))
                      and "dtype |S0" in json.dumps(older[name])}
    for name in differ:
        said = newer[name]["raised"]
        assert said == ["TypeError", "data type 'a' not understood"] or \
            said == ["TypeError", "Cannot determine dtype of b'a'"], (name, said)


def _pythons_words_for_setting_a_new_attribute(class_name: str, attribute: str) -> str:
    """Python's own AttributeError for `obj.attribute = ...` on an object without __dict__ (a
    tracer): 3.13 added "and no __dict__ for setting new attributes" to 3.11's words."""
    class Slotted:
        __slots__ = ()
    try:
        Slotted().new = 1
    except AttributeError as e:
        return str(e).replace("'Slotted'", f"'{class_name}'").replace("'new'", f"'{attribute}'")
    raise AssertionError("an object without __dict__ took a new attribute")


def _as_in_this_process(name: str, answer):
    """The recorded `answer` (made on Python 3.11 or 3.12) as JAX gives it in this process, but
    for the order of the accepted dtypes' names (families_sorted: the set's order)."""
    answer = families_sorted(answer)
    if name == "array_own_attribute_jitted":        # JAX 0.10.2 on 3.13.0 said 3.13's words
        assert answer == {"raised": ["AttributeError",
                                     "'DynamicJaxprTracer' object has no attribute 'foo'"]}
        answer = {"raised": ["AttributeError", _pythons_words_for_setting_a_new_attribute(
            "DynamicJaxprTracer", "foo")]}
    return answer


# deliberate differences: JAX 0.10.2 fails inside its own code (an AttributeError)
_TOKENS_MADE_IN_BODIES = sorted(token_made_in_bodies(jax))


_TEXT_AS_DTYPE = sorted(text_as_dtype_deliberate(jax))


_GIVEN_TOKENS = sorted(given_tokens(jax))


@pytest.mark.parametrize("name", sorted(set(CASES) - set(_GUARDED) - set(_TOKENS_MADE_IN_BODIES)
                                        - set(_TEXT_AS_DTYPE) - set(_GIVEN_TOKENS)
                                        - set(token_operator_deliberate(jax))
                                        - set(device_sharding_refusals(jax))))
def test_case_matches_jax(name):
    got = json.loads(json.dumps(observe(CASES[name])))
    want = _as_in_this_process(name, REFERENCE[name])
    if name in ROUNDED:
        _assert_close(got, want, ROUNDED[name])
    else:
        assert families_sorted(got) == want


# JAX names the dtypes a comparison accepts by iterating its set `_int | _float | _bool` (lax.py),
# whose order follows the types' addresses: it changes with the NumPy build and, on some, from
# one process to the next (JAX 0.10.2 on Python 3.12.1 with NumPy 2.5.5: "integer, bool,
# floating" in 4 runs of 10, else "integer, floating, bool"). jxkernel's names them as JAX does
# in the same process: in the order of that set built here
@pytest.mark.parametrize("name", ["argmax_complex", "argmin_complex", "argmax_complex_lowered"])
def test_a_comparisons_accepted_dtypes_are_named_in_the_order_jaxs_set_has_here(name):
    ordered = ", ".join(t.__name__ for t in {np.integer} | {np.floating} | {np.bool_})
    got = observe(CASES[name])["raised"]
    assert got[1].endswith(f"Accepted dtypes at position 0 are subtypes of {ordered}.")
    assert families_sorted(got) == families_sorted(REFERENCE[name]["raised"])


@pytest.mark.parametrize("name", _TOKENS_MADE_IN_BODIES)
def test_a_token_made_in_a_loop_or_branch_is_a_token(name):
    # JAX's eager cond/scan/fori_loop fail on a token their body makes (its internals'
    # AttributeError, 'AbstractToken' object has no attribute 'mat'); jxkernel gives back
    # the Token its jit and JAX's checkpoint give, not the token's carrier array
    assert REFERENCE[name]["raised"] == ["AttributeError",
                                         "'AbstractToken' object has no attribute 'mat'"]
    assert observe(CASES[name]) == {"value": "jax._src.core.Token", "warnings": []}


@pytest.mark.parametrize("name", sorted(n for n in CASES if n.startswith("token_")))
def test_token_results_once_sharding_types_are_in_use(name, monkeypatch):
    """Once any value typed by a mesh's Explicit axes has been made in the process, every
    abstract evaluation types its results (core/sharding_types.py): a token result of jit,
    scan, cond or while is left as a token there (it raised AttributeError: no `update`)."""
    from jxkernel.core import avals
    monkeypatch.setattr(avals, "sharding_types_seen", True)
    got = observe(CASES[name])
    if name in _TOKENS_MADE_IN_BODIES:
        assert got == {"value": "jax._src.core.Token", "warnings": []}
    else:
        assert json.loads(json.dumps(got)) == REFERENCE[name]


@pytest.mark.parametrize("name", _GIVEN_TOKENS)
def test_a_token_given_to_jnp_is_refused_as_jaxs(name):
    # jit(jnp.sin)(token) failed in XLA ('stablehlo.convert' of a !stablehlo.token); eagerly
    # the Token was named where JAX's jit had traced it; lax.sin(token) named dtype bool
    got = json.loads(json.dumps(observe(CASES[name])))
    if "raised" in got:
        got["raised"][1] = got["raised"][1].replace("jxkernel._src.", "jax._src.")
    assert got == REFERENCE[name]


def test_a_token_plus_one_under_jit_is_refused_by_jnp_not_by_an_attribute_error():
    # deliberate: JAX 0.10.2 fails inside its own code ("'AbstractToken' object has no
    # attribute '_add'"); jxkernel's tracer operator reaches jnp.add, whose check names it
    assert REFERENCE["plus_one_of_token_jitted"]["raised"] == [
        "AttributeError", "'AbstractToken' object has no attribute '_add'"]
    assert observe(CASES["plus_one_of_token_jitted"])["raised"] == [
        "TypeError", "add requires ndarray or scalar arguments, got <class "
        "'jxkernel._src.interpreters.partial_eval.DynamicJaxprTracer'> at position 0."]


def test_compiled_out_info_of_a_token_result_asserts_as_jaxs_and_says_why():
    # deliberate: JAX 0.10.2's AssertionError has no words; it gave the token's carrier, a
    # ShapeDtypeStruct bool[0], which no program returns (Lowered's is JAX's AttributeError)
    assert REFERENCE["compiled_out_info_of_token"] == {"raised": ["AssertionError", ""]}
    assert observe(CASES["compiled_out_info_of_token"])["raised"] == [
        "AssertionError", "Compiled.out_info has no ShapeDtypeStruct for a token result "
        "(JAX asserts so); Traced.out_info gives its type"]


@pytest.mark.parametrize("name", sorted(device_sharding_refusals(jax)))
def test_a_devices_sharding_as_out_sharding_is_named_by_its_public_class(name):
    # it was an AttributeError (no `mesh`) in reshard, dot_general, matmul and einsum, and
    # named its class jxkernel.xla.sharding.SingleDeviceSharding where JAX's jax.sharding
    got = observe(CASES[name])
    got["value"] = got["value"].replace("'jxkernel.sharding.", "'jax.sharding.")
    assert got == REFERENCE[name]


@pytest.mark.parametrize("name", _TEXT_AS_DTYPE)
def test_text_naming_a_dtype_is_no_array(name):
    # deliberate: JAX's jnp.asarray reads 'float32' as the dtype and converts the string to it
    # (NumPy's ValueError; asarray('bool') is True); jxkernel refuses it as any other text
    assert REFERENCE[name] in ({"raised": ["ValueError",
                                           "could not convert string to float: 'float32'"]},
                               {"value": {"dtype": "bool", "shape": [], "values": True},
                                "warnings": []})
    text = "float32" if name == "text_dtype_reshape" else "bool"
    assert observe(CASES[name])["raised"] == [
        "TypeError", f"Value '{text}' with dtype <U{len(text)} is not a valid JAX array type. "
        "Only arrays of numeric types are supported by JAX."]


@pytest.mark.parametrize("fun", ["zeros_like", "ones_like", "full_like", "zeros"])
def test_a_devices_sharding_as_out_sharding_is_refused_in_jaxs_words(fun):
    # JAX 0.10.2 (by hand): "`out_sharding` argument of jnp.zeros_like only supports
    # instances of `NamedSharding` or `PartitionSpec`. Got SingleDeviceSharding(...)" (its
    # full_like names itself without "jnp."); it was an AttributeError (no `mesh`)
    jnp = jax.numpy
    sharding = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    call = {"full_like": lambda: jnp.full_like(jnp.ones(2), 1, out_sharding=sharding),
            "zeros": lambda: jnp.zeros(2, out_sharding=sharding)}.get(
        fun, lambda: getattr(jnp, fun)(jnp.ones(2), out_sharding=sharding))
    name = fun if fun == "full_like" else f"jnp.{fun}"
    with pytest.raises(TypeError, match=re.escape(
            f"`out_sharding` argument of {name} only supports instances of `NamedSharding` or "
            f"`PartitionSpec`. Got {sharding!r} of type: ")):
        call()


def test_an_arrays_class_in_pythons_messages_is_jaxs_printed_name():
    # JAX's ArrayImpl is a C type, printed by Python as 'jaxlib._jax.ArrayImpl', its __name__
    # 'ArrayImpl': both as JAX's (the cases compared above with the rest)
    for name in ("array_hashed", "array_called", "array_attribute", "array_divmod_list"):
        assert "'jaxlib._jax.ArrayImpl'" in REFERENCE[name]["raised"][1]
        assert observe(CASES[name])["raised"] == REFERENCE[name]["raised"]
    assert jax.numpy.ones(2).__class__.__name__ == "ArrayImpl"


@pytest.mark.parametrize("name", _GUARDED)
def test_guarded_transfer_raises_as_jax(name):
    got, want = observe(CASES[name])["raised"], REFERENCE[name]["raised"]
    assert got[0] == want[0] == "JaxRuntimeError"
    assert got[1].startswith(_GUARD_LINE) and want[1].startswith(_GUARD_LINE)


def test_an_accelerated_deprecation_raises_jaxs_warning_text():
    (warned,) = REFERENCE["array_positional_copy_true"]["warnings"]
    message = warned.removeprefix("DeprecationWarning: ")
    x = jax.numpy.arange(3)
    with deprecations.accelerated("jax-array-positional-args"):
        with pytest.raises(ValueError) as e:
            jax.numpy.array(x, None, True)
    assert str(e.value) == message
    assert not deprecations.is_accelerated("jax-array-positional-args")
    with pytest.raises(ValueError, match="'jax-no-such-thing' not registered"):
        deprecations.is_accelerated("jax-no-such-thing")


def test_jtu_dot_assertions_read_every_dot_general_staged():
    # test support JAX's file calls (jtu.assert_dot_precision, assert_dot_preferred_element_type)
    from jxkernel._jax._src import test_util as jtu
    jnp, ones = jax.numpy, jax.numpy.ones(3, "int32")
    inner = jax.jit(lambda a, b: jnp.dot(a, b, preferred_element_type="int32"))
    jtu.assert_dot_preferred_element_type("int32", lambda a, b: inner(a, b) + 1, ones, ones)
    with pytest.raises(AssertionError, match="Unexpected preferred_element_type"):
        jtu.assert_dot_preferred_element_type("float32", inner, ones, ones)
    highest = jax.lax.Precision.HIGHEST
    jtu.assert_dot_precision(highest, lambda a: jnp.dot(a, a, precision=highest), ones * 1.0)
    with pytest.raises(AssertionError, match="Unexpected precision"):
        jtu.assert_dot_precision(None, lambda a: jnp.dot(a, a, precision=highest), ones * 1.0)
    assert jtu.is_optimized_build() is True


def test_jtu_compares_object_arrays_as_jaxs_does():
    # jnp.load(allow_pickle=True) of an object array gives one back; JAX's test case compares
    # it (its canonicalize_dtype leaves object as it is)
    from jxkernel._jax._src import test_util as jtu

    class Case(jtu.JaxTestCase):
        def runTest(self):
            pass
    case = Case()
    case.setUp()
    objects = np.array([1.5, None], dtype=object)
    case.assertArraysEqual(objects, objects.copy(), allow_object_dtype=True)
    with pytest.raises(AssertionError):
        case.assertArraysEqual(objects, np.array([1.5, 2.0]), allow_object_dtype=True)
    case.tearDown()
