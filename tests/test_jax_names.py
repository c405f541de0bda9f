"""Names and texts user code reads, as JAX 0.10.2 has them (issue 17): the concrete array
class's name, the `float32[2,3]` form of an aval next to jaxprs' short `f32[2,3]`, the line
jax_debug_nans prints before rerunning op by op, and `Lowered.in_info`/`out_info`."""
import numpy as np

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
