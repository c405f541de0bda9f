"""What the linear-algebra primitives share: their operand checks, batching over leading
dims, LAPACK's `info` turned into NaN for the matrices it failed on, SciPy's LAPACK wrappers
for the NumPy rules, and the small matrix helpers their derivative rules are written with
(`_T`, `_H`, `_dot`, `_tril`, `_triu`, `_eye`, `_diag`, `_permute_rows`, `symmetrize`).

    >>> _tril(np.float32([[1, 2], [3, 4]]))
    Array([[1., 0.],
           [3., 4.]], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.avals import ShapedArray, get_aval, parts_of
from ...core.sharding_types import ShardingTypeError
from ...core.interpreter_primitives import typed_constant
from ...xla.lowering import LoweringRuleContext
from ...transforms import batch_util as bu
from .. import _lowering as hl
from .. import conversion, elementwise as ew, shapes, slicing
from .._rules import INEXACT, check_dtype
from ..dot import Precision, dot_general
from ..slicing import GatherDimensionNumbers, GatherScatterMode, gather


_LAPACK_DTYPES = frozenset(map(np.dtype, (np.float32, np.float64, np.complex64, np.complex128)))


# ------------------------------------------------------------------ helpers
def _check_square(name, x, not_square: str):
    """JAX's checks of the operand of eig, schur and hessenberg: an inexact dtype, rank 2 or
    more (TypeError), and `not_square` (a ValueError's message) unless its matrices are."""
    check_dtype(name, x, INEXACT, position=0)
    if len(x.shape) < 2:
        raise TypeError(f"Input 0 to {name} must have rank at least 2, but got "
                        f"shape={x.shape}")
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(not_square)


def _check_matrix(name, x, square=False, position=0):
    """JAX's checks and words (its linalg_shape_rule's, cholesky's own for a matrix that is
    not square) of operand `position`."""
    check_dtype(name, x, INEXACT, position=position)
    if len(x.shape) < 2:
        raise TypeError(f"Input {position} to {name} must have rank at least 2, but got "
                        f"shape={x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"The input to {name} must be a square matrix. Got shape {x.shape}.")
    # float16 and bfloat16 trace, as in JAX: LAPACK refuses them as they are lowered


def _linalg_batch_dims(name, ranks, avals, batching=True) -> tuple:
    """JAX's linalg_shape_rule checks: operand i has rank ranks[i] or more (exactly, for a
    primitive that does not batch), all with as many batch dims; returns the first's."""
    for i, (rank, x) in enumerate(zip(ranks, avals)):
        if len(x.shape) < rank:
            raise TypeError(f"Input {i} to {name} must have rank at least {rank}, but got "
                            f"shape={x.shape}")
        if not batching and len(x.shape) != rank:
            raise TypeError(f"Input {i} to {name} must have a rank of exactly {rank}, but got "
                            f"shape={x.shape}")
    counts = [len(x.shape) - rank for rank, x in zip(ranks, avals)]
    if len(set(counts)) > 1:
        raise TypeError(f"All inputs to {name} must have the same number of batch dimensions, "
                        f"but got {counts} batch dimensions for the inputs.")
    return avals[0].shape[:counts[0]]


def linalg_sharding_rule(prim, ranks: tuple):
    """JAX's linalg_sharding_rule for primitive `prim` whose operand i has `ranks[i]` core dims:
    every operand unsplit on its core dims, all split alike on their batch dims; each result
    split as they are on its batch dims, unsplit on the rest (vmap of jnp.linalg.solve over a
    split batch stays split). JAX's ShardingTypeErrors else. Registered beside each primitive's
    other rules, with its lowering wrapped in `untyped_lowering`:

        sharding_rules[cholesky_p] = linalg_sharding_rule(cholesky_p, (2,))
    """
    name, multiple = prim.name, prim.multiple_results

    def rule(name_, in_avals, params, out_avals):
        batch_specs = []
        for i, (rank, aval) in enumerate(zip(ranks, in_avals)):
            spec = aval.sharding.spec
            batch, rest = spec[:len(spec) - rank], spec[len(spec) - rank:]
            if not all(p is None for p in rest):
                raise ShardingTypeError(f"Input {i} to {name} must be unsharded on non-batch "
                                        f"dimensions, but got {spec}.")
            batch_specs.append(batch)
        if any(b != batch_specs[0] for b in batch_specs[1:]):
            raise ShardingTypeError(f"All inputs to {name} must have the same batch sharding, "
                                    f"but got {batch_specs}.")
        first = in_avals[0]
        batch = parts_of(first)[:len(first.shape) - ranks[0]] if first.split is not None \
            else [()] * (len(first.shape) - ranks[0])
        outs = [list(batch) + [()] * (len(o.shape) - len(batch)) for o in out_avals]
        return outs if multiple else outs[0]
    return rule


def triangular_solve_sharding_rule(name, in_avals, params, out_avals):
    """JAX's _tri_solve_sharding: a and b split alike on their batch dims, each unsplit on the
    dim the solve contracts; the result split as a's batch dims, then as the dims of a and b
    it keeps."""
    a, b = in_avals
    a_spec, b_spec = a.sharding.spec, b.sharding.spec
    batch, a_mat = a_spec[:-2], a_spec[-2:]
    batch_, b_mat = b_spec[:-2], b_spec[-2:]
    left, trans = params["left_side"], params["transpose_a"]
    if batch != batch_:
        raise ShardingTypeError(f"All inputs to triangular_solve must have the same batch "
                                f"sharding, but got {batch} and {batch_}.")
    if a_mat[left ^ trans] is not None:
        raise ShardingTypeError(f"triangular solve input `a` must be unsharded on the "
                                f"contracting axis, but got {a_spec} with left_side={left} and "
                                f"transpose_a={trans}.")
    if b_mat[not left] is not None:
        raise ShardingTypeError(f"triangular solve input `b` must be unsharded on the "
                                f"contracting axis, but got {b_spec} with left_side={left} and "
                                f"transpose_a={trans}.")
    out = [a_mat[trans], b_mat[1]] if left else [b_mat[0], a_mat[not trans]]
    entry = lambda p: () if p is None else (p,) if isinstance(p, str) else tuple(p)
    return [entry(p) for p in (*batch, *out)]


def _real(dtype):
    return np.dtype(np.float64 if np.dtype(dtype) == np.complex128 else
                    np.float32 if np.dtype(dtype) == np.complex64 else dtype)


def _batch_all_front(prim):
    """Batching rule of a primitive that batches over leading dims: batch dims go first (an
    unbatched operand is broadcast), as JAX's expand_dims_batcher."""
    def rule(vals, dims, **params):
        size = bu.axis_size_of(vals, dims)
        outs = prim.bind(*(bu.bdim_at_front(x, d, size) for x, d in zip(vals, dims)), **params)
        return outs, ([0] * len(outs) if prim.multiple_results else 0)
    return rule


def _not_differentiable(prim):
    """JAX defines no jvp for the LAPACK building blocks of qr: its message, as a rule."""
    def rule(primals, tangents, **params):
        raise NotImplementedError(f"Differentiation rule for '{prim}' not implemented")
    return rule


def untyped_lowering(rule):
    """`rule` lowering its equation as over values of no sharding (the LAPACK calls and the
    loops of lax ops written for one matrix batch): the pipeline constrains the equation's
    typed results to their shardings after it, as it does every primitive's."""
    def lower(ctx, *args, **params):
        avals = (*ctx.avals_in, *ctx.avals_out)
        if all(getattr(a, "split", None) is None for a in avals):
            return rule(ctx, *args, **params)
        plain = lambda a: a.update(sharding=None) if getattr(a, "split", None) is not None \
            else a
        sub = LoweringRuleContext(ctx.module_ctx, ctx.block, [plain(a) for a in ctx.avals_in],
                                  [plain(a) for a in ctx.avals_out], ctx.source_info, ctx.name)
        return rule(sub, *args, **params)
    return lower


def _sub_ctx(ctx, avals_in, avals_out):
    return LoweringRuleContext(ctx.module_ctx, ctx.block, avals_in, avals_out, ctx.source_info)


def _ok(ctx, info, batch, direction="EQ"):
    """LAPACK's `info` (one per matrix of the `batch`) against 0: where the routine worked."""
    aval = ShapedArray(batch, np.int32)
    return hl.compare(ctx, info, hl.splat(ctx, 0, np.int32, batch), direction, aval)


def _nan_unless(ctx, ok, x, aval, batch):
    """x where `ok` (a flag per matrix of the batch), NaN in failed matrices (as JAX)."""
    ok = hl.broadcast_in_dim(ctx, ok, aval.shape, np.bool_, list(range(len(batch))))
    nan = np.nan + np.nan * 1j if dtypes.is_complex(aval.dtype) else np.nan
    return hl.select(ctx, ok, x, hl.splat(ctx, nan, aval.dtype, aval.shape), aval)


def _shape(x):
    return bu.shape(x)


def _dtype(x):
    return get_aval(x).dtype


def _T(x):
    nd = len(_shape(x))
    return shapes.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _H(x):
    return ew.conj(_T(x)) if dtypes.is_complex(_dtype(x)) else _T(x)


def symmetrize(x):
    """(x + x^H) / 2: the Hermitian part of x. As JAX's, written with Python's operators: the
    sum in x's dtype (a bool's `+` an or), the halving a true division, which makes an
    integer or bool sum the default float (cholesky and eigh take an int matrix so)."""
    total = (ew.bitwise_or if _dtype(x) == np.bool_ else ew.add)(x, _H(x))
    if _dtype(x) not in INEXACT:
        total = conversion.convert_element_type(total, dtypes.default_float_dtype())
    return ew.div(total, typed_constant(2, _dtype(total)))


def _dot(a, b):
    """Matrix product over the last two dims, batched over equal leading dims, at HIGHEST
    precision (as JAX's rules compute theirs)."""
    nd = len(_shape(a))
    batch = tuple(range(nd - 2))
    return dot_general(a, b, (((nd - 1,), (nd - 2,)), (batch, batch)),
                       precision=Precision.HIGHEST)


def _tri(n, m, k):
    """Booleans (n, m): i + k >= j (JAX's lax._tri)."""
    rows = ew.add(shapes.broadcasted_iota(np.int32, (n, m), 0), np.int32(k))
    return ew.ge(rows, shapes.broadcasted_iota(np.int32, (n, m), 1))


def _tri_mask(x, k):
    """_tri for x's last two dims, broadcast over its batch dims."""
    shape = _shape(x)
    nd = len(shape)
    mask = _tri(*shape[-2:], k)
    return mask if nd == 2 else shapes.broadcast_in_dim(mask, shape, (nd - 2, nd - 1))


def _zeros(x):
    return shapes.broadcast_in_dim(typed_constant(0, _dtype(x)), _shape(x), ())


def _zeros_like(x):
    """Zeros typed as x (JAX's lax.full_like(x, 0))."""
    return shapes.broadcast_in_dim(typed_constant(0, _dtype(x)), _shape(x), (),
                                   out_sharding=getattr(get_aval(x), "split", None))


def _tril(x, k=0):
    """x with the entries above diagonal k zeroed (the zeros typed as x, JAX's full_like: a
    split batch meets its unsplit mask, JAX's ShardingTypeError)."""
    mask = _tri_mask(x, k)
    return ew.select(mask, x, _zeros_like(x))


def _triu(x, k=0):
    """x with the entries below diagonal k zeroed."""
    mask = _tri_mask(x, k - 1)
    return ew.select(mask, _zeros_like(x), x)


def _eye(dtype, n, m=None, ndim=2):
    """The identity (n, m) of `dtype`, built as JAX's lax._eye builds it; with `ndim` > 2,
    under leading unit dims (as JAX's rules expand it), so that it meets a batch of matrices
    under jax_numpy_rank_promotion='raise'."""
    m = n if m is None else m
    rows = ew.add(shapes.broadcasted_iota(np.int32, (n, m), 0), np.int32(0))
    eye = conversion.convert_element_type(
        ew.eq(rows, shapes.broadcasted_iota(np.int32, (n, m), 1)), dtype)
    return shapes.expand_dims(eye, tuple(range(ndim - 2))) if ndim > 2 else eye


def _diag(x):
    """The diagonals of a batch of square matrices (a strided slice of the flattened matrix,
    so linear and transposable)."""
    *batch, k, _ = _shape(x)
    flat = shapes.reshape(x, (*batch, k * k))
    return slicing.slice(flat, (0,) * (len(batch) + 1), (*batch, k * k),
                         (1,) * len(batch) + (k + 1,))


def _permute_rows(x, perm):
    """x[..., perm, :] per matrix (perm has x's batch dims): a gather with batching dims."""
    *batch, _, n = _shape(x)
    nb = len(batch)
    dn = GatherDimensionNumbers(offset_dims=(nb + 1,), collapsed_slice_dims=(nb,),
                                start_index_map=(nb,), operand_batching_dims=tuple(range(nb)),
                                start_indices_batching_dims=tuple(range(nb)))
    return gather(x, shapes.expand_dims(perm, (nb + 1,)), dn, (1,) * nb + (1, n),
                  unique_indices=True, mode=GatherScatterMode.PROMISE_IN_BOUNDS)


def _scipy_lapack(routine: str, dtype):
    """SciPy's wrapper of the LAPACK `routine` for `dtype` (the NumPy rules of the routines
    NumPy does not wrap); SciPy is optional, so the rule says so where it is absent."""
    try:
        import scipy.linalg.lapack  # deferred: optional and heavy, only these rules need it
    except ImportError:
        raise NotImplementedError(f"the NumPy rule of {routine} needs SciPy") from None
    return scipy.linalg.lapack.get_lapack_funcs(routine, dtype=dtype)
