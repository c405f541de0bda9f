"""A `Compiled` as bytes and back, as jax.experimental.serialize_executable: `serialize` gives
the bytes (XLA's executable, the constants it closes over, the signature it was compiled for,
and for a program partitioned over a mesh that mesh and the shardings of its inputs and
outputs) with the input and output pytrees, which bytes do not hold; `deserialize_and_load`
makes a Compiled of them again, callable as the one serialized.

    >>> compiled = jax.jit(lambda x: {"y": x * 2}).lower(np.ones(2, np.float32)).compile()
    >>> payload, in_tree, out_tree = serialize(compiled)
    >>> deserialize_and_load(payload, in_tree, out_tree)(np.ones(2, np.float32))
    {'y': Array([2., 2.], dtype=float32)}

Loading one runs what the bytes say: never load bytes from a source you do not trust.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ...core.avals import ShapeDtypeStruct
from ...core.mesh import NamedSharding, PartitionSpec
from ...core.trace import Tracer, _ctx, eval_trace
from ...tree_util import tree_flatten, tree_unflatten
from ...xla import client as _client, relayout
from ...xla.array import Array, is_plain
from ...xla.executable import Executable
from ...xla.serialized import dumps, executable_bytes, load_executable, loads
from ...xla.sharded import ShardedExecutable, _SpmdEntry, to_argument
from ...xla.transfers import put_on_device
from . import refs as jit_refs
from .args import leaf_aval
from .cache import Entry
from .stages import Compiled, check_argument_formats, check_call_signature


@dataclasses.dataclass(frozen=True)
class _Saved:
    """What the bytes hold besides XLA's executable: enough to call it as the Compiled did."""
    executable: bytes
    device_id: int
    name: str
    consts: tuple                # the closed-over constants' values (NumPy)
    in_avals: list               # the arguments' types (the constants' not among them)
    out_avals: list
    donated: tuple               # Executable's: indices among the kept arguments
    kept: tuple | None           # the arguments the program takes, consts first (None: all)
    exe_in_avals: list | None
    exe_arg_names: list | None
    arg_names: tuple | None      # the leaves' names ("x", "y['k']"), which errors show
    args_info_flat: list
    committed: bool
    mesh: object = None          # a partitioned program's Mesh (None: one device)
    in_shardings: tuple = ()     # ... and its arguments' and results' NamedShardings
    out_shardings: tuple = ()


def serialize(compiled: Compiled):
    """(bytes, in_tree, out_tree) of a Compiled; pytrees are not bytes, so the caller keeps
    the trees and hands them to `deserialize_and_load`."""
    entry = getattr(compiled, "_entry", None)
    if entry is None:
        raise AttributeError(f"'{type(compiled).__name__}' object has no attribute "
                             f"'_executable'")
    if getattr(entry, "refs", False):
        raise ValueError("can't serialize with a closed-over mutable array ref")
    args_info_flat, in_tree = tree_flatten(compiled.args_info)
    exe, mesh = entry.exe, getattr(entry.exe, "mesh", None)
    consts = entry.jaxpr.consts if mesh is not None else entry.consts
    saved = _Saved(executable_bytes(exe), exe.device.id, exe.name,
                   tuple(np.asarray(c) for c in consts), list(entry.jaxpr.in_avals),
                   list(exe.out_avals), tuple(exe.donated), exe.kept, exe.in_avals,
                   exe.arg_names, compiled._traced.arg_names, args_info_flat,
                   exe.committed if mesh is not None else compiled.lowered._committed,
                   mesh, tuple(getattr(entry, "in_shardings", ())),
                   tuple(getattr(exe, "out_shardings", ())))
    return dumps(saved), in_tree, compiled.out_tree


def deserialize_and_load(serialized, in_tree, out_tree, backend=None, execution_devices=None):
    """The Compiled that `serialize` gave these bytes and trees of, loaded onto `backend` (a
    platform name or a client; default: the default backend) or `execution_devices` (those
    of its mesh among them, for a partitioned one).
    Loading runs what the bytes say: never pass bytes you do not trust."""
    if backend is None or isinstance(backend, str):
        backend = _client.get_backend(backend).devices[0].client
    if execution_devices is None:
        execution_devices = backend.devices()
    elif execution_devices[0].client != backend:
        device_backend = execution_devices[0].client
        raise ValueError(
            'Execution devices belong to a client other than `backend`. Got '
            f'backend client: {(backend.platform, backend.platform_version)} and '
            'execution devices client: '
            f'{(device_backend.platform, device_backend.platform_version)}')
    saved = loads(serialized, execution_devices)
    if saved.mesh is not None:
        entry = _partitioned_entry(saved, out_tree)
        device = saved.mesh.devices.flat[0]
    else:
        device = {d.id: d for d in execution_devices}[saved.device_id]
        entry = _one_device_entry(saved, out_tree, device)
    return LoadedCompiled(entry, in_tree, tree_unflatten(in_tree, saved.args_info_flat),
                          saved.arg_names, device, saved.mesh)


def _one_device_entry(saved: _Saved, out_tree, device) -> Entry:
    """jit's Entry of a one-device program, loaded onto `device`, its constants put there."""
    loaded = load_executable(saved.executable, [device])
    relayout.watch_program(loaded)          # (compiled for other layouts: runs check them)
    exe = Executable(loaded, saved.out_avals, device,
                     saved.name, saved.donated, in_avals=saved.exe_in_avals,
                     arg_names=saved.exe_arg_names, committed=saved.committed,
                     kept=saved.kept)
    consts = tuple(put_on_device(c, device) for c in saved.consts)
    signature = _Signature(saved.in_avals, saved.out_avals)
    return Entry(exe, consts, out_tree, signature, "", bool(saved.donated))


def _partitioned_entry(saved: _Saved, out_tree):
    """sharded.py's entry of a program partitioned over `saved.mesh`, loaded onto its
    devices: its results laid out as compiled (the shardings serialized, not asked of XLA
    again), its constants replicated over the mesh."""
    mesh = saved.mesh
    loaded = load_executable(saved.executable, list(mesh._flat_devices))
    relayout.watch_program(loaded)
    exe = ShardedExecutable(loaded,
                            saved.out_avals, mesh._flat_devices, saved.name, saved.donated,
                            mesh=mesh, out_shardings=list(saved.out_shardings),
                            user_shardings=list(saved.in_shardings),
                            arg_avals=saved.in_avals, kept=saved.kept)
    replicated = NamedSharding(mesh, PartitionSpec())
    const_bufs = tuple(to_argument(c, replicated) for c in saved.consts)
    return _SpmdEntry(exe, list(saved.in_shardings), const_bufs, out_tree,
                      _Signature(saved.in_avals, saved.out_avals), "")


@dataclasses.dataclass(frozen=True)
class _Signature:
    """The types a loaded program takes and gives (what a jit's Entry reads of its jaxpr)."""
    in_avals: list
    out_avals: list
    consts: tuple = ()
    ref_writes: tuple = ()


class LoadedCompiled(Compiled):
    """A Compiled loaded from bytes: XLA's executable and the signature it was compiled for,
    without the trace or the module it came from (as JAX's deserialized Compiled, its
    `lowered` is gone). `mesh`: the one a partitioned program runs over, else None."""

    def __init__(self, entry, in_tree, args_info, arg_names, device, mesh=None):
        self._entry, self.phases, self.lowered = entry, None, None
        self._in_tree, self._args_info = in_tree, args_info
        self._arg_names, self._placed, self._mesh = arg_names, device, mesh

    fun_name = property(lambda self: self._entry.exe.name[len("jit("):-1])
    in_tree = property(lambda self: self._in_tree)
    args_info = property(lambda self: self._args_info)
    in_avals = property(lambda self: tree_unflatten(self._in_tree, self._entry.jaxpr.in_avals))
    donate_argnums = property(lambda self: ())     # (not kept in the bytes; JAX's neither)
    _device = property(lambda self: self._placed)

    def __call__(self, *args, **kwargs):
        """Call with the arguments it was compiled for, as the serialized Compiled."""
        leaves, treedef = tree_flatten((args, kwargs))
        if _ctx.trace is not eval_trace and any(isinstance(x, Tracer) for x in leaves):
            raise TypeError("Cannot apply JAX transformations to a function lowered and "
                            "compiled for a particular signature. Detected argument of Tracer "
                            f"type {type(next(x for x in leaves if isinstance(x, Tracer)))}.")
        expected = self._entry.jaxpr.in_avals
        got = [leaf_aval(x, lambda: "?") for x in leaves]
        if treedef != self._in_tree or \
                [a.strip_weak_type() for a in got] != [a.strip_weak_type() for a in expected]:
            check_call_signature(self._in_tree, self._arg_names, expected, args, kwargs, got)
        check_argument_formats(leaves, self._in_shardings(), self._arg_names or
                               [f"args[{i}]" for i in range(len(leaves))],
                               self._required_layouts())
        if self._mesh is not None:                 # each laid out as compiled for
            outs = self._entry.exe.call_buffers(self._entry.arguments(leaves))
            return tree_unflatten(self._entry.out_tree, outs)
        exe, device = self._entry.exe, self._placed
        outs = exe.call_arrays([x if isinstance(x, Array) and is_plain(x) and x.device == device
                                else put_on_device(x, device)
                                for x in (*self._entry.consts, *leaves)])
        return tree_unflatten(self._entry.out_tree, jit_refs.write_back_donated(
            self._entry.jaxpr, outs, leaves))

    def _in_shardings(self) -> list:
        """Each argument's sharding; None for one a partitioned program does not take."""
        if self._mesh is None:
            return [self._sharding()] * self._in_tree.num_leaves
        entry = self._entry
        kept, c = entry.exe.kept, len(entry.const_bufs)
        return [s if kept is None or c + i in kept else None
                for i, s in enumerate(entry.in_shardings)]

    def _out_shardings(self) -> list:
        if self._mesh is None:
            return [self._sharding()] * self.out_tree.num_leaves
        return list(self._entry.exe.out_shardings)

    input_shardings = property(lambda self: tree_unflatten(self._in_tree, self._in_shardings()))
    output_shardings = property(lambda self: tree_unflatten(self.out_tree,
                                                            self._out_shardings()))

    @property
    def out_info(self):
        """The outputs' types with where they live, as the serialized Compiled's."""
        return tree_unflatten(self.out_tree, [
            ShapeDtypeStruct(a.shape, a.dtype, sharding=s)
            for a, s in zip(self._entry.jaxpr.out_avals, self._out_shardings())])
