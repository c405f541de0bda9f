"""Collectives over a named axis: psum, pmean, pmax, pmin, all_gather, axis_index, and those
that move data between its members: ppermute (and pshuffle), all_to_all (and pswapaxes),
psum_scatter; plus axis_size.

    >>> vmap(lambda x: x - lax.pmean(x, 'batch'), axis_name='batch')(xs)   # centre a batch
    >>> vmap(lambda x: lax.ppermute(x, 'i', [(0, 1), (1, 2), (2, 0)]), axis_name='i')(xs)

The axis is introduced by vmap with `axis_name=`, or by shard_map (and pmap, a jit of
shard_map) as a mesh axis. Under vmap a collective over that axis becomes an ordinary array
operation over the batch dimension; over a *different* (outer) axis it passes through with
the batch dimension kept; over several axes at once (the NumPy backend's shard_map batches
its body over each mesh axis in turn), every member's value is stacked over them in XLA's
group order and each member takes its part. In a shard_map body each lowers to the StableHLO collective among
the devices along its mesh axes (all_reduce, all_gather, collective_permute, all_to_all,
reduce_scatter), the groups given as partition ids.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes, vma
from ..core.avals import ShapedArray, get_aval
from ..core.axis_env import axis_size as bound_axis_size, visible_axes
from ..core.ir import param_printers
from ..core.primitive import (
    Primitive,
    abstract_eval_rules,
    axis_batching_rules,
    impl_rules,
    jvp_rules,
    lowering_rules,
    numpy_rules,
    own_vma_rules,
    transpose_rules,
)
from ..core.trace import EvalTrace, Tracer, current_trace
from ..tree_util import tree_flatten, tree_map, tree_unflatten
from ..xla import stablehlo as hlo
from ..xla.lowering import LoweringRuleContext
from ..transforms import batch_util as bu
from . import _lowering as hl
from . import reductions
from ..transforms.ad_util import Zero, defjvp_zero, deflinear2, instantiate
from .conversion import convert_element_type
from .elementwise import _const, add, div, eq, mul, select
from .reductions import reduce_sum
from .shapes import broadcast_in_dim, expand_dims, iota, reshape, squeeze, transpose
from .slicing import GatherDimensionNumbers, gather


def _as_names(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _unbound(name):
    return NameError(f"unbound axis name: {name}")         # JAX's words (core.axis_size)


def _check_bound(axes, api: str, eager_plain: bool = False) -> None:
    """JAX's trace-time error for a collective over an axis nothing encloses (its psum and
    axis_index abstract evaluation checks the axis env): "Found an unbound axis name". An
    eager psum says only "unbound axis name" there (`eager_plain`)."""
    names = {n for n, _ in visible_axes()}
    for a in axes:
        if isinstance(a, int) or a in names:
            continue
        if eager_plain and type(current_trace()) is EvalTrace:
            raise _unbound(a)
        raise NameError(f"Found an unbound axis name: {a}. To fix this, please call {api} "
                        f"under `jax.shard_map`.")


def _raise_unbound(*operands, axis_name=None, axes=None, **_):
    """The impl rule of a collective: run eagerly, outside pmap/vmap/shard_map, its axis is
    bound by nothing (psum_invariant and pvary name theirs `axes`)."""
    raise _unbound(_as_names(axis_name if axis_name is not None else axes)[0])


def _register_linear_collective(prim, abstract_eval, lowering, batching, transpose):
    """The rules of a linear collective (ppermute, all_to_all, all_gather, reduce_scatter):
    bound only inside what names its axis, linear, transposed by `transpose`."""
    abstract_eval_rules[prim] = abstract_eval
    impl_rules[prim] = _raise_unbound
    lowering_rules[prim] = lowering
    axis_batching_rules[prim] = batching
    deflinear2(prim, transpose)


def _canonical_groups(axis_index_groups, size):
    """`axis_index_groups` as a hashable tuple of tuples, checked against the axis `size`."""
    if axis_index_groups is None:
        return None
    groups = tuple(tuple(int(i) for i in g) for g in axis_index_groups)
    members = sorted(i for g in groups for i in g)
    if members != list(range(size)):
        raise ValueError(f"axis_index_groups must cover all indices exactly once: got {groups} "
                         f"for an axis of size {size}")
    if len({len(g) for g in groups}) > 1:
        raise ValueError(f"axis_index_groups must all be the same size, got {groups}")
    return groups


def _no_groups_under_vmap(axis_index_groups):
    if axis_index_groups is not None:
        raise NotImplementedError("axis_index_groups not supported in vmap collectives. "
                                  "Use them under pmap, or split the vmapped axis into two.")


# ------------------------------------------------------------------ psum / pmax / pmin
def _split_axes(axes) -> tuple:
    """(named, positional): a reduction's axes are names of mapped axes and, as JAX's, array
    dimensions (ints: what vmap turns its own axis into)."""
    return (tuple(a for a in axes if not isinstance(a, int)),
            tuple(a for a in axes if isinstance(a, int)))


def _reducer(name, hlo_op, reduce_fn_name):
    prim = Primitive(name, multiple_results=True)
    reduce = getattr(reductions, reduce_fn_name)

    def abstract(*avals, axes, axis_index_groups):
        positional = _split_axes(axes)[1]     # (checked as reduce_sum's, with its words)
        avals = [a.update(shape=reductions._reduced_shape(a, positional)) if positional else a
                 for a in avals]
        return [a.update(vma=a.vma - frozenset(axes)) if a.vma else a for a in avals]

    def impl(*args, axes, axis_index_groups):
        named, positional = _split_axes(axes)
        if named:
            raise _unbound(named[0])
        return [reduce(x, positional) for x in args]     # JAX's impl: only dimensions left

    def numpy(*args, axes, axis_index_groups):
        named, positional = _split_axes(axes)
        if named:
            raise _unbound(named[0])
        return [np.asarray(getattr(np, reduce_fn_name[7:])(x, axis=positional), x.dtype)
                for x in args]

    def lowering(ctx, *args, axes, axis_index_groups):
        named, positional = _split_axes(axes)
        if positional:                   # the dimensions first, then the devices (JAX's)
            args = hl.lower_fun(lambda *xs: [reduce(x, positional) for x in xs],
                                multiple_results=True)(ctx, *args)
        if not named:
            return list(args)
        attrs = _collective_attrs(ctx, named, axis_index_groups)
        outs = []
        for x, aval in zip(args, ctx.avals_out):
            region = hl.binary_region(ctx, hlo_op, aval.dtype)
            outs.append(ctx.op1("stablehlo.all_reduce", [x], attrs=attrs,
                                regions=[region], result_type=hl.aval_type(aval)))
        return outs

    def batching(axis_data, vals, dims, *, axes, axis_index_groups):
        outs = [_batch_reduction(prim, axis_data, v, d, axes, axis_index_groups)
                for v, d in zip(vals, dims)]
        return [o for o, _ in outs], [d for _, d in outs]

    abstract_eval_rules[prim] = abstract
    own_vma_rules.add(prim)
    impl_rules[prim] = impl
    numpy_rules[prim] = numpy
    lowering_rules[prim] = lowering
    axis_batching_rules[prim] = batching
    return prim


def _batch_reduction(prim, axis_data, v, d, axes, axis_index_groups):
    """One value's reduction under vmap, as JAX's _batched_reduction_collective: over the
    vmapped axis it stays the collective, that axis become the batch dimension (moved to the
    front, so `psum[axes=(0,)]` in the jaxpr); an unbatched value is the same in every
    member (psum multiplies it by their count); over other axes only, the batch dimension
    rides along (positional axes shifted past it)."""
    name, mapped = axis_data.name, d is not bu.not_mapped
    bind = lambda x, over: prim.bind(x, axes=over, axis_index_groups=axis_index_groups)[0]
    if not mapped:
        if name not in axes:
            return bind(v, axes), d
        _no_groups_under_vmap(axis_index_groups)
        rest = tuple(a for a in axes if a != name)
        if rest:
            v = bind(v, rest)
        return (mul(_const(v, axis_data.size), v) if prim is psum_p else v), d
    if name not in axes and not _split_axes(axes)[1]:
        return bind(v, axes), d
    if name in axes:
        _no_groups_under_vmap(axis_index_groups)
    v = bu.moveaxis(v, d, 0)
    over = tuple(a + 1 if isinstance(a, int) else 0 if a == name else a for a in axes)
    return bind(v, over), (bu.not_mapped if name in axes else 0)


def _manual(ctx, axes):
    """The (mesh, manual axes) of the shard_map body being lowered, when `axes` are among its
    manual axes, else None."""
    manual = ctx.module_ctx.manual
    if manual is not None and all(a in manual[1] for a in axes):
        return manual
    return None


def _bound(ctx, axes):
    """`_manual(ctx, axes)`, or JAX's unbound-axis error: a collective lowers only in a
    shard_map body that binds its axes (pmap is one, api/pmap.py; vmap's are batched away
    before lowering)."""
    manual = _manual(ctx, axes)
    if manual is None:
        bound = ctx.module_ctx.manual[1] if ctx.module_ctx.manual is not None else ()
        raise _unbound(next(a for a in axes if a not in bound))
    return manual


def mesh_groups(mesh, axes, axis_index_groups=None) -> list:
    """Per group of devices that differ only along mesh `axes`, their positions in the mesh
    (partition ids), ordered by their index along `axes` (the first axis major), as JAX's.

    >>> mesh_groups(Mesh(devices.reshape(4, 2), ('x', 'y')), ('x',))
    [[0, 2, 4, 6], [1, 3, 5, 7]]
    """
    sizes, names = mesh.axis_sizes, mesh.axis_names
    where = [names.index(a) for a in axes]
    iota = np.arange(mesh.size).reshape(sizes)
    rows = np.moveaxis(iota, where, range(len(where))).reshape(
        int(np.prod([sizes[i] for i in where], dtype=np.int64)), -1).T
    groups = [[int(i) for i in row] for row in rows]
    if axis_index_groups is not None:
        groups = [[g[i] for i in sub] for g in groups for sub in axis_index_groups]
    return groups


# Inside a shard_map, collectives address devices by global id (= partition id: one replica),
# on the one channel JAX reserves for collectives.
_CHANNEL = "#stablehlo.channel_handle<handle = 1, type = 1>"


def _collective_attrs(ctx, axes, axis_index_groups=None, global_ids=True) -> dict:
    """The device groups (XLA's `replica_groups` attribute, here of partition ids), the channel
    and whether the ids are global."""
    manual = _bound(ctx, axes)
    attrs = {"channel_handle": _CHANNEL,
             "replica_groups": hlo.dense_i64(mesh_groups(manual[0], axes, axis_index_groups))}
    if global_ids:
        attrs["use_global_device_ids"] = "unit"
    return attrs


psum_p = _reducer("psum", "stablehlo.add", "reduce_sum")
pmax_p = _reducer("pmax", "stablehlo.maximum", "reduce_max")
pmin_p = _reducer("pmin", "stablehlo.minimum", "reduce_min")


def _psum_jvp(primals, tangents, *, axes, axis_index_groups):
    outs = psum_p.bind(*primals, axes=axes, axis_index_groups=axis_index_groups)
    nz = [t for t in tangents if type(t) is not Zero]
    if not nz:
        return outs, [Zero(get_aval(o)) for o in outs]
    t_out = psum_p.bind(*map(instantiate, tangents), axes=axes, axis_index_groups=axis_index_groups)
    return outs, t_out


def _psum_transpose(cts, *args, axes, axis_index_groups):
    # each output is the sum over the axis, so each input's cotangent sums every output's;
    # a summed dimension spreads the cotangent back over it (JAX's: reduce_sum's transpose)
    named, positional = _split_axes(axes)
    cts = [_unreduce(instantiate(c), x.aval.shape, positional) for c, x in zip(cts, args)]
    # (over no names at all, a psum all the same: JAX's `psum[axes=()]`)
    return psum_p.bind(*cts, axes=named, axis_index_groups=axis_index_groups)


def _unreduce(x, shape, positional):
    """`x`, reduced over the dimensions `positional` of `shape`, broadcast back to `shape`."""
    if not positional:
        return x
    return broadcast_in_dim(x, shape, tuple(np.delete(np.arange(len(shape)), positional)))


jvp_rules[psum_p] = _psum_jvp
transpose_rules[psum_p] = _psum_transpose


# pmax and pmin have no jvp rule, as in JAX 0.10.2: differentiating through one raises its
# NotImplementedError ("Differentiation rule for 'pmax' not implemented"); a zero tangent
# (stop_gradient, an integer) passes, as there


def _reduce(prim, x, axis_name, axis_index_groups):
    axes = _as_names(axis_name)
    _check_bound(axes, "psum", eager_plain=prim is psum_p)     # (JAX names psum for all three)
    if axis_index_groups is not None:
        axis_index_groups = _canonical_groups(axis_index_groups, _axis_size(axes))
    leaves, tree = tree_flatten(x)
    if axis_index_groups is None and vma.checks(axes):        # in a check_vma=True body
        leaves = [varying(leaf, axes, f"jax.lax.{prim.name}") for leaf in leaves]
        if prim is psum_p:
            return tree_unflatten(tree, [psum_invariant_p.bind(leaf, axes=axes)[0]
                                         for leaf in leaves])
    # one equation per leaf, as JAX's
    return tree_unflatten(tree, [prim.bind(leaf, axes=axes, axis_index_groups=axis_index_groups)[0]
                                 for leaf in leaves])


def psum(x, axis_name, *, axis_index_groups=None):
    """Sum of `x` (any pytree) over the named axis; every member gets the total.
    With `axis_index_groups=[[0, 1], [2, 3]]` each group sums on its own (not under vmap).
    A value that is no tracer (the same in every member) is multiplied by the number of
    members, as JAX's: a Python scalar stays one.

    >>> vmap(lambda x: lax.psum(1, 'i'), axis_name='i')(jnp.ones(3))   # 3 each
    Array([3, 3, 3], dtype=int32, weak_type=True)
    """
    leaves, tree = tree_flatten(x)
    if not any(isinstance(leaf, Tracer) for leaf in leaves):
        return tree_unflatten(tree, _psum_constants(leaves, _as_names(axis_name),
                                                    axis_index_groups))
    return _reduce(psum_p, x, axis_name, axis_index_groups)


def _psum_constants(leaves, axes, axis_index_groups) -> list:
    """JAX's constant case of psum: each leaf (a bool as int32) times the members summed,
    a positional axis summed away; a Python scalar stays a Python scalar (psum(1, 'i') is
    the axis size, an int, with nothing in the jaxpr)."""
    named = tuple(a for a in axes if not isinstance(a, int))
    positional = [a for a in axes if isinstance(a, int)]
    if axis_index_groups is not None:
        if positional:                         # JAX's words
            raise ValueError("axis_index_groups only supported for sums over just named axes")
        size = len(axis_index_groups[0])
    else:
        size = _axis_size(named) if named else 1
    out = []
    for leaf in leaves:
        if dtypes.dtype(leaf) == np.bool_:
            leaf = convert_element_type(leaf, np.int32)
        if positional:
            leaf = reduce_sum(leaf, tuple(a % np.ndim(leaf) for a in positional))
        out.append(_const(leaf, size) * leaf)
    return out


def pmax(x, axis_name, *, axis_index_groups=None):
    """Maximum of `x` over the named axis."""
    return _reduce(pmax_p, x, axis_name, axis_index_groups)


def pmin(x, axis_name, *, axis_index_groups=None):
    """Minimum of `x` over the named axis."""
    return _reduce(pmin_p, x, axis_name, axis_index_groups)


def pmean(x, axis_name, *, axis_index_groups=None):
    """Mean of `x` over the named axis (over each group with `axis_index_groups`)."""
    if axis_index_groups is not None:
        n = len(axis_index_groups[0])
    elif vma.checks(_as_names(axis_name)):
        n = _axis_size(axis_name)         # known while the body is traced, as in JAX's jaxpr
    else:
        n = psum(1, axis_name)
    sums = psum(x, axis_name, axis_index_groups=axis_index_groups)
    leaves, tree = tree_flatten(sums)
    # JAX divides with `/` (jnp's true division): an integer sum's mean is a float, 1.5 not 1;
    # a constant's sum (a Python or NumPy value, psum's constant case) by Python's
    return tree_unflatten(tree, [s / n if isinstance(s, (int, float, complex, np.ndarray,
                                                         np.generic)) else _true_mean(s, n)
                                 for s in leaves])


def pargmax(x, axis_name):
    """The index along the named axis of the member holding the largest `x`, elementwise
    (the first such member on ties); every member gets it. One axis only, as JAX's.

    >>> vmap(lambda x: pargmax(x, "i"), axis_name="i")(jnp.array([1., 3., 2.]))
    Array([1, 1, 1], dtype=int32)
    """
    return _axis_index_of_val(x, pmax(x, _one_axis(axis_name)), axis_name)


def pargmin(x, axis_name):
    """The index along the named axis of the member holding the smallest `x` (see pargmax)."""
    return _axis_index_of_val(x, pmin(x, _one_axis(axis_name)), axis_name)


def _one_axis(axis_name):
    if isinstance(axis_name, (tuple, list)):
        # JAX's words, for pargmax too
        raise TypeError(f"pargmin only accepts a single axis, got {axis_name}")
    return axis_name


def _axis_index_of_val(x, val, axis_name):
    """The smallest index along the axis of the members whose `x` is `val` (JAX's: the index
    where they match, the int32 maximum elsewhere, reduced by pmin)."""
    idx = axis_index(axis_name)
    mask = eq(val, x)
    big = np.iinfo(get_aval(idx).dtype).max
    return pmin(select(mask, broadcast_in_dim(idx, mask.shape, ()),
                       broadcast_in_dim(np.array(big, get_aval(idx).dtype), mask.shape, ())),
                axis_name)


def _true_mean(s, n):
    """s / n as jnp's true division: an integer (or bool) sum becomes the default float."""
    dtype = get_aval(s).dtype
    if not np.issubdtype(dtype, np.inexact):
        dtype = dtypes.default_float_dtype()
        s = convert_element_type(s, dtype)
    return div(s, convert_element_type(n, dtype))


# ------------------------------------------------------------------ axis_index
axis_index_p = Primitive("axis_index")
abstract_eval_rules[axis_index_p] = lambda *, axis_name: ShapedArray(
    (), np.int32, vma=frozenset(_as_names(axis_name)) if vma.checks(_as_names(axis_name))
    else vma.NO_AXES)
impl_rules[axis_index_p] = _raise_unbound
param_printers[axis_index_p] = lambda p: [("axis_name", p["axis_name"])]
defjvp_zero(axis_index_p)


def _axis_index_lowering(ctx, *, axis_name):
    names = _as_names(axis_name)
    manual = _bound(ctx, names)
    rest = [a for a in manual[0].axis_names if a not in manual[1]]
    if rest:
        return _all_manual(ctx, rest, lambda inner: _mesh_axis_index(inner, manual[0], names))
    return _mesh_axis_index(ctx, manual[0], names)


def _all_manual(ctx, rest, emit):
    """`emit(inner_ctx)`'s scalar lowered where the still automatic mesh axes `rest` are made
    manual too: partition_id means one device only there (JAX nests a manual computation)."""
    block = ctx.new_block([])
    inner = LoweringRuleContext(ctx.module_ctx, block, [], ctx.avals_out, ctx.source_info)
    block.ret([emit(inner)], op="sdy.return")
    manual = ", ".join(f'"{a}"' for a in rest)
    return ctx.op1("sdy.manual_computation", [], regions=[block], attrs={
        "in_shardings": "#sdy.sharding_per_value<[]>",
        "out_shardings": "#sdy.sharding_per_value<[<@mesh, []>]>",
        "manual_axes": f"#sdy<manual_axes{{{manual}}}>"},
        result_type=hlo.tensor_type((), np.int32))


def _mesh_axis_index(ctx, mesh, names):
    """This device's index along mesh axes `names` (the first major), from its partition id."""
    u32 = hlo.tensor_type((), np.uint32)
    pid = ctx.op1("stablehlo.partition_id", [], result_type=u32)
    index = None
    for name in names:
        k = mesh.axis_names.index(name)
        stride = int(np.prod(mesh.axis_sizes[k + 1:], dtype=np.int64))
        size = mesh.axis_sizes[k]
        i = ctx.op1("stablehlo.divide", [pid, ctx.constant(stride, np.uint32)], result_type=u32)
        i = ctx.op1("stablehlo.remainder", [i, ctx.constant(size, np.uint32)], result_type=u32)
        if index is not None:
            scaled = ctx.op1("stablehlo.multiply", [index, ctx.constant(size, np.uint32)],
                             result_type=u32)
            i = ctx.op1("stablehlo.add", [scaled, i], result_type=u32)
        index = i
    return ctx.op1("stablehlo.convert", [index])


def _axis_index_batching(axis_data, vals, dims, *, axis_name):
    names = _as_names(axis_name)
    if axis_data.name not in names:
        return axis_index_p.bind(axis_name=axis_name), bu.not_mapped
    return _member_index(axis_data, names), 0


lowering_rules[axis_index_p] = _axis_index_lowering
axis_batching_rules[axis_index_p] = _axis_index_batching


def axis_index(axis_name):
    """This member's position (int32) along the named axis."""
    _check_bound(_as_names(axis_name), "axis_index")
    return axis_index_p.bind(axis_name=axis_name)


# ------------------------------------------------------------------ all_gather
all_gather_p = Primitive("all_gather")


def _all_gather_abstract_eval(x, *, all_gather_dimension, axis_name, axis_index_groups,
                              axis_size, tiled):
    shape = list(x.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return ShapedArray(shape, x.dtype, x.weak_type, x.vma)


def _all_gather_lowering(ctx, x, *, all_gather_dimension, axis_name, axis_index_groups,
                         axis_size, tiled):
    attrs = _collective_attrs(ctx, axis_name, axis_index_groups)
    aval, axis = ctx.avals_in[0], all_gather_dimension
    if not tiled:         # gather along a new size-1 axis
        expanded = ShapedArray(aval.shape[:axis] + (1,) + aval.shape[axis:], aval.dtype)
        x = ctx.op1("stablehlo.reshape", [x], result_type=hl.aval_type(expanded))
    return ctx.op1("stablehlo.all_gather", [x],
                   attrs={"all_gather_dim": hlo.i64_attr(axis), **attrs})


def _all_gather_batching(axis_data, vals, dims, *, all_gather_dimension, axis_name,
                         axis_index_groups, axis_size, tiled):
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups,
                  axis_size=axis_size, tiled=tiled)
    if axis_data.name not in axis_name:      # another axis's gather, done per example
        if d is bu.not_mapped:
            return all_gather_p.bind(x, all_gather_dimension=all_gather_dimension, **params), d
        x = bu.moveaxis(x, d, 0)
        return all_gather_p.bind(x, all_gather_dimension=all_gather_dimension + 1, **params), 0
    _no_groups_under_vmap(axis_index_groups)
    axis = all_gather_dimension
    x = _stack_all(axis_data, x, d, axis_name)           # every member sees the whole stack
    x = bu.moveaxis(x, 0, axis)
    if tiled:
        shape = bu.shape(x)
        x = reshape(x, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])
    return x, bu.not_mapped


def _gather_scatter_transpose(to_prim, dim_param, to_dim_param):
    """all_gather and reduce_scatter are each other's transposes, with the same params and
    the gathered axis as the scattered one: member k's input reaches every member's output
    of a gather, so its cotangent is the sum of their cotangents' k-th blocks. It binds the
    primitive, not the wrapper: a pmap body is transposed outside the trace that knows the
    axis size, so that comes from the params."""
    def transpose(ct, x, **params):
        dim = params.pop(dim_param)
        return [to_prim.bind(ct, **{to_dim_param: dim}, **params)]
    return transpose


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False):
    """Every member's `x` stacked along `axis` (concatenated if `tiled`), on every member.

        >>> vmap(lambda x: lax.all_gather(x, 'i'), axis_name='i')(jnp.arange(3.0)).shape
        (3, 3)
    """
    names = _as_names(axis_name)
    groups = _canonical_groups(axis_index_groups, _axis_size(names))
    size = _axis_size(names) if groups is None else len(groups[0])
    leaves, tree = tree_flatten(x)

    def gather(leaf):
        leaf = varying(leaf, names, "jax.lax.all_gather")
        a = axis % (len(get_aval(leaf).shape) + (0 if tiled else 1))
        return all_gather_p.bind(leaf, all_gather_dimension=a, axis_name=names,
                                 axis_index_groups=groups, axis_size=size, tiled=tiled)
    return tree_unflatten(tree, [gather(leaf) for leaf in leaves])


def _axis_size(axis_name) -> int:
    """The size of the named axis (the product for a tuple of names), from the enclosing
    vmap/pmap traces."""
    if isinstance(axis_name, (tuple, list)):
        return int(np.prod([_axis_size(n) for n in axis_name], dtype=np.int64))
    t = current_trace()
    while t is not None:
        data = getattr(t, "axis_data", None)
        if data is not None and data.name == axis_name:
            return data.size
        t = t.parent
    size = bound_axis_size(axis_name)
    if size is None:
        raise _unbound(axis_name)
    return size


# ------------------------------------------------------------------ several axes under vmap
# A collective over several named axes met by the vmap of one of them, `a` (shard_map's NumPy
# rule batches its body over each manual mesh axis in turn): every member's value is stacked
# over all the axes in the order XLA numbers a multi-axis group (the names' order, first
# major; ppermute's: the axes' nesting, as JAX sorts each group's device ids), and each member
# takes its part by its index along them. The other axes' collectives are bound for their own
# traces, which meet them next.
def _strides(axis_data, names) -> list:
    """Per axis of `names`, how far apart its members are numbered (the first major)."""
    sizes = [axis_data.size if n == axis_data.name else _axis_size(n) for n in names]
    return [int(np.prod(sizes[i + 1:], dtype=np.int64)) for i in range(len(names))]


def _member_index(axis_data, names):
    """Each member's index along `names` (the first major), batched along `axis_data`'s axis:
    its position there scaled, plus its index along the other axes (bound for their traces)."""
    index = iota(np.int32, axis_data.size)
    if names == (axis_data.name,):
        return index
    strides = _strides(axis_data, names)
    index = mul(index, np.int32(strides[names.index(axis_data.name)]))
    for name, stride in zip(names, strides):
        if name != axis_data.name:
            other = mul(axis_index_p.bind(axis_name=(name,)), np.int32(stride))
            index = add(index, broadcast_in_dim(other, (axis_data.size,), ()))
    return index


def _stack_all(axis_data, x, d, names):
    """Every member's `x` over the axes `names`, stacked in their order (the first major):
    the same [N, ...] on every member (not batched)."""
    x = bu.bdim_at_front(x, d, axis_data.size)           # [this axis's members, ...]
    rest = tuple(n for n in names if n != axis_data.name)
    if not rest:
        return x
    sizes = [_axis_size(n) for n in rest]
    x = all_gather_p.bind(x, all_gather_dimension=1, axis_name=rest, axis_index_groups=None,
                          axis_size=int(np.prod(sizes, dtype=np.int64)), tiled=False)
    shape = bu.shape(x)
    x = reshape(x, shape[:1] + tuple(sizes) + shape[2:])  # one dimension per axis, in order
    order = [0 if n == axis_data.name else 1 + rest.index(n) for n in names]
    x = transpose(x, tuple(order) + tuple(range(len(names), bu.ndim(x))))
    return reshape(x, (int(np.prod(shape[:2], dtype=np.int64)),) + shape[2:])


def _pick(v, index, axis):
    """Member k's slice of `v` at `index[k]` along `axis` (k along the vmapped axis, `index`
    batched there): [members, v's shape without `axis`]."""
    v = bu.moveaxis(v, axis, 0)
    rank, n = bu.ndim(v), bu.shape(index)[0]
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, rank)), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))
    return gather(v, reshape(index, (n, 1)), dnums, (1,) + bu.shape(v)[1:],
                  indices_are_sorted=False, unique_indices=False, mode="promise_in_bounds")


def _nesting_order(names) -> tuple:
    """`names` in the order their axes nest, outermost first (a shard_map's: its mesh's): the
    order of the device ids of a group, which JAX sorts for ppermute. (A batching rule runs
    above its own vmap's trace: that axis, not seen from there, is the innermost.)"""
    seen = [n for n, _ in reversed(visible_axes())]
    return tuple(sorted(names, key=lambda n: seen.index(n) if n in seen else len(seen)))


def _ppermute_several(axis_data, x, d, names, perm):
    """Member j gets the value of the member that sends to it (zeros if none), members
    numbered along the axes in their nesting order."""
    names = _nesting_order(names)
    everyone = _stack_all(axis_data, x, d, names)
    n = bu.shape(everyone)[0]
    source = {dst % n: src % n for src, dst in perm}     # receiver -> sender
    me = _member_index(axis_data, names)
    out = _pick(everyone, _pick(np.array([source.get(j, 0) for j in range(n)], np.int32), me, 0),
                0)
    if len(source) < n:            # members nobody sends to get zeros
        keep = _pick(np.array([j in source for j in range(n)]), me, 0)
        out = select(broadcast_in_dim(keep, bu.shape(out), (0,)), out,
                     broadcast_in_dim(np.zeros((), get_aval(out).dtype), bu.shape(out), ()))
    return out


def _all_to_all_several(axis_data, x, d, names, split_axis, concat_axis, n):
    """Member j gets chunk j (along `split_axis`) of every member's value, concatenated along
    `concat_axis` in the members' order."""
    everyone = _stack_all(axis_data, x, d, names)         # [sender, ...]
    shape, s = bu.shape(everyone), split_axis + 1
    everyone = reshape(everyone, shape[:s] + (n, shape[s] // n) + shape[s + 1:])
    y = _pick(everyone, _member_index(axis_data, names), s)   # [receiver, sender, ...]
    c = concat_axis + 1                                   # senders in front of the concat axis
    y = bu.moveaxis(y, 1, c)
    shape = bu.shape(y)
    return reshape(y, shape[:c] + (shape[c] * shape[c + 1],) + shape[c + 2:])


def _scatter_several(axis_data, y, names, k, n, tiled):
    """psum_scatter's sum `y` over this axis (not batched), summed over the other axes, of
    which member j keeps block j along dimension `k`."""
    rest = tuple(a for a in names if a != axis_data.name)
    y, = psum_p.bind(y, axes=rest, axis_index_groups=None)
    shape = bu.shape(y)
    if tiled:
        y = reshape(y, shape[:k] + (n, shape[k] // n) + shape[k + 1:])
    return _pick(y, _member_index(axis_data, names), k)


# ------------------------------------------------------------------ ppermute
ppermute_p = Primitive("ppermute")


def _ppermute_lowering(ctx, x, *, axis_name, perm):
    manual = _bound(ctx, _as_names(axis_name))
    if not perm:                   # nobody receives anything
        return hl.splat(ctx, 0, ctx.avals_out[0].dtype, ctx.avals_out[0].shape)
    # the pairs within each group of devices along the axes, numbered in the mesh's order
    # whatever the order of the names (JAX sorts each group's device ids)
    groups = [sorted(g) for g in mesh_groups(manual[0], _as_names(axis_name))]
    n = len(groups[0])
    pairs = [[g[src % n], g[dst % n]] for g in groups for src, dst in perm]
    return ctx.op1("stablehlo.collective_permute", [x], attrs={
        "channel_handle": _CHANNEL, "source_target_pairs": hlo.dense_i64(pairs)})


def _ppermute_batching(axis_data, vals, dims, *, axis_name, perm):
    (x,), (d,) = vals, dims
    if axis_data.name not in axis_name:
        return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
    if len(_as_names(axis_name)) > 1:
        return _ppermute_several(axis_data, x, d, _as_names(axis_name), perm), 0
    n = axis_data.size
    source = {dst % n: src % n for src, dst in perm}     # receiver -> sender
    if d is bu.not_mapped and len(source) == n:          # everyone gets an equal value
        return x, d
    if len(source) == n and d is not bu.not_mapped:
        # a whole permutation: JAX's `v.take(perm_indices, d)`, the value's own take method
        # (jnp.take's, whose jaxpr it then shows: lax imports no jnp)
        return x.take(np.array([source[j] for j in range(n)]), d), d
    x = bu.bdim_at_front(x, d, n)
    rank = bu.ndim(x)
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, rank)), collapsed_slice_dims=(0,),
                                   start_index_map=(0,))
    idx = np.array([[source.get(j, 0)] for j in range(n)], np.int32)
    out = gather(x, idx, dnums, (1,) + bu.shape(x)[1:], indices_are_sorted=False,
                 unique_indices=len(source) == n, mode="promise_in_bounds")
    if len(source) < n:            # members nobody sends to get zeros
        keep = np.array([j in source for j in range(n)])
        keep = broadcast_in_dim(keep, bu.shape(out), (0,))
        out = select(keep, out, broadcast_in_dim(np.zeros((), get_aval(out).dtype),
                                                  bu.shape(out), ()))
    return out, 0


def _ppermute_transpose(ct, x, *, axis_name, perm):
    # a permutation's transpose sends every value back where it came from
    return [ppermute_p.bind(ct, axis_name=axis_name, perm=tuple((d, s) for s, d in perm))]


_register_linear_collective(ppermute_p, lambda x, *, axis_name, perm: x, _ppermute_lowering,
                            _ppermute_batching, _ppermute_transpose)


def _check_perm(perm, size):
    perm = tuple((int(s), int(d)) for s, d in perm)
    for s, d in perm:
        if not (-size <= s < size and -size <= d < size):
            raise ValueError(f"ppermute perm {perm} names index {s if abs(s) >= size else d}, "
                             f"but the axis has size {size}: indices must lie in "
                             f"[-{size}, {size})")
    srcs, dsts = [s % size for s, _ in perm], [d % size for _, d in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    return perm


def pbroadcast(x, axis_name, source):
    """Every instance along `axis_name` gets the value of instance `source` (XLA's
    CollectiveBroadcast; any pytree). Computed as JAX defines it: a psum of `x` masked to
    `source` (JAX 0.10.2 itself has no CPU lowering and no working vmap rule for its own
    pbroadcast primitive; this form runs, and transforms, wherever psum does).

    >>> jax.vmap(lambda v: lax.pbroadcast(v, "i", 2), axis_name="i")(jnp.arange(3.0))
    Array([2., 2., 2.], dtype=float32)
    """
    def one(leaf):
        zero = convert_element_type(np.zeros((), get_aval(leaf).dtype), get_aval(leaf).dtype)
        return psum(select(eq(axis_index(axis_name), np.int32(source)), leaf,
                           broadcast_in_dim(zero, get_aval(leaf).shape, ())), axis_name)
    return tree_map(one, x)


def ppermute(x, axis_name, perm):
    """Send member `src`'s `x` to member `dst` for each `(src, dst)` in `perm`; members
    nobody sends to get zeros. `x` may be a pytree.

        >>> vmap(lambda x: lax.ppermute(x, 'i', [(0, 1), (1, 0)]), axis_name='i')(jnp.arange(2.))
        Array([1., 0.], dtype=float32)
    """
    names = _as_names(axis_name)
    perm = _check_perm(perm, _axis_size(names))
    return tree_map(lambda leaf: ppermute_p.bind(varying(leaf, names, "jax.lax.ppermute"),
                                                 axis_name=names, perm=perm), x)


def pshuffle(x, axis_name, perm):
    """Member `i` gets the `x` of member `perm[i]` (`perm` a permutation of range(size)).

        >>> vmap(lambda x: lax.pshuffle(x, 'i', [1, 0]), axis_name='i')(jnp.arange(2.))
        Array([1., 0.], dtype=float32)
    """
    if set(perm) != set(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


# ------------------------------------------------------------------ all_to_all
# The primitive always has tiled semantics (split_axis shrinks by the group size,
# concat_axis grows by it); the untiled form adds and removes a size-1 axis around
# it, as JAX does. `axis_size` (the group size) is kept as a param so the equation
# types on its own; it is not printed, to print as JAX does.
all_to_all_p = Primitive("all_to_all")


def _all_to_all_abstract_eval(x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                              tiled, axis_size):
    shape = list(x.shape)
    if shape[split_axis] % axis_size:
        raise ValueError(f"The size of all_to_all split_axis ({shape[split_axis]}) has to be "
                         f"divisible by the size of the named axis {axis_name} ({axis_size})")
    shape[split_axis] //= axis_size
    shape[concat_axis] *= axis_size
    return ShapedArray(shape, x.dtype, False, x.vma)


def _all_to_all_lowering(ctx, x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                         tiled, axis_size):
    attrs = _collective_attrs(ctx, _as_names(axis_name), axis_index_groups, global_ids=False)
    if axis_size == 1:
        return x
    return ctx.op1("stablehlo.all_to_all", [x],
                   attrs={"split_dimension": hlo.i64_attr(split_axis),
                          "concat_dimension": hlo.i64_attr(concat_axis),
                          "split_count": hlo.i64_attr(axis_size), **attrs})


def _all_to_all_batching(axis_data, vals, dims, *, axis_name, split_axis, concat_axis,
                         axis_index_groups, tiled, axis_size):
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups, tiled=tiled,
                  axis_size=axis_size)
    if axis_data.name not in _as_names(axis_name):
        if d is bu.not_mapped:
            return all_to_all_p.bind(x, split_axis=split_axis, concat_axis=concat_axis,
                                     **params), d
        x = bu.moveaxis(x, d, 0)
        return all_to_all_p.bind(x, split_axis=split_axis + 1, concat_axis=concat_axis + 1,
                                 **params), 0
    _no_groups_under_vmap(axis_index_groups)
    if len(_as_names(axis_name)) > 1:
        return _all_to_all_several(axis_data, x, d, _as_names(axis_name), split_axis,
                                   concat_axis, axis_size), 0
    n = axis_size
    x = bu.bdim_at_front(x, d, n)                  # x[k]: member k's value
    shape = bu.shape(x)
    s = split_axis + 1                             # split into (chunk j, piece)
    x = reshape(x, shape[:s] + (n, shape[s] // n) + shape[s + 1:])
    x = bu.moveaxis(x, s, 0)                       # [j, k, ...]: j becomes the batch
    c = concat_axis + 1                            # k goes in front of the concat axis
    x = bu.moveaxis(x, 1, c)
    shape = bu.shape(x)
    return reshape(x, shape[:c] + (shape[c] * shape[c + 1],) + shape[c + 2:]), 0


def _all_to_all_transpose(ct, x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                          tiled, axis_size):
    # the inverse shuffle: split what was concatenated, concatenate what was split
    return [all_to_all_p.bind(ct, axis_name=axis_name, split_axis=concat_axis,
                              concat_axis=split_axis, axis_index_groups=axis_index_groups,
                              tiled=tiled, axis_size=axis_size)]


_register_linear_collective(all_to_all_p, _all_to_all_abstract_eval, _all_to_all_lowering,
                            _all_to_all_batching, _all_to_all_transpose)
param_printers[all_to_all_p] = lambda p: sorted((k, v) for k, v in p.items() if k != "axis_size")


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """Split `x` along `split_axis` into one chunk per member, send chunk j to member j, and
    stack what arrives along `concat_axis` (concatenate if `tiled`). `x` may be a pytree.

        >>> xs = jnp.arange(4.).reshape(2, 2)
        >>> vmap(lambda x: lax.all_to_all(x, 'i', 0, 0), axis_name='i')(xs)   # a transpose
        Array([[0., 2.],
               [1., 3.]], dtype=float32)
    """
    groups = _canonical_groups(axis_index_groups, _axis_size(_as_names(axis_name)))
    size = _axis_size(_as_names(axis_name)) if groups is None else len(groups[0])

    def bind(leaf, split=split_axis, concat=concat_axis):
        ndim = bu.ndim(leaf)
        split = _axis_in(split, ndim, "split_axis")
        concat = _axis_in(concat, ndim, "concat_axis")
        n = bu.shape(leaf)[split]
        if tiled and n % size:
            raise ValueError(f"The size of all_to_all split_axis ({n}) has to be divisible by "
                             f"the size of the named axis {axis_name} ({size})")
        if not tiled:
            if n != size:
                raise ValueError(f"all_to_all requires the size of the mapped axis axis_name to "
                                 f"equal x.shape[split_axis], but they are {size} and {n} "
                                 f"respectively.")
            if split < concat:       # concat_axis counts positions after split_axis is gone
                concat += 1
                leaf = expand_dims(leaf, (concat,))
            elif split > concat:
                leaf = expand_dims(leaf, (concat,))
                split += 1
        leaf = varying(leaf, _as_names(axis_name), "jax.lax.all_to_all")
        out = all_to_all_p.bind(leaf, axis_name=axis_name, split_axis=split, concat_axis=concat,
                                axis_index_groups=groups, tiled=tiled, axis_size=size)
        if not tiled and split != concat:
            out = squeeze(out, (split,))
        return out
    return tree_map(bind, x)


def _axis_in(axis, ndim, what):
    if not -ndim <= axis < ndim:
        raise ValueError(f"all_to_all {what}={axis} is out of range for an operand of rank "
                         f"{ndim}")
    return axis % ndim


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """Swap the named (mapped) axis with positional `axis` of `x`: all_to_all(x, axis_name,
    axis, axis).

        >>> xs = jnp.arange(4.).reshape(2, 2)
        >>> vmap(lambda x: lax.pswapaxes(x, 'i', 0), axis_name='i')(xs)
        Array([[0., 2.],
               [1., 3.]], dtype=float32)
    """
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


# ------------------------------------------------------------------ psum_scatter
reduce_scatter_p = Primitive("reduce_scatter")


def _reduce_scatter_abstract_eval(x, *, axis_name, scatter_dimension, axis_index_groups,
                                  axis_size, tiled):
    shape = list(x.shape)
    n = shape[scatter_dimension]
    if tiled:
        if n % axis_size:
            raise ValueError(f"tiled reduce_scatter operand scatter dimension size {n} must be "
                             f"divisible by shard_count {axis_size}")
        shape[scatter_dimension] = n // axis_size
    else:
        if n != axis_size:
            raise ValueError(f"reduce_scatter operand scatter dimension size {n} must match "
                             f"shard count {axis_size}")
        del shape[scatter_dimension]
    return ShapedArray(shape, x.dtype, x.weak_type, x.vma)


def _reduce_scatter_lowering(ctx, x, *, axis_name, scatter_dimension, axis_index_groups,
                             axis_size, tiled):
    attrs = _collective_attrs(ctx, axis_name, axis_index_groups)
    aval = ctx.avals_in[0]
    shape = list(aval.shape)
    shape[scatter_dimension] //= axis_size
    region = hl.binary_region(ctx, "stablehlo.add", aval.dtype)
    out = ctx.op1("stablehlo.reduce_scatter", [x],
                  attrs={"scatter_dimension": hlo.i64_attr(scatter_dimension), **attrs},
                  regions=[region], result_type=hlo.tensor_type(tuple(shape), aval.dtype))
    return out if tiled else ctx.op1("stablehlo.reshape", [out])


def _reduce_scatter_batching(axis_data, vals, dims, *, axis_name, scatter_dimension,
                             axis_index_groups, axis_size, tiled):
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups,
                  axis_size=axis_size, tiled=tiled)
    if axis_data.name not in axis_name:
        if d is bu.not_mapped:
            return reduce_scatter_p.bind(x, scatter_dimension=scatter_dimension, **params), d
        x = bu.moveaxis(x, d, 0)
        return reduce_scatter_p.bind(x, scatter_dimension=scatter_dimension + 1, **params), 0
    _no_groups_under_vmap(axis_index_groups)
    if d is bu.not_mapped:         # the same value from every member: n times it
        y = mul(x, np.asarray(axis_data.size, get_aval(x).dtype))
    else:
        y = reduce_sum(x, (d,))
    if len(axis_name) > 1:
        return _scatter_several(axis_data, y, axis_name, scatter_dimension, axis_size, tiled), 0
    # member j keeps block j of the sum along scatter_dimension: that axis is the batch
    if tiled:
        shape = bu.shape(y)
        k = scatter_dimension
        y = reshape(y, shape[:k] + (axis_size, shape[k] // axis_size) + shape[k + 1:])
    return y, scatter_dimension


# all_gather's rules are registered here, once reduce_scatter_p (its transpose) exists
_register_linear_collective(
    all_gather_p, _all_gather_abstract_eval, _all_gather_lowering, _all_gather_batching,
    _gather_scatter_transpose(reduce_scatter_p, "all_gather_dimension", "scatter_dimension"))
_register_linear_collective(
    reduce_scatter_p, _reduce_scatter_abstract_eval, _reduce_scatter_lowering,
    _reduce_scatter_batching,
    _gather_scatter_transpose(all_gather_p, "scatter_dimension", "all_gather_dimension"))


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """psum(x, axis_name), of which member i keeps only block i along `scatter_dimension`
    (that axis is removed unless `tiled`). `x` may be a pytree.

        >>> xs = jnp.arange(4.).reshape(2, 2)
        >>> vmap(lambda x: lax.psum_scatter(x, 'i'), axis_name='i')(xs)
        Array([2., 4.], dtype=float32)
    """
    names = _as_names(axis_name)
    groups = _canonical_groups(axis_index_groups, _axis_size(names))
    size = _axis_size(names) if groups is None else len(groups[0])

    def bind(leaf):
        ndim = bu.ndim(leaf)
        if not -ndim <= scatter_dimension < ndim:
            raise ValueError(f"psum_scatter scatter_dimension={scatter_dimension} is out of "
                             f"range for an operand of rank {ndim}")
        params = dict(axis_name=names, scatter_dimension=scatter_dimension % ndim,
                      axis_index_groups=groups, axis_size=size, tiled=tiled)
        _reduce_scatter_abstract_eval(get_aval(leaf), **params)   # vmap's rule never types it
        return reduce_scatter_p.bind(varying(leaf, names, "jax.lax.psum_scatter"), **params)
    return tree_map(bind, x)


# ------------------------------------------------------------------ axis_size
def axis_size(axis_name) -> int:
    """The size of the named axis (a Python int; the product for a tuple of names).

        >>> vmap(lambda x: x * lax.axis_size('i'), axis_name='i')(jnp.ones(3))
        Array([3., 3., 3.], dtype=float32)
    """
    return _axis_size(axis_name)


# ------------------------------------------------------------------ varying manual axes
def varying(x, axes, name):
    """`x` typed as varying over `axes` for a collective over them in a check_vma=True
    shard_map body (pvary where it is the same on every device); JAX's error when it varies
    over some of `axes` only. Elsewhere `x` itself."""
    if not vma.checks(axes):
        return x
    has = vma.vma_of(x)
    if all(a in has for a in axes):
        return x
    if any(a in has for a in axes):
        raise ValueError(
            f"{name} can only accept axis_name which corresponds to one of varying, unreduced, "
            f"reduced or invarying state of the input. Got input type: {get_aval(x)}, axes: "
            f"{tuple(axes)} and input state: {{'varying', 'invarying'}}")
    return vma.pvary(x, axes)


psum_invariant_p = Primitive("psum_invariant", multiple_results=True)
own_vma_rules.add(psum_invariant_p)
abstract_eval_rules[psum_invariant_p] = lambda *avals, axes: [
    a.update(vma=a.vma - frozenset(axes)) for a in avals]
lowering_rules[psum_invariant_p] = lambda ctx, *args, axes: lowering_rules[psum_p](
    ctx, *args, axes=axes, axis_index_groups=None)
impl_rules[psum_invariant_p] = _raise_unbound


def _psum_invariant_jvp(primals, tangents, *, axes):
    outs = psum_invariant_p.bind(*primals, axes=axes)
    if all(type(t) is Zero for t in tangents):
        return outs, [Zero(get_aval(o)) for o in outs]
    tangents = [varying(instantiate(t), axes, "jax.lax.psum") for t in tangents]
    return outs, psum_invariant_p.bind(*tangents, axes=axes)


def _psum_invariant_transpose(cts, *args, axes):
    # the sum is the same on every device: each device's input gets that cotangent
    return [vma.pvary(instantiate(c), axes) for c in cts]


def _psum_invariant_batching(axis_data, vals, dims, *, axes):
    if axis_data.name in axes:           # a vmap axis of the same name: psum's own rule
        return axis_batching_rules[psum_p](axis_data, vals, dims, axes=axes,
                                           axis_index_groups=None)
    return psum_invariant_p.bind(*vals, axes=axes), dims


jvp_rules[psum_invariant_p] = _psum_invariant_jvp
transpose_rules[psum_invariant_p] = _psum_invariant_transpose
axis_batching_rules[psum_invariant_p] = _psum_invariant_batching


def _pvary_transpose(ct, x, *, axes):
    # each device's copy of `x` was used on its own: its cotangent sums theirs
    return [psum_invariant_p.bind(varying(instantiate(ct), axes, "pvary"), axes=axes)[0]]


lowering_rules[vma.pvary_p] = lambda ctx, x, *, axes: x
numpy_rules[vma.pvary_p] = lambda x, *, axes: x          # a type change: the data stays
impl_rules[vma.pvary_p] = _raise_unbound
axis_batching_rules[vma.pvary_p] = lambda axis_data, vals, dims, *, axes: (
    vma.pvary_p.bind(vals[0], axes=axes), dims[0])
deflinear2(vma.pvary_p, _pvary_transpose)


def pcast(x, axis_name, *, to: str):
    """`x` (any pytree) with its type changed along the manual mesh axes `axis_name`; jxkernel
    has the cast JAX makes from a value the same on every device to a varying one
    (`to='varying'`), inside a shard_map body with check_vma=True (elsewhere `x` itself).

    >>> shard_map(lambda w: lax.pcast(w, 'x', to='varying'), mesh=mesh, in_specs=P(),
    ...           out_specs=P('x'))(jnp.ones(2)).shape
    (8,)
    """
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"{axis_name=} must be a tuple or a str. Got {axis_name}")
    axes = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not axis_name:
        return x
    if to not in ("unreduced", "reduced", "varying"):
        raise ValueError("Got unexpected `to` value. Allowed `to` values are: "
                         "{'unreduced', 'reduced', 'varying'}")
    if to != "varying":
        raise NotImplementedError(f"lax.pcast(..., to={to!r}): jxkernel's types have no "
                                  f"unreduced or reduced values; only to='varying' is supported")

    def cast(leaf):
        if not vma.checks(axes):
            return leaf
        has = vma.vma_of(leaf)
        if all(a in has for a in axes):
            raise ValueError("Unsupported pcast from=varying, to='varying'")
        return varying(leaf, axes, "jax.lax.pcast")
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [cast(leaf) for leaf in leaves])
