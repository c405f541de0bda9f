"""jax.errors: the exceptions jxkernel raises, under JAX's names (so JAX's error pages apply).

    >>> from jxkernel import errors
    >>> try:
    ...     jax.jit(lambda x: 1 if x > 0 else -1)(1.0)
    ... except errors.ConcretizationTypeError as e:
    ...     print(type(e).__name__)
    TracerBoolConversionError
"""
from ..core.check import JaxprTypeError
from ..core.errors import (ConcretizationTypeError, InconclusiveDimensionOperation,
                          JAXIndexError, JAXTypeError, KeyReuseError,
                          NonConcreteBooleanIndexError, RecompileError,
                          TracerArrayConversionError,
                          TracerBoolConversionError, TracerIntegerConversionError,
                          UnexpectedTracerError)
from ..xla.client import JaxRuntimeError

__all__ = ["ConcretizationTypeError", "JAXIndexError", "JAXTypeError", "JaxRuntimeError",
           "InconclusiveDimensionOperation", "JaxprTypeError", "KeyReuseError",
           "NonConcreteBooleanIndexError", "RecompileError",
           "TracerArrayConversionError", "TracerBoolConversionError",
           "TracerIntegerConversionError", "UnexpectedTracerError"]
