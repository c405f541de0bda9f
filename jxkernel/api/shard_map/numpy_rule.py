"""shard_map's NumPy rule (the NumPy backend, which runs jaxprs with NumPy on global values):
each manual mesh axis is a vmap axis over the devices (`batching.DevicesAxisData`: its
collectives reduce along it, with `axis_index_groups` too), or, for a body that calls the
host with no collective, the body runs device by device, so each device's callback gets its
own block as under XLA."""
from __future__ import annotations

import contextlib
import functools
import math

import numpy as np

from ...core.axis_env import bound_axis
from ...core.ir import ClosedJaxpr, jaxprs_in_params
from ...core.numpy_eval import eval_closed_jaxpr_numpy, user_impl
from ...core.primitive import numpy_rules
from ...core.sharding_types import sets_erased
from ...transforms import batch_util as bu
from ...transforms.batching import DevicesAxisData, batch_jaxpr
from ...xla.numpy_sharded import note_per_device


def _stacked_blocks(x, spec, manual, sizes) -> tuple:
    """(x's blocks stacked along leading axes, one per manual axis spec splits x over, in
    mesh order; those axes): a dimension split over axes (a, b) is a's blocks of b's."""
    shape, where = [], {}
    for n, axes in zip(x.shape, spec._axes(x.ndim)):
        for a in axes:
            where[a] = len(shape)
            shape.append(sizes[a])
        shape.append(n // math.prod(sizes[a] for a in axes))
    split = [a for a in manual if a in where]
    lead = [where[a] for a in split]
    return x.reshape(shape).transpose(lead + [i for i in range(len(shape)) if i not in lead]), split


def _summand_blocks(x, spec, manual, sizes) -> tuple:
    """`_stacked_blocks` of an operand unreduced over some manual axes (in_specs' unreduced):
    each device gets its summand, as XLA's: along those axes the device at coordinate 0 holds
    the value, the others zeros (`numpy_sharded.summands` of a value not split there)."""
    stacked, split = _stacked_blocks(x, spec, manual, sizes)
    unreduced = [a for a in manual if a in spec.unreduced]
    if not unreduced:
        return stacked, split
    for i, a in enumerate(manual):         # a leading axis for every manual axis, mesh order
        if a not in split:
            stacked = np.expand_dims(stacked, i)
    full = np.broadcast_to(stacked, [sizes[a] for a in manual] + list(stacked.shape[len(manual):]))
    keep = np.ones([sizes[a] if a in unreduced else 1 for a in manual], bool)
    for i, a in enumerate(manual):
        if a in unreduced:
            keep = keep & (np.arange(sizes[a]) == 0).reshape(
                [sizes[a] if j == i else 1 for j in range(len(manual))])
    keep = keep.reshape(keep.shape + (1,) * (full.ndim - len(manual)))
    return np.where(keep, full, np.zeros((), full.dtype)), list(manual)


def _joined_blocks(y, spec, manual, sizes):
    """The global value of results y stacked along one leading axis per manual axis (mesh
    order), put together as spec says: block 0 along the axes spec leaves out (the result
    is the same on all of them)."""
    block = y.shape[len(manual):]
    dims = spec._axes(len(block))
    named = [a for a in manual if any(a in axes for axes in dims)]
    y = y[tuple(slice(None) if a in named else 0 for a in manual)]
    order = []
    for d, axes in enumerate(dims):
        order += [named.index(a) for a in axes] + [len(named) + d]
    return y.transpose(order).reshape(
        [n * math.prod(sizes[a] for a in axes) for n, axes in zip(block, dims)])


@functools.lru_cache(maxsize=None)
def _closed_body(jaxpr) -> ClosedJaxpr:
    """The body as one ClosedJaxpr per body, so batch_jaxpr's cache finds it again."""
    return jaxpr if isinstance(jaxpr, ClosedJaxpr) else ClosedJaxpr(jaxpr, [])


# a host callback: XLA calls it on each device with that device's block
_CALLBACKS = frozenset({"pure_callback", "io_callback", "debug_callback", "debug_print"})
# axis-typed no-ops a body may hold with no collective (a device's block is their result)
_TYPE_ONLY = frozenset({"pvary"})


def _names_an_axis(value, axes) -> bool:
    if isinstance(value, str):
        return value in axes
    return isinstance(value, (tuple, list, frozenset, set)) and any(
        isinstance(v, str) and v in axes for v in value)


@functools.lru_cache(maxsize=256)
def _per_device(body, axes: frozenset) -> bool:
    """Whether a body is run device by device on the NumPy backend: it calls the host (each
    device calls it with its own block, as XLA's partitioned program does: a `pure_callback`
    without a vmap_method, an `io_callback` or a print in a loop cannot be batched over the
    devices; a user's primitive run by its impl, which no vmap rule batches, is called so
    too) and reads none of the manual axes (no collective: each device's block alone makes
    its results)."""
    calls, reads = False, False
    todo = [body.jaxpr if isinstance(body, ClosedJaxpr) else body]
    while todo:
        for eqn in todo.pop().eqns:
            name = eqn.primitive.name
            calls = calls or name in _CALLBACKS or (eqn.primitive not in numpy_rules and
                                                    user_impl(eqn.primitive) is not None)
            if name not in _TYPE_ONLY and any(_names_an_axis(v, axes)
                                              for v in eqn.params.values()):
                reads = True
            todo.extend(jaxprs_in_params(eqn.params))
    return calls and not reads


@functools.lru_cache(maxsize=256)
def _check_constraints(body, manual: tuple) -> None:
    """JAX's ValueError where a with_sharding_constraint in the body names one of its manual
    axes (`manual`, mesh order): XLA's lowering of the constraint raises it (lax/sharding.py),
    and the NumPy backend lowers nothing."""
    todo = [body.jaxpr if isinstance(body, ClosedJaxpr) else body]
    while todo:
        for eqn in todo.pop().eqns:
            spec = getattr(eqn.params.get("sharding"), "spec", None)
            if eqn.primitive.name == "sharding_constraint" and spec is not None and any(
                    a in manual for entry in spec._axes(len(eqn.outvars[0].aval.shape))
                    for a in entry):
                raise ValueError(
                    f"pspec {spec} contains a manual axes {manual} of mesh which is not "
                    f"allowed. If you are using a with_sharding_constraint under a shard_map, "
                    f"only use the mesh axis in PartitionSpec which are not manual.")
            todo.extend(jaxprs_in_params(eqn.params))


def _each_device(body, blocks, splits, manual, sizes):
    """The body run once per device (devices in mesh order), on that device's blocks; its
    results stacked along one leading axis per manual axis, as the batched body's are."""
    outs = []
    for index in np.ndindex(*[sizes[a] for a in manual]):
        at = dict(zip(manual, index))
        outs.append(eval_closed_jaxpr_numpy(
            body, *[b[tuple(at[a] for a in split)] for b, split in zip(blocks, splits)]))
    lead = [sizes[a] for a in manual]
    return [np.stack([np.asarray(o[i]) for o in outs]).reshape(lead + list(np.shape(outs[0][i])))
            for i in range(len(outs[0]))]


def run(*args, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    """With NumPy (global values) each manual mesh axis is a vmap axis: the operands' blocks
    stacked along leading axes, the body batched over them (innermost axis first, its
    collectives reducing along them as vmap's rules do), the results' blocks put together.
    A body that calls the host and has no collective runs once per device instead
    (`_per_device`), so its callbacks see what each device's do under XLA."""
    manual = [a for a in mesh.axis_names if a in newly_manual_axes]
    sizes = mesh.shape
    blocks, splits = zip(*[_summand_blocks(x, s, manual, sizes)
                           for x, s in zip(args, in_specs)]) if args else ((), ())
    body = _closed_body(jaxpr)
    _check_constraints(body, tuple(manual))
    summed = [_summed(v.aval, s, manual, check_vma)
              for v, s in zip(body.jaxpr.outvars, out_specs)]
    if _per_device(body, frozenset(manual)):
        return [_joined(y, s, manual, mesh, k) for y, s, k in
                zip(_each_device(body, blocks, splits, manual, sizes), out_specs, summed)]
    with contextlib.ExitStack() as bound:     # (a collective over several axes reads them)
        for a in manual:
            bound.enter_context(bound_axis(a, sizes[a]))
        # the body's unreduced and reduced sets were checked when it was traced; batched over
        # the devices they are data (summands, copies), which the sets' rules would refuse
        bound.enter_context(sets_erased())
        for a in reversed(manual):
            body, _ = batch_jaxpr(body, DevicesAxisData(a, sizes[a]),
                                  [0 if a in split else bu.not_mapped for split in splits],
                                  force_out_batched=[True] * len(out_specs))
    return [_joined(y, s, manual, mesh, k)
            for y, s, k in zip(eval_closed_jaxpr_numpy(body, *blocks), out_specs, summed)]


def _summed(aval, spec, manual, check_vma) -> tuple:
    """The positions in `manual` of the axes a result unreduced over them comes as the devices'
    summands: those its body's value varies over (or is unreduced over; any, unchecked). One
    the same on every device (invariant) is device 0's, the others' zeros (`summands`)."""
    axes = set(spec.unreduced) & set(manual)
    if check_vma:
        axes &= set(getattr(aval, "vma", ())) | set(getattr(aval, "ur", ((), ()))[0])
    return tuple(i for i, a in enumerate(manual) if a in axes)


def _joined(y, spec, manual, mesh, unreduced=()):
    """`_joined_blocks`; a result replicated over every axis of the mesh whose devices made
    different blocks (unchecked: pmap's `out_axes=None`, `out_specs=P()` without check_vma)
    is device 0's, each device's own block noted for its Array's shards, as XLA keeps them."""
    # unreduced over manual axes the body's value varies over (`_summed`): each device's
    # block is its summand, the global value their sum (as XLA leaves them)
    if unreduced:
        y = np.asarray(y)
        out = _joined_blocks(np.sum(y, axis=unreduced, keepdims=True, dtype=y.dtype), spec,
                             manual, mesh.shape)
    else:
        out = _joined_blocks(y, spec, manual, mesh.shape)
    if len(manual) == len(mesh.axis_names) > 0 and mesh.size > 1 and \
            (unreduced or not any(spec._axes(np.ndim(out))) and not spec.unreduced):
        each = np.asarray(y).reshape((mesh.size,) + np.shape(y)[len(manual):])
        if unreduced or not (each == each[:1]).all():
            out = np.array(out)               # (an ndarray of its own: noted by identity)
            note_per_device(out, list(each))
    return out
