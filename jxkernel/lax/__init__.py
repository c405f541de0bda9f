"""jxkernel.lax: the primitives, with JAX's names, params and signatures."""
from .elementwise import *  # noqa: F401,F403
from .elementwise import RoundingMethod, round, abs, max, min, pow, complex  # noqa: F401
from .conversion import (bitcast_convert_type_p, convert_element_type_p,  # noqa: F401
                         bitcast_convert_type, convert_element_type)
from .reductions import (argmax_p, argmin_p, cumlogsumexp_p, cummax_p, cummin_p,  # noqa: F401
                         cumprod_p, cumsum_p, reduce_and_p, reduce_max_p, reduce_min_p,
                         reduce_or_p, reduce_p, reduce_prod_p, reduce_sum_p, reduce_xor_p,
                         argmax, argmin, cumlogsumexp, cummax, cummin, cumprod, cumsum, reduce,
                         reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod, reduce_sum,
                         reduce_xor)
from .dot import Precision, batch_matmul, dot, dot_general, dot_general_p  # noqa: F401
from .sorting import sort, sort_key_val, sort_p, top_k, top_k_p  # noqa: F401
