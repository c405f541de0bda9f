"""Arrays over a mesh of NumPy devices, and how a program's results on them are laid out.

On the NumPy backend (numpy_device.py) a mesh is made of its simulated devices, one or
several (`jax_num_cpu_devices`, XLA_FLAGS). An Array over it is a `NumpyShardedBuffer`: the
global value and one block per mesh device, `value[index]` for the device's index (a read-only
view of the value: one NumPy array per device, as jaxlib keeps one buffer per device).

A program over the mesh (a jit with shardings, an eager operation on such Arrays, pmap's and
shard_map's programs) runs its jaxpr once on the global values (numpy_backend's
NumpyShardedExecutable) and lays each result out as asked, or as `output_shardings` guesses
XLA's partitioner would. Partitioning the program as XLA does (a per-device program with
collectives it inserts) would compute the same values at more cost and code: every
primitive's NumPy rule computes the global result, and a collective inside shard_map or
pmap computes in NumPy what every device would get (shard_map's NumPy rule batches the body
over the manual mesh axes, and the collectives' batching rules reduce along them). What a
learner sees per device is kept: a shard_map or pmap body that calls the host and has no
collective runs device by device, a `partitioned=True` host call is called once per device
with its blocks (`per_device_calls`), and inspect_array_sharding is told the layout guessed
(`lowering_layouts`).

    >>> mesh = jax.make_mesh((2,), ('x',))                              # doctest: +SKIP
    >>> s = NamedSharding(mesh, P('x'))                                 # doctest: +SKIP
    >>> b = put(np.arange(4.0), ShapedArray((4,), np.float64), s)       # doctest: +SKIP
    >>> [(s.value, s._sharding._devices) for s in b._arrays]          # doctest: +SKIP
    [(array([0., 1.]), (NumpyDevice(id=0),)), (array([2., 3.]), (NumpyDevice(id=1),))]
"""
from __future__ import annotations

import functools
import weakref

import numpy as np

from ..core.avals import ShapedArray, parts_of
from ..core.ir import ClosedJaxpr, Jaxpr, Var
from ..core.mesh import NamedSharding, PartitionSpec
from .numpy_device import NumpyBuffer, NumpyShardedBuffer, Placement, flush_subnormals
from .result_shardings import _concrete, first_sharding, reports_first


@functools.lru_cache(maxsize=None)
def placement_of(devices: tuple) -> Placement:
    """The one Placement of buffers over `devices` (a mesh's, in order)."""
    return Placement(*devices)


# A program's result replicated over a mesh whose devices computed different values (pmap's
# `out_axes=None`, shard_map's `out_specs=P()` unchecked, of a value that varies): XLA keeps
# each device's own in its buffer, and `Array.addressable_shards` shows them; the global
# value is device 0's. shard_map's NumPy rule notes each device's block here, by the result
# ndarray's identity (weakly: an entry goes with its value), and `put` lays them out.
_PER_DEVICE: dict = {}


def note_per_device(value: np.ndarray, blocks: list) -> None:
    """Record that `value` (device 0's block, and the global value) came with `blocks`, one
    per mesh device in mesh order, which differ."""
    key = id(value)
    _PER_DEVICE[key] = (weakref.ref(value, lambda _, key=key: _PER_DEVICE.pop(key, None)),
                        blocks)


def carry_noted(old: np.ndarray, new: np.ndarray, flush: bool) -> None:
    """A program's result `new` made from the noted `old` (its dtype, its layout, subnormals
    flushed as XLA writes them) keeps `old`'s blocks, made alike."""
    entry = _PER_DEVICE.get(id(old))
    if entry is None or entry[0]() is not old:
        return
    blocks = [np.ascontiguousarray(b, new.dtype) for b in entry[1]]
    note_per_device(new, [flush_subnormals(b) for b in blocks] if flush else blocks)


def _noted_blocks(value, sharding: NamedSharding):
    """The blocks noted for `value` if it is the very result noted and `sharding` replicates it
    over a mesh of as many devices, or is unreduced (the blocks are the devices' summands:
    shard_map's out_specs=P(unreduced=...)), else None."""
    entry = _PER_DEVICE.get(id(value))
    if entry is None or entry[0]() is not value or len(entry[1]) != sharding.mesh.size:
        return None
    if sharding.spec.unreduced:
        block = sharding.shard_shape(np.shape(value))
        return entry[1] if all(np.shape(b) == block for b in entry[1]) else None
    return None if any(sharding.spec._axes(np.ndim(value))) else entry[1]


def put(value: np.ndarray, aval: ShapedArray, sharding: NamedSharding,
        copy=True, source=None) -> NumpyShardedBuffer:
    """Host data of `aval`'s dtype over `sharding`'s mesh, each device's block a view of it: a
    copy (as XLA's transfer makes one), or with `copy=False` a program's result as it is (a
    replicated result whose devices computed different blocks keeps each one's:
    `note_per_device`). Unreduced over some mesh axes, each device holds a summand of its
    block instead (`summands`; `source`: the sharding the value came in with, if any)."""
    noted = None if copy else _noted_blocks(value, sharding)
    value = (np.array if copy else np.asarray)(value, aval.dtype).reshape(aval.shape)
    if value.flags.writeable:
        value.flags.writeable = False
    devices = sharding.mesh._flat_devices
    block = ShapedArray(sharding.shard_shape(aval.shape), aval.dtype, aval.weak_type)
    datas = summands(value, sharding, source) if noted is None else [
        _read_only(np.asarray(b, aval.dtype).reshape(block.shape)) for b in noted]
    blocks = [NumpyBuffer(data, block, d.placement) for d, data in zip(devices, datas)]
    return NumpyShardedBuffer(value, aval, placement_of(tuple(devices)), blocks)


def _read_only(data: np.ndarray) -> np.ndarray:
    if data.flags.writeable:
        data.flags.writeable = False
    return data


def summands(value: np.ndarray, sharding: NamedSharding, source=None) -> list:
    """Each mesh device's data of `value` laid out as `sharding` (mesh order): its block, or,
    where `sharding` is unreduced over some mesh axes, a summand of its block, so that the
    blocks of the devices that differ only along those axes add up to it. As XLA's CPU splits
    them (measured under JAX 0.10.2): where the value came (`source`) split along the
    unreduced axes over dimensions `sharding` does not split, each device keeps the part of
    its block that split gave it; along the unreduced axes it did not come split over (all of
    them for a value from the host or replicated), the device at coordinate 0 keeps it; the
    rest is zeros.

        >>> mesh = jax.make_mesh((2,), ('y',))                          # doctest: +SKIP
        >>> summands(np.arange(4.), NamedSharding(mesh, P(unreduced={'y'})))  # doctest: +SKIP
        [array([0., 1., 2., 3.]), array([0., 0., 0., 0.])]
    """
    mesh, shape = sharding.mesh, value.shape
    devices = mesh._flat_devices
    indices = sharding.devices_indices_map(shape)
    unreduced = set(sharding.spec.unreduced)
    if not unreduced:
        return [value[indices[d]] for d in devices]
    # the split `source` made along the unreduced axes, kept where `sharding` leaves the
    # dimension whole (elsewhere XLA gathers it first: as from the host)
    split = [()] * len(shape)
    if isinstance(source, NamedSharding) and source.mesh == mesh and not source.spec.unreduced:
        target = sharding.spec._axes(len(shape))
        for k, entry in enumerate(source.spec._axes(len(shape))):
            if not target[k]:
                split[k] = tuple(a for a in entry if a in unreduced)
    used = {a for axes in split for a in axes}
    parts = NamedSharding(mesh, PartitionSpec(*[axes or None for axes in split]))
    parts = parts.devices_indices_map(shape)
    first = [mesh.axis_names.index(a) for a in unreduced - used]
    out = []
    for i, d in enumerate(devices):
        data = np.zeros_like(value[indices[d]])
        if all(np.unravel_index(i, mesh.devices.shape)[k] == 0 for k in first):
            mine = np.zeros(shape, bool)
            mine[parts[d]] = True
            data[mine[indices[d]]] = value[indices[d]][mine[indices[d]]]
        data.flags.writeable = False
        out.append(data)
    return out


def assemble(blocks: list, aval: ShapedArray, sharding: NamedSharding) -> NumpyShardedBuffer:
    """One buffer over the mesh of per-device NumpyBuffers given in mesh order (their data:
    make_array_from_callback's and make_array_from_single_device_arrays')."""
    value = np.empty(aval.shape, aval.dtype)
    indices = sharding.devices_indices_map(aval.shape)
    for d, b in zip(sharding.mesh._flat_devices, blocks):
        value[indices[d]] = b.value.reshape(sharding.shard_shape(aval.shape))
    return put(value, aval, sharding)


# ------------------------------------------------------------------ results' layouts
def _dims(sharding, ndim: int, open_as=()) -> tuple:
    """Per dimension the tuple of mesh axes splitting it (() where none; `open_as` where the
    spec leaves it to the partitioner, P.UNCONSTRAINED)."""
    spec = getattr(sharding, "spec", sharding)
    # (a spec's entries: `partitions`, as a spec with unreduced axes refuses `tuple(spec)`)
    parts = tuple(getattr(spec, "partitions", spec) or ())
    parts = parts + (None,) * (ndim - len(parts))
    return tuple(() if p is None else (p,) if isinstance(p, str) else
                 tuple(p) if isinstance(p, (tuple, list)) else open_as for p in parts[:ndim])


def _spec(dims) -> PartitionSpec:
    parts = [None if not a else a[0] if len(a) == 1 else a for a in dims]
    while parts and parts[-1] is None:       # trailing unsplit dimensions dropped, as XLA's
        parts.pop()
    return PartitionSpec(*parts)


spec_of = _spec          # (a layout's PartitionSpec, for the rules registered below)


def _shape(v) -> tuple:
    return tuple(getattr(v.aval, "shape", ()))


def _valid(dims) -> tuple:
    """`dims` with each mesh axis splitting one dimension only: where two would be split over
    it, the first keeps it (a dot of `a` by `a.T`, XLA keeps the rows split)."""
    used, out = set(), []
    for d in dims:
        out.append(tuple(a for a in d if a not in used))
        used.update(d)
    return tuple(out)


def _merged(layouts) -> tuple:
    """One layout of operands of the same shape: each dimension split as the first operand
    that splits it (XLA's propagation keeps the most split layout: P('x') + P('x', 'y') is
    P('x', 'y'))."""
    return _valid(tuple(next((d for d in ds if d), ()) for ds in zip(*layouts)))


def _sliced_layouts(eqn, ins):
    """A slice's or squeeze's result laid out as XLA's propagation lays out a partitioned
    host call's operand (`per_device_calls`): a dimension kept whole keeps its split, a sliced
    one is whole on each device, a squeezed one is dropped; None for anything else."""
    name, params = eqn.primitive.name, eqn.params
    if ins[0] is None or name not in ("slice", "squeeze"):
        return None
    if name == "squeeze":
        return [tuple(d for i, d in enumerate(ins[0]) if i not in params["dimensions"])]
    kept = [a == b for a, b in zip(_shape(eqn.invars[0]), _shape(eqn.outvars[0]))]
    return [tuple(d if k else () for d, k in zip(ins[0], kept))]


def _eqn_layouts(eqn, ins, sliced=False) -> list:
    """The layouts of `eqn`'s results from its operands' (`ins`, None for replicated or
    unknown), the way XLA's propagation lays out the common cases (`sliced`: slices and
    squeezes too, `_sliced_layouts`)."""
    name, params = eqn.primitive.name, eqn.params
    if sliced and (found := _sliced_layouts(eqn, ins)) is not None:
        return found
    if name in ("sharding_constraint", "reshard"):     # (an open dimension: the operand's)
        dims = _dims(params.get("sharding") or params["dst_sharding"],
                     len(_shape(eqn.outvars[0])), None)
        return [tuple(d if d is not None else ins[0][i] if ins[0] else ()
                      for i, d in enumerate(dims))]
    if name == "shard_map":
        return [_dims(s, len(_shape(v))) for s, v in zip(params["out_specs"], eqn.outvars)]
    inner = params.get("jaxpr", params.get("call_jaxpr"))
    inner = inner.jaxpr if isinstance(inner, ClosedJaxpr) else inner
    if isinstance(inner, Jaxpr) and len(inner.invars) == len(eqn.invars) and \
            len(inner.outvars) == len(eqn.outvars):
        return _layouts(inner, ins)
    if name.startswith("reduce_") and "axes" in params and ins[0] is not None:
        return [tuple(d for i, d in enumerate(ins[0]) if i not in params["axes"])]
    if name == "broadcast_in_dim" and ins[0] is not None:
        out, shape = [()] * len(_shape(eqn.outvars[0])), _shape(eqn.invars[0])
        for i, d in enumerate(params["broadcast_dimensions"]):
            if shape[i] == _shape(eqn.outvars[0])[d]:
                out[d] = ins[0][i]
        return [tuple(out)]
    if name == "transpose" and ins[0] is not None:
        return [tuple(ins[0][p] for p in params["permutation"])]
    if name == "reshape" and ins[0] is not None:
        return [_reshaped(ins[0], _shape(eqn.invars[0]), _shape(eqn.outvars[0]))]
    if name == "stack":
        # the operands' layout, the new dimension whole (wrap_key_data of stacked words)
        split = [d for d in ins if d is not None]
        return [_merged(split)[:params["axis"]] + ((),) + _merged(split)[params["axis"]:]
                if split else None]
    if name == "concatenate":
        # each dimension but the joined one split as the operands split it (random_seed's
        # physical key: its seeds' layout, a trailing dimension of the two words added)
        at, split = params["dimension"], [d for d in ins if d is not None]
        return [tuple(() if i == at else d for i, d in enumerate(_merged(split)))
                if split else None]
    if name == "dot_general":
        (lc, rc), (lb, rb) = params["dimension_numbers"]
        lhs, rhs = (ins[0] or ((),) * len(_shape(eqn.invars[0])),
                    ins[1] or ((),) * len(_shape(eqn.invars[1])))
        free_l = [d for i, d in enumerate(lhs) if i not in lc and i not in lb]
        free_r = [d for i, d in enumerate(rhs) if i not in rc and i not in rb]
        return [tuple([lhs[i] for i in lb] + free_l + free_r)]
    # elementwise and the like: merged from the operands of the result's shape that are split
    outs = []
    for v in eqn.outvars:
        alike = [d for x, d in zip(eqn.invars, ins) if d is not None and _shape(x) == _shape(v)]
        outs.append(_merged(alike) if alike else None)
    return outs


def _reshaped(dims, old: tuple, new: tuple):
    """The layout of a reshape from `old` to `new` that only adds or drops dimensions of size
    one (each other dimension keeps its split, as XLA's propagation keeps it); None
    (replicated) for any other reshape."""
    kept = [d for d, n in zip(dims, old) if n != 1]
    if [n for n in old if n != 1] != [n for n in new if n != 1]:
        return None
    it = iter(kept)
    return tuple(() if n == 1 else next(it) for n in new)


def _as_typed(aval, guess):
    """A typed result's layout, as XLA's lowering constrains it (_typed_layouts): its type's
    axes; over a mesh with Auto axes also the Auto axes the guess splits it over."""
    typed = getattr(aval, "split", None)
    if typed is None:
        return guess
    parts = parts_of(aval)
    if not typed.mesh.auto_axes:
        return tuple(parts)
    explicit = set(typed.mesh.explicit_axes)
    guess = guess or ((),) * len(parts)
    return tuple(p + tuple(a for a in g if a not in explicit and a not in p)
                 for p, g in zip(parts, guess))


def _layouts(jaxpr: Jaxpr, ins: list) -> list:
    """Per result of `jaxpr` its layout guessed from its inputs' (None: replicated)."""
    env = _layout_env(jaxpr, ins)
    return [env.get(v) if type(v) is Var else None for v in jaxpr.outvars]


def _layout_env(jaxpr: Jaxpr, ins: list, sliced=False) -> dict:
    """{var: its layout} for the vars of `jaxpr` guessed split (the others replicated)."""
    env = {v: d for v, d in zip(jaxpr.invars, ins)}
    for eqn in jaxpr.eqns:
        outs = _eqn_layouts(eqn, [env.get(v) if type(v) is Var else None for v in eqn.invars],
                            sliced)
        for v, d in zip(eqn.outvars, outs):
            d = _as_typed(v.aval, d)
            d = None if d is None or not any(d) else _valid(d)
            if d is not None and len(d) == len(_shape(v)):
                env[v] = d
    return env


# primitive -> rule(params, mesh, layout) run when a program over a mesh of several devices is
# made (instead of its numpy_lowering rule), with its operand's guessed layout (mesh axes per
# dimension, None: replicated): what XLA's partitioner tells while it compiles
# (inspect_array_sharding: lax/inspect_sharding.py)
mesh_lowering_rules: dict = {}


def lowering_layouts(jaxpr: Jaxpr, mesh, arg_shardings) -> dict:
    """{var: layout} of a program over `mesh` (constvars first, `arg_shardings` theirs and the
    invars'), guessed as `output_shardings` guesses; {} on one device."""
    if mesh is None or mesh.size == 1 or arg_shardings is None:
        return {}
    params = [*jaxpr.constvars, *jaxpr.invars]
    ins = [None if s is None else _valid(_dims(s, len(_shape(v))))
           for s, v in zip(arg_shardings, params)]
    return _layout_env(_as_one(jaxpr), ins)


# primitive -> rule(eqn, blocks) -> the equation calling the host once per device: `blocks`
# maps the operands' global values to each device's list of blocks, in the mesh's order (a
# `partitioned=True` debug callback or print: lax/callbacks.py registers them)
per_device_rules: dict = {}


def per_device_calls(program: Jaxpr, mesh, arg_shardings) -> Jaxpr:
    """`program` (constvars first, calls inlined) with each partitioned host call made to call
    once per device with its blocks of the operands, laid out as guessed from the arguments'
    shardings (XLA's partitioner calls it on each device's shard; the NumPy backend runs the
    global program, so the call is split here). Unchanged on one device or with none."""
    if mesh.size == 1 or arg_shardings is None or not any(
            e.primitive in per_device_rules and e.params.get("partitioned")
            for e in program.eqns):
        return program
    params = [*program.constvars, *program.invars]
    ins = [None if s is None else _valid(_dims(s, len(_shape(v))))
           for s, v in zip(arg_shardings, params)]
    env = _layout_env(_as_one(program), ins, sliced=True)
    eqns = []
    for eqn in program.eqns:
        if eqn.primitive in per_device_rules and eqn.params.get("partitioned"):
            dims = tuple(env.get(v) if type(v) is Var else None for v in eqn.invars)
            eqn = per_device_rules[eqn.primitive](eqn, functools.partial(_device_blocks, mesh,
                                                                         dims))
        eqns.append(eqn)
    return program.replace(eqns=eqns)


def _device_blocks(mesh, dims, values) -> list:
    """Per device of `mesh` (its order) the blocks of `values` laid out as `dims` say (None:
    the whole value on each device)."""
    sizes = mesh.shape
    out = []
    for index in np.ndindex(*mesh.devices.shape):
        at = dict(zip(mesh.axis_names, index))
        blocks = []
        for value, layout in zip(values, dims):
            if layout is None:
                blocks.append(value)
                continue
            where = []
            for n, axes in zip(np.shape(value), layout):
                count, pos = 1, 0
                for a in axes:
                    count, pos = count * sizes[a], pos * sizes[a] + at[a]
                where.append(slice(pos * (n // count), (pos + 1) * (n // count)))
            blocks.append(value[tuple(where)])
        out.append(blocks)
    return out


def mesh_needed(jaxpr):
    """The mesh of the first sharding constraint, shard_map or result typed over a mesh in
    `jaxpr` (or a jaxpr it calls, not inside a shard_map), else None: where XLA's lowering
    of a program for one device raises NeedsMesh (and jit partitions the program over that
    mesh, or says JAX's device-assignment error), the NumPy backend, which lowers nothing,
    asks the same of the jaxpr."""
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in ("sharding_constraint", "reshard"):
            return (eqn.params.get("sharding") or eqn.params["dst_sharding"]).mesh
        if name == "shard_map":
            return eqn.params["mesh"]
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                sub = sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub
                found = mesh_needed(sub) if isinstance(sub, Jaxpr) else None
                if found is not None:
                    return found
        typed = next((v.aval.split for v in eqn.outvars
                      if getattr(v.aval, "split", None) is not None), None)
        if typed is not None:           # (XLA's lowering: _typed_layouts)
            return typed.mesh
    return None


def key_data_sharding(sharding, physical, first: bool):
    """The sharding of typed keys' data as JAX's key_data reports it: its first run (JAX's
    Python path) names every dimension, the key dimensions unsplit (`P('y', 'x', None)`); a
    later run (JAX's C++ fast path) the keys' own spec (`P('y', 'x')`). Here as both
    backends' executables over a mesh name it (sharded.py imports the NumPy backend's)."""
    if not first or type(sharding) is not NamedSharding or \
            len(sharding.spec.partitions) >= len(physical.shape):
        return sharding
    spec = sharding.spec
    return NamedSharding(sharding.mesh, spec.update(partitions=(*spec.partitions, *[None] * (
        len(physical.shape) - len(spec.partitions)))), memory_kind=sharding.memory_kind)


def output_shardings(jaxpr, mesh, out_avals, user_shardings, in_avals, given, carried,
                     arg_shardings) -> list:
    """The results' NamedShardings: those asked for (`given`) as they are, else the layout
    XLA's partitioner would choose, guessed from the arguments' (`arg_shardings`, constants
    first) through the jaxpr (an elementwise result keeps its operand's layout, a reduction
    drops the reduced dimensions, a sharding constraint sets one, anything else is
    replicated), named as result_shardings.output_shardings names XLA's choices (its
    comments say how JAX does). On a mesh of one device every layout is alike, as there."""
    n = len(out_avals)
    given = given or [None] * n
    carried = carried or [mesh] * n
    first = first_sharding(mesh, user_shardings, in_avals)
    guesses = [None] * n
    if mesh.size > 1 and arg_shardings is not None:
        ins = [None if s is None else _valid(_dims(s, len(_shape(v))))
               for s, v in zip(arg_shardings, [*jaxpr.constvars, *jaxpr.invars])]
        guesses = _layouts(_as_one(jaxpr), ins)
    out = []
    for guess, aval, asked, cm in zip(guesses, out_avals, given, carried):
        ndim = len(aval.shape)
        if asked is not None:
            out.append(asked)
            continue
        if reports_first(first, aval, cm, lambda f: mesh.size == 1 or
                         (guess or ((),) * ndim) == _dims(f, ndim)):
            out.append(first[0])
            continue
        out.append(NamedSharding(_concrete(cm, mesh), PartitionSpec() if guess is None else
                                 _spec(guess)))
    return out


def _as_one(jaxpr: Jaxpr) -> Jaxpr:
    """The jaxpr with its constvars taken as its first invars (the order arguments come in)."""
    return Jaxpr([], [*jaxpr.constvars, *jaxpr.invars], jaxpr.outvars, jaxpr.eqns)
