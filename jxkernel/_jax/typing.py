"""`jax.typing`: the type annotations JAX's own functions use.

    >>> import numpy as np
    >>> import jxkernel.numpy as jnp
    >>> from jxkernel.typing import ArrayLike, DTypeLike
    >>> [isinstance(x, ArrayLike) for x in (jnp.ones(2), np.ones(2), 1.5, np.int8(3), [1, 2])]
    [True, True, True, True, False]

`ArrayLike` is what converts to an Array without copying a Python container: Arrays, NumPy
arrays and scalars (JAX asks for `jnp.asarray` on lists). `DTypeLike` is what `jnp.dtype`
accepts: a name, a scalar type, a NumPy dtype, or anything with a `.dtype`.
"""
from __future__ import annotations

import typing
from typing import Any, Protocol, Union

import numpy as np

from ..core.basearray import Array

__all__ = ["ArrayLike", "DTypeLike"]

# the scalars that convert to Arrays and can be static arguments
StaticScalar = Union[np.bool_, np.number, bool, int, float, complex]

ArrayLike = Union[Array, np.ndarray, StaticScalar]


@typing.runtime_checkable
class SupportsDType(Protocol):
    """Anything with a `.dtype`, like `jnp.float32` or an Array."""
    @property
    def dtype(self, /) -> np.dtype: ...


DTypeLike = Union[str, type[Any], np.dtype, SupportsDType]
