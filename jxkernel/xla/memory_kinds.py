"""Arrays in a device's other memories (JAX's memory kinds: 'pinned_host' and 'unpinned_host'
beside 'device'): the kind a buffer is in, and an Array moved into a kind's memory.

On XLA's CPU the three kinds are one host memory under three names, but PJRT keeps each
buffer's kind, and a program's results land in the kind its `mhlo.memory_kind` attributes
name (xla/lowering.py). The kind is read from the buffer (jaxlib's sharding object, or the
NumPy backend's Placement), so an Array's `.sharding.memory_kind` says where it really is. An
Array in 'pinned_host' memory is typed `MemorySpace.Host` (`f32<host>[4]`), as JAX types it.

    >>> x = jax.device_put(np.arange(2.0))
    >>> buffer_kind(in_memory(x, "pinned_host")._buf)
    'pinned_host'
"""
from __future__ import annotations

from ..core.avals import MemorySpace, ShapedArray, mem_kind_to_space, mem_space_to_kind
from ..core.ir import jaxprs_in_params
from .client import xc
from .numpy_device import NumpyBuffer, NumpyShardedBuffer

DEFAULT = "device"


def buffer_kind(buf) -> str:
    """The memory kind `buf` (a jaxlib buffer or a NumPy backend's) is in."""
    return getattr(buf._sharding, "_memory_kind", None) or DEFAULT


def kind_of(x) -> str:
    """The memory kind an Array (or host data: 'device', where a put would place it) is in."""
    if getattr(x, "_sharding", None) is not None:          # over a mesh: its layout says
        return x._sharding.memory_kind or DEFAULT
    buf = getattr(x, "_buf", None)
    return DEFAULT if buf is None else buffer_kind(buf)


def typed_in(aval, kind: str):
    """`aval` typed as a value in `kind` memory (its memory space: JAX's mem_kind_to_space)."""
    if type(aval) is not ShapedArray:
        return aval
    space = mem_kind_to_space(kind)
    return aval if aval.memory_space is space else aval.update(memory_space=space)


def in_memory(x, kind: str, copy: bool = True):
    """The Array `x` (committed where it is) with its data in its devices' `kind` memory:
    `x` itself where it is there already and no copy is asked, else a copy of its buffer."""
    if kind_of(x) == kind and not copy:
        return x
    x._check_alive()
    buf = x._buf
    if type(buf) is NumpyShardedBuffer:
        moved = buf               # (one host: the blocks stay; the layout names the kind)
    elif type(buf) is NumpyBuffer:
        moved = NumpyBuffer(buf.value, buf.aval, buf._sharding._devices[0].placement_in(kind),
                            flushed=buf._operand is buf.value)
    else:
        target = xc.GSPMDSharding(buf._sharding._devices, buf._sharding._hlo_sharding,
                                  memory_kind=kind)
        semantics = xc.ArrayCopySemantics.ALWAYS_COPY if copy else \
            xc.ArrayCopySemantics.REUSE_INPUT
        moved = xc.batched_copy_array_to_devices_with_sharding(
            [buf], [buf._sharding._devices], [target], [semantics])[0]
    sharding = None if x._sharding is None else x._sharding.with_memory_kind(kind)
    return type(x)(moved, typed_in(x.aval, kind), sharding)


def _transfer_spaces(jaxpr) -> list:
    """The memory spaces `jaxpr`'s equations (and their inner jaxprs') move values into by
    name (device_put to a MemorySpace, compute_on's out_memory_spaces): JAX's
    jaxpr_transfer_mem_kinds."""
    out = []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "device_put":
            out += [d for d in eqn.params["devices"] if isinstance(d, MemorySpace)]
        elif eqn.primitive.name == "compute_on":
            out += [s for s in eqn.params["out_memory_spaces"] if s is not None]
        for inner in jaxprs_in_params(eqn.params):
            out += _transfer_spaces(inner)
    return out


def program_kinds(jaxpr, in_vars, arg_shardings, result_shardings, one_device=None):
    """(per input, per result) the memory kind a program's `mhlo.memory_kind` attributes
    name, and per result the kind its out_sharding asked (None: not asked), which an
    `annotate_device_placement` call marks; None where every kind is 'device' (JAX then
    writes none). An input's or result's kind is its sharding's, else its type's memory space;
    an input given no sharding (an uncommitted argument: on a mesh, none in `arg_shardings`;
    on one device, none in `one_device`, lowering's) is named only in another memory than
    'device', as JAX names its unspecified ones."""
    def kinds(variables, shardings):
        shardings = shardings or [None] * len(variables)
        asked = [getattr(s, "memory_kind", None) for s in shardings]
        return asked, [k if k is not None else mem_space_to_kind(
            getattr(v.aval, "memory_space", MemorySpace.Device)) for k, v in zip(asked, variables)]
    _, ins = kinds(in_vars, arg_shardings)
    if arg_shardings is not None:
        given = [s is not None for s in arg_shardings]
    elif one_device is not None:    # (per invar after the constvars: those take none)
        given = [False] * (len(in_vars) - len(one_device[0])) + [bool(g) for g in one_device[0]]
    else:
        given = [False] * len(in_vars)
    ins = [k if g or k != DEFAULT else None for k, g in zip(ins, given)]
    asked, outs = kinds(jaxpr.outvars, result_shardings)
    moved = [mem_space_to_kind(s) for s in _transfer_spaces(jaxpr) if s is not MemorySpace.Any]
    if all(k in (None, DEFAULT) for k in ins + outs + moved):
        return None
    return ins, outs, asked


def annotated(body, value, kind: str):
    """`value` marked as placed in `kind` memory (JAX's `annotate_device_placement` call,
    which XLA reads as a transfer there)."""
    return body.op("stablehlo.custom_call", [value], [value.type], attrs={
        "call_target_name": '"annotate_device_placement"', "backend_config": '""',
        "has_side_effect": "true",
        "mhlo.frontend_attributes": f'{{_xla_buffer_placement = "{kind}"}}'})[0]


def with_kind(attr: str | None, kind: str | None) -> str | None:
    """An argument's or result's attribute text with its `mhlo.memory_kind` first (none for
    a `kind` of None)."""
    if kind is None:
        return attr
    text = f'mhlo.memory_kind = "{kind}"'
    return text if not attr else f"{text}, {attr}"


def results_in_memory(asked, shardings, avals) -> list:
    """A program's result shardings with their memory kinds: an out_sharding's as asked,
    else the one its type's memory space names (JAX's propagated memory kinds), which PJRT
    places it in as the module's attributes name it."""
    return [s if g is not None or getattr(a, "memory_space", None) in (None, MemorySpace.Device)
            else s.with_memory_kind(mem_space_to_kind(a.memory_space))
            for g, s, a in zip(asked, shardings, avals)]
