"""jax.experimental.array_serialization.tensorstore_impl: Arrays written to and read from
TensorStore (zarr3 by default, zarr for the older format), one shard per write, each read
placed on its device. tensorstore is imported with this module, never with jxkernel.

What a checkpoint on disk looks like is the contract with JAX (a checkpoint JAX wrote reads
here, and back): the spec's driver and kvstore, and the metadata (zarr3: `shape`,
`data_type`, a regular `chunk_grid` whose chunk divides the shard shape, `codecs` with zstd
only for remote stores; zarr: a zstd `compressor`, `chunks` the shard shape).
tests/api/test_array_serialization.py checks them against JAX's recorded ones.
"""
from __future__ import annotations

import asyncio
import functools
import logging
import math
import os
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorstore as ts

from ...tree_util import tree_map
from ...xla import client as _client
from ...xla.array import Array
from ...xla.sharded import make_array_from_single_device_arrays
from ...xla.sharding import SingleDeviceSharding
from ..device_put import device_put
from ..sharding import Sharding

_TS_ARRAY_DRIVER = "zarr3"
_DEFAULT_BASE_DRIVER = "file"
_PROCESS_DIR_FORMAT = "process_{}"
_FILE_SIZE_TARGET = 2 * 1024 ** 3      # JAX splits a shard into chunks of at most ~2 GB

# JAX's context and chunk layout (the same limits, so that reads and writes behave alike)
_TS_CONTEXT = ts.Context({
    "file_io_concurrency": {"limit": 128},
    "cache_pool": {"total_bytes_limit": 10_000_000_000},
    "cache_pool#remote": {"total_bytes_limit": 10_000_000_000},
    "data_copy_concurrency": {"limit": 128},
})
_TS_CHUNK_LAYOUT = ts.ChunkLayout(chunk=ts.ChunkLayout.Grid(elements=100_000_000))

Future, Transaction = ts.Future, ts.Transaction
logger = logging.getLogger(__name__)


class _LimitInFlightBytes:
    """At most `host_memory_bytes_limit` bytes of host scratch held by reads at once; one
    request larger than the limit raises the limit to it rather than waiting forever."""

    def __init__(self, host_memory_bytes_limit: int):
        self._max_bytes = self._available_bytes = host_memory_bytes_limit
        self._cv = asyncio.Condition(lock=asyncio.Lock())

    async def wait_for_bytes(self, requested_bytes):
        if requested_bytes > self._max_bytes:
            in_use = self._max_bytes - self._available_bytes
            self._max_bytes = requested_bytes
            self._available_bytes = requested_bytes - in_use
        async with self._cv:
            await self._cv.wait_for(lambda: self._available_bytes >= requested_bytes)
            self._available_bytes -= requested_bytes

    async def release_bytes(self, requested_bytes):
        async with self._cv:
            self._available_bytes += requested_bytes
            self._cv.notify_all()


def is_tensorstore_spec_leaf(leaf: Any) -> bool:
    return leaf is None or (isinstance(leaf, dict) and ("driver" in leaf or "kvstore" in leaf))


@functools.lru_cache(maxsize=1024)
def _compute_chunk_shape(local_shape: tuple, dtype, file_size_target: int = _FILE_SIZE_TARGET
                         ) -> list:
    """A chunk that divides `local_shape` and holds at most 1.1 x `file_size_target` bytes:
    the shard shape divided, one smallest prime factor at a time, along the axis whose
    smallest remaining factor is least (the first such axis), as JAX's."""
    chunk = list(local_shape)
    if not chunk or math.prod(chunk) == 0:
        return [max(n, 1) for n in chunk]      # tensorstore refuses a zero chunk
    factors = [_prime_factors(n) for n in chunk]
    size = math.prod(chunk) * np.dtype(dtype).itemsize
    while size > 1.1 * file_size_target:
        # axes of size 1 have nothing to divide; an axis whose only factor is left stays too
        axes = [a for a in range(len(chunk)) if len(factors[a]) > 1]
        if not axes:
            break
        axis = min(axes, key=lambda a: factors[a][0])
        divisor = factors[axis].pop(0)
        chunk[axis] //= divisor
        size //= divisor
    return chunk


def _prime_factors(n: int) -> list:
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out + ([n] if n > 1 else [])


def _local_shape(arr) -> tuple:
    return tuple(arr.sharding.shard_shape(arr.shape)) if isinstance(arr, Array) \
        else tuple(arr.shape)


def _get_tensorstore_metadata(arr, is_remote: bool = False,
                              file_size_target: int = _FILE_SIZE_TARGET,
                              driver: str = _TS_ARRAY_DRIVER) -> dict:
    """The `metadata` of `arr`'s spec for `driver` (zarr3 or zarr)."""
    shape, local = tuple(arr.shape), _local_shape(arr)
    if driver == "zarr3":
        return {"codecs": [{"name": "zstd"}] if is_remote else [],
                "shape": shape,
                "data_type": np.dtype(arr.dtype).name,
                "chunk_grid": {"name": "regular", "configuration": {
                    "chunk_shape": _compute_chunk_shape(local, np.dtype(arr.dtype),
                                                        file_size_target)}}}
    if driver == "zarr":          # zarr names the dtype in the spec itself, not its metadata
        return {"compressor": {"id": "zstd"}, "shape": shape,
                "chunks": [max(1, n) for n in local]}
    raise ValueError(f"Unsupported driver: {driver}")


def merge_nested_ts_specs(dict1: dict, dict2: dict | None) -> dict:
    """`dict1` updated by `dict2` (which wins), their `kvstore`s merged the same way."""
    if dict2 is None:
        return dict1
    return dict1 | dict(dict2, kvstore=dict1.get("kvstore", {}) | dict2.get("kvstore", {}))


def verify_tensorstore_spec(spec: dict, arr, path, ocdbt: bool, check_metadata: bool = True):
    """Raise ValueError where `spec` cannot hold `arr` at `path`."""
    if ocdbt and spec.get("kvstore", {}).get("driver", "") != "ocdbt":
        raise ValueError(f"Expected ocdbt driver, got {spec=}")
    if check_metadata:
        if arr is None:
            raise ValueError("Array is required for metadata verification.")
        metadata, zarr3 = spec["metadata"], spec.get("driver", "") == "zarr3"
        if zarr3 and metadata["data_type"] != np.dtype(arr.dtype).name:
            raise ValueError(f"Provided dtype ({metadata['data_type']=}) doesn't match "
                             f"({arr.dtype=})")
        if "shape" in metadata and tuple(metadata["shape"]) != tuple(arr.shape):
            raise ValueError(f"Provided shape ({metadata['shape']=}) doesn't match "
                             f"({arr.shape=})")
        if zarr3:
            chunk = metadata["chunk_grid"]["configuration"]["chunk_shape"]
            if any(n % c for n, c in zip(_local_shape(arr), chunk)):
                raise ValueError(f"Provided chunk shape {chunk} does not divide the local "
                                 f"shape of the array {_local_shape(arr)}")
    found = spec["kvstore"]["base"]["path"] if ocdbt else spec["kvstore"]["path"]
    if str(found) != str(path):
        raise ValueError(f"Provided {path=} does not match the spec path: {spec['kvstore']}")


def _spec_has_metadata(tree) -> bool:
    return isinstance(tree, dict) and (
        "metadata" in tree or any(_spec_has_metadata(v) for v in tree.values()))


def _bucket_kvstore(driver: str, url: str) -> dict:
    m = re.fullmatch(r"^\w+://([^/]*)/(.*)$", url, re.DOTALL)
    if m is None:
        raise ValueError(f"The ckpt_path should contain the bucket name and the file path "
                         f"inside the bucket. Got: {url}")
    return {"driver": driver, "bucket": m.group(1), "path": m.group(2)}


def get_tensorstore_spec(ckpt_path, ocdbt: bool = True, process_idx: int | None = None,
                         arr=None, driver: str = _TS_ARRAY_DRIVER) -> dict:
    """The TensorStore spec of an array saved at `ckpt_path` (a local path, gs:// or s3://).

    With `ocdbt` the store is an OCDBT database in the parent folder, the last part of the
    path its key (the parent must then be absolute); `process_idx` puts each process's
    writes in a `process_N` folder beside the name; `arr` adds its metadata.
    """
    # normpath drops a trailing '/' but also one '/' of gs:// and s3://: put it back
    path = re.sub(r"^(gs|s3):/", r"\1://", os.path.normpath(str(ckpt_path)))
    if process_idx is not None:
        parent, name = os.path.split(path)
        path = os.path.join(parent, _PROCESS_DIR_FORMAT.format(process_idx), name)
    scheme = "gcs" if path.startswith("gs://") else "s3" if path.startswith("s3://") else None
    spec: dict = {"driver": driver, "kvstore": {}}
    key = None
    if ocdbt:
        whole, (path, key) = path, os.path.split(path)
        if scheme and re.fullmatch(r"^\w+://([^/]*)/(.*)$", path) is None:
            raise ValueError(f"Using OCDBT requires the bucket name, the directory name and the "
                             f"array name, your path is: {whole}")
    base = _bucket_kvstore(scheme, path) if scheme else \
        {"driver": _DEFAULT_BASE_DRIVER, "path": path}
    if ocdbt:
        if scheme is None and not os.path.isabs(path):
            raise ValueError(f"Checkpoint path should be absolute. Got {path}")
        spec["kvstore"] = {"driver": "ocdbt", "base": base, "path": key}
    else:
        spec["kvstore"] = base
    if arr is not None:
        spec["metadata"] = _get_tensorstore_metadata(arr, driver=str(spec["driver"]))
    return spec


async def combine_kvstores(combined_kvstore: dict, kvstores: list, context=_TS_CONTEXT) -> None:
    """Copy every key of `kvstores` into `combined_kvstore`, in one transaction (one process
    only: nothing coordinates several)."""
    combined, opened = await asyncio.gather(
        ts.KvStore.open(combined_kvstore, context=context),
        asyncio.gather(*(ts.KvStore.open(k, context=context) for k in kvstores)))
    tx = ts.Transaction()
    await asyncio.gather(*(k.experimental_copy_range_to(combined.with_transaction(tx))
                           for k in opened))
    await tx.commit_async()


async def async_serialize(arr_inp, tensorstore_spec, commit_future=None, context=_TS_CONTEXT,
                          chunk_layout=_TS_CHUNK_LAYOUT, primary_host: int | None = None,
                          replica_id: int = 0, transaction: ts.Transaction | None = None):
    """Write `arr_inp` (an Array or a NumPy array) to `tensorstore_spec`: each shard of this
    process whose replica id is `replica_id`, once. With `commit_future` (a list) the
    commits are appended to it and this returns once the data is copied out (the array may
    change after); without, it returns once all is on disk. Only `primary_host` (None: every
    process) creates the array's metadata. The spec gains the array's metadata when it has
    none (zarr: and its dtype), as JAX's does."""
    if isinstance(arr_inp, Array) and _client.process_count() > 1 and \
            arr_inp.is_fully_addressable:
        raise ValueError(f"Passing fully addressable arrays to a multiprocess serialization "
                         f"is not allowed, as this may lead to a race condition between "
                         f"processes. Serialization have failed for the array with the path "
                         f"from kvstore: \"{tensorstore_spec['kvstore']}\".")
    if not _spec_has_metadata(tensorstore_spec):
        tensorstore_spec["metadata"] = _get_tensorstore_metadata(
            arr_inp, driver=tensorstore_spec["driver"])
    if tensorstore_spec["driver"] == "zarr" and "dtype" not in tensorstore_spec:
        tensorstore_spec["dtype"] = np.dtype(arr_inp.dtype).name
    if primary_host is None or _client.process_index() == primary_host:
        created = ts.open(ts.Spec(tensorstore_spec), create=True, open=True, context=context,
                          chunk_layout=chunk_layout, transaction=transaction)
        if commit_future is not None:
            commit_future.append(created)
        else:
            await created
    # opened again trusting the metadata (no I/O): every process writes through this one
    t = await ts.open(ts.Spec(tensorstore_spec), open=True, assume_metadata=True,
                      context=context, chunk_layout=chunk_layout, transaction=transaction)

    async def write(shard):
        if shard.replica_id != replica_id:
            return
        data = np.asarray(shard.data)
        await asyncio.sleep(0)              # let the other shards' copies be scheduled
        # an Array's host copy is read-only, so tensorstore may keep it instead of copying
        written = t[shard.index].write(
            data, can_reference_source_data_indefinitely=isinstance(arr_inp, Array))
        if commit_future is not None:
            commit_future.append(written.commit)
            await written.copy
        else:
            await written.commit

    shards = arr_inp.addressable_shards if isinstance(arr_inp, Array) else \
        [_HostShard(np.asarray(arr_inp))]
    return await asyncio.gather(*(write(s) for s in shards))


class _HostShard:
    """A NumPy array as its one shard (JAX writes NumPy arrays whole)."""

    def __init__(self, data):
        self.data, self.index, self.replica_id = data, (slice(None),) * data.ndim, 0


def _run_serialization(arrays, tensorstore_specs):
    """Write each array to its spec and wait until all is on disk."""
    async def run():
        return await asyncio.gather(*tree_map(async_serialize, arrays, tensorstore_specs))
    asyncio.run(run())


def estimate_read_memory_footprint(t: ts.TensorStore, domain: ts.IndexDomain) -> int:
    """Bytes read for `domain` of `t`: the whole chunks it touches (the domain itself for
    an unchunked driver)."""
    domain = t.domain if domain is None else domain
    nbytes = t.dtype.numpy_dtype.itemsize
    template = t.chunk_layout.read_chunk_template
    if not all(template[i].finite for i in range(t.rank)):
        return domain.size * nbytes
    for i in range(t.rank):
        size = template.shape[i]
        lower = domain.origin[i] - template.origin[i]
        upper = lower + domain.shape[i]
        nbytes *= -(-upper // size) * size - lower // size * size
    return nbytes


def _sharding_and_layout(in_type, dtype):
    """(sharding, layout, dtype) of what async_deserialize is told to make."""
    if isinstance(in_type, Sharding):
        return in_type, None, dtype
    if hasattr(in_type, "shape") and hasattr(in_type, "dtype"):      # a ShapeDtypeStruct
        fmt = getattr(in_type, "format", None)
        return in_type.sharding, getattr(fmt, "layout", None), \
            in_type.dtype if dtype is None else dtype
    if hasattr(in_type, "layout") and isinstance(getattr(in_type, "sharding", None), Sharding):
        return in_type.sharding, in_type.layout, dtype                 # a Format
    raise TypeError(f"sharding passed to deserialization should be specified, concrete and an "
                    f"instance of `jax.sharding.Sharding`. Got {in_type}")


async def async_deserialize(in_type, tensorstore_spec, global_shape: Sequence[int] | None = None,
                            dtype=None, byte_limiter: _LimitInFlightBytes | None = None,
                            context=_TS_CONTEXT, chunk_layout=_TS_CHUNK_LAYOUT,
                            assume_metadata: bool = False):
    """The Array saved at `tensorstore_spec`, laid out as `in_type` (a Sharding, a Format or a
    ShapeDtypeStruct): each of this process's shards read and put on its device. A
    `global_shape` larger than the saved one pads with zeros; `dtype` casts on the host."""
    sharding, _layout, dtype = _sharding_and_layout(in_type, dtype)
    t = await ts.open(tensorstore_spec, open=True, assume_metadata=assume_metadata,
                      context=context, chunk_layout=chunk_layout)
    shape = tuple(t.shape if global_shape is None else global_shape)
    shard_shape = sharding.shard_shape(shape)

    async def read(index, device):
        wanted = ts.IndexTransform(input_shape=shape)[index].domain
        present = t.domain.intersect(wanted)
        nbytes = estimate_read_memory_footprint(t, present)
        if byte_limiter is not None:
            await byte_limiter.wait_for_bytes(nbytes)
        out = np.zeros(shard_shape, dtype=t.dtype.numpy_dtype)    # zeros beyond what was saved
        await ts.array(out)[ts.d[:].translate_to[wanted.origin]][present].write(t[present])
        if dtype is not None:
            out = out.astype(dtype)
        # jxkernel's arrays keep the default layout: a layout asked for is not applied
        result = device_put(out, SingleDeviceSharding(device))
        if byte_limiter is not None:
            await byte_limiter.release_bytes(nbytes)
        return result

    index_of = sharding.devices_indices_map(shape)
    shards = await asyncio.gather(*(read(index_of[d], d)
                                    for d in sharding._addressable_device_assignment))
    del dtype   # the shards carry it, canonicalized by device_put (x64 off: 32-bit)
    return make_array_from_single_device_arrays(shape, sharding, list(shards))


def _run_deserialization(shardings, tensorstore_specs, global_shapes=None, dtypes=None,
                         concurrent_gb: int = 32):
    """The Arrays saved at `tensorstore_specs`, read with at most `concurrent_gb` GB of host
    scratch at once."""
    n = len(tensorstore_specs)

    async def run():
        limiter = _LimitInFlightBytes(concurrent_gb * 10 ** 9)
        return await asyncio.gather(*(
            async_deserialize(s, spec, shape, dtype, byte_limiter=limiter)
            for s, spec, shape, dtype in zip(list(shardings), list(tensorstore_specs),
                                             global_shapes or [None] * n,
                                             dtypes or [None] * n)))
    return asyncio.run(run())


__all__ = ["async_serialize", "async_deserialize", "get_tensorstore_spec",
           "estimate_read_memory_footprint", "combine_kvstores", "merge_nested_ts_specs",
           "verify_tensorstore_spec", "is_tensorstore_spec_leaf"]
