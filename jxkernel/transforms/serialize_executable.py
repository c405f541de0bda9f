"""A `Compiled` as bytes and back, as jax.experimental.serialize_executable: `serialize` gives
the bytes (XLA's executable, the constants it closes over, the signature it was compiled for)
with the input and output pytrees, which bytes do not hold; `deserialize_and_load` makes a
Compiled of them again, callable as the one serialized.

    >>> compiled = jax.jit(lambda x: {"y": x * 2}).lower(np.ones(2, np.float32)).compile()
    >>> payload, in_tree, out_tree = serialize(compiled)
    >>> deserialize_and_load(payload, in_tree, out_tree)(np.ones(2, np.float32))
    {'y': Array([2., 2.], dtype=float32)}

Loading one runs what the bytes say: never load bytes from a source you do not trust.
"""
from __future__ import annotations

import dataclasses
import pickle

import numpy as np

from ..core.trace import Tracer, _ctx, eval_trace
from ..tree_util import tree_flatten, tree_unflatten
from ..xla import client as _client
from ..xla.array import Array, is_plain
from ..xla.executable import Executable
from ..xla.serialized import executable_bytes, load_executable
from ..xla.transfers import put_on_device
from . import jit_refs
from .jit_args import leaf_aval
from .jit_cache import Entry
from .stages import Compiled, _out_structs, check_call_signature


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


def serialize(compiled: Compiled):
    """(bytes, in_tree, out_tree) of a Compiled; pytrees are not bytes, so the caller keeps
    the trees and hands them to `deserialize_and_load`."""
    entry = getattr(compiled, "_entry", None)
    if entry is None:
        raise AttributeError(f"'{type(compiled).__name__}' object has no attribute "
                             f"'_executable'")
    if getattr(compiled.lowered, "_partitioning", None) is not None:
        raise NotImplementedError("serialize of a Compiled partitioned over a mesh is not "
                                  "supported by jxkernel yet: serialize a one-device jit")
    if entry.refs:
        raise ValueError("can't serialize with a closed-over mutable array ref")
    args_info_flat, in_tree = tree_flatten(compiled.args_info)
    exe = entry.exe
    saved = _Saved(executable_bytes(exe), compiled.lowered.device.id, exe.name,
                   tuple(np.asarray(c) for c in entry.consts), list(entry.jaxpr.in_avals),
                   list(exe.out_avals), tuple(exe.donated), exe.kept, exe.in_avals,
                   exe.arg_names, compiled._traced.arg_names, args_info_flat,
                   compiled.lowered._committed)
    return pickle.dumps(saved), in_tree, compiled.out_tree


def deserialize_and_load(serialized, in_tree, out_tree, backend=None, execution_devices=None):
    """The Compiled that `serialize` gave these bytes and trees of, loaded onto `backend` (a
    platform name or a client; default: the default backend) or `execution_devices`.
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
    saved = pickle.loads(serialized)
    device = {d.id: d for d in execution_devices}[saved.device_id]
    exe = Executable(load_executable(saved.executable, [device]), saved.out_avals, device,
                     saved.name, saved.donated, in_avals=saved.exe_in_avals,
                     arg_names=saved.exe_arg_names, committed=saved.committed,
                     kept=saved.kept)
    consts = tuple(put_on_device(c, device) for c in saved.consts)
    signature = _Signature(saved.in_avals, saved.out_avals)
    entry = Entry(exe, consts, out_tree, signature, "", bool(saved.donated))
    return LoadedCompiled(entry, in_tree, tree_unflatten(in_tree, saved.args_info_flat),
                          saved.arg_names, device)


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
    `lowered` is gone)."""

    def __init__(self, entry, in_tree, args_info, arg_names, device):
        self._entry, self.phases, self.lowered = entry, None, None
        self._in_tree, self._args_info = in_tree, args_info
        self._arg_names, self._placed = arg_names, device

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
        exe, device = self._entry.exe, self._placed
        outs = exe.call_arrays([x if isinstance(x, Array) and is_plain(x) and x.device == device
                                else put_on_device(x, device)
                                for x in (*self._entry.consts, *leaves)])
        return tree_unflatten(self._entry.out_tree, jit_refs.write_back_donated(
            self._entry.jaxpr, outs, leaves))

    @property
    def input_shardings(self):
        return tree_unflatten(self._in_tree, [self._sharding()] * self._in_tree.num_leaves)

    @property
    def output_shardings(self):
        return tree_unflatten(self.out_tree, [self._sharding()] * self.out_tree.num_leaves)

    @property
    def out_info(self):
        return _out_structs(self.out_tree, self._entry.jaxpr.out_avals, self._sharding())
