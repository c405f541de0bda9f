"""The all-reduce collectives: psum, pmax, pmin (one primitive each, made by `_reducer`,
lowered to StableHLO's all_reduce), psum's jvp and transpose, and on them pmean; and the
pair a check_vma=True shard_map body types its sums with, each the other's transpose:
psum_invariant (a psum whose result is the same on every device) and pvary (a value the same
on every device used as a varying one), with `pcast`, the cast users call.

    >>> jax.vmap(lambda x: x - lax.pmean(x, 'batch'), axis_name='batch')(jnp.arange(3.))
    Array([-1.,  0.,  1.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes, vma
from ...core.config import config
from ...core.avals import get_aval
from ...core.primitive import (
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
from ...core.mesh import get_abstract_mesh
from ...core.physical import physical_rules
from ...core.trace import EvalTrace, Tracer, current_trace
from ...tree_util import tree_flatten, tree_unflatten
from ...transforms import batch_util as bu
from .. import _lowering as hl
from .. import reductions
from ...transforms.ad_util import Zero, deflinear2, instantiate
from ..conversion import convert_element_type
from ..elementwise import _const, div, mul
from ..reductions import reduce_sum
from ..shapes import broadcast_in_dim
from ._common import (_as_names, _axis_size, _canonical_groups, _check_bound, _collective_attrs,
                      _group_rows, _no_groups_under_vmap, _on_devices, _per_member,
                      _raise_unbound, _unbound, varying)


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
    if tuple(axes) == (name,) and _on_devices(axis_data, axis_index_groups):
        return _grouped_reduction(prim, axis_data, v, d, axis_index_groups), 0
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


def _grouped_reduction(prim, axis_data, v, d, axis_index_groups):
    """Over devices (the NumPy backend's pmap and shard_map), each member gets the reduction
    over its group's members, as XLA's all_reduce with replica groups (of several sizes too,
    as psum's)."""
    n = axis_data.size
    groups = _canonical_groups(axis_index_groups, n, even=False)
    reduce = getattr(reductions, {"psum": "reduce_sum", "pmax": "reduce_max",
                                  "pmin": "reduce_min"}[prim.name])
    rows, where = _group_rows(bu.bdim_at_front(v, d, n), groups, n)
    return _per_member([reduce(r, (0,)) for r in rows], [k for k, _ in where])


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
        axis_index_groups = _canonical_groups(axis_index_groups, _axis_size(axes), even=False)
    if prim is psum_p and axis_index_groups is not None and vma.checked:
        # JAX's psum in a check_vma=True body (bind_psum_invariant) takes no groups, with
        # no message; shard_map(..., check_vma=False) runs them
        raise NotImplementedError
    leaves, tree = tree_flatten(x)
    if axis_index_groups is None and vma.checks(axes):        # in a check_vma=True body
        if prim is psum_p:        # a leaf unreduced over the axes: its summands added up
            return tree_unflatten(tree, [
                unreduced_psum_p.bind(leaf, axes=axes) if _unreduced_over(leaf, axes) else
                psum_invariant_p.bind(varying(leaf, axes, "jax.lax.psum"), axes=axes)[0]
                for leaf in leaves])
        leaves = [varying(leaf, axes, f"jax.lax.{prim.name}") for leaf in leaves]
    # one equation per leaf, as JAX's
    return tree_unflatten(tree, [prim.bind(leaf, axes=axes, axis_index_groups=axis_index_groups)[0]
                                 for leaf in leaves])


def psum(x, axis_name, *, axis_index_groups=None):
    """Sum of `x` (any pytree) over the named axis; every member gets the total.
    With `axis_index_groups=[[0, 1], [2, 3]]` each group sums on its own (not under vmap).
    A value that is no tracer (the same in every member) is multiplied by the number of
    members, as JAX's: a Python scalar stays one.

    >>> jax.vmap(lambda x: lax.psum(1, 'i'), axis_name='i')(jnp.ones(3))   # 3 each
    Array([3, 3, 3], dtype=int32, weak_type=True)
    """
    leaves, tree = tree_flatten(x)
    # a bool counts as 0 or 1: summed as int32, as JAX's (psum of [True, True] is 2)
    leaves = [convert_element_type(leaf, np.int32) if dtypes.dtype(leaf) == np.bool_ else leaf
              for leaf in leaves]
    if not any(isinstance(leaf, Tracer) for leaf in leaves):
        return tree_unflatten(tree, _psum_constants(leaves, _as_names(axis_name),
                                                    axis_index_groups))
    return _reduce(psum_p, tree_unflatten(tree, leaves), axis_name, axis_index_groups)


def _psum_constants(leaves, axes, axis_index_groups) -> list:
    """JAX's constant case of psum: each leaf times the members summed,
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


def _true_mean(s, n):
    """s / n as jnp's true division: an integer (or bool) sum becomes the default float."""
    dtype = get_aval(s).dtype
    if not dtypes.issubdtype(dtype, np.inexact):
        dtype = dtypes.default_float_dtype()
        s = convert_element_type(s, dtype)
    return div(s, convert_element_type(n, dtype))


# ------------------------------------------------------------------ varying manual axes
# In a check_vma=True shard_map body a psum of values varying over its axes is invariant
# (psum_invariant); its transpose is pvary, whose transpose is psum_invariant again.
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


def _pvary_eager(x, *, axes):
    raise ValueError("pvary should be called under jax.shard_map.")      # (JAX's words)


impl_rules[vma.pvary_p] = _pvary_eager
axis_batching_rules[vma.pvary_p] = lambda axis_data, vals, dims, *, axes: (
    vma.pvary_p.bind(vals[0], axes=axes), dims[0])
deflinear2(vma.pvary_p, _pvary_transpose)
# a key's type changes alike: its data (the key's words) goes through the same no-op cast
physical_rules[vma.pvary_p] = lambda in_avals, out_avals, x, *, axes: vma.pvary_p.bind(
    x, axes=axes)


# ------------------------------------------------------------------ unreduced, reduced casts
# (core/vma.py declares them): no-ops on the data, each the other's transpose
def _unreduced_over(leaf, axes) -> bool:
    return bool(getattr(get_aval(leaf), "ur", vma.NO_UR)[0] & frozenset(axes))


def _cast_batching(prim):
    # a no-op on the data, per example alike (JAX has no batching rule: vmap of a body with
    # these casts is its NotImplementedError)
    return lambda axis_data, vals, dims, *, axes: (prim.bind(vals[0], axes=axes), dims[0])


for _cast, _back in ((vma.reduced_vary_cast_p, vma.vary_unreduced_cast),
                     (vma.vary_unreduced_cast_p, vma.reduced_vary_cast),
                     (vma.preduced_p, None)):
    lowering_rules[_cast] = lambda ctx, x, *, axes: x
    numpy_rules[_cast] = lambda x, *, axes: x       # a type change: the data stays (as pvary)
    impl_rules[_cast] = _raise_unbound
    axis_batching_rules[_cast] = _cast_batching(_cast)
    if _back is not None:
        deflinear2(_cast, lambda ct, x, *, axes, _back=_back: [_back(instantiate(ct), axes)])

# psum of a value unreduced over the axes (JAX's unreduced_psum: Unreduced -> Invariant),
# whose transpose is preduced (Invariant -> Reduced), whose transpose is it again
unreduced_psum_p = Primitive("unreduced_psum")
own_vma_rules.add(unreduced_psum_p)


def _unreduced_psum_abstract_eval(x, *, axes):
    if not vma.checked:     # (run where the body's types are erased: an eager body's steps)
        return x
    unreduced, reduced = x.ur
    if not unreduced:
        raise ValueError(f"unreduced_psum only accepts inputs that are unreduced. Got "
                         f"{x.str_short(True)}")
    if not unreduced & frozenset(axes):
        raise ValueError(
            f"unreduced_psum is a Unreduced -> Invariant collective. This means that the "
            f"axes={tuple(axes)} passed to `unreduced_psum` must be present in "
            f"jax.typeof(x).mat.unreduced={unreduced}")
    if x.vma & frozenset(axes):
        raise ValueError(f"unreduced_psum's input cannot be varying across the  axis_name "
                         f"provided. Got x={x.str_short(True)} and axes={tuple(axes)}")
    return x.update(ur=(unreduced - frozenset(axes), reduced))


abstract_eval_rules[unreduced_psum_p] = _unreduced_psum_abstract_eval
lowering_rules[unreduced_psum_p] = lambda ctx, x, *, axes: lowering_rules[psum_p](
    ctx, x, axes=axes, axis_index_groups=None)[0]
impl_rules[unreduced_psum_p] = _raise_unbound
deflinear2(unreduced_psum_p, lambda ct, x, *, axes: [vma.preduced(instantiate(ct), axes)])


def _unreduced_psum_batching(axis_data, vals, dims, *, axes):
    if axis_data.name in axes:           # a vmap axis of the same name: psum's own rule
        outs, out_dims = axis_batching_rules[psum_p](axis_data, vals, dims, axes=axes,
                                                     axis_index_groups=None)
        return outs[0], out_dims[0]
    return unreduced_psum_p.bind(vals[0], axes=axes), dims[0]


axis_batching_rules[unreduced_psum_p] = _unreduced_psum_batching
deflinear2(vma.preduced_p, lambda ct, x, *, axes: [unreduced_psum_p.bind(instantiate(ct),
                                                                         axes=axes)])


_PCASTS = {("invarying", "reduced"): vma.preduced,
           ("varying", "unreduced"): vma.vary_unreduced_cast,
           ("reduced", "varying"): vma.reduced_vary_cast}


def _pcast_from(aval, axes) -> str:
    """Which of varying, unreduced, reduced or invarying `aval` is over all of `axes` (JAX's
    error where they differ)."""
    unreduced, reduced = getattr(aval, "ur", vma.NO_UR)
    found = {"varying" if a in aval.vma else "unreduced" if a in unreduced else
             "reduced" if a in reduced else "invarying" for a in axes}
    if len(found) > 1:
        raise ValueError(
            f"jax.lax.pcast can only accept axis_name which corresponds to one of varying, "
            f"unreduced, reduced or invarying state of the input. Got input type: {aval}, "
            f"axes: {axes} and input state: {found}")
    return found.pop()


def pcast(x, axis_name, *, to: str):
    """`x` (any pytree) with its type changed along the manual mesh axes `axis_name`, inside
    a shard_map body with check_vma=True (elsewhere `x` itself): JAX's casts from the same
    on every device to varying or reduced, from varying to unreduced, from reduced to varying.

    >>> from jxkernel.sharding import Mesh, PartitionSpec as P
    >>> mesh = Mesh(np.array(jax.devices()[:1]), ('x',))     # on n devices: (2 * n,)
    >>> jax.shard_map(lambda w: lax.pcast(w, 'x', to='varying'), mesh=mesh, in_specs=P(),
    ...               out_specs=P('x'))(jnp.ones(2)).shape
    (2,)
    """
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"{axis_name=} must be a tuple or a str. Got {axis_name}")
    axes = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not axis_name:
        return x
    if to not in ("unreduced", "reduced", "varying"):
        raise ValueError("Got unexpected `to` value. Allowed `to` values are: "
                         "{'unreduced', 'reduced', 'varying'}")

    def cast(leaf):
        if not vma.checks(axes):
            mesh = get_abstract_mesh()
            if all(a in mesh.manual_axes for a in axes):
                return leaf          # a check_vma=False body's own axes: nothing to type
            if to != "varying":
                raise NotImplementedError(
                    f"lax.pcast(..., to={to!r}) outside a shard_map body with check_vma=True: "
                    f"jxkernel types unreduced and reduced values only there")
            left = tuple(a for a in axes if not (config.jax_remove_size_one_mesh_axis_from_type
                                                 and mesh.axis_names and mesh.shape.get(a) == 1))
            if not left:             # (axes of size 1 dropped from types: nothing to do)
                return leaf
            # elsewhere a pvary, as JAX's: eager, its ValueError; traced, the axes must be
            # bound (a vmap's), else its NameError
            if type(current_trace()) is not EvalTrace:
                _check_bound(left, "pvary")
            return vma.pvary_p.bind(leaf, axes=vma.in_mesh_order(left))
        source = _pcast_from(get_aval(leaf), axes)
        if (source, to) == ("invarying", "varying"):
            return varying(leaf, axes, "jax.lax.pcast")
        cast = _PCASTS.get((source, to))
        if cast is None:
            raise ValueError(f"Unsupported pcast from={source}, to={to!r}")
        return cast(leaf, axes)
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [cast(leaf) for leaf in leaves])
