"""jxkernel._src.numpy.util, as jax._src.numpy.util: the promotion helpers of jnp's functions
(jxkernel.numpy.util defines them), which JAX's own tests and libraries import.

    >>> [x.dtype for x in promote_dtypes_complex(jnp.float32(1), jnp.int32(2))]
    [dtype('complex64'), dtype('complex64')]
"""
from ....numpy.util import (check_arraylike, promote_args, promote_dtypes,  # noqa: F401
                            promote_dtypes_complex, promote_dtypes_inexact,
                            promote_dtypes_numeric)
