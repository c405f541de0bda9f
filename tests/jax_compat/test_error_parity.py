"""Learners' bad calls answered as JAX 0.10.2 answers them, class and whole message (or the
value, where JAX raises nothing): tests/data/error_parity_cases.py, recorded by
reference/make_error_parity_reference.py. Every answer here is exact: texts, shapes and small
integers."""
import pytest

import jxkernel as jax
from api_file_gaps_cases import record
from error_parity_cases import cases
import locations  # tests/support: the repository's folders

REFERENCE = locations.recorded("error_parity_reference.json")
CASES = cases(jax)


def test_every_case_is_recorded():
    assert set(CASES) == set(REFERENCE)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_answer_is_jaxs(name):
    assert record(CASES[name]) == REFERENCE[name]


def test_a_fractional_integer_pow_is_refused_as_jaxs_is():
    """JAX 0.10.2 raises a TypeError for lax.integer_pow(x, 1.5), its words an accident of its
    code ("unsupported operand type(s) for &: 'float' and 'int'"); ours says what is wrong
    (int() dropped the fraction before: x ** 1)."""
    with pytest.raises(TypeError, match="integer exponent y, got 1.5"):
        jax.lax.integer_pow(jax.numpy.arange(3.0), 1.5)


@pytest.mark.parametrize("sample", [
    lambda k: jax.random.normal(k, (-1,)), lambda k: jax.random.uniform(k, (2, -3)),
    lambda k: jax.random.bits(k, (-2,))])
def test_a_negative_sample_shape_is_refused_before_it_compiles(sample):
    """JAX 0.10.2 gives its lowering the negative size and fails compiling (jaxlib's
    MLIRError "Invalid type"); we refuse it first, in the words JAX's randint and bernoulli
    use (their cases above), where it let XLA's parser error through."""
    with pytest.raises(TypeError, match="^Only non-negative indices are allowed when "
                                        "broadcasting static shapes, but got shape"):
        sample(jax.random.key(0))
