"""JAX's private printing against JAX 0.10.2's recorded answers
(tests/data/private_printing_cases.py, recorded by reference/make_private_printing_reference.py):
a tracer's `_pretty_print(verbose=True)` names JAX's trace (`DynamicJaxprTrace`, `BatchTrace`,
`LinearizeTrace`) and what the tracer holds, and `core.pp_kv_pair` writes a param as JAX's
printer does (a frozenset sorted, an address masked)."""
import functools

import locations  # tests/support: the repository's folders
import pytest
import private_printing_cases as cases

import jxkernel


def _reference() -> dict:
    return locations.recorded("private_printing_reference.json")


@functools.cache
def _ours() -> dict:
    return cases.run(jxkernel)


@pytest.mark.parametrize("part", ["tracers", "kv_pairs"])
def test_matches_jax_exactly(part):
    # printed text: exactness is the contract
    assert _ours()[part] == _reference()[part]
