"""jxkernel._src.interpreters.pxla, as jax._src.interpreters.pxla: `global_result_handlers`,
which an extended dtype's `global_sharded_result_handler` asks for the handler of its
physical data (Flax's fp8_meta32 does, then wraps the data in an EArray).

In jxkernel the physical result is already an Array when the extended dtype's handler runs
(core/physical.py's wrap_physical), so the handler for arrays of plain types returns it as it
is; `wrap(f)` gives a handler that applies `f` after it, as JAX's handlers (an extended
dtype's handler wraps the data in its own class that way):

    >>> handler = global_result_handlers[ShapedArray](ShapedArray((2,), np.float32), None, True)
    >>> handler(jnp.ones(2)), handler.wrap(lambda a: a * 2)(jnp.ones(2))
    (Array([1., 1.], dtype=float32), Array([2., 2.], dtype=float32))
"""
from ....core.avals import ShapedArray


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
