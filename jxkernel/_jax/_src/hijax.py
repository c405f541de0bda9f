"""jax._src.hijax's names (public as jax.experimental.hijax): jxkernel's high types and
HiPrimitive (jxkernel/core/hijax.py), with the vocabulary of rules JAX keeps beside them."""
from ...core.avals import AbstractValue, ShapedArray, typeof_rules  # noqa: F401
from ...core.hijax import (AvalMutableQDD, AvalQDD, HiPrimitive, HiType,  # noqa: F401
                           MutableHiType, aval_method, aval_property, register_hitype)
from ...transforms.ad_util import Zero  # noqa: F401
from ...transforms.ad_util import instantiate as instantiate_zeros  # noqa: F401
from ...transforms.ad_util import is_undefined as is_undefined_primal  # noqa: F401
from ..extend.core import control_flow_allowed_effects  # noqa: F401
