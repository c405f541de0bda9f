"""Products: dot, matmul, vdot, inner, outer, tensordot, einsum, kron, cross.

    >>> jnp.matmul(jnp.ones((5, 2, 3)), jnp.ones((3, 4))).shape      # batch broadcasting
    (5, 2, 4)
    >>> jnp.einsum("ij,jk->ik", jnp.ones((2, 3)), jnp.ones((3, 4))).shape
    (2, 4)

Every contraction is one `dot_general` whose `preferred_element_type` is the promoted
dtype of the operands, as in JAX (operands keep their own dtypes; XLA accumulates in the
preferred type).
"""
from __future__ import annotations

import collections
import functools

import numpy as np

from .. import lax
from ..core import dtypes, sharding_types
from ..core.symbolic import is_symbolic
from ..core.interpreter_primitives import typed_constant
from ..lax import conversion
from ..lax.sharding import (canonicalize_sharding, check_out_sharding_type, laid_out, resolved,
                            run_auto_axes)
from . import util
from ..transforms.jit import jit
from ..transforms.jit.namesakes import jax_jitted
from .gufunc_signature import check_inputs
from .indexing import getitem
from .manipulation import broadcast_arrays, moveaxis, ravel, stack
from .util import aval_of, canonicalize_axis, check_arraylike, ensure_array, typed_as_asked

__all__ = ["dot", "matmul", "vdot", "vecdot", "inner", "outer", "tensordot", "einsum",
           "einsum_path", "kron", "cross", "matrix_transpose", "matvec", "vecmat"]


def _args(name, *xs):
    check_arraylike(name, *xs)
    return [ensure_array(x) for x in xs]


def _ndim(x) -> int:
    return len(aval_of(x).shape)


def _preferred(name, preferred_element_type, *xs):
    """(dtype to accumulate in, whether the result is weakly typed); a preferred_element_type
    is checked as JAX's, under `name` (vecdot's as vdot's, "dot")."""
    if preferred_element_type is None:
        return dtypes.result_type(*(aval_of(x) for x in xs))
    return dtypes.canonicalize_user_dtype(preferred_element_type, name), False


def _long(x) -> str:
    a = aval_of(x)
    return f"{a.dtype.name}[{','.join(map(str, a.shape))}]"


def _finish(out, dtype, weak):
    a = aval_of(out)
    return out if (a.dtype, a.weak_type) == (dtype, weak) else \
        conversion._convert_element_type(out, dtype, weak)


def _typed_as(out_sharding, product, api_name):
    """`product()`, its result typed and laid out as `out_sharding` (a NamedSharding, or a
    PartitionSpec under set_mesh); its contractions may then have split contracted axes."""
    if out_sharding is None:
        return product()
    check_out_sharding_type(out_sharding, api_name)
    sharding = resolved(out_sharding)
    with sharding_types.out_sharding(lax.dot_general_p, sharding):
        out = product()
        # (traced, its last dot_general typed so: no constraint, as JAX's einsum)
        return out if typed_as_asked(out, sharding) else laid_out(out, sharding)


@jax_jitted(static_argnames=("precision", "preferred_element_type", "out_sharding"), inline=True)
def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """NumPy's dot: a scalar product, matrix-vector or matrix product, or for N-D arrays a
    contraction of a's last axis with b's second-to-last.

    >>> jnp.dot(jnp.array([[1, 2], [3, 4]]), jnp.array([1, 1]))
    Array([3, 7], dtype=int32)
    """
    a, b = _args("dot", a, b)
    dtype, weak = _preferred("dot", preferred_element_type, a, b)
    na, nb = _ndim(a), _ndim(b)
    if na == 0 or nb == 0:
        contract = ((), ())
    else:
        contract = ((na - 1,), (0,)) if nb == 1 else ((na - 1,), (nb - 2,))
    out = lax.dot_general(a, b, (contract, ((), ())), precision=precision,
                          preferred_element_type=dtype, out_sharding=out_sharding)
    return _finish(out, dtype, weak)


@jax_jitted(static_argnames=("precision", "preferred_element_type", "out_sharding"), inline=True)
def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Matrix product with NumPy's rules: leading (batch) dimensions broadcast; a 1-D
    operand is a vector (its axis removed from the result).

    >>> jnp.matmul(jnp.ones((2, 1, 3, 4)), jnp.ones((5, 4, 2))).shape
    (2, 5, 3, 2)
    """
    if out_sharding is not None:
        return _typed_as(out_sharding, lambda: matmul(
            a, b, precision=precision, preferred_element_type=preferred_element_type),
            "dot_general")     # (JAX's matmul passes it to dot_general, which names itself)
    a, b = _args("matmul", a, b)
    for i, x in enumerate((a, b)):
        if _ndim(x) < 1:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, but it has "
                             f"ndim {_ndim(x)}")
    dtype, weak = _preferred("matmul", preferred_element_type, a, b)
    sa, sb = aval_of(a).shape, aval_of(b).shape
    a_is_mat, b_is_mat = len(sa) > 1, len(sb) > 1
    a_batch_dims = sa[:-2] if a_is_mat else ()
    b_batch_dims = sb[:-2] if b_is_mat else ()
    nbatch = max(len(a_batch_dims), len(b_batch_dims))
    a_batch_dims = (None,) * (nbatch - len(a_batch_dims)) + a_batch_dims
    b_batch_dims = (None,) * (nbatch - len(b_batch_dims)) + b_batch_dims
    # the batch dims' mesh axes (a split size-1 dim is not squeezed, as JAX's)
    a_batch_specs = _batch_specs(a, nbatch) if a_is_mat else (None,) * nbatch
    b_batch_specs = _batch_specs(b, nbatch) if b_is_mat else (None,) * nbatch
    # JAX's plan: squeeze size-1 batch dims, make the rest dot_general batch dims or
    # free dims, then one transpose into NumPy's output order
    a_squeeze, b_squeeze, both_squeeze, a_batch, b_batch = [], [], [], [], []
    idx_batch, idx_a_other, idx_b_other = [], [], []
    for i, (ba, bb, spa, spb) in enumerate(zip(a_batch_dims, b_batch_dims, a_batch_specs,
                                               b_batch_specs)):
        if ba is None:
            idx_b_other.append(i)
        elif bb is None:
            idx_a_other.append(i)
        elif ba == 1 and bb == 1 and not spa and not spb:
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
            both_squeeze.append(i)
        elif ba == 1 and not spa:
            idx_b_other.append(i)
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
        elif bb == 1 and not spb:
            idx_a_other.append(i)
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
        elif ba == bb and spa == spb:
            a_batch.append(len(idx_batch) + len(idx_a_other))
            b_batch.append(len(idx_batch) + len(idx_b_other))
            idx_batch.append(i)
        else:
            raise ValueError(f"Incompatible types for matmul arguments: {_long(a)} and "
                             f"{_long(b)}")
    if a_is_mat:
        idx_a_other.append(nbatch)
    if b_is_mat:
        idx_b_other.append(nbatch + a_is_mat)
    perm = tuple(int(p) for p in np.argsort(np.array(idx_batch + idx_a_other + idx_b_other,
                                                     dtype=int)))
    a = lax.squeeze(a, tuple(a_squeeze))
    b = lax.squeeze(b, tuple(b_squeeze))
    out = lax.dot_general(a, b, (((_ndim(a) - 1,), (_ndim(b) - 1 - b_is_mat,)),
                                 (tuple(a_batch), tuple(b_batch))),
                          precision=precision, preferred_element_type=dtype)
    out = lax.transpose(out, perm)
    if both_squeeze:
        out = lax.expand_dims(out, tuple(both_squeeze))
    return _finish(out, dtype, weak)


def _batch_specs(x, nbatch) -> tuple:
    """The mesh axes of each of `x`'s batch dims (all but its last two), left-padded with
    Nones to `nbatch` (() for a dim not split, None for one `x` has not)."""
    aval = aval_of(x)
    parts = sharding_types.parts_of(aval)[:-2] if aval.split is not None \
        else [()] * (len(aval.shape) - 2)
    return (None,) * (nbatch - len(parts)) + tuple(parts)


@jax_jitted
def matvec(x1, x2, /):
    """Matrix-vector products over broadcast batch dimensions: (..., n, m), (..., m)."""
    x1, x2 = _args("matvec", x1, x2)
    # JAX's is vectorize(matmul, signature="(n,m),(m)->(n)"): its checks, its words
    check_inputs("(n,m),(m)->(n)", (aval_of(x1).shape, aval_of(x2).shape))
    return lax.squeeze(matmul(x1, lax.expand_dims(x2, (_ndim(x2),))), (-1,))


@jax_jitted
def vecmat(x1, x2, /):
    """Vector-matrix products (conjugating the vector): (..., n), (..., n, m)."""
    x1, x2 = _args("matvec", x1, x2)         # (JAX's name for it, its slip kept)
    check_inputs("(n),(n,m)->(m)", (aval_of(x1).shape, aval_of(x2).shape))
    if dtypes.is_complex(aval_of(x1).dtype):
        x1 = lax.conj(x1)
    return lax.squeeze(matmul(lax.expand_dims(x1, (_ndim(x1) - 1,)), x2), (-2,))


@jax_jitted(static_argnames=("precision", "preferred_element_type"), inline=True)
def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened arrays, conjugating the first.

    >>> jnp.vdot(jnp.array([1, 2]), jnp.array([3, 4]))
    Array(11, dtype=int32)
    """
    a, b = _args("vdot", a, b)
    if dtypes.is_complex(aval_of(a).dtype):
        a = lax.conj(a)
    return dot(ravel(a), ravel(b), precision=precision,
               preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """Array API vecdot: conj(x1) . x2 along `axis`, broadcasting the other axes."""
    x1, x2 = _args("vecdot", x1, x2)
    s1, s2 = aval_of(x1).shape, aval_of(x2).shape
    if s1[axis] != s2[axis]:
        raise ValueError(f"axes must match; got shapes {s1} and {s2} with axis={axis}")
    x1, x2 = broadcast_arrays(moveaxis(x1, axis, -1), moveaxis(x2, axis, -1))
    if dtypes.is_complex(aval_of(x1).dtype):
        x1 = lax.conj(x1)
    dtype, weak = _preferred("dot", preferred_element_type, x1, x2)
    n = _ndim(x1)
    batch = tuple(range(n - 1))
    out = lax.dot_general(x1, x2, (((n - 1,), (n - 1,)), (batch, batch)), precision=precision,
                          preferred_element_type=dtype)
    return _finish(out, dtype, weak)


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Contraction of a's and b's `axes` (an int: a's last n with b's first n; or a pair of
    axis sequences).

    >>> jnp.tensordot(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5))).shape
    (2, 5)
    """
    a, b = _args("tensordot", a, b)
    na, nb = _ndim(a), _ndim(b)
    dtype, weak = _preferred("tensordot", preferred_element_type, a, b)
    if type(axes) is int:
        if axes > min(na, nb):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                            f"({aval_of(a).shape} and {aval_of(b).shape})")
        contract = tuple(range(na - axes, na)), tuple(range(axes))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax1, ax2 = axes
        if isinstance(ax1, int) and isinstance(ax2, int):
            contract = (canonicalize_axis(ax1, na),), (canonicalize_axis(ax2, nb),)
        elif isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
            if len(ax1) != len(ax2):
                raise TypeError(f"tensordot requires axes lists to have equal length, got "
                                f"{ax1} and {ax2}.")
            contract = (tuple(canonicalize_axis(i, na) for i in ax1),
                        tuple(canonicalize_axis(i, nb) for i in ax2))
        else:
            raise TypeError(f"tensordot requires both axes lists to be either ints, tuples or "
                            f"lists, got {ax1} and {ax2}")
    else:
        raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair "
                        "of lists/tuples of ints.")
    out = lax.dot_general(a, b, (contract, ((), ())), precision=precision,
                          preferred_element_type=dtype, out_sharding=out_sharding)
    return _finish(out, dtype, weak)


def _multiply(a, b):
    """jnp.multiply's rule for two arrays of one dtype: bools multiply as logical and (lax.mul
    takes no bool), as JAX's outer and inner do."""
    return (lax.bitwise_and if aval_of(a).dtype == np.bool_ else lax.mul)(a, b)


@jax_jitted(static_argnames=("precision", "preferred_element_type"), inline=True)
def inner(a, b, *, precision=None, preferred_element_type=None):
    """Contraction of the last axes of a and b.  ``inner(x, y) == tensordot(x, y, (-1, -1))``"""
    a, b = _args("inner", a, b)
    if _ndim(a) == 0 or _ndim(b) == 0:
        if preferred_element_type is not None:       # (each checked, as JAX's astype)
            a = conversion.convert_element_type(
                a, dtypes.canonicalize_user_dtype(preferred_element_type, "astype"))
            b = conversion.convert_element_type(
                b, dtypes.canonicalize_user_dtype(preferred_element_type, "astype"))
        a, b = util.promote_args("inner", a, b)
        return _multiply(a, b)
    return tensordot(a, b, (-1, -1), precision=precision,
                     preferred_element_type=preferred_element_type)


@jax_jitted(inline=True)
def outer(a, b, out=None):
    """Outer product of the flattened arrays: out[i, j] = a[i] * b[j].

    >>> jnp.outer(jnp.array([1, 2]), jnp.array([1, 10]))
    Array([[ 1, 10],
           [ 2, 20]], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
    a, b = util.promote_dtypes(*_args("outer", a, b))
    n, m = aval_of(a).size, aval_of(b).size
    return _multiply(lax.broadcast_in_dim(lax.reshape(a, (n,)), (n, 1), (0,)),
                     lax.broadcast_in_dim(lax.reshape(b, (m,)), (1, m), (1,)))


@jax_jitted
def kron(a, b):
    """Kronecker product: blocks a[i, j] * b.

    >>> jnp.kron(jnp.eye(2, dtype=int), jnp.array([[1, 2]]))
    Array([[1, 2, 0, 0],
           [0, 0, 1, 2]], dtype=int32)
    """
    a, b = util.promote_dtypes(*_args("kron", a, b))
    na, nb = _ndim(a), _ndim(b)
    if na < nb:
        a = lax.expand_dims(a, tuple(range(nb - na)))
    elif nb < na:
        b = lax.expand_dims(b, tuple(range(na - nb)))
    n = _ndim(a)
    sa, sb = aval_of(a).shape, aval_of(b).shape
    a2 = lax.expand_dims(a, tuple(range(1, 2 * n, 2)))
    b2 = lax.expand_dims(b, tuple(range(0, 2 * n, 2)))
    return lax.reshape(lax.mul(a2, b2), tuple(x * y for x, y in zip(sa, sb)))


@jax_jitted(static_argnames=("axisa", "axisb", "axisc", "axis"))
def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None):
    """Cross product of 3-vectors (or 2-vectors: the z component) along the given axes.

    >>> jnp.cross(jnp.array([1, 0, 0]), jnp.array([0, 1, 0]))
    Array([0, 0, 1], dtype=int32)
    """
    a, b = util.promote_dtypes(*_args("cross", a, b))
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    na, nb = aval_of(a).shape[-1], aval_of(b).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    comp = lambda x, i: getitem(x, (Ellipsis, i))
    sub = lambda x, y: lax.sub(*broadcast_arrays(x, y))
    mul = lambda x, y: lax.mul(*broadcast_arrays(x, y))
    if na == 2 and nb == 2:
        return sub(mul(comp(a, 0), comp(b, 1)), mul(comp(a, 1), comp(b, 0)))
    a0, a1, b0, b1 = comp(a, 0), comp(a, 1), comp(b, 0), comp(b, 1)
    zero = lambda x: lax.broadcast_in_dim(typed_constant(0, aval_of(x).dtype), aval_of(x).shape, ())
    a2 = comp(a, 2) if na == 3 else zero(a0)
    b2 = comp(b, 2) if nb == 3 else zero(b0)
    c = stack(broadcast_arrays(sub(mul(a1, b2), mul(a2, b1)), sub(mul(a2, b0), mul(a0, b2)),
                               sub(mul(a0, b1), mul(a1, b0))))
    return moveaxis(c, 0, axisc)


def matrix_transpose(x, /):
    """x with its last two axes swapped.  ``matrix_transpose(x).shape == (..., n, m)``"""
    (x,) = _args("matrix_transpose", x)
    n = _ndim(x)
    if n < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got "
                         f"ndim={n}")
    return lax.transpose(x, (*range(n - 2), n - 1, n - 2))


# ------------------------------------------------------------------ einsum
# The contraction order is opt_einsum's (as in JAX), the pairwise contraction JAX's
# `_einsum`, so that the dot_generals, their operand order and the transposes are JAX's.
# opt_einsum (and the decimal, random, ... it imports) loads on the first einsum, not with
# jnp: most programs never call it.
@functools.cache
def _opt_einsum():
    import opt_einsum
    return opt_einsum


@functools.cache
def _unoptimized_class():
    class Unoptimized(_opt_einsum().paths.PathOptimizer):
        """optimize=False: contract left to right."""
        def __call__(self, inputs, *args, **kwargs):
            return [(0, 1)] * (len(inputs) - 1)
    return Unoptimized


def _path_type(optimize):
    return "optimal" if optimize is True else _unoptimized_class()() if optimize is False \
        else optimize


@functools.lru_cache(maxsize=1024)
def _cached_contractions(subscripts, shapes, optimize):
    return _contractions(subscripts, shapes, list(optimize) if type(optimize) is tuple
                         else optimize)


def _contractions(subscripts, shapes, optimize):
    """opt_einsum's plan as ((operand positions), contracted names, 'in,in->out') steps, or
    None where opt_einsum refuses them (einsum asks again from its own frame, which raises)."""
    try:
        _, steps = _opt_einsum().contract_path(subscripts, *shapes, **_path_options(optimize))
    except Exception:
        return None
    return _steps(steps)


def _path_options(optimize) -> dict:
    return dict(shapes=True, einsum_call=True, use_blas=True, optimize=_path_type(optimize))


def _steps(steps) -> tuple:
    return tuple((tuple(pos), frozenset(removed), spec) for pos, removed, spec, *_ in steps)


def _plan(subscripts, shapes, optimize):
    # opt_einsum's path search costs ~10-50 us, more than the contraction it plans on
    # small arrays: plans are cached (path optimizer objects may hold state: not those)
    if isinstance(optimize, (str, bool)):
        return _cached_contractions(subscripts, shapes, optimize)
    if isinstance(optimize, (list, tuple)):
        key = tuple(p if isinstance(p, str) else tuple(p) for p in optimize)
        return _cached_contractions(subscripts, shapes, key)
    return _contractions(subscripts, shapes, optimize)


def _planned_shape(shape) -> tuple:
    """`shape` as opt_einsum plans with it: a symbolic size (jax.export) counts as 8, as in
    JAX (opt_einsum computes with the sizes; the contractions' shapes are checked after)."""
    return tuple(8 if is_symbolic(d) else d for d in shape)


def _subscripts_and_operands(subscripts, operands):
    if isinstance(subscripts, str):
        return subscripts, list(operands)
    spec, ops = _opt_einsum().parser.convert_interleaved_input((subscripts, *operands))
    return spec, list(ops)


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """The contraction path einsum takes (opt_einsum's), and opt_einsum's report of it.

    >>> jnp.einsum_path("ij,jk,kl", np.ones((2, 3)), np.ones((3, 100)), np.ones((100, 5)),
    ...                 optimize="optimal")[0]
    [(1, 2), (0, 1)]
    """
    return _opt_einsum().contract_path(subscripts, *operands, optimize=_path_type(optimize))


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None, out_sharding=None):
    """Einstein summation: 'ij,jk->ik' is a matrix product, 'ii->i' a diagonal, 'ij->' a
    sum, '...' broadcasts. Contracts two operands at a time with dot_general, in the order
    opt_einsum picks (`optimize`: "auto", True/"optimal", False, "greedy", or a path).

    >>> jnp.einsum("i,i->", jnp.array([1, 2]), jnp.array([3, 4]))
    Array(11, dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    lettered = isinstance(subscripts, str)      # (not lists of axis numbers: for the card)
    subscripts, operands = _subscripts_and_operands(subscripts, operands)
    _planned_before_checked(subscripts, operands, optimize)
    operands = _args("einsum", *operands)
    shapes = tuple(_planned_shape(aval_of(o).shape) for o in operands)
    contractions = _plan(subscripts, shapes, optimize)
    if contractions is None:
        # opt_einsum refused them: its error raised from this frame, as JAX's einsum calls
        # contract_path itself (the traceback shows einsum, then opt_einsum's frames)
        try:
            contractions = _steps(_opt_einsum().contract_path(
                subscripts, *shapes, **_path_options(optimize))[1])
        except ValueError as e:
            # a letter of two sizes: the subscripts, each operand's shape and opt_einsum's
            # reading of them (its letters for '...' too: read without error, as the sizes
            # are checked after), for the notebook's card (views/error_cards/einsum_labels.py):
            # opt_einsum's message names no shape
            if str(e).startswith("Size of label "):
                e.einsum_operands = (subscripts, shapes, lettered, _opt_einsum().parser
                                     .parse_einsum_input((subscripts, *shapes), shapes=True)[:2])
            # an operand of another number of axes than its letters (einsum_axes.py's card),
            # a result letter no operand has or written twice (einsum_output.py's): the
            # same, less opt_einsum's reading, which is what refused them
            elif str(e).startswith(("Einstein sum subscript ", "Output character ")) or \
                    str(e) == "Ellipses lengths do not match.":
                e.einsum_operands = (subscripts, shapes, lettered, None)
            raise
    if out_sharding is not None and len(contractions) > 1:
        # JAX's: several contractions run with the mesh's Explicit axes Auto, the result
        # resharded to out_sharding (auto_axes), so no inner dot is typed by it
        canonicalize_sharding(out_sharding, "einsum")     # (its errors name einsum, as JAX's)
        check_out_sharding_type(out_sharding, "einsum")
        sharding = resolved(out_sharding)
        return run_auto_axes(lambda ops: _einsum(
            list(ops), contractions, precision, preferred_element_type,
            _dot_general or lax.dot_general), (list(operands),), {},
            tuple(sharding.mesh.explicit_axes), sharding)
    if out_sharding is not None:        # traced op by op: the override must see each dot
        typed = canonicalize_sharding(out_sharding, "einsum")   # (its errors name einsum)
        return _typed_as(out_sharding, lambda: _einsum(
            list(operands), contractions, precision, preferred_element_type,
            _dot_general or lax.dot_general, typed), "einsum")
    return _jit_einsum(operands, contractions, precision, preferred_element_type,
                       _dot_general or lax.dot_general)


def _planned_before_checked(subscripts, operands, optimize) -> None:
    """JAX's einsum plans its path from opt_einsum's reading of the operands' shapes before it
    checks that they are arrays: where one is none, its plan comes first, as JAX's (None:
    opt_einsum's ValueError; a string, a list: planned by their lengths, so the subscripts'
    errors come before the refusal of the operand)."""
    if all(hasattr(o, "shape") or isinstance(o, (int, float, complex)) for o in operands):
        return
    get_shape = _opt_einsum().parser.get_shape
    _opt_einsum().contract_path(subscripts, *[get_shape(o) for o in operands],
                                **_path_options(optimize))


def _einsum(operands, contractions, precision, preferred_element_type, dot_general,
            out_sharding=None):
    if preferred_element_type is None:
        dtype, weak = dtypes.result_type(*(aval_of(o) for o in operands))
    else:
        dtype, weak = dtypes.canonicalize_user_dtype(preferred_element_type, "einsum"), False
    for positions, contracted, spec in contractions:
        contracted = sorted(contracted)
        inputs, result = spec.split("->")
        if len(positions) == 1:
            op, names = operands.pop(positions[0]), inputs
            counts = collections.Counter(names)
            # (the sums typed as out_sharding, as JAX's)
            op, names = _sum_uniques(op, names, [c for c in contracted if counts[c] == 1], dtype,
                                     out_sharding)
            op, names = _sum_repeats(op, names, counts, result, dtype, out_sharding)
        elif len(positions) == 2:
            lhs, rhs = map(operands.pop, positions)
            op, names = _einsum_two(lhs, rhs, *inputs.split(","), contracted, result, dtype,
                                    precision, dot_general)
        else:
            raise NotImplementedError(
                "jax.numpy.einsum does not support simultaneous contraction of 3 or more "
                "operands. Typically this means you've passed an unsupported path to the "
                "einsum optimize parameter.")
        if names != result:
            op = lax.transpose(op, tuple(names.index(c) for c in result))
        operands.append(op)
    return _finish(operands[0], dtype, weak)


# jitted and inlined, as in JAX: an eager einsum is one XLA call, a traced one its equations
_jit_einsum = jit(_einsum, static_argnums=(1, 2, 3, 4), inline=True)


def _removechars(s: str, chars) -> str:
    return s.translate(str.maketrans(dict.fromkeys(chars)))


def _esum(x, axes, dtype, out_sharding=None):
    """Sum over `axes`, in the accumulation dtype if it is wider."""
    xd = aval_of(x).dtype
    if dtypes.result_type(xd, dtype)[0] != xd:
        x = conversion.convert_element_type(x, dtype)
        xd = dtype
    return lax.reduce(x, np.array(0, xd), lax.add if xd != np.bool_ else lax.bitwise_or,
                      tuple(axes), out_sharding)


def _sum_uniques(x, names, uniques, dtype, out_sharding=None):
    if uniques:
        x = _esum(x, [names.index(c) for c in uniques], dtype, out_sharding)
        names = _removechars(names, uniques)
    return x, names


def _delta(shape, axes):
    """A boolean array of `shape`, true where the indices along `axes` are all equal
    (JAX's lax._delta: iotas over those axes only, then broadcast)."""
    base = tuple(shape[a] for a in axes)
    iotas = [lax.broadcasted_iota(np.uint32, base, i) for i in range(len(base))]
    eye = functools.reduce(lax.bitwise_and, [lax.eq(a, b) for a, b in zip(iotas, iotas[1:])])
    if tuple(axes) == tuple(range(len(shape))):     # (JAX forwards an identity broadcast)
        return eye
    return lax.broadcast_in_dim(eye, tuple(shape), tuple(axes))


def _sum_repeats(x, names, counts, keep, dtype, out_sharding=None):
    """Repeated labels (a diagonal): mask with an identity, then sum all but one copy (or
    all of them if the label is contracted)."""
    for c, count in counts.items():
        if count > 1:
            axes = [i for i, n in enumerate(names) if n == c]
            shape = aval_of(x).shape
            eye = _delta(shape, axes)
            zero = typed_constant(0, aval_of(x).dtype)
            x = lax.select(eye, x, lax.broadcast_in_dim(zero, shape, ()))
            if c not in keep:
                x = _esum(x, axes, dtype, out_sharding)
                names = names.replace(c, "")
            else:
                x = _esum(x, axes[:-1], dtype, out_sharding)
                names = names.replace(c, "", count - 1)
    return x, names


def _filter_singletons(x, names, other_shape, other_names):
    """Squeeze size-1 axes whose label has a larger size in the other operand (broadcast)."""
    shape = aval_of(x).shape
    keep = [shape[i] != 1 or j == -1 or other_shape[j] == 1
            for i, j in enumerate(map(other_names.find, names))]
    x = lax.squeeze(x, tuple(i for i, k in enumerate(keep) if not k))
    return x, "".join(c for c, k in zip(names, keep) if k)


def _einsum_two(lhs, rhs, ln, rn, contracted, result, dtype, precision, dot_general):
    lhs, ln = _filter_singletons(lhs, ln, aval_of(rhs).shape, rn)
    rhs, rn = _filter_singletons(rhs, rn, aval_of(lhs).shape, ln)
    lc, rc = collections.Counter(ln), collections.Counter(rn)
    lhs, ln = _sum_uniques(lhs, ln, [c for c in contracted if lc[c] == 1 and rc[c] == 0], dtype)
    rhs, rn = _sum_uniques(rhs, rn, [c for c in contracted if rc[c] == 1 and lc[c] == 0], dtype)
    lhs, ln = _sum_repeats(lhs, ln, lc, result + rn, dtype)
    rhs, rn = _sum_repeats(rhs, rn, rc, result + ln, dtype)
    contracted = [c for c in contracted if c in set(ln) | set(rn)]
    both = set(ln) & set(rn)
    batch = "".join(c for c in result if c in both)
    lb, rb = tuple(ln.find(c) for c in batch), tuple(rn.find(c) for c in batch)
    lcon, rcon = tuple(ln.index(c) for c in contracted), tuple(rn.index(c) for c in contracted)
    ls, rs = aval_of(lhs).shape, aval_of(rhs).shape
    # (opt_einsum checks concrete sizes; symbolic ones were planned as 8: JAX's assertion)
    if not all(c in ln and c in rn and ls[ln.index(c)] == rs[rn.index(c)] for c in contracted):
        raise AssertionError(f"Incompatible reduction dimensions: lhs.shape={ls} "
                             f"lhs_names={ln} rhs.shape={rs} rhs_names={rn}")
    gone = batch + "".join(contracted)
    l_rest, r_rest = _removechars(ln, gone), _removechars(rn, gone)
    # try (rhs, lhs) first, as JAX does: opt_einsum contracts right to left, so that order
    # most often needs no transpose
    names = batch + r_rest + l_rest
    if names == result:
        return dot_general(rhs, lhs, ((rcon, lcon), (rb, lb)), precision,
                           preferred_element_type=dtype), names
    names = batch + l_rest + r_rest
    return dot_general(lhs, rhs, ((lcon, rcon), (lb, rb)), precision,
                       preferred_element_type=dtype), names
