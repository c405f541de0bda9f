"""jxkernel._src.earray, as jax._src.earray: EArray, the array class of extended dtypes without
one of their own (core/earray.py), which extended dtypes' result handlers make (Flax's
fp8_meta32 imports it to tell whether extended dtypes work eagerly).

    >>> EArray.__name__
    'EArray'
"""
from ...core.earray import EArray  # noqa: F401
