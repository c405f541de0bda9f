"""jxkernel.lax: the primitives, with JAX's names, params and signatures."""
from .elementwise import *  # noqa: F401,F403
from .elementwise import RoundingMethod, round, abs, max, min, pow, complex  # noqa: F401
from .elementwise import AccuracyMode, Tolerance  # noqa: F401
from .conversion import (bitcast_convert_type_p, convert_element_type_p,  # noqa: F401
                         bitcast_convert_type, convert_element_type, from_edtype_p, to_edtype_p)
from .reductions import (argmax_p, argmin_p, cumlogsumexp_p, cummax_p, cummin_p,  # noqa: F401
                         cumprod_p, cumsum_p, reduce_and_p, reduce_max_p, reduce_min_p,
                         reduce_or_p, reduce_p, reduce_prod_p, reduce_sum_p, reduce_xor_p,
                         argmax, argmin, cumlogsumexp, cummax, cummin, cumprod, cumsum, reduce,
                         reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod, reduce_sum,
                         reduce_xor)
from .dot import Precision, batch_matmul, dot, dot_general, dot_general_p  # noqa: F401
from .dot import DotAlgorithm, DotAlgorithmPreset, DotDimensionNumbers, PrecisionLike  # noqa: F401
from ..core.dtypes import dtype  # noqa: F401  (lax.dtype: a value's or a type's dtype)
from .sorting import sort, sort_key_val, sort_p, top_k, top_k_p  # noqa: F401
from .sorting import approx_max_k, approx_min_k, approx_top_k_p  # noqa: F401
from .shapes import (broadcast_in_dim_p, concatenate_p, iota_p, reshape_p,  # noqa: F401
                     rev_p, squeeze_p, transpose_p, broadcast, broadcast_in_dim,
                     broadcast_shapes, broadcast_to_rank, broadcasted_iota, collapse,
                     concatenate, expand_dims, iota, reshape, rev, squeeze, transpose)
from .slicing import (dynamic_slice_p, dynamic_update_slice_p, gather_p, pad_p,  # noqa: F401
                      scatter_add_p, scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p,
                      scatter_sub_p, slice_p, GatherDimensionNumbers, GatherScatterMode,
                      ScatterDimensionNumbers, dynamic_index_in_dim, dynamic_slice,
                      dynamic_slice_in_dim, dynamic_update_index_in_dim, dynamic_update_slice,
                      dynamic_update_slice_in_dim, gather, index_in_dim, pad, scatter,
                      scatter_add, scatter_max, scatter_min, scatter_mul, scatter_sub, slice,
                      slice_in_dim)
from ..transforms.ad_util import add_any_p, stop_gradient, stop_gradient_p  # noqa: F401
from .cond import cond, cond_p, platform_dependent, switch  # noqa: F401
from .platform_index import platform_index_p  # noqa: F401
from .transfer import device_put_p  # noqa: F401
from .tokens import after_all, after_all_p, create_token, create_token_p  # noqa: F401
from .loops import associative_scan, fori_loop, map  # noqa: F401
from .scan import scan, scan_p  # noqa: F401
from .while_loop import while_loop, while_p  # noqa: F401
from . import _cf_high  # noqa: F401,E402  (loops and conds over captured hijax values: lowered)
from .parallel import (all_gather, all_gather_p, all_to_all, all_to_all_p, axis_index,  # noqa: F401
                       axis_index_p, axis_size, pbroadcast, pcast, pmax, pmax_p, pmean, pmin,
                       pmin_p, ppermute, ppermute_p, pshuffle, psum, psum_invariant_p, psum_p,
                       psum_scatter, pswapaxes, reduce_scatter_p)
from .shapes import split, split_p  # noqa: F401
from .shapes import stack, stack_p, tile, tile_p, unstack, unstack_p  # noqa: F401
from .shapes import broadcast_like, shape_as_value  # noqa: F401
from .slicing import index_take, scatter_apply  # noqa: F401
from .creation import empty, empty_p, full, full_like, stage, stage_p  # noqa: F401,E402
from .fft import FftType, fft, fft_p  # noqa: F401,E402  (eager: lax.fft is also a module)
from .barrier import (dce_sink, dce_sink_p, optimization_barrier,  # noqa: F401,E402
                      optimization_barrier_p)
from .sharding import sharding_constraint_p, with_sharding_constraint  # noqa: F401,E402
from . import edtype_rules as _edtype_rules  # noqa: F401,E402  (extended dtypes: physical rules)
from ..core.vma import pvary_p  # noqa: F401,E402
from ..core.lazy_names import lazy_names as _lazy_names  # noqa: E402

# What few programs use loads on first use (`lax.conv(...)`, `lax.linalg.qr`), as attributes
# of the package: `import jxkernel` stays small. Each primitive's rules live in its module,
# so a primitive not loaded yet is in no program.
_LAZY_MODULES = {
    "convolution": ("ConvDimensionNumbers", "ConvGeneralDilatedDimensionNumbers", "PaddingType",
        "conv", "conv_dimension_numbers",
        "conv_general_dilated", "conv_general_dilated_local", "conv_general_dilated_p",
        "conv_general_dilated_patches",
        "conv_general_permutations", "conv_general_shape_tuple", "conv_shape_tuple",
        "conv_transpose", "conv_transpose_shape_tuple", "conv_with_general_padding",
        "padtype_to_pads"),
    "windowed": ("reduce_window_max_p", "reduce_window_min_p", "reduce_window_p",
        "reduce_window_sum_p", "select_and_gather_add_p", "select_and_scatter_add_p",
        "select_and_scatter_p",
        "reduce_window", "reduce_window_shape_tuple"),
    "special": ("bessel_i0e", "bessel_i0e_p", "bessel_i1e", "bessel_i1e_p", "betainc",
        "igamma", "igamma_grad_a", "igamma_grad_a_p", "igamma_p", "igammac", "igammac_p",
        "polygamma", "polygamma_p", "random_gamma_grad", "regularized_incomplete_beta_p",
        "zeta", "zeta_p"),
    "solves": ("custom_linear_solve", "custom_root", "linear_solve_p"),
    "rng": ("RandomAlgorithm", "rng_bit_generator", "rng_bit_generator_p", "rng_uniform",
        "rng_uniform_p"),
    "ragged": ("RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general"),
    "composites": ("composite",),
    "scaled": ("scaled_dot",),
    "gpu_collectives": ("precv", "precv_p", "psend", "psend_p", "ragged_all_to_all",
                        "ragged_all_to_all_p"),
}
_LAZY = {name: ("." + module, name) for module, names in _LAZY_MODULES.items() for name in names}
_LAZY["linalg"] = (".linalg", None)      # jax.lax.linalg, the module itself
_lazy_getattr, __dir__ = _lazy_names(__name__, globals(), _LAZY)


def __getattr__(name):
    if name == "pvary":             # as in JAX 0.10, which removed it
        raise AttributeError("jax.lax.pvary was deprecated in JAX v0.8.2 and removed in JAX "
                             "v0.10.0; use `jax.lax.pcast(..., to='varying')")
    return _lazy_getattr(name)


__all__ = sorted(n for n in set(globals()) | set(_LAZY) if not n.startswith("_"))
