"""Typed PRNG key arrays (jax.random.key) used where JAX lets arrays go: jax.typeof,
jnp.asarray/array (keys stay keys), .copy(), jnp.broadcast_to, and jnp.equal/not_equal/
array_equal and == broadcasting, eagerly and under jit (libraries such as Flax NNX's Rngs
handle keys this way)."""
import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp


def _bits(k):
    return np.asarray(jax.random.key_data(k)).tolist()


def test_asarray_copy_and_broadcast_keep_keys():
    k = jax.random.key(3)
    assert jnp.asarray(k) is k and _bits(jnp.array(k)) == _bits(k)
    assert jnp.array(k).dtype == k.dtype and _bits(k.copy()) == _bits(k)
    b = jnp.broadcast_to(k, (2, 3))
    assert b.shape == (2, 3) and jax.typeof(b).str_short() == "key<fry>[2,3]"
    assert _bits(b) == [[_bits(k)] * 3] * 2
    jitted = jax.jit(lambda key: jnp.broadcast_to(jnp.asarray(key), (2,)).copy())(k)
    assert _bits(jitted) == [_bits(k)] * 2
    with pytest.raises(ValueError, match="Cannot convert_element_type from key<fry> to uint32"):
        jnp.array(k, dtype=jnp.uint32)


def test_key_equality_broadcasts():
    k = jax.random.key(0)
    keys = jax.random.split(k, 3)
    assert bool(jnp.array_equal(k, k)) and not bool(jnp.array_equal(k, keys[0]))
    assert np.asarray(jnp.equal(keys, keys[1])).tolist() == [False, True, False]
    assert np.asarray(jnp.not_equal(keys, keys[1])).tolist() == [True, False, True]
    assert np.asarray(jax.jit(lambda a, b: a == b)(keys, keys[2])).tolist() == \
        [False, False, True]


def test_at_set_and_get_on_key_arrays():
    keys = jax.random.split(jax.random.key(0), 3)
    new = jax.random.key(7)
    updated = jax.jit(lambda ks, k, i: ks.at[i].set(k))(keys, new, 1)
    assert _bits(updated) == [_bits(keys[0]), _bits(new), _bits(keys[2])]
    assert _bits(keys.at[2].get()) == _bits(keys[2])
    assert _bits(keys.at[...].set(new)) == [_bits(new)] * 3
    with pytest.raises(TypeError, match="wrap_key_data"):
        keys.at[0].set(jnp.zeros(2, jnp.uint32))


def test_iterating_keys_eagerly_compiles_nothing_and_matches_indexing():
    # `key, *subkeys = split(key, n)`, the random-numbers guide's idiom: eagerly the rows come
    # from one host read of the key data, not a compiled slice per row (issue 38); under jit
    # the rows are staged as slices, as indexing stages them.
    from jxkernel.xla import compiler as xla_compiler
    keys = jax.random.split(jax.random.key(11), 7)
    seen, inner = [], xla_compiler.backend_compile_and_load

    def counting(*args, **kwargs):
        seen.append(1)
        return inner(*args, **kwargs)
    xla_compiler.backend_compile_and_load = counting
    try:
        rows = list(keys)
    finally:
        xla_compiler.backend_compile_and_load = inner
    assert seen == [] and len(rows) == 7
    assert all(r.dtype == keys.dtype and r.shape == () for r in rows)
    assert [_bits(r) for r in rows] == _bits(keys)
    first, *rest = jax.jit(lambda k: tuple(k))(keys)
    assert _bits(first) == _bits(keys[0]) and [_bits(r) for r in rest] == _bits(keys)[1:]
    with pytest.raises(TypeError, match="0-d key array"):
        iter(jax.random.key(0))


def test_a_weak_typed_seed_array_under_jit_is_seeded_as_eagerly():
    """`jax.random.key(jnp.asarray(0))` inside jit: the seed is a weak-typed constant the
    jaxpr holds as a literal, which the key's physical rule got as the Literal object
    (Optax's inject_hyperparams(noisy_sgd)(key=0) failed in jit). Its bits are the eager
    key's, split included (PRNG bits: exact)."""
    eager = jax.random.key(0)
    made = jax.jit(lambda p: jax.random.key(jnp.asarray(0)))(1.0)
    assert np.array_equal(jax.random.key_data(made), jax.random.key_data(eager))
    split = jax.jit(lambda p: jax.random.split(jax.random.key(jnp.asarray(0))))
    assert np.array_equal(jax.random.key_data(split(1.0)),
                          jax.random.key_data(jax.random.split(eager)))


def test_a_key_does_not_promote_with_a_number():
    # JAX 0.10.2 (checked by hand): jnp.array([key, 1.0]) and jnp.result_type(key, 1.0) raise
    # ValueError "dtype=key<fry> is not a valid dtype for JAX type promotion." (a KeyError here)
    k = jax.random.key(0)
    message = r"^dtype=key<fry> is not a valid dtype for JAX type promotion\.$"
    with pytest.raises(ValueError, match=message):
        jnp.array([k, 1.0])
    with pytest.raises(ValueError, match=message):
        jnp.result_type(k, 1.0)


def test_unstack_and_stack_of_keys_keep_each_key():
    # jnp.unstack binds lax's unstack primitive, which a key array reaches through its
    # physical rule (pmap_test's test_typed_prng_key_sharded: "unstack does not accept dtype
    # key<fry>"); each piece is the key at its index, eagerly and under jit
    keys = jax.random.split(jax.random.key(0), 3)
    data = jax.random.key_data(keys)
    for pieces in (jnp.unstack(keys), jax.jit(jnp.unstack)(keys)):
        assert len(pieces) == 3
        for i, piece in enumerate(pieces):
            assert piece.dtype == keys.dtype and piece.shape == ()
            np.testing.assert_array_equal(jax.random.key_data(piece), data[i])
    back = jax.jit(jnp.stack)(jnp.unstack(keys))
    np.testing.assert_array_equal(jax.random.key_data(back), data)
