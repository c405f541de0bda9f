"""JAX's `sparse._lowerings`: the cuSPARSE primitives (`coo_spmv_p`, `coo_spmm_p`,
`csr_spmv_p`, `csr_spmm_p`) that JAX's GPU lowerings of the sparse formats call and its GPU
tests bind directly. jxkernel's formats lower to XLA's own operations on every platform, so
these primitives have their shape rules (`jax.eval_shape` works) but no kernel: running one
raises NotImplementedError naming the sparse format's product to use instead. JAX 0.10.2
too has no CPU kernel for them (on the CPU its `coo_spmv_p` raises NotImplementedError).

    >>> import jxkernel, numpy as np
    >>> args = (np.ones(2, np.float32), np.arange(2, dtype=np.int32),
    ...         np.arange(2, dtype=np.int32), np.ones(2, np.float32))
    >>> jxkernel.eval_shape(lambda *a: coo_spmv_p.bind(*a, transpose=False, shape=(3, 2)),
    ...                     *args)
    ShapeDtypeStruct(shape=(3,), dtype=float32)
"""
import numpy as np

from ...core.avals import ShapedArray
from ...core.primitive import Primitive, abstract_eval_rules, lowering_rules, numpy_rules

# the data and index dtypes cuSPARSE's kernels take (JAX's lists)
SUPPORTED_DATA_DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
SUPPORTED_INDEX_DTYPES = [np.int32]

coo_spmv_p = Primitive("coo_spmv")
coo_spmm_p = Primitive("coo_spmm")
csr_spmv_p = Primitive("csr_spmv")
csr_spmm_p = Primitive("csr_spmm")

# each primitive: its format, the rank of x, and the product of jax.experimental.sparse that
# computes the same
_KINDS = {coo_spmv_p: ("coo", 1, "sparse.COO((data, row, col), shape=shape) @ x"),
          coo_spmm_p: ("coo", 2, "sparse.COO((data, row, col), shape=shape) @ x"),
          csr_spmv_p: ("csr", 1, "sparse.CSR((data, indices, indptr), shape=shape) @ x"),
          csr_spmm_p: ("csr", 2, "sparse.CSR((data, indices, indptr), shape=shape) @ x")}


def _check(prim, data, index_a, index_b, x, transpose, shape):
    """TypeError naming the argument where the buffers do not fit a cuSPARSE product."""
    fmt, x_ndim, _ = _KINDS[prim]
    name_a, name_b = ("row", "col") if fmt == "coo" else ("indices", "indptr")
    if len(shape) != 2:
        raise TypeError(f"{prim.name}: shape must be 2-D, got {shape}")
    if data.ndim != 1 or data.shape != index_a.shape or (
            fmt == "coo" and index_b.shape != data.shape) or (
            fmt == "csr" and index_b.shape != (shape[0] + 1,)):
        raise TypeError(f"{prim.name}: data and {name_a} must be 1-D of one length"
                        + (f" and {name_b} too" if fmt == "coo" else
                           f", indptr of length shape[0] + 1 = {shape[0] + 1}")
                        + f"; got data {data.shape}, {name_a} {index_a.shape}, "
                          f"{name_b} {index_b.shape}")
    for name, index in ((name_a, index_a), (name_b, index_b)):
        if index.dtype not in SUPPORTED_INDEX_DTYPES:
            raise TypeError(f"{prim.name}: {name} must be int32, got {index.dtype}")
    if data.dtype != x.dtype or x.dtype not in SUPPORTED_DATA_DTYPES:
        raise TypeError(f"{prim.name}: data and x must share one of float32, float64, "
                        f"complex64, complex128; got {data.dtype} and {x.dtype}")
    if x.ndim != x_ndim or x.shape[0] != shape[0 if transpose else 1]:
        raise TypeError(f"{prim.name}: x must be {x_ndim}-D with {shape[0 if transpose else 1]} "
                        f"rows (shape {shape}, transpose={transpose}), got {x.shape}")


def _abstract_eval(prim):
    def rule(data, index_a, index_b, x, *, transpose, shape):
        _check(prim, data, index_a, index_b, x, transpose, shape)
        rows = shape[1] if transpose else shape[0]
        return ShapedArray((rows,) + tuple(x.shape[1:]), x.dtype)
    return rule


def _no_kernel(prim):
    def rule(*args, **params):
        raise NotImplementedError(
            f"{prim.name} is a cuSPARSE kernel, which JAX calls on a CUDA GPU only; jxkernel "
            f"has no cuSPARSE call on any platform. Compute the product with the sparse "
            f"format instead: {_KINDS[prim][2]}.")
    return rule


for _prim in _KINDS:
    abstract_eval_rules[_prim] = _abstract_eval(_prim)
    lowering_rules[_prim] = _no_kernel(_prim)
    numpy_rules[_prim] = _no_kernel(_prim)
