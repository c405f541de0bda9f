"""Typed PRNG keys against JAX 0.10.2: a key is a jax.Array of dtype key<fry> and a pytree
leaf, traced as one value.

tests/data/typed_keys_cases.py ran with real JAX on the CPU (reference/
make_typed_keys_reference.py wrote tests/data/typed_keys_reference.json) and runs here with
jxkernel: tree leaves and structure, shapes, dtypes and exact key data after jnp and lax shape
operations, keys through jit, vmap, grad, scan, while, cond and eval_shape, the jaxpr text of
learner programs with keys, and the errors. Every case compares exactly (key data and bits are
integers; the few floats are threefry's uniform and normal, recorded as bit patterns, which
jxkernel computes with the same operations), except those in DIFFERENT, which say why (none
today).
"""
import json

import pytest
from recorded_answers import check_answer

import jxkernel
import typed_keys_cases
import locations  # tests/support

THEIRS = locations.jax_answers("typed_keys_reference.json")

# Cases jxkernel answers otherwise today, and why. Each is checked to still differ (strict
# xfail), so that a fix shows up and its line goes.
DIFFERENT: dict = {}


@pytest.fixture(scope="module")
def mine():
    return typed_keys_cases.run(jxkernel)


def test_the_same_cases(mine):
    assert sorted(mine) == sorted(THEIRS)


@pytest.mark.parametrize("case", sorted(THEIRS))
def test_as_jax_answers(mine, case):
    check_answer(mine, THEIRS, DIFFERENT, case)


def test_astype_of_keys_as_jax():
    # JAX 0.10.2 (run by hand): a key converts to its own dtype as it is (optax's gradient
    # accumulation does jnp.astype(jnp.where(emit, new, old), old.dtype) on a state with keys),
    # and to any other dtype with convert_element_type's error
    import jxkernel.numpy as jnp
    jax = jxkernel
    k = jax.random.key(0)
    same = jnp.astype(k, k.dtype)
    assert same.dtype == k.dtype and bool(same == k)
    assert jax.jit(lambda k: jnp.astype(jnp.where(True, k, k), k.dtype))(k).dtype == k.dtype
    with pytest.raises(ValueError, match=r"^Cannot convert_element_type from key<fry> to "
                                         r"float32$"):
        jnp.astype(k, jnp.float32)


def test_keys_refuse_arithmetic_and_numpy_as_jax():
    # JAX 0.10.2's TypeErrors (run by hand); under jit `k + 1` crashed with a KeyError in
    # dtype promotion here before
    import numpy as np
    import jxkernel.numpy as jnp
    jax = jxkernel
    k = jax.random.key(0)
    with pytest.raises(TypeError, match=r"^add does not accept dtypes key<fry>, int32\.$"):
        jax.jit(lambda k: k + 1)(k)
    with pytest.raises(TypeError, match=r"^multiply does not accept dtypes key<fry>, "
                                         r"float32\.$"):
        jax.jit(lambda k: k * 2.0)(k)
    with pytest.raises(TypeError, match=r"^add does not accept dtypes key<fry>, int32\.$"):
        jnp.add(k, 1)
    with pytest.raises(TypeError, match=r"^JAX array with PRNGKey dtype cannot be converted "
                                         r"to a NumPy array\. Use jax\.random\.key_data"):
        np.asarray(k)
