"""The abstract type of jxkernel arrays, `jax.Array`, as JAX's `jax._src.basearray`.

It lives in `core` so that every layer can name it without importing the package root;
the concrete array classes register themselves (device arrays in `xla.array`, tracers in
`core.trace`, typed keys in `random.keys`).

    >>> import jxkernel as jax, jxkernel.numpy as jnp
    >>> isinstance(jnp.ones(2), jax.Array), isinstance(1.0, jax.Array)
    (True, False)
"""
import abc
import math


class Array(abc.ABC):
    """The type of jxkernel arrays, as `jax.Array`: device arrays, and the tracers standing for
    them inside transformations (so `isinstance(x, jax.Array)` holds in traced code too)."""
    __slots__ = ()


Array.__module__ = "jxkernel"    # users see `jxkernel.Array`, as JAX shows `jax.Array`


class OverData:
    """What an array held as another Array, its data (`_base`), takes from it: typed keys
    (`random.keys.KeyArray`) and arrays of other extended dtypes (`core.earray.EArray`). The
    data's shape is the array's plus the element's axes, which are never split, so placement,
    deletion and readiness are the data's. A subclass gives `shape`, `_base` and `copy()`.
    """
    __slots__ = ()
    __hash__ = None
    weak_type = False

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    # what dispatch, executables and device_put read of an array: the data's buffer, and the
    # cached NumPy view an executable drops before a donation
    _buf = property(lambda self: self._base._buf)
    _npy = property(lambda self: self._base._npy,
                    lambda self, value: setattr(self._base, "_npy", value))
    committed = property(lambda self: self._base.committed)
    device = property(lambda self: self._base.device)
    is_fully_addressable = property(lambda self: self._base.is_fully_addressable)
    is_fully_replicated = property(lambda self: self._base.is_fully_replicated)
    itemsize = property(lambda self: self.dtype.itemsize)      # one element's data, in bytes
    nbytes = property(lambda self: self.itemsize * self.size)

    @property
    def sharding(self):
        """The data's sharding over this array's dimensions (the data's may name the element's
        axes too, unsplit: `P('x', None)` of keys laid out `P('x')`)."""
        s = self._base.sharding
        spec = getattr(s, "spec", None)
        if spec is not None and len(spec.partitions) > len(self.shape):
            return s.update(spec=spec.update(partitions=spec.partitions[:len(self.shape)]))
        return s

    def devices(self):
        return self._base.devices()

    def on_device_size_in_bytes(self) -> int:
        return self._base.on_device_size_in_bytes()

    def unsafe_buffer_pointer(self) -> int:
        return self._base.unsafe_buffer_pointer()

    def copy_to_host_async(self) -> None:
        self._base.copy_to_host_async()

    def addressable_data(self, index: int):
        """Shard `index`'s part, of this array's type (`_with_base`: a subclass's)."""
        return self._with_base(self._base.addressable_data(index))

    @property
    def addressable_shards(self) -> list:
        return [type(s)(s.device, s.index, s.replica_id, self._with_base(s.data))
                for s in self._base.addressable_shards]

    global_shards = addressable_shards      # (one process: every shard is this one's)

    def is_deleted(self) -> bool:
        return self._base.is_deleted()

    def delete(self):
        self._base.delete()

    def block_until_ready(self):
        self._base.block_until_ready()
        return self

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]
