"""The rbg and unsafe_rbg PRNG implementations against JAX 0.10.2 (issue 46).

tests/data/rbg_cases.py ran with real JAX on the CPU (reference/make_rbg_reference.py wrote
tests/data/rbg_reference.json) and runs here with jxkernel: keys from seeds, split, fold_in,
bits of every width, uniform, normal, the integer and discrete samplers and gamma, under jit
and vmap, with the default implementation set, and JAX's errors. Keys, bits, integers and
uniform floats compare bit for bit (the bits are XLA's RngBitGenerator on the CPU, Philox);
floats through transcendental functions within rbg_cases.FLOAT_BOUNDS ulps.
"""
import json

import pytest

import jxkernel
import jxkernel.random as r
import rbg_cases
from doc_examples import check_docstring_examples
from numerics import assert_bits_close
import locations  # tests/support

THEIRS = locations.jax_answers("rbg_reference.json")


@pytest.fixture(scope="module")
def mine():
    return rbg_cases.run(jxkernel)


def test_the_same_cases(mine):
    assert sorted(mine) == sorted(THEIRS)


def _bound(case):
    return next((ulps for name, ulps in rbg_cases.FLOAT_BOUNDS.items()
                 if case.endswith(f" {name}")), None)


@pytest.mark.parametrize("case", sorted(THEIRS))
def test_as_jax_answers(mine, case):
    assert_bits_close(mine[case], THEIRS[case], _bound(case), err_msg=case)


def test_the_bounded_cases_are_floats():
    bounded = [c for c in THEIRS if _bound(c) is not None]
    assert bounded and all(THEIRS[c]["dtype"].startswith("float") for c in bounded)


def test_keys_keep_their_implementation_through_transforms():
    k = r.key(5, impl="unsafe_rbg")
    ks = r.split(k, 4)
    assert ks.dtype == r.key_dtype("unsafe_rbg") and ks.shape == (4,)
    assert ks[1].dtype == k.dtype and next(iter(ks)).dtype == k.dtype
    assert jxkernel.jit(lambda k: k)(k).dtype == k.dtype
    out = jxkernel.vmap(lambda k: r.split(k))(ks)
    assert out.dtype == k.dtype and out.shape == (4, 2)
    assert r.key_data(ks.at[0].set(k)).shape == (4, 4)
    with pytest.raises(TypeError, match="keys of dtype key<urbg>, got key<fry>"):
        ks.at[0].set(r.key(0))


def test_the_default_implementation_is_read_at_trace_time_as_in_jax():
    """jax_default_prng_impl is not in JAX 0.10.2's trace context: a jitted function traced
    before keeps its threefry key under default_prng_impl("rbg") (JAX: (2,), (2,), (2,)),
    and one first traced inside makes rbg keys ((4,)); recompile_cases.py's
    "trace_context_default_prng_impl*" record JAX's log of it."""
    f = jxkernel.jit(lambda s: r.key_data(r.key(s)))
    assert f(1).shape == (2,)
    with jxkernel.default_prng_impl("rbg"):
        assert f(1).shape == (2,)
        assert jxkernel.jit(lambda s: r.key_data(r.key(s)))(1).shape == (4,)
    assert f(1).shape == (2,)


def test_an_implementation_named_by_a_wrong_type():
    with pytest.raises(TypeError, match="unrecognized type"):
        r.key(0, impl=3)


def test_docstring_examples():
    check_docstring_examples("jxkernel.random.rbg")
