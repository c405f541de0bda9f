"""Typed PRNG keys through jax.export and Exported.call, against JAX 0.10.2's answers
(tests/data/export_keys_cases.py, recorded by reference/make_export_keys_reference.py): each of
threefry2x32, rbg and unsafe_rbg exported and called eagerly and under jit (twice in one
program), the exported `main` typed over the keys' data, a key split under jit(in_shardings=,
out_shardings=) on a mesh of one device (JAX's test_export_typed_prng_key), and a key of
another implementation or raw data refused with JAX's errors. jxkernel's own serialization
keeps the key types (as JAX's format does since its version 4; JAX's side is not recorded:
its venv lacks flatbuffers), checked against the recorded answers of the unserialized call. Every value is exact (key data
and random bits are integers; avals, types and messages are text)."""

import pytest

import jxkernel
import export_keys_cases as cases  # tests/data
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("export_keys_reference.json")["cases"]


@pytest.fixture(scope="module")
def mine():
    return cases.run(jxkernel)


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_case_matches_jax(mine, name):
    assert mine[name] == REFERENCE[name]


def test_every_implementation_recorded():
    for impl in cases.IMPLS:
        assert {f"identity {impl}", f"split {impl}", f"jit twice {impl}"} <= set(REFERENCE)


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
@pytest.mark.parametrize("impl", cases.IMPLS)
def test_serialized_export_keeps_the_key_type(impl):
    key = jxkernel.random.key(42, impl=impl)
    exp = jxkernel.export.export(jxkernel.jit(lambda k: k))(key)
    loaded = jxkernel.export.deserialize(exp.serialize())
    ref = REFERENCE[f"identity {impl}"]
    assert [str(a) for a in loaded.in_avals] == ref["in_avals"]
    assert [str(a) for a in loaded.out_avals] == ref["out_avals"]
    assert jxkernel.random.key_data(loaded.call(key)).tolist() == ref["result_data"]
