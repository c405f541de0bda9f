"""jxkernel._src.interpreters.pxla, as jax._src.interpreters.pxla: `global_result_handlers`,
which an extended dtype's `global_sharded_result_handler` asks for the handler of its
physical data (Flax's fp8_meta32 does, then wraps the data in an EArray); `shard_arg_handlers`
(how an argument of a library's own array class reaches a program: xla/transfers.py) and
`batched_device_put`, which such a handler calls.

In jxkernel the physical result is already an Array when the extended dtype's handler runs
(core/physical.py's wrap_physical), so the handler for arrays of plain types returns it as it
is; `wrap(f)` gives a handler that applies `f` after it, as JAX's handlers (an extended
dtype's handler wraps the data in its own class that way):

    >>> handler = global_result_handlers[ShapedArray](ShapedArray((2,), np.float32), None, True)
    >>> handler(jnp.ones(2)), handler.wrap(lambda a: a * 2)(jnp.ones(2))
    (Array([1., 1.], dtype=float32), Array([2., 2.], dtype=float32))
"""
from ....api.config_states import enable_x64 as _x64
from ....core.avals import ShapedArray
from ....core.mesh import Mesh  # noqa: F401  (JAX's pxla names it)
from ....xla import memory as _memory
from ....xla.array import device_put
from ....xla.client import default_device as _default_device
from ....xla.sharded import make_array_from_single_device_arrays
from ....xla.transfers import shard_arg_handlers  # noqa: F401 (a library's array classes)


class ResultHandler:
    """A result handler: physical Array -> value."""

    def __init__(self, make=lambda data: data):
        self._make = make

    def __call__(self, data):
        return self._make(data)

    def wrap(self, f) -> "ResultHandler":
        """This handler, then `f` on what it made."""
        return ResultHandler(lambda data: f(self._make(data)))


def _array_result_handler(aval, sharding, committed):
    return ResultHandler()


# aval type -> handler maker (aval, sharding, committed) -> (physical Array -> value)
global_result_handlers = {ShapedArray: _array_result_handler}


def batched_device_put(aval, sharding, xs, devices, committed=True, enable_x64=None):
    """One Array of type `aval` laid out as `sharding`, from `xs`, the data of each of
    `devices` (JAX's: a shard_arg handler's way to put its data on the devices); its dtype
    canonicalized as `enable_x64` says (None: as jax_enable_x64 is now).

    >>> batched_device_put(ShapedArray((2,), np.float32), None, [np.ones(2, np.float32)],
    ...                    [jax.devices()[0]])
    Array([1., 1.], dtype=float32)
    """
    if enable_x64 is None:
        arrays = [device_put(x, d) for x, d in zip(xs, devices)]
    else:
        with _x64(bool(enable_x64)):
            arrays = [device_put(x, d) for x, d in zip(xs, devices)]
    if len(arrays) == 1:
        return arrays[0]
    return make_array_from_single_device_arrays(tuple(aval.shape), sharding, arrays)


def clear_in_memory_compilation_cache() -> None:
    """Forget the executables kept in memory by module text (JAX's: the executables its
    `_cached_compilation` holds); a jitted function's own cache keeps its programs."""
    _memory.clear_caches()


def get_default_device():
    """The device a computation with no placement runs on: `jax_default_device`'s, else the
    default backend's first local device (JAX's `get_default_device`)."""
    return _default_device()
