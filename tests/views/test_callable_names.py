"""The name of a jitted callable that is not a plain function (an object with __call__, a
partial, a bound method, a builtin) in each place JAX 0.10.2 writes it: the
jax_explain_cache_misses log ("<unknown>" for an object), the compile log, the jaxpr and the
lowered module ("<unnamed function>", api_util.fun_name's default), the jit's __name__.
Recorded by reference/make_callable_names_reference.py in callable_names_reference.json."""

import pytest

import jxkernel
from callable_names_cases import CASES, JNP_CASES, jnp_compiles, run   # tests/data
import locations  # tests/support: the repository's folders

RECORDED = locations.jax_answers("callable_names_reference.json")
JAX = RECORDED["cases"]


@pytest.fixture(scope="module")
def ours():
    return run(jxkernel)


@pytest.mark.xla_only("XLA text")     # the lowered module's name
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_jitted_callable_is_named_as_jax_names_it(ours, case):
    assert ours[case] == JAX[case]


@pytest.fixture(scope="module")
def our_jnp_compiles():
    return jnp_compiles(jxkernel)


@pytest.mark.parametrize("case", sorted(JNP_CASES))
def test_a_jnp_functions_jit_is_named_in_the_compile_log_as_jaxs(our_jnp_compiles, case):
    """jnp.argmax's compile is "jit(_argmax)", JAX's private jit (it was "jit(argmax)"), as
    sum's is "jit(_reduce_sum)"."""
    assert our_jnp_compiles[case] == RECORDED["jnp_compiles"][case]
