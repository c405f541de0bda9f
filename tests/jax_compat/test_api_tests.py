"""What JAX's own api_test.py and custom_api_test.py found missing or different, against JAX
0.10.2's recorded answers (tests/data/api_tests_cases.py, recorded by
reference/make_api_tests_reference.py): custom_jvp/custom_vjp's error words and
nondiff_argnames, vmap of a custom_jvp closing over a batched value, jax_explicit_x64_dtypes,
config's enums, eval_jaxpr_p and jax._src.test_util's compile counters."""
import warnings

import pytest

import jxkernel as jax
from jxkernel._jax._src import config
from jxkernel._jax._src import test_util as jtu
from jxkernel._jax._src.lax.eval_jaxpr import eval_jaxpr_p
from api_tests_cases import errors, private, record, values
import locations  # tests/support: the repository's folders

REFERENCE = locations.recorded("api_tests_reference.json")

CASES = {**errors(jax), **values(jax), **private(jax, jtu, config, eval_jaxpr_p)}


def test_every_case_is_recorded():
    assert set(CASES) == set(REFERENCE)


@pytest.mark.parametrize("name", [
    # XLA's compile options, and its error for an unknown one
    pytest.param(n, marks=pytest.mark.xla_only("XLA compiler"))
    if n == "jit_build_compiler_options" else n for n in sorted(CASES)])
def test_case_answers_as_jax(name):
    # values: float32 results of a few exact operations (x**3, 3*x**2 at small integers, the
    # products of small integers), exact in both; errors: the class and the whole message
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert record(CASES[name]) == REFERENCE[name]


def test_explicit_x64_dtypes_warns_by_default():
    with pytest.warns(UserWarning, match="Explicitly requested dtype float64"):
        jax.numpy.ones(2, dtype="float64")
