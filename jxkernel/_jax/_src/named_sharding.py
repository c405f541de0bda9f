"""jxkernel._src.named_sharding, as jax._src.named_sharding: `NamedSharding`, the error of a
PartitionSpec naming a mesh axis twice (`DuplicateSpecError`), Shardy's view of a sharding
(`SdyDim`, `SdyArray`: xla/sdy_array.py), and `UNSPECIFIED`, jit's "no
sharding given" (core/mesh.py).

    >>> UNSPECIFIED, issubclass(DuplicateSpecError, Exception)
    (UnspecifiedValue, True)
"""
from ...core.mesh import (DuplicateSpecError, NamedSharding, UNSPECIFIED,  # noqa: F401
                          UnspecifiedValue)
from ...xla.sdy_array import (SdyArray, SdyDim,  # noqa: F401
                              named_sharding_to_sdy_sharding)
