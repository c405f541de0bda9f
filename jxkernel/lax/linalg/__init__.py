"""Linear-algebra primitives, lowered on CPU to LAPACK (jaxlib's typed-FFI custom calls) and
on CUDA GPUs to cuSOLVER (the CUDA plugin's kernels) as JAX's lax.linalg lowers them, so
results match JAX's bit for bit:

    primitive              CPU (LAPACK)           CUDA GPU
    cholesky               potrf                  cusolver potrf
    triangular_solve       trsm                   stablehlo.triangular_solve (XLA's cuBLAS trsm)
    lu                     getrf                  cusolver getrf
    lu_pivots_to_permutation  (a loop)            cu_lu_pivots_to_permutation
    geqrf, geqp3           geqrf, geqp3           cusolver geqrf, hybrid geqp3 (host LAPACK)
    householder_product    orgqr/ungqr            cusolver orgqr
    ormqr                  ormqr/unmqr            cusolver ormqr
    qr                     (built on geqrf/geqp3 and householder_product)
    eigh                   syevd/heevd            cusolver syevd (or syevj: Jacobi)
    eig                    geev                   cusolver geev, or hybrid geev (host LAPACK)
    schur                  gees                   (none, as in JAX)
    hessenberg             gehrd                  (none, as in JAX)
    svd                    gesdd (gesvd for QR)   cusolver gesvdj up to 1024x1024, else gesvd
    tridiagonal_solve      gtsv (or jaxlib's      cusparse gtsv2 (the Thomas algorithm up to
                           perturbed-LU kernel)   2 rows), or the plugin's perturbed kernel
    tridiagonal            sytrd/hetrd            cusolver sytrd
    symmetric_product      (a batched matmul, JAX's default lowering, on every platform)
    cholesky_update        (Givens rotations, JAX's default lowering, on every platform)

All act on the last two dimensions and batch over the leading ones. One module per family,
each primitive beside all its rules (among them JAX's linalg_sharding_rule, its lowering run
as over values of no sharding: `untyped_lowering`): triangular.py (triangular_solve),
cholesky_decomposition.py, lu_decomposition.py (lu, lu_pivots_to_permutation, lu_solve),
qr_decomposition.py (geqrf, geqp3, householder_product, ormqr, and qr on them),
symmetric_eigen.py (eigh), nonsymmetric_eigen.py (eig), schur_hessenberg.py and
singular_values.py (svd), tridiagonal.py (tridiagonal_solve, tridiagonal),
symmetric_product.py; cholesky_update sits with cholesky; _common.py holds what they share.
qdwh (polar.py), the polar decomposition by QDWH iterations, is no primitive: JAX's algorithm
on qr, cholesky and triangular_solve; polar_svd.py is JAX's TPU SVD on it and eigh
(jax._src.tpu.linalg.svd, which JAX's tests run everywhere). The differentiation rules are
JAX's (references in the comments). geqrf, geqp3 and householder_product are not
differentiable (as in JAX): differentiate `qr`. This package is `jax.lax.linalg`: its names
are JAX's.

    >>> cholesky(np.array([[4., 2.], [2., 5.]], np.float32))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
"""
from ._common import symmetrize  # noqa: F401
from .triangular import triangular_solve, triangular_solve_p  # noqa: F401
from .cholesky_decomposition import (cholesky, cholesky_p, cholesky_update,  # noqa: F401
                                     cholesky_update_p)
from .lu_decomposition import (_lu_python, lu, lu_p, lu_pivots_to_permutation,  # noqa: F401
                               lu_pivots_to_permutation_p, lu_solve)
from .qr_decomposition import (geqp3, geqp3_p, geqrf, geqrf_p, householder_product,  # noqa: F401
                               householder_product_p, ormqr, ormqr_p, qr, qr_p)
from .symmetric_eigen import EighImplementation, eigh, eigh_p  # noqa: F401
from .nonsymmetric_eigen import EigImplementation, eig, eig_p  # noqa: F401
from .schur_hessenberg import hessenberg, hessenberg_p, schur, schur_p  # noqa: F401
from .singular_values import SvdAlgorithm, svd, svd_p  # noqa: F401
from .polar import qdwh  # noqa: F401
from .symmetric_product import symmetric_product, symmetric_product_p  # noqa: F401
from .tridiagonal import (tridiagonal, tridiagonal_p, tridiagonal_solve,  # noqa: F401
                          tridiagonal_solve_p)
