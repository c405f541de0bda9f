"""What every collective of lax/parallel/ shares: axis names as a tuple, the checks that an
axis is bound (JAX's errors), `axis_index_groups` checked, the rules of a linear collective
registered at once, the device groups and channel a collective lowers with inside a shard_map
body, an axis's size, and `varying`, a value typed as varying over the axes a collective
reads under check_vma=True.

    >>> _as_names('i'), _as_names(('x', 'y'))
    (('i',), ('x', 'y'))
"""
from __future__ import annotations

import numpy as np

from ...core import vma
from ...core.avals import get_aval
from ...core.axis_env import axis_size as bound_axis_size, visible_axes
from ...core.primitive import abstract_eval_rules, axis_batching_rules, impl_rules, lowering_rules
from ...core.trace import EvalTrace, current_trace
from ...xla import stablehlo as hlo
from ...transforms.ad_util import deflinear2
from ..shapes import broadcast_in_dim, concatenate
from ..slicing import index_in_dim


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


def _canonical_groups(axis_index_groups, size, even=True):
    """`axis_index_groups` as a hashable tuple of tuples, checked against the axis `size`;
    of one size unless not `even` (psum, pmax and pmin take groups of several sizes, as
    JAX's)."""
    if axis_index_groups is None:
        return None
    groups = tuple(tuple(int(i) for i in g) for g in axis_index_groups)
    members = sorted(i for g in groups for i in g)
    if members != list(range(size)):
        raise ValueError(f"axis_index_groups must cover all indices exactly once: got {groups} "
                         f"for an axis of size {size}")
    if even and len({len(g) for g in groups}) > 1:
        raise ValueError(f"axis_index_groups must all be the same size, got {groups}")
    return groups


def _on_devices(axis_data, axis_index_groups) -> bool:
    """Whether a collective with `axis_index_groups` is batched over devices (the NumPy
    backend's shard_map and pmap: transforms/batching.DevicesAxisData), where its groups are
    taken as XLA's collectives take them; under vmap they are refused (JAX's error)."""
    return axis_index_groups is not None and axis_data.on_devices


def _group_rows(x, groups, n):
    """(per group, x's rows of its members stacked: [len(group), ...]; per member, its
    group's index and its place in it), x batched over the n members at 0."""
    rows = [concatenate([index_in_dim(x, j, 0, keepdims=True) for j in g], 0) for g in groups]
    where = {j: (k, p) for k, g in enumerate(groups) for p, j in enumerate(g)}
    return rows, [where[i] for i in range(n)]


def _per_member(values, members):
    """[n, ...]: member i's value `values[members[i]]` (each of one shape), stacked."""
    shape = lambda v: tuple(get_aval(v).shape)      # noqa: E731
    return concatenate([broadcast_in_dim(values[m], (1,) + shape(values[m]),
                                         tuple(range(1, 1 + len(shape(values[m])))))
                        for m in members], 0)


def _no_groups_under_vmap(axis_index_groups):
    if axis_index_groups is not None:
        raise NotImplementedError("axis_index_groups not supported in vmap collectives. "
                                  "Please open a feature request!")


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

    >>> from jxkernel.sharding import AbstractMesh
    >>> mesh_groups(AbstractMesh((4, 2), ('x', 'y')), ('x',))
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
    groups = mesh_groups(manual[0], axes, axis_index_groups)
    width = max(len(g) for g in groups)       # groups of several sizes: padded with -1 (XLA's)
    attrs = {"channel_handle": _CHANNEL,
             "replica_groups": hlo.dense_i64([g + [-1] * (width - len(g)) for g in groups])}
    if global_ids:
        attrs["use_global_device_ids"] = "unit"
    return attrs


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


# ------------------------------------------------------------------ axis_size
def axis_size(axis_name) -> int:
    """The size of the named axis (a Python int; the product for a tuple of names).

        >>> jax.vmap(lambda x: x * lax.axis_size('i'), axis_name='i')(jnp.ones(3))
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
