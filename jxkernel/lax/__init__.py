"""jxkernel.lax: the primitives, with JAX's names, params and signatures."""
from .elementwise import *  # noqa: F401,F403
from .elementwise import RoundingMethod, round, abs, max, min, pow, complex  # noqa: F401
from .conversion import (bitcast_convert_type_p, convert_element_type_p,  # noqa: F401
                         bitcast_convert_type, convert_element_type)
