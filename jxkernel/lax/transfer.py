"""device_put_p: what `jax.device_put` binds when its value is traced (JAX's dispatch.py).

    >>> jax.make_jaxpr(lambda x: jax.device_put(x) * 2)(1.0).eqns[0].primitive.name
    'device_put'

One equation moves all the leaves: params `devices` and `srcs` (a Device, a Sharding or None
per leaf) and `copy_semantics` (jaxlib's ArrayCopySemantics per leaf). Inside a compiled
program it is the identity, as JAX lowers it on CPU; eagerly it is `device_put` itself. It is
linear: its transpose moves the cotangent back, from `devices` to `srcs`, always copying.
"""
from __future__ import annotations

from ..core.avals import MemorySpace, ShapedArray, mem_kind_to_space, typed_sharding
from ..core import sharding_types
from ..core.basearray import Array
from ..core.mesh import AxisType, NamedSharding, PartitionSpec, abstracted, resolve
from ..core.trace import Tracer
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, impl_rules,
                              jvp_rules, lowering_rules, numpy_rules,
                              sharding_typing_rules, transpose_rules)
from ..transforms import ad_util as ad
from ..xla import put as _put
from ..xla.lowering import NeedsMesh
from .sharding import constrained
from ..xla.client import ArrayCopySemantics

device_put_p = Primitive("device_put", multiple_results=True)


def copy_semantics_of(copy: bool = False, donate: bool = False, may_alias=None):
    """The ArrayCopySemantics of one leaf, from device_put's flags as JAX reads them.

    >>> copy_semantics_of().name, copy_semantics_of(copy=True).name
    ('REUSE_INPUT', 'ALWAYS_COPY')
    """
    if may_alias and donate:
        raise ValueError("may_alias and donate cannot be True at the same time.")
    if may_alias is None:
        may_alias = not donate and not copy
    if may_alias:
        return ArrayCopySemantics.REUSE_INPUT
    return ArrayCopySemantics.DONATE_INPUT if donate else ArrayCopySemantics.ALWAYS_COPY


def place(x, device, *, copy: bool = False):
    """`x` on `device` (a Device, a Sharding, a P under set_mesh), as jnp's `device=` and
    `Array.to_device` place their result: through jax.device_put, so a traced `x` binds
    device_put_p (JAX's jnp calls jax.device_put) and a value is moved now.

    >>> jax.jit(lambda n: place(n * 2, jax.devices()[0]))(1.0)
    Array(2., dtype=float32, weak_type=True)
    """
    if not isinstance(x, Tracer):
        return _put.device_put(x, device, copy=copy)
    if isinstance(device, PartitionSpec):
        device = resolve(device)
    return device_put_p.bind(x, devices=(device,), srcs=(source_of(x),),
                             copy_semantics=(copy_semantics_of(copy),))[0]


def source_of(x):
    """Where `x` is now, which device_put's transpose moves a cotangent back to (JAX's
    _infer_src_sharding): an Array's sharding (a tracer's known value's too), the sharding
    a type over a mesh of Explicit axes only names, else None."""
    value = x.to_concrete_value() if isinstance(x, Tracer) else x
    if isinstance(value, Array) and not isinstance(value, Tracer):
        return value.sharding
    aval = getattr(x, "aval", None)
    sharding = getattr(aval, "split", None)
    if sharding is not None and set(sharding.mesh.axis_types) == {AxisType.Explicit}:
        return sharding
    return None


def _placed_aval(aval, device):
    """The type of `aval` put on `device`: a NamedSharding's Explicit axes enter the type, any
    other sharding leaves none there, a sharding's memory kind or a memory space sets its
    memory space; a device (or None) changes nothing (JAX's update_dp_aval)."""
    if not isinstance(aval, ShapedArray):
        return aval
    if isinstance(device, MemorySpace):
        return aval.update(memory_space=device)
    if not hasattr(device, "device_set"):                   # not a Sharding
        return aval
    if isinstance(device, NamedSharding):
        _check_divisible(device, aval.shape)
    aval = aval.update(sharding=typed_sharding(device, aval.ndim)
                       if isinstance(device, NamedSharding) else None)
    kind = device.memory_kind
    return aval if kind is None else aval.update(memory_space=mem_kind_to_space(kind))


def _check_divisible(sharding, shape):
    """JAX's check of a type's sharding (core._check_divisibility), in its words: under vmap
    the batched value meets the spec written for one example."""
    sizes = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_sizes))
    for dim, (spec, n) in enumerate(zip(sharding.spec.partitions, shape)):
        if spec is None:
            continue
        spec = spec if isinstance(spec, tuple) else (spec,)
        size = 1
        for axis in spec:
            size *= sizes[axis]
        if n % size:
            raise ValueError(
                f"Sharding spec {spec} implies that array axis {dim} is partitioned {size} "
                f"times, but does not evenly divide the dimension size {n}. Got shape: "
                f"{shape} and sharding {typed_sharding(abstracted(sharding), len(shape))}")


def _device_put_abstract_eval(*avals, devices, srcs, copy_semantics):
    return [_placed_aval(a, d) for a, d in zip(avals, devices)]


def _device_put_impl(*xs, devices, srcs, copy_semantics):
    for x, d in zip(xs, devices):           # (JAX types the result first: its check, its words)
        if isinstance(d, NamedSharding):
            _check_divisible(d, x.shape)
    return [_put.device_put(x, d, copy=c != ArrayCopySemantics.REUSE_INPUT)
            for x, d, c in zip(xs, devices, copy_semantics)]


def _device_put_numpy(*xs, devices, srcs, copy_semantics):
    # one host: placing is nothing, a copy is a copy
    return [x.copy() if c != ArrayCopySemantics.REUSE_INPUT else x
            for x, c in zip(xs, copy_semantics)]


def _device_put_jvp(primals, tangents, **params):
    outs = device_put_p.bind(*primals, **params)
    moved = [i for i, t in enumerate(tangents) if type(t) is not ad.Zero]
    t_outs = [ad.Zero(ad.aval_of(o)) for o in outs]
    if moved:
        sub = {k: tuple(v[i] for i in moved) for k, v in params.items()}
        for i, t in zip(moved, device_put_p.bind(*[tangents[i] for i in moved], **sub)):
            t_outs[i] = t
    return outs, t_outs


def _device_put_transpose(cts, *args, devices, srcs, copy_semantics):
    """Each defined cotangent goes back where its primal came from, always as a copy."""
    out = [None] * len(args)
    back = []
    for i, (ct, a) in enumerate(zip(cts, args)):
        if ad.is_undefined(a):
            if type(ct) is ad.Zero:
                out[i] = ad.Zero(a.aval)
            else:
                back.append(i)
    for c in (copy_semantics[i] for i in back):
        if c == ArrayCopySemantics.DONATE_INPUT:
            raise ValueError("donate=True is not allowed during tranposition of device_put."
                             " Please file an issue if you want this to be supported.")
    if back:
        # a primal in host memory whose source is unknown (a jit argument) is sent back to
        # Host, as JAX's transpose does: its gradient is typed where the primal was
        srcs = tuple(MemorySpace.Host if s is None and getattr(ad.aval_of(a), "memory_space", None)
                     is MemorySpace.Host else s for s, a in zip(srcs, args))
        moved = device_put_p.bind(*[cts[i] for i in back], devices=tuple(srcs[i] for i in back),
                                  srcs=tuple(devices[i] for i in back),
                                  copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,) * len(back))
        for i, y in zip(back, moved):
            out[i] = y
    return out


def _device_put_lowering(ctx, *xs, devices, srcs, copy_semantics):
    """The identity, as JAX lowers it on CPU; a result whose type is split over Explicit mesh
    axes is laid out so (JAX lowers every such result with its type's sharding)."""
    mesh = ctx.module_ctx.mesh
    out = []
    for x, aval, d in zip(xs, ctx.avals_out, devices):
        if getattr(aval, "split", None) is not None:
            if mesh is None:        # jit catches this and partitions the program over the mesh
                raise NeedsMesh(f"device_put to {d!r} inside a program compiled for one "
                                f"device", d.mesh)
            x = constrained(ctx, x, aval.split, aval)
        out.append(x)
    return out


def _device_put_batching(vals, dims, **params):
    return device_put_p.bind(*vals, **params), list(dims)


abstract_eval_rules[device_put_p] = _device_put_abstract_eval
impl_rules[device_put_p] = _device_put_impl
lowering_rules[device_put_p] = _device_put_lowering
numpy_rules[device_put_p] = _device_put_numpy
jvp_rules[device_put_p] = _device_put_jvp
transpose_rules[device_put_p] = _device_put_transpose
batching_rules[device_put_p] = _device_put_batching
# its abstract eval types the result as JAX's update_dp_aval: the target's Explicit axes
sharding_typing_rules[device_put_p] = sharding_types.typed_by_abstract_eval
# (and its results' memory spaces: its targets')
sharding_types.own_memory_space_rules.add(device_put_p)
