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

import math

from .avals import typeof_rules
from .basearray import Array


class EArray:
    """An array of an extended dtype over its physical data (`_data`, an Array)."""
    __slots__ = ("_aval", "_data", "__weakref__")
    __hash__ = None
    __array_priority__ = 100

    def __init__(self, aval, data):
        self._aval = aval
        self._data = data

    aval = property(lambda self: self._aval)
    shape = property(lambda self: tuple(self._aval.shape))
    dtype = property(lambda self: self._aval.dtype)
    ndim = property(lambda self: len(self._aval.shape))
    size = property(lambda self: math.prod(self._aval.shape))
    weak_type = False
    # what dispatch, executables and device_put read of an array of an extended dtype (as of a
    # KeyArray): its data (`_base`) and the data's buffer
    _base = property(lambda self: self._data)
    _buf = property(lambda self: self._data._buf)
    _npy = property(lambda self: self._data._npy,
                    lambda self, value: setattr(self._data, "_npy", value))
    # the data's placement is the array's: the element axes are never split (physical_aval)
    sharding = property(lambda self: self._data.sharding)
    committed = property(lambda self: self._data.committed)
    device = property(lambda self: self._data.device)

    def devices(self):
        return self._data.devices()

    def is_deleted(self) -> bool:
        return self._data.is_deleted()

    def delete(self):
        self._data.delete()

    def block_until_ready(self):
        self._data.block_until_ready()
        return self

    def copy(self) -> "EArray":
        return EArray(self._aval, self._data.copy())

    __copy__ = copy

    def __deepcopy__(self, memo):
        return self.copy()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        # as JAX's EArray: only the 0-d case has an answer
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        raise NotImplementedError

    def __repr__(self):
        return "E" + repr(self._data)     # JAX's: its data's repr, marked


typeof_rules[EArray] = lambda x: x.aval
Array.register(EArray)          # a jax.Array, as JAX's EArray is a basearray.Array
