"""jxkernel._src.typing, as jax._src.typing: the annotations JAX's functions and tests use,
jax.typing's (`ArrayLike`, `DTypeLike`: jxkernel/_jax/typing.py) with `Array`, `DType`,
`Shape` and `DimSize` beside them.

    >>> import numpy as np
    >>> DType is np.dtype, isinstance(np.ones(2), ArrayLike)
    (True, True)
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import numpy as np

from ...core.basearray import Array  # noqa: F401
from ..typing import ArrayLike, DTypeLike, StaticScalar, SupportsDType  # noqa: F401

DType = np.dtype
DimSize = Union[int, Any]       # an int, or a symbolic dimension (jax.export's)
Shape = Sequence[DimSize]
