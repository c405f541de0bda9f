"""The collectives JAX 0.10.2 runs only on GPUs: ragged_all_to_all, psend and precv (JAX's
jax/_src/lax/parallel.py), each with the rules JAX gives it.

    >>> jax.make_jaxpr(lambda t: lax.precv(t, jax.ShapeDtypeStruct((), np.float32), 'i',
    ...                                    [(0, 1)]))(lax.create_token()).eqns[0].primitive.name
    'precv'

On the CPU they fail as JAX's do: ragged_all_to_all lowers to XLA's `ragged_all_to_all`
custom call, which XLA:CPU cannot compile ("HLO opcode `ragged-all-to-all` is not supported
by XLA:CPU ThunkEmitter"); psend and precv raise NotImplementedError as they lower.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray, abstract_token
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                              jvp_rules, lowering_rules, transpose_rules)
from ..tree_util import tree_map
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from ..xla import stablehlo as hlo
from .elementwise import add, mul, ne, select
from .parallel._common import (_CHANNEL, _as_names, _bound, _check_bound, _raise_unbound,
                               mesh_groups, varying)
from .parallel.alltoall import all_to_all
from .parallel.permute import _ppermute_batching
from .reductions import cumsum
from .shapes import broadcast_in_dim, iota, reshape
from .slicing import scatter, scatter_add, ScatterDimensionNumbers

ragged_all_to_all_p = Primitive("ragged_all_to_all")
psend_p = Primitive("psend")
precv_p = Primitive("precv")


# ------------------------------------------------------------------ ragged_all_to_all
def ragged_all_to_all(operand, output, input_offsets, send_sizes, output_offsets, recv_sizes,
                      *, axis_name, axis_index_groups=None):
    """Send `operand[input_offsets[i]:input_offsets[i] + send_sizes[i]]` to the member
    `i // (K / axis size)` of `axis_name`, which writes it into its `output` at its
    `output_offsets` (as `all_to_all(output_offsets, axis_name, 0, 0, tiled=True)` gives
    them), `recv_sizes[i]` rows each; the rest of `output` stays (JAX's ragged all-to-all)."""
    groups = None if axis_index_groups is None else \
        tuple(tuple(int(i) for i in g) for g in axis_index_groups)
    return ragged_all_to_all_p.bind(operand, output, input_offsets, send_sizes, output_offsets,
                                    recv_sizes, axis_name=_as_names(axis_name),
                                    axis_index_groups=groups)


def _ragged_abstract_eval(operand, output, input_offsets, send_sizes, output_offsets,
                          recv_sizes, *, axis_name, axis_index_groups):
    for name, aval in (("input_offsets", input_offsets), ("send_sizes", send_sizes),
                       ("output_offsets", output_offsets), ("recv_sizes", recv_sizes)):
        if not dtypes.is_int(aval.dtype):
            raise ValueError(f"ragged_all_to_all {name} must be integer type.")
    for name, aval in (("input_offsets", input_offsets), ("send_sizes", send_sizes),
                       ("output_offsets", output_offsets), ("recv_sizes", recv_sizes)):
        if len(aval.shape) != 1 or aval.shape[0] < 1:
            raise ValueError(f"ragged_all_to_all {name} must be rank 1 with positive dimension "
                             f"size, but got shape {aval.shape}")
    _check_bound(axis_name, "ragged_all_to_all")
    return output.update(weak_type=False)


def _ragged_lowering(ctx, *args, axis_name, axis_index_groups):
    manual = _bound(ctx, axis_name)
    groups = mesh_groups(manual[0], axis_name, axis_index_groups)
    config = f"{{channel_id = 1 : i64, replica_groups = {hlo.dense_i64(groups)}}}"
    return ctx.op1("stablehlo.custom_call", list(args), attrs={
        "call_target_name": '"ragged_all_to_all"', "api_version": "4 : i32",
        "backend_config": config})


def _ragged_jvp(primals, tangents, **params):
    operand, output, *sizes_and_offsets = primals
    operand_dot, output_dot, *_ = tangents
    result = ragged_all_to_all_p.bind(operand, output, *sizes_and_offsets, **params)
    if type(operand_dot) is ad.Zero and type(output_dot) is ad.Zero:
        return result, ad.Zero(ad.aval_of(result))
    return result, ragged_all_to_all_p.bind(ad.instantiate(operand_dot),
                                            ad.instantiate(output_dot), *sizes_and_offsets,
                                            **params)


def _ragged_transpose(t, operand, output, input_offsets, send_sizes, output_offsets,
                      recv_sizes, *, axis_name, axis_index_groups):
    """The operand's cotangent comes back along the reverse route; the output's is the
    cotangent where nothing was written (JAX's rule)."""
    if type(t) is ad.Zero:
        return [ad.Zero(operand.aval) if ad.is_undefined(operand) else None,
                ad.Zero(output.aval) if ad.is_undefined(output) else None] + [None] * 4
    zero = ad.zeros(operand.aval)
    output_offsets_ = all_to_all(output_offsets, axis_name, 0, 0, tiled=True)
    input_offsets_ = all_to_all(input_offsets, axis_name, 0, 0, tiled=True)
    operand_t = ragged_all_to_all_p.bind(t, zero, output_offsets_, recv_sizes, input_offsets_,
                                         send_sizes, axis_name=axis_name,
                                         axis_index_groups=axis_index_groups)
    n = bu.shape(t)[0]
    marks = _at(np.zeros(n, np.int32), output_offsets_, np.int32(1), scatter)
    marks = _at(marks, add(output_offsets_, recv_sizes), np.int32(-1), scatter_add)
    mask = broadcast_in_dim(ne(cumsum(marks, axis=0), np.int32(0)), bu.shape(t), (0,))
    output_t = select(mask, ad.zeros(ad.aval_of(t)), t)
    return [operand_t, output_t] + [None] * 4


def _at(x, idx, value, op):
    """x.at[idx].set(value) (op=scatter) or .add(value) (op=scatter_add), out-of-bounds
    indices dropped (jnp's default for these)."""
    dnums = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))
    updates = broadcast_in_dim(value, bu.shape(idx), ())
    return op(x, reshape(idx, (*bu.shape(idx), 1)), updates, dnums, mode="drop")


def _ragged_batching(axis_data, vals, dims, *, axis_name, axis_index_groups):
    if all(d is bu.not_mapped for d in dims) and axis_data.name not in axis_name:
        return ragged_all_to_all_p.bind(*vals, axis_name=axis_name,
                                        axis_index_groups=axis_index_groups), bu.not_mapped
    if axis_data.name in axis_name or axis_index_groups:
        raise NotImplementedError("Please open a feature request!")
    # the batch as more ragged pieces: rows of every batch member side by side
    size = axis_data.size
    operand, output = (bu.bdim_at_front(x, d, size) for x, d in zip(vals[:2], dims[:2]))
    n, m = bu.shape(operand)[1], bu.shape(output)[1]
    index = [_at_second(x, d, size) for x, d in zip(vals[2:], dims[2:])]
    shift = lambda x, rows: add(x, mul(broadcast_in_dim(iota(x.dtype, size), bu.shape(x), (1,)),
                                       np.array(rows, x.dtype)))
    index[0], index[2] = shift(index[0], n), shift(index[2], m)
    merge = lambda x: reshape(x, (bu.shape(x)[0] * bu.shape(x)[1], *bu.shape(x)[2:]))
    result = ragged_all_to_all(*map(merge, (operand, output, *index)), axis_name=axis_name)
    return reshape(result, (size, m, *bu.shape(result)[1:])), 0


def _at_second(x, d, size):
    """A per-piece index array with the batch at dimension 1 (JAX's bdim_at_second, which
    takes only 2-D ones: an unbatched 1-D array fails its assertion, as here)."""
    assert bu.ndim(x) == 2
    if d is bu.not_mapped:
        return broadcast_in_dim(x, (bu.shape(x)[0], size), (0,))
    return x if d == 1 else bu.moveaxis(x, 0, 1)


def _ragged_unmapped(*args, **params):
    raise RuntimeError("ragged_all_to_all must be used within a mapped context like vmap or "
                       "shard_map.")


abstract_eval_rules[ragged_all_to_all_p] = _ragged_abstract_eval
impl_rules[ragged_all_to_all_p] = _ragged_unmapped
lowering_rules[ragged_all_to_all_p] = _ragged_lowering
jvp_rules[ragged_all_to_all_p] = _ragged_jvp
transpose_rules[ragged_all_to_all_p] = _ragged_transpose
axis_batching_rules[ragged_all_to_all_p] = _ragged_batching


# ------------------------------------------------------------------ psend / precv
def psend(x, axis_name, perm):
    """Send `x` (any pytree) from member `src` to member `dst` for each pair of `perm`
    (XLA's Send); returns a token for precv and optimization_barrier to order by."""
    names = _as_names(axis_name)
    perm = tuple(map(tuple, perm))
    return tree_map(lambda leaf: psend_p.bind(varying(leaf, names, "jax.lax.psend"),
                                              axis_name=names, perm=perm), x)


def precv(token, out_shape, axis_name, perm):
    """Receive an array of `out_shape` (a ShapeDtypeStruct) from the member `perm` pairs
    with this one (XLA's Recv), after `token` (a psend's, or lax.create_token())."""
    return precv_p.bind(getattr(token, "_buf", token),
                        out_shape=ShapedArray(out_shape.shape, out_shape.dtype),
                        axis_name=_as_names(axis_name), perm=tuple(map(tuple, perm)))


def _psend_abstract_eval(x, *, axis_name, perm):
    _check_bound(axis_name, "psend")
    return abstract_token


def _gpu_only(name):
    def lower(ctx, *args, **params):
        if ctx.platform not in ("cuda", "rocm", "gpu"):
            raise NotImplementedError(f"{name} is currently only implemented on GPU")
        return _LOWER_ON_GPU[name](ctx, *args, **params)
    return lower


def _pairs(ctx, axis_name, perm, name):
    """The (source, target) device pairs of `perm` in each group along `axis_name`."""
    groups = [sorted(g) for g in mesh_groups(_bound(ctx, axis_name)[0], axis_name)]
    n = len(groups[0])
    srcs, dsts = [s % n for s, _ in perm], [d % n for _, d in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"{name} sources and destinations must be unique, got {perm}.")
    return hlo.dense_i64([[g[s], g[d]] for g in groups for s, d in zip(srcs, dsts)])


def _psend_gpu(ctx, x, *, axis_name, perm):
    token = ctx.op1("stablehlo.after_all", [], result_type="!stablehlo.token")
    return ctx.op1("stablehlo.send", [x, token], attrs={
        "channel_handle": _CHANNEL, "is_host_transfer": "false",
        "source_target_pairs": _pairs(ctx, axis_name, perm, "psend")},
        result_type="!stablehlo.token")


def _precv_gpu(ctx, token, *, out_shape, axis_name, perm):
    value, _ = ctx.op("stablehlo.recv", [token], attrs={
        "channel_handle": _CHANNEL, "is_host_transfer": "false",
        "source_target_pairs": _pairs(ctx, axis_name, perm, "precv")},
        result_types=[hlo.aval_type(out_shape), "!stablehlo.token"])
    return value


_LOWER_ON_GPU = {"psend": _psend_gpu, "precv": _precv_gpu}


def _precv_batching(axis_data, vals, dims, *, out_shape, **params):
    # JAX batches precv with ppermute's rule, which takes no out_shape: its TypeError
    raise TypeError("_ppermute_batcher() got an unexpected keyword argument 'out_shape'")


def _no_eval(*args, **params):
    raise NotImplementedError("Evaluation rule for 'precv' not implemented")


def _psend_eager(x, *, axis_name, perm):
    # as JAX's, which traces the eager call: its trace-time error for an unbound axis
    _check_bound(axis_name, "psend")
    _raise_unbound(axis_name=axis_name)


abstract_eval_rules[psend_p] = _psend_abstract_eval
impl_rules[psend_p] = _psend_eager
lowering_rules[psend_p] = _gpu_only("psend")
axis_batching_rules[psend_p] = _ppermute_batching      # as JAX's: a ppermute under vmap
abstract_eval_rules[precv_p] = lambda token, *, out_shape, axis_name, perm: out_shape
impl_rules[precv_p] = _no_eval
lowering_rules[precv_p] = _gpu_only("precv")
axis_batching_rules[precv_p] = _precv_batching
# (neither has a derivative, as in JAX: differentiating raises its NotImplementedError)
