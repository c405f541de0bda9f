"""Collectives over a named axis: psum, pmean, pmax, pmin, all_gather, axis_index
(ppermute, all_to_all, psum_scatter and axis_size are in parallel_more.py).

    >>> vmap(lambda x: x - lax.pmean(x, 'batch'), axis_name='batch')(xs)   # centre a batch

The axis is introduced by vmap (or pmap) with `axis_name=`. Under vmap a
collective over that axis becomes an ordinary reduction over the batch
dimension; over a *different* (outer) axis it passes through with the batch
dimension kept. Under pmap each lowers to the StableHLO collective across replicas.
"""
from __future__ import annotations

import numpy as np

from ..core import vma
from ..core.avals import ShapedArray, get_aval
from ..core.ir import param_printers
from ..core.primitive import (
    Primitive,
    abstract_eval_rules,
    axis_batching_rules,
    impl_rules,
    jvp_rules,
    lowering_rules,
    own_vma_rules,
    transpose_rules,
)
from ..tree_util import tree_flatten, tree_unflatten
from ..xla import stablehlo as hlo
from . import _batch_util as bu
from . import _lowering as hl
from ._ad_util import Zero, defjvp_zero, deflinear2, instantiate


def _as_names(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _unbound(name):
    return NameError(f"unbound axis name: {name}. The following axis names (e.g. defined by pmap "
                     f"or vmap) are available to collective operations: []")


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
def _reducer(name, hlo_op, reduce_fn_name):
    prim = Primitive(name, multiple_results=True)

    def abstract(*avals, axes, axis_index_groups):
        return [a.update(vma=a.vma - frozenset(axes)) if a.vma else a for a in avals]

    def impl(*args, axes, axis_index_groups):
        raise _unbound(axes[0])

    def lowering(ctx, *args, axes, axis_index_groups):
        attrs = _collective_attrs(ctx, axes, axis_index_groups)
        outs = []
        for x, aval in zip(args, ctx.avals_in):
            region = hl.binary_region(ctx, hlo_op, aval.dtype)
            outs.append(ctx.op1("stablehlo.all_reduce", [x], attrs=attrs,
                                regions=[region], result_type=hl.aval_type(aval)))
        return outs

    def batching(axis_data, vals, dims, *, axes, axis_index_groups):
        from . import reductions
        reduce = getattr(reductions, reduce_fn_name)
        mine = axis_data.name in axes
        if mine:
            _no_groups_under_vmap(axis_index_groups)
        rest = tuple(a for a in axes if a != axis_data.name)
        outs, out_dims = [], []
        for v, d in zip(vals, dims):
            if mine and d is not bu.not_mapped:
                v, d = reduce(v, (d,)), bu.not_mapped
            elif mine and name == "psum":         # an unbatched value counted once per example
                from .elementwise import mul
                v = mul(v, np.asarray(axis_data.size, get_aval(v).dtype))
            outs.append(v)
            out_dims.append(d)
        if rest:
            outs = prim.bind(*outs, axes=rest, axis_index_groups=axis_index_groups)
        return outs, out_dims

    abstract_eval_rules[prim] = abstract
    own_vma_rules.add(prim)
    impl_rules[prim] = impl
    lowering_rules[prim] = lowering
    axis_batching_rules[prim] = batching
    return prim


def _manual(ctx, axes):
    """The (mesh, manual axes) of the shard_map body being lowered, when `axes` are among its
    manual axes; None under pmap."""
    manual = ctx.module_ctx.manual
    if manual is not None and all(a in manual[1] for a in axes):
        return manual
    return None


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
    """replica_groups (plus, in a shard_map body, the channel and global device ids)."""
    manual = _manual(ctx, axes)
    if manual is None:
        return {"replica_groups": _replica_groups(ctx, axes, axis_index_groups)}
    attrs = {"channel_handle": _CHANNEL,
             "replica_groups": hlo.dense_i64(mesh_groups(manual[0], axes, axis_index_groups))}
    if global_ids:
        attrs["use_global_device_ids"] = "unit"
    return attrs


def _replica_groups(ctx, axes, axis_index_groups=None):
    """The replica_groups attribute: the pmap axis is the replica axis, so axis indices are
    replica ids."""
    env = dict(ctx.module_ctx.axis_env)
    for a in axes:
        if a not in env:
            raise _unbound(a)
    if axis_index_groups is not None:
        return hlo.dense_i64([list(g) for g in axis_index_groups])
    n = ctx.module_ctx.num_replicas
    return hlo.dense_i64([list(range(n))])


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
    # each output is the sum over the axis, so each input's cotangent sums every output's
    cts = [instantiate(c) for c in cts]
    return psum_p.bind(*cts, axes=axes, axis_index_groups=axis_index_groups)


jvp_rules[psum_p] = _psum_jvp
transpose_rules[psum_p] = _psum_transpose


def _pminmax_jvp(prim):
    def jvp(primals, tangents, *, axes, axis_index_groups):
        from .conversion import convert_element_type
        from .elementwise import eq
        outs = prim.bind(*primals, axes=axes, axis_index_groups=axis_index_groups)
        t_outs = []
        for x, t, ans in zip(primals, tangents, outs):
            if type(t) is Zero:
                t_outs.append(Zero(get_aval(ans)))
                continue
            # the tangent where this position is the extreme, averaged over ties (as JAX does)
            hit = convert_element_type(eq(x, ans), get_aval(t).dtype)
            from .elementwise import div, mul
            count = psum_p.bind(hit, axes=axes, axis_index_groups=axis_index_groups)[0]
            num = psum_p.bind(mul(t, hit), axes=axes, axis_index_groups=axis_index_groups)[0]
            t_outs.append(div(num, count))
        return outs, t_outs
    return jvp


jvp_rules[pmax_p] = _pminmax_jvp(pmax_p)
jvp_rules[pmin_p] = _pminmax_jvp(pmin_p)


def _reduce(prim, x, axis_name, axis_index_groups):
    axes = _as_names(axis_name)
    if axis_index_groups is not None:
        axis_index_groups = _canonical_groups(axis_index_groups, _axis_size(axes))
    leaves, tree = tree_flatten(x)
    if axis_index_groups is None and vma.checks(axes):        # in a check_vma=True body
        leaves = [varying(leaf, axes, f"jax.lax.{prim.name}") for leaf in leaves]
        if prim is psum_p:
            return tree_unflatten(tree, psum_invariant_p.bind(*leaves, axes=axes))
    return tree_unflatten(tree, prim.bind(*leaves, axes=axes, axis_index_groups=axis_index_groups))


def psum(x, axis_name, *, axis_index_groups=None):
    """Sum of `x` (any pytree) over the named axis; every member gets the total.
    With `axis_index_groups=[[0, 1], [2, 3]]` each group sums on its own (pmap only)."""
    return _reduce(psum_p, x, axis_name, axis_index_groups)


def pmax(x, axis_name, *, axis_index_groups=None):
    """Maximum of `x` over the named axis."""
    return _reduce(pmax_p, x, axis_name, axis_index_groups)


def pmin(x, axis_name, *, axis_index_groups=None):
    """Minimum of `x` over the named axis."""
    return _reduce(pmin_p, x, axis_name, axis_index_groups)


def pmean(x, axis_name, *, axis_index_groups=None):
    """Mean of `x` over the named axis (over each group with `axis_index_groups`)."""
    from .conversion import convert_element_type
    from .elementwise import div
    if axis_index_groups is not None:
        n = len(axis_index_groups[0])
    elif vma.checks(_as_names(axis_name)):
        n = _axis_size(axis_name)         # known while the body is traced, as in JAX's jaxpr
    else:
        n = psum(1, axis_name)
    sums = psum(x, axis_name, axis_index_groups=axis_index_groups)
    leaves, tree = tree_flatten(sums)
    return tree_unflatten(tree, [div(s, convert_element_type(n, get_aval(s).dtype)) for s in leaves])


# ------------------------------------------------------------------ axis_index
axis_index_p = Primitive("axis_index")
abstract_eval_rules[axis_index_p] = lambda *, axis_name: ShapedArray(
    (), np.int32, vma=frozenset(_as_names(axis_name)) if vma.checks(_as_names(axis_name))
    else vma.NO_AXES)
impl_rules[axis_index_p] = lambda *, axis_name: (_ for _ in ()).throw(_unbound(axis_name))
param_printers[axis_index_p] = lambda p: [("axis_name", p["axis_name"])]
defjvp_zero(axis_index_p)


def _axis_index_lowering(ctx, *, axis_name):
    names = _as_names(axis_name)
    manual = _manual(ctx, names)
    if manual is not None:
        rest = [a for a in manual[0].axis_names if a not in manual[1]]
        if rest:
            return _all_manual(ctx, rest, lambda inner: _mesh_axis_index(inner, manual[0], names))
        return _mesh_axis_index(ctx, manual[0], names)
    _replica_groups(ctx, (axis_name,))
    rid = ctx.op1("stablehlo.replica_id", [], result_type=hlo.tensor_type((), np.uint32))
    return ctx.op1("stablehlo.convert", [rid])


def _all_manual(ctx, rest, emit):
    """`emit(inner_ctx)`'s scalar lowered where the still automatic mesh axes `rest` are made
    manual too: partition_id means one device only there (JAX nests a manual computation)."""
    from ..xla.lowering import LoweringRuleContext
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
    if axis_name != axis_data.name:
        return axis_index_p.bind(axis_name=axis_name), bu.not_mapped
    from .shapes import iota
    return iota(np.int32, axis_data.size), 0


lowering_rules[axis_index_p] = _axis_index_lowering
axis_batching_rules[axis_index_p] = _axis_index_batching


def axis_index(axis_name):
    """This member's position (int32) along the named axis."""
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
    if len(axis_name) > 1:
        raise NotImplementedError(f"all_gather over several axes at once ({axis_name}) is not "
                                  f"supported under vmap: gather over one axis at a time")
    from .shapes import reshape
    axis = all_gather_dimension
    x = bu.bdim_at_front(x, d, axis_data.size)           # every member sees the whole stack
    x = bu.moveaxis(x, 0, axis)
    if tiled:
        shape = bu.shape(x)
        x = reshape(x, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])
    return x, bu.not_mapped


def _all_gather_transpose(ct, x, *, all_gather_dimension, axis_name, axis_index_groups,
                          axis_size, tiled):
    # member k's input reaches every member's output: its cotangent is the sum of their
    # cotangents' k-th blocks, i.e. a reduce-scatter
    # (the primitive, not the wrapper: a pmap body is transposed outside the trace that
    # knows the axis size)
    from .parallel_more import reduce_scatter_p
    return [reduce_scatter_p.bind(ct, axis_name=axis_name, scatter_dimension=all_gather_dimension,
                                  axis_index_groups=axis_index_groups, axis_size=axis_size,
                                  tiled=tiled)]


abstract_eval_rules[all_gather_p] = _all_gather_abstract_eval
impl_rules[all_gather_p] = lambda x, *, axis_name, **_: (_ for _ in ()).throw(
    _unbound(axis_name[0]))
lowering_rules[all_gather_p] = _all_gather_lowering
axis_batching_rules[all_gather_p] = _all_gather_batching
deflinear2(all_gather_p, _all_gather_transpose)


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
    from ..core.trace import current_trace
    t = current_trace()
    while t is not None:
        data = getattr(t, "axis_data", None)
        if data is not None and data.name == axis_name:
            return data.size
        t = t.parent
    from ..transforms import pmap as _pmap
    size = _pmap.current_axis_size(axis_name)
    if size is None:
        raise _unbound(axis_name)
    return size


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
impl_rules[psum_invariant_p] = lambda *args, axes: (_ for _ in ()).throw(_unbound(axes[0]))


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
impl_rules[vma.pvary_p] = lambda x, *, axes: (_ for _ in ()).throw(_unbound(axes[0]))
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
