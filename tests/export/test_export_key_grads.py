"""Gradients through Exported.call with typed PRNG keys among the results, and exports over
Explicit mesh axes called eagerly and under jit, on 8 simulated CPU devices, against JAX's
recorded answers (tests/data/export_key_grads_cases.py,
reference/make_export_key_grads_reference.py).
"""
import pytest
from fresh_process import cases_code, run_against_reference
from numerics import assert_allclose_ulp

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]


@pytest.fixture(scope="module")
def runs():
    return run_against_reference(cases_code("export_key_grads_cases"),
                                 "export_key_grads_reference.json")


@pytest.mark.parametrize("key", ["grad/key_out", "jit_grad/key_out", "vjp/key_out",
                                 "grad/keys_out", "vjp/keys_out", "value_and_grad/keys_out"])
def test_gradients_through_a_call_with_key_results_as_jax(runs, key):
    mine, jax_ = runs
    assert mine[key] == jax_[key]


@pytest.mark.parametrize("name", ["scaled", "summed", "einsum"])
@pytest.mark.parametrize("how", ["eager_in_mesh", "jit_in_mesh", "eager"])
def test_an_export_over_explicit_axes_runs_eagerly_as_jax(runs, name, how):
    mine, jax_ = runs
    (spec, value), (jax_spec, jax_value) = mine[f"explicit/{name}/{how}"], \
        jax_[f"explicit/{name}/{how}"]
    assert spec == jax_spec
    # the same float32 sums and sines on the same CPU, partitioned alike: a few ulps at most
    assert_allclose_ulp(value, jax_value, 4)
