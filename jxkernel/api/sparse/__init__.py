"""jax.experimental.sparse: the BCOO (batched coordinate) sparse array, its primitives with
their rules (`bcoo.py`; sorting and summing duplicates and the layout in `bcoo_layout.py`,
lax's shape operations in `bcoo_shape.py`, sparse @ sparse and sparse * sparse in
`bcoo_spdot.py`), the `sparsify` transform, which runs dense code on sparse arrays
(`transform.py`), sparse-aware `grad` and its kin (`ad.py`), `todense`, `empty` and `eye`
(`api.py`), BCSR, the batched CSR array, with its primitives (`bcsr.py`; functions made of
BCOO's in `bcsr_ops.py`), and JAX's plain
2-D COO (`coo.py`), CSR and CSC (`csr.py`) with theirs. `random_bcoo`
is in the random layer (`random/sparse_bcoo.py`), named with these by
`jax.experimental.sparse` (`_jax/experimental/sparse.py`). What JAX 0.10.2 has and jxkernel
does not is listed in conformance/README.md.

    >>> M = BCOO.fromdense(jnp.array([[0., 1.], [2., 0.]]))
    >>> M
    BCOO(float32[2, 2], nse=2)
    >>> (M.T @ jnp.array([1., 1.])).tolist()
    [2.0, 1.0]
"""
from ._base import (CuSparseEfficiencyWarning as CuSparseEfficiencyWarning,
                    JAXSparse as JAXSparse, SparseEfficiencyError as SparseEfficiencyError,
                    SparseEfficiencyWarning as SparseEfficiencyWarning)
from .ad import (grad as grad, jacfwd as jacfwd, jacobian as jacobian, jacrev as jacrev,
                 value_and_grad as value_and_grad)
from .api import empty as empty, eye as eye, todense as todense, todense_p as todense_p
from .bcoo import (BCOO as BCOO, bcoo_dot_general_p as bcoo_dot_general_p,
                   bcoo_extract as bcoo_extract, bcoo_extract_p as bcoo_extract_p,
                   bcoo_fromdense as bcoo_fromdense, bcoo_fromdense_p as bcoo_fromdense_p,
                   bcoo_multiply_dense as bcoo_multiply_dense, bcoo_todense as bcoo_todense,
                   bcoo_todense_p as bcoo_todense_p, bcoo_transpose as bcoo_transpose,
                   bcoo_transpose_p as bcoo_transpose_p)
from .bcoo_layout import (bcoo_sort_indices as bcoo_sort_indices,
                          bcoo_sort_indices_p as bcoo_sort_indices_p,
                          bcoo_sum_duplicates as bcoo_sum_duplicates,
                          bcoo_sum_duplicates_p as bcoo_sum_duplicates_p,
                          bcoo_update_layout as bcoo_update_layout)
from .bcoo_shape import (bcoo_broadcast_in_dim as bcoo_broadcast_in_dim,
                         bcoo_concatenate as bcoo_concatenate,
                         bcoo_dynamic_slice as bcoo_dynamic_slice, bcoo_gather as bcoo_gather,
                         bcoo_reduce_sum as bcoo_reduce_sum, bcoo_reshape as bcoo_reshape,
                         bcoo_rev as bcoo_rev, bcoo_slice as bcoo_slice,
                         bcoo_squeeze as bcoo_squeeze)
from .bcoo_spdot import (bcoo_conv_general_dilated as bcoo_conv_general_dilated,
                         bcoo_dot_general as bcoo_dot_general,
                         bcoo_dot_general_sampled as bcoo_dot_general_sampled,
                         bcoo_dot_general_sampled_p as bcoo_dot_general_sampled_p,
                         bcoo_multiply_sparse as bcoo_multiply_sparse,
                         bcoo_spdot_general_p as bcoo_spdot_general_p)
from .bcsr import (BCSR as BCSR, bcsr_dot_general as bcsr_dot_general,
                   bcsr_dot_general_p as bcsr_dot_general_p, bcsr_extract as bcsr_extract,
                   bcsr_extract_p as bcsr_extract_p, bcsr_fromdense as bcsr_fromdense,
                   bcsr_fromdense_p as bcsr_fromdense_p, bcsr_todense as bcsr_todense,
                   bcsr_todense_p as bcsr_todense_p)
from .bcsr_ops import (bcsr_broadcast_in_dim as bcsr_broadcast_in_dim,
                       bcsr_concatenate as bcsr_concatenate,
                       bcsr_sum_duplicates as bcsr_sum_duplicates)
from .coo import (COO as COO, coo_fromdense as coo_fromdense, coo_fromdense_p as coo_fromdense_p,
                  coo_matmat as coo_matmat, coo_matmat_p as coo_matmat_p,
                  coo_matvec as coo_matvec, coo_matvec_p as coo_matvec_p,
                  coo_todense as coo_todense, coo_todense_p as coo_todense_p)
from .csr import (CSC as CSC, CSR as CSR, csr_fromdense as csr_fromdense,
                  csr_fromdense_p as csr_fromdense_p, csr_matmat as csr_matmat,
                  csr_matmat_p as csr_matmat_p, csr_matvec as csr_matvec,
                  csr_matvec_p as csr_matvec_p, csr_todense as csr_todense,
                  csr_todense_p as csr_todense_p)
from .transform import SparseTracer as SparseTracer, sparsify as sparsify
