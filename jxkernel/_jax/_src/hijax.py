"""jax._src.hijax's names (public as jax.experimental.hijax): jxkernel's high types and
HiPrimitive (jxkernel/core/hijax.py), with the vocabulary of rules JAX keeps beside them."""
from ...core.avals import AbstractValue, ShapedArray, typeof_rules  # noqa: F401
from ...core.hijax import (AvalMutableQDD, AvalQDD, Box, BoxTy, BoxTypeState,  # noqa: F401
                           HiPrimitive, HiType, MutableHiType, QuasiDynamicData, aval_method,
                           aval_property, box_get, box_get_p, box_set, box_set_p,
                           hijax_method, new_box, new_box_p, register_hitype)
QDD = QuasiDynamicData
from ...transforms.ad_util import Zero  # noqa: F401
from ...transforms.ad_util import instantiate as instantiate_zeros  # noqa: F401
from ...transforms.ad_util import is_undefined as is_undefined_primal  # noqa: F401
from ..extend.core import control_flow_allowed_effects  # noqa: F401
