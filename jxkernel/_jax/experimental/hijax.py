"""jxkernel.experimental.hijax, as jax.experimental.hijax: types of one's own ("high" types)
and the primitives on them (see jxkernel/core/hijax.py for what jxkernel runs).

    >>> class Tripled(HiPrimitive):
    ...     def to_lojax(self, x):          # what runs eagerly, and in a compiled program
    ...         return 3 * x
    >>> Tripled("tripled").bind(2)
    6
"""
from .._src.hijax import (AbstractValue, AvalMutableQDD, AvalQDD, HiPrimitive,  # noqa: F401
                          HiType, MutableHiType, ShapedArray, Zero, aval_method, aval_property,
                          control_flow_allowed_effects, instantiate_zeros, is_undefined_primal,
                          register_hitype)
from .._src.state.types import AbstractRef  # noqa: F401
