"""jxkernel._src.lax.lax, as jax._src.lax.lax: the module JAX's primitives guide imports its
`lax.add`, `lax.mul` and `lax.full_like` from. It is jxkernel.lax's operations and
primitives themselves (the same function objects), not copies.

    >>> from jxkernel._src.lax import lax
    >>> lax.add(1.0, lax.mul(2.0, 3.0))
    Array(7., dtype=float32, weak_type=True)
"""
from ....lax import *  # noqa: F401,F403
from ....lax import __all__  # noqa: F401

import warnings  # noqa: E402

import numpy as _np  # noqa: E402

from ....core import dtypes as _dtypes  # noqa: E402
from ....core.interpreter_primitives import convert_element_type_p as _convert_p  # noqa: E402


def _convert_element_type(operand, new_dtype=None, weak_type=False, sharding=None,
                          warn_on_complex_to_real_cast=True):
    """JAX's private conversion (jnp's promotion's): `operand` as `new_dtype` (default: its
    own), weakly typed if `weak_type`, on `sharding` if given; JAX's tests call it.

    >>> _convert_element_type(jnp.arange(2), _np.dtype(float), weak_type=True)
    Array([0., 1.], dtype=float32, weak_type=True)
    """
    dtype = _dtypes.dtype(operand) if new_dtype is None else new_dtype
    if warn_on_complex_to_real_cast and _dtypes.dtype(operand).kind == "c" and \
            _np.dtype(dtype).kind != "c":
        warnings.warn("Casting complex values to real discards the imaginary part",
                      _np.exceptions.ComplexWarning, stacklevel=2)
    return _convert_p.bind(operand, new_dtype=_dtypes.canonicalize_dtype(dtype),
                           weak_type=bool(weak_type), sharding=sharding)
