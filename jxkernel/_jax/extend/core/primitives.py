"""jxkernel.extend.core.primitives, as jax.extend.core.primitives: the primitives that
jxkernel's own operations bind, under JAX's names, for interpreters keyed on them.

    >>> from jxkernel.extend.core import primitives
    >>> primitives.exp_p is jxkernel.lax.exp_p, primitives.jit_p
    (True, jit)

Every name of JAX 0.10.2's module whose primitive jxkernel has (add_jaxvals_p is jxkernel's
add_any, as JAX's is named; call_p is `core.call`'s); JAX's closed_call_p is absent rather
than a stand-in: jxkernel binds no such primitive. tests/core/test_primitive_tables.py holds
the two lists against JAX's (tests/data/primitive_tables_reference.json).
"""
from ....transforms.call_primitive import call_p  # noqa: F401
from ....transforms.ad_util import add_any_p as add_jaxvals_p, stop_gradient_p  # noqa: F401
from ....api.state_primitives import get_p, swap_p  # noqa: F401
from ....core.interpreter_primitives import sharding_constraint_p  # noqa: F401
from ....lax.creation import empty2_p  # noqa: F401
from ....lax.gpu_collectives import ragged_all_to_all_p  # noqa: F401
from ....lax.linalg.schur_hessenberg import hessenberg_p, schur_p  # noqa: F401
from ....lax.linalg.tridiagonal import tridiagonal_p, tridiagonal_solve_p  # noqa: F401
from ....lax.rng import rng_bit_generator_p, rng_uniform_p  # noqa: F401
from ....lax.tokens import after_all_p, create_token_p  # noqa: F401
from ....lax.transfer import device_put_p  # noqa: F401
from ....random.key_prims import (  # noqa: F401
    random_bits_p,
    random_fold_in_p,
    random_seed_p,
    random_split_p,
)
from ....lax.cond import cond_p  # noqa: F401
from ....lax.conversion import bitcast_convert_type_p, convert_element_type_p  # noqa: F401
from ....lax.convolution import conv_general_dilated_p  # noqa: F401
from ....lax.dot import dot_general_p  # noqa: F401
from ....lax.elementwise import (  # noqa: F401
    abs_p,
    acos_p,
    acosh_p,
    add_p,
    and_p,
    asin_p,
    asinh_p,
    atan2_p,
    atan_p,
    atanh_p,
    cbrt_p,
    ceil_p,
    clamp_p,
    clz_p,
    complex_p,
    conj_p,
    copy_p,
    cos_p,
    cosh_p,
    digamma_p,
    div_p,
    eq_p,
    eq_to_p,
    erf_inv_p,
    erf_p,
    erfc_p,
    exp2_p,
    exp_p,
    expm1_p,
    floor_p,
    ge_p,
    gt_p,
    imag_p,
    integer_pow_p,
    is_finite_p,
    le_p,
    le_to_p,
    lgamma_p,
    log1p_p,
    log_p,
    logistic_p,
    lt_p,
    lt_to_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    neg_p,
    nextafter_p,
    not_p,
    or_p,
    population_count_p,
    pow_p,
    real_p,
    reduce_precision_p,
    rem_p,
    round_p,
    rsqrt_p,
    select_n_p,
    shift_left_p,
    shift_right_arithmetic_p,
    shift_right_logical_p,
    sign_p,
    sin_p,
    sinh_p,
    sqrt_p,
    square_p,
    sub_p,
    tan_p,
    tanh_p,
    xor_p,
)
from ....lax.fft import fft_p  # noqa: F401
from ....lax.linalg import (  # noqa: F401
    cholesky_p,
    eig_p,
    eigh_p,
    householder_product_p,
    lu_p,
    qr_p,
    svd_p,
    triangular_solve_p,
)
from ....lax.parallel import (  # noqa: F401
    all_gather_p,
    all_to_all_p,
    axis_index_p,
    pmax_p,
    pmin_p,
    ppermute_p,
    psum_p,
)
from ....lax.reductions import (  # noqa: F401
    argmax_p,
    argmin_p,
    cumlogsumexp_p,
    cummax_p,
    cummin_p,
    cumprod_p,
    cumsum_p,
    reduce_and_p,
    reduce_max_p,
    reduce_min_p,
    reduce_or_p,
    reduce_p,
    reduce_prod_p,
    reduce_sum_p,
    reduce_xor_p,
)
from ....lax.scan import scan_p  # noqa: F401
from ....lax.shapes import (  # noqa: F401
    broadcast_in_dim_p,
    concatenate_p,
    iota_p,
    reshape_p,
    rev_p,
    squeeze_p,
    transpose_p,
)
from ....lax.slicing import (  # noqa: F401
    dynamic_slice_p,
    dynamic_update_slice_p,
    gather_p,
    pad_p,
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
    slice_p,
)
from ....lax.solves import linear_solve_p  # noqa: F401
from ....lax.sorting import approx_top_k_p, sort_p, top_k_p  # noqa: F401
from ....lax.special import (  # noqa: F401
    bessel_i0e_p,
    bessel_i1e_p,
    igamma_grad_a_p,
    igamma_p,
    igammac_p,
    polygamma_p,
    regularized_incomplete_beta_p,
    zeta_p,
)
from ....lax.while_loop import while_p  # noqa: F401
from ....lax.windowed import (  # noqa: F401
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_p,
    reduce_window_sum_p,
    select_and_gather_add_p,
    select_and_scatter_add_p,
    select_and_scatter_p,
)
from ....random.prng import threefry2x32_p  # noqa: F401
from ....random.rejection import random_gamma_p  # noqa: F401
from ....transforms.custom_derivatives import (  # noqa: F401
    custom_jvp_call_p,
    custom_lin_p,
    custom_vjp_call_p,
)
from ....transforms.jit.primitive import jit_p  # noqa: F401
from ....api.remat import name_p, remat_p  # noqa: F401
