"""Learners' bad calls answered as JAX 0.10.2 answers them, class and whole message (or the
value, where JAX raises nothing): tests/data/error_parity_cases.py, recorded by
reference/make_error_parity_reference.py. Every answer here is exact: texts, shapes and small
integers."""
import numpy as np
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


@pytest.mark.parametrize("call", [
    lambda f, x: jax.jvp(f, (x,), (x,), has_aux=True),
    lambda f, x: jax.jacfwd(f, has_aux=True)(x)])
def test_jvps_aux_refusal_names_jaxs_tracer_class(call):
    """JAX 0.10.2's jvp and jacfwd unpack has_aux's output as Python does, with no check of
    their own (run under .venv-jax: an array of the jvp's tracers raises
    UnexpectedTracerError, three values "too many values to unpack (expected 2)", a 0-d one
    "iteration over a 0-d array"); jxkernel refuses it in the words JAX's grad, vjp and
    linearize use (cases above), naming the tracer's class as JAX's messages print it (it
    named jxkernel.transforms.ad.JVPTracer)."""
    with pytest.raises(TypeError, match=r"^expected function with aux output to return a "
                       r"two-element tuple, but got type <class "
                       r"'jax\._src\.interpreters\.ad\.JVPTracer'> with value JVPTracer\("):
        call(lambda v: v * 2, jax.numpy.ones(2))


def test_device_put_to_host_memory_puts_it_there():
    """JAX 0.10.2 puts an array in host memory for jax.memory.Space.Host (memory kind
    'pinned_host', its type `f32<host>[2]`), and so does jxkernel since memory kinds (it
    refused before; every placement against JAX's: tests/sharding/test_memory_kinds.py)."""
    put = jax.device_put(np.ones(2, np.float32), jax.memory.Space.Host)
    assert put.sharding.memory_kind == "pinned_host" and str(jax.typeof(put)) == \
        "float32<host>[2]"
