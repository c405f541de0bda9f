"""Names and texts user code reads, as JAX 0.10.2 has them (issue 17): the concrete array
class's name, the `float32[2,3]` form of an aval next to jaxprs' short `f32[2,3]`, the line
jax_debug_nans prints before rerunning op by op, and `Lowered.in_info`/`out_info`."""
import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import xla


# ================================================================== ArrayImpl
def test_concrete_arrays_are_named_arrayimpl_and_print_as_array():
    x = jnp.arange(3)
    on_devices = xla.device_put_replicated(np.float32(2), xla.devices())   # MultiDeviceArray
    for a in (x, x.at[0].set(5), jax.jit(lambda v: v * 2)(x), on_devices,
              jax.lax.fori_loop(0, 0, lambda i, c: c + 1, 4)):
        assert type(a).__name__ == "ArrayImpl"
        assert isinstance(a, jax.Array) and isinstance(a, jnp.ndarray)
        assert repr(a).startswith("Array(")
    assert type(x).__module__ == "jxkernel.xla.array"
    assert xla.array.Array is xla.array.ArrayImpl        # the name jxkernel's modules import
    assert type(x) is not jax.Array and not isinstance(1.0, jax.Array)


# ================================================================== jax_debug_nans
_RERUN = ("Invalid nan value encountered in the output of a jax.jit function. "
          "Calling the de-optimized version.")


def test_debug_nans_prints_jaxs_line_for_each_compiled_computation_that_made_a_nan(capsys):
    inner = jax.jit(lambda y: jnp.sqrt(y))
    outer = jax.jit(lambda x: inner(x) * 2)
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered in sqrt"):
            jnp.sqrt(-1.0)
        assert capsys.readouterr().out.splitlines() == [_RERUN]
        # outer's output, then inner's (the rerun runs jits inside compiled), then sqrt's
        with pytest.raises(FloatingPointError, match=r"encountered in sqrt"):
            outer(-1.0)
        assert capsys.readouterr().out.splitlines() == [_RERUN] * 3
        assert float(outer(4.0)) == 4.0 and capsys.readouterr().out == ""
    with jax.debug_infs(True):                     # JAX says "nan" for an inf too
        with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered in log"):
            jnp.log(0.0)
        assert capsys.readouterr().out.splitlines() == [_RERUN]
