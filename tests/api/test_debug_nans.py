"""jax_debug_nans / jax_debug_infs (and the jax.debug_nans / jax.debug_infs contexts): eager
operations raise FloatingPointError naming the primitive; a jitted function with an invalid
output is rerun op by op so the operation that made it is named, as JAX 0.10.2 does."""
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp


@jax.jit
def halved_root(x):
    return jnp.sqrt(x) / 2


def test_off_by_default_and_nans_pass_through():
    assert not jax.debug_nans.value and not jax.debug_infs.value
    assert jnp.isnan(halved_root(-1.0))


def test_eager_operation_is_named():
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in log"):
            jnp.log(-1.0)
        assert float(jnp.log(1.0)) == 0.0
    with jax.debug_infs(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered in mul"):
            jnp.ones(2) * 1e39


def test_jit_reruns_op_by_op_to_name_the_operation(capsys):
    assert float(halved_root(4.0)) == 1.0          # its fast path is warm before the flag is set
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in sqrt"):
            halved_root(-1.0)
        assert "Invalid nan value encountered in the output of a jax.jit function" in \
            capsys.readouterr().out
        assert float(halved_root(4.0)) == 1.0
    assert jnp.isnan(halved_root(-1.0))             # and off again


# JAX 0.10.2's message, word for word, when the op-by-op rerun finds no invalid value (its
# opening is the repr of its internal error's (name, kind) pair); jxkernel leaves out only
# JAX's last line, which asks for a bug report at JAX's own repository
_NONE_FOUND = ("('jit(<lambda>)', 'inf'). Because jax_config.debug_nans.value and/or "
               "config.jax_debug_infs is set, the de-optimized function (i.e., the function as "
               "if the `jit` decorator were removed) was called in an attempt to get a more "
               "precise error message. However, the de-optimized function did not produce "
               "invalid values during its execution. This behavior can result from `jit` "
               "optimizations causing the invalid value to be produced. It may also arise from "
               "having nan/inf literals as inputs or outputs, like `jax.jit(lambda ...: "
               "jax.numpy.nan)(...)`. \n\nIt may be possible to avoid the invalid value by "
               "removing the `jit` decorator, at the cost of losing optimizations.")


def test_invalid_value_only_under_jit_gets_jaxs_general_message():
    with jax.debug_infs(True):
        with pytest.raises(FloatingPointError) as raised:
            jax.jit(lambda x: x * jnp.inf)(1.0)     # an inf literal: no operation makes it
    assert str(raised.value) == _NONE_FOUND
    assert jax.config.jax_debug_infs is False


@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e4m3fn", "float8_e4m3fnuz",
                                   "float8_e5m2"])
@pytest.mark.parametrize("device", ["default", "numpy"])
def test_nans_of_ml_dtypes_floats_are_caught(dtype, device):
    """NumPy kind 'V' (all of these but float8_e5m2, 'f' under ml_dtypes 0.7): JAX 0.10.2
    raises for 0/0 in each, eagerly and under jit; float8_e4m3fn's NaN went unseen."""
    x = jnp.zeros(1, getattr(jnp, dtype))
    if device == "numpy":
        x = jax.device_put(x, jax.devices("numpy")[0])
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in div"):
            x / x
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in div"):
            jax.jit(lambda x: x / x)(x)
