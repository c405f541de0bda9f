"""EArray, as JAX's `jax._src.earray`: a concrete array of an extended dtype that has no array
class of its own (typed keys have KeyArray). It holds its aval and its physical data, an Array
of shape `shape + element shape` (core/physical.py); executables take the data's buffer, and
an extended dtype's `global_sharded_result_handler` makes one over the data of a result.

    >>> import dataclasses
    >>> class Rules:
    ...     physical_element_aval = staticmethod(lambda dt: ShapedArray((), np.float32))
    >>> class meta(extended): pass
    >>> @dataclasses.dataclass(frozen=True)
    ... class MetaDType(ExtendedDType):
    ...     _rules: type = Rules
    ...     type: type = meta
    ...     name: str = "meta"
    >>> e = EArray(ShapedArray((2,), MetaDType()), jnp.zeros(2))
    >>> e.shape, e.dtype.name, e
    ((2,), 'meta', EArray([0., 0.], dtype=float32))
"""
from __future__ import annotations

from .avals import typeof_rules
from .basearray import Array, OverData


class EArray(OverData):
    """An array of an extended dtype over its physical data (`_data`, an Array)."""
    __slots__ = ("_aval", "_data", "__weakref__")
    __array_priority__ = 100

    def __init__(self, aval, data):
        self._aval = aval
        self._data = data

    aval = property(lambda self: self._aval)
    shape = property(lambda self: tuple(self._aval.shape))
    dtype = property(lambda self: self._aval.dtype)
    _base = property(lambda self: self._data)    # (`_data` is JAX's EArray's name for it)

    def copy(self) -> "EArray":
        return EArray(self._aval, self._data.copy())

    def _with_base(self, data) -> "EArray":
        return EArray(self._aval, data)     # (as JAX's addressable_data: the same aval)

    def __iter__(self):
        # as JAX's EArray: only the 0-d case has an answer
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        raise NotImplementedError

    def __repr__(self):
        return "E" + repr(self._data)     # JAX's: its data's repr, marked


# type -> handler(value, aval) -> its physical data (an Array): how a value of a library's
# own array class (one core.pytype_aval_mappings types as an extended dtype) closed over by a
# traced function becomes a constant (JAX's mlir._constant_handlers give its IR constant; in
# jxkernel a constant is its data, which the lowering embeds or passes)
constant_handlers: dict = {}


def foreign_constant(x, aval):
    """`x`, a value of a class registered in constant_handlers, as an EArray of `aval` over
    the data its handler gives (None where its class has no handler)."""
    handler = constant_handlers.get(type(x))
    return None if handler is None else EArray(aval, handler(x, aval))


typeof_rules[EArray] = lambda x: x.aval
Array.register(EArray)          # a jax.Array, as JAX's EArray is a basearray.Array
