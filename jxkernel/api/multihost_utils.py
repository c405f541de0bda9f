"""jxkernel.experimental.multihost_utils, as jax.experimental.multihost_utils: host data
exchanged between the processes of a multi-process run (jxkernel.distributed).

    >>> process_allgather(np.float32(jxkernel.process_index()))    # on each of 2 processes  # doctest: +SKIP
    array([0., 1.], dtype=float32)

The data goes through the key-value store of jaxlib's coordination service, not through
device collectives: meant for small values (flags, seeds, metrics, checks), as these
functions are used. Every process must make the same calls in the same order.
"""
from __future__ import annotations

import itertools
import zlib

import numpy as np

from ..core.mesh import NamedSharding, PartitionSpec
from ..core.dtypes import canonicalize_dtype
from ..transforms.jit import jit
from ..tree_util import broadcast_prefix, tree_flatten, tree_map, tree_unflatten
from ..xla import client as _client
from ..xla import distributed as _runtime
from ..xla import put as _put
from ..xla.array import Array, is_sharded

__all__ = ["assert_equal", "broadcast_one_to_all", "global_array_to_host_local_array",
           "host_local_array_to_global_array", "process_allgather", "sync_global_devices"]

# How long one process waits for the others' data before giving up.
TIMEOUT_S = 300.0

_calls = itertools.count()    # all processes count their calls alike: the keys agree


def _as_device_value(x) -> np.ndarray:
    """`x` as a device would hold it (int64 -> int32 without x64), as JAX's
    gathers go through devices."""
    value = np.asarray(x)
    return value.astype(canonicalize_dtype(value.dtype), copy=False)


def _exchange(values: list) -> list:
    """Per process (in process order), the list of arrays it published."""
    call = next(_calls)
    me, count = _client.process_index(), _client.process_count()
    prefix = f"jxkernel/multihost/{call}/"
    _runtime.key_value_set(prefix + str(me), _runtime.encode_many(values))
    gathered = [_runtime.decode_many(_runtime.key_value_get(prefix + str(p), TIMEOUT_S))
                for p in range(count)]
    _runtime.barrier(prefix + "read", TIMEOUT_S)   # all have read: the keys can go
    _runtime.key_value_delete(prefix + str(me))
    return gathered


def process_allgather(in_tree, tiled: bool = False):
    """Every process's value of each leaf, as NumPy arrays: stacked along a new axis 0
    (`tiled=False`), or concatenated along axis 0 (`tiled=True`; scalars are stacked)."""
    leaves, tree = tree_flatten(in_tree)
    if _client.process_count() == 1:
        out = [np.asarray(x) if tiled else np.expand_dims(np.asarray(x), 0) for x in leaves]
        return tree_unflatten(tree, out)
    if any(_is_global(x) for x in leaves):
        if not tiled:
            raise ValueError("Gathering global non-fully-addressable arrays only supports "
                             "tiled=True")
        return tree_unflatten(tree, [_replicated(x) if _is_global(x) else
                                     process_allgather(x, tiled) for x in leaves])
    values = [_as_device_value(x) for x in leaves]
    gathered = _exchange(values)
    out = []
    for i, value in enumerate(values):
        parts = [published[i] for published in gathered]
        _check_same_shapes(parts, "process_allgather", i)
        out.append(np.concatenate(parts) if tiled and value.ndim else np.stack(parts))
    return tree_unflatten(tree, out)


def _is_global(x) -> bool:
    return is_sharded(x) and not _runtime.is_fully_addressable(x)


def _replicated(x) -> np.ndarray:
    """A global array's whole value, copied to every device by XLA, read on this host."""
    if x.sharding.is_fully_replicated:      # every device holds all of it already
        return _runtime.first_local_block(x)
    whole = jit(lambda a: a, out_shardings=NamedSharding(x.sharding.mesh, PartitionSpec()))(x)
    return _runtime.first_local_block(whole)


def host_local_array_to_global_array(local_inputs, global_mesh, pspecs):
    """Global arrays over `global_mesh` from each process's part of them (pytrees; `pspecs`
    a PartitionSpec or a pytree prefix of them). Along a dimension split over processes the
    global size is the local size times the number of process-held runs of blocks.

    >>> host_local_array_to_global_array(np.arange(2.), mesh, P('x')).shape   # 2 processes  # doctest: +SKIP
    (4,)

    ([0, 1] from process 0 and [0, 1] from process 1.)
    """
    leaves, tree = tree_flatten(local_inputs)
    specs = broadcast_prefix(pspecs, local_inputs, is_leaf=lambda s: isinstance(s, PartitionSpec))
    out = [x if _is_global(x) else
           _runtime.global_from_host_local(_as_device_value(x), NamedSharding(global_mesh, s))
           for x, s in zip(leaves, specs)]
    return tree_unflatten(tree, out)


def global_array_to_host_local_array(global_inputs, global_mesh, pspecs):
    """Each global array's part on this process, as an array over this process's devices
    (the inverse of host_local_array_to_global_array; no data is copied)."""
    leaves, tree = tree_flatten(global_inputs)
    specs = broadcast_prefix(pspecs, global_inputs, is_leaf=lambda s: isinstance(s, PartitionSpec))
    out = []
    for x, spec in zip(leaves, specs):
        if isinstance(x, Array) and not _is_global(x):
            out.append(x)               # already on this process's devices: as it is (JAX's)
            continue
        if not _is_global(x) and _client.process_count() == 1:    # host data (as during AD)
            out.append(_put.device_put(x, NamedSharding(global_mesh, spec)))
            continue
        if not _is_global(x):
            raise ValueError(f"global_array_to_host_local_array expects arrays spread over "
                             f"the processes of a global mesh; got {type(x).__name__} of "
                             f"shape {np.shape(x)}")
        if x.sharding != NamedSharding(global_mesh, spec):     # lay it out as asked first
            x = jit(lambda a: a, out_shardings=NamedSharding(global_mesh, spec))(x)
        out.append(_runtime.host_local_from_global(x, spec))
    return tree_unflatten(tree, out)


def broadcast_one_to_all(in_tree, is_source: bool | None = None):
    """Process 0's value of each leaf (or the one where `is_source` is True), on every
    process, as NumPy arrays. Each process must pass leaves of the same shapes."""
    if _client.process_count() == 1:
        return tree_map(np.asarray, in_tree)
    if is_source is None:
        is_source = _client.process_index() == 0
    leaves, tree = tree_flatten(in_tree)
    values = [_as_device_value(x) for x in leaves]
    sent = _exchange_from_source(values, is_source)
    for i, (mine, theirs) in enumerate(zip(values, sent)):
        if mine.shape != theirs.shape:
            raise ValueError(f"broadcast_one_to_all: leaf {i} has shape {mine.shape} here but "
                             f"{theirs.shape} on the source process; every process must pass "
                             f"leaves of the same shapes")
    return tree_unflatten(tree, [np.array(v) for v in sent])


def _exchange_from_source(values: list, is_source: bool) -> list:
    """The source's `values`, read by everyone through one key (the source sets it)."""
    call = next(_calls)
    key = f"jxkernel/multihost/{call}/source"
    if is_source:
        _runtime.key_value_set(key, _runtime.encode_many(values))
    sent = _runtime.decode_many(_runtime.key_value_get(key, TIMEOUT_S))
    _runtime.barrier(f"jxkernel/multihost/{call}/read", TIMEOUT_S)
    if is_source:
        _runtime.key_value_delete(key)
    return sent


def sync_global_devices(name: str) -> None:
    """Wait until every process reaches here; all must pass the same `name`."""
    assert_equal(np.uint32(zlib.crc32(name.encode())),
                 f"sync_global_devices name mismatch ('{name}')")


def assert_equal(in_tree, fail_message: str = "") -> None:
    """Raise AssertionError unless every process passed the same values."""
    gathered = process_allgather(in_tree, tiled=True)
    expected = tree_map(lambda x: np.concatenate([np.atleast_1d(_as_device_value(x))]
                                                 * _client.process_count()), in_tree)
    same = tree_map(lambda a, b: bool(np.array_equal(a, b)), expected, gathered)
    if not all(tree_flatten(same)[0]):
        raise AssertionError(f"{fail_message}. Expected: {gathered}; got: {in_tree}.")


def _check_same_shapes(parts, what, leaf) -> None:
    shapes = [p.shape for p in parts]
    if len(set(shapes)) > 1:
        raise ValueError(f"{what}: leaf {leaf} has shapes {shapes} on processes "
                         f"{list(range(len(parts)))}; every process must pass the same shapes")
