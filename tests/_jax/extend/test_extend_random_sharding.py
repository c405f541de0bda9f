"""jax.extend.random (`define_prng_impl`), jax.extend.sharding (XLA's sharding protos) and
register_lowering's error for an unknown platform, as JAX 0.10.2's (its tests/extend_test.py;
the texts are what the same calls give under .venv-jax)."""
import pytest

import jxkernel as jax
import jxkernel.extend as jex
import jxkernel.numpy as jnp
from jxkernel._jax.interpreters import mlir
from jxkernel._src.lib import xla_client


def _custom_impl(shape):
    def never(*args, **kwargs):
        raise AssertionError("unreachable")
    return jex.random.define_prng_impl(
        key_shape=shape, seed=lambda _: jnp.ones(shape, dtype="uint32"), split=never,
        fold_in=never, random_bits=never)


def test_keys_of_an_implementation_of_ones_own():
    impl = _custom_impl((4, 2, 7))
    key = jax.random.key(42, impl=impl)
    assert key.shape == () and key.dtype == jax.random.key_dtype(impl)
    assert jax.random.key_impl(key) == impl
    assert repr(jax.random.key_impl(key)) == "PRNGSpec('<unnamed>')"
    wrapped = jax.random.wrap_key_data(jnp.ones((3, 4, 2, 7), dtype="uint32"),
                                       dtype=jax.random.key_dtype(impl))
    assert wrapped.shape == (3,) and jax.random.key_impl(wrapped) == impl


def test_builtin_implementations_are_jaxs_names():
    from jxkernel._jax._src.random import prng, rbg, threefry2x32
    assert jex.random.threefry_prng_impl is threefry2x32.threefry_prng_impl
    assert jex.random.threefry2x32_p is threefry2x32.threefry2x32_p
    assert jex.random.rbg_prng_impl is rbg.rbg_prng_impl
    assert jex.random.seed_with_impl is prng.seed_with_impl
    key = jex.random.seed_with_impl(jex.random.threefry_prng_impl, 0)
    assert jax.random.key_data(key).tolist() == jax.random.key_data(jax.random.key(0)).tolist()


def test_hlo_sharding_round_trip_through_its_proto():
    hlo = xla_client.HloSharding.from_proto(xla_client.OpSharding())
    data = jex.sharding.get_serialized_proto_from_hlo_sharding(hlo)
    back = jex.sharding.get_hlo_sharding_from_serialized_proto(data)
    assert isinstance(back, xla_client.HloSharding) and back == hlo


def test_register_lowering_refuses_an_unknown_platform():
    with pytest.raises(NotImplementedError) as info:
        mlir.register_lowering(prim=None, rule=None, platform="this_is_a_fake_platform")
    assert str(info.value) == (
        "Registering an MLIR lowering rule for primitive None for an unknown platform "
        "this_is_a_fake_platform. Known platforms are: cpu, cuda, gpu, oneapi, rocm, tpu.")
