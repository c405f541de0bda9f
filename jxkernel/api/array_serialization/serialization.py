"""jax.experimental.array_serialization.serialization: `GlobalAsyncCheckpointManager` (write
Arrays to TensorStore while training goes on, then run a callback once every process has
committed), and the older entry points under their old names: `get_tensorstore_spec` here
makes zarr specs without OCDBT (the format Flax's multiprocess-array checkpoints use),
`async_serialize`/`async_deserialize`, `run_serialization`/`run_deserialization`.

Orbax imports this module for `GlobalAsyncCheckpointManagerBase` (its checkpoint manager asks
whether a checkpointer is one); Flax's `flax.training.checkpoints` saves and restores
multiprocess arrays with the manager and `get_tensorstore_spec`.
"""
from __future__ import annotations

import abc
import asyncio
import functools
import itertools
import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from ...core import monitoring
from ...tree_util import tree_map
from ...xla import client as _client
from ...xla import distributed as _distributed
from . import tensorstore_impl as ts_impl
from .tensorstore_impl import (  # noqa: F401  (JAX's names for them here)
    _DEFAULT_BASE_DRIVER as _DEFAULT_DRIVER,
    _LimitInFlightBytes,
    _TS_CONTEXT as TS_CONTEXT,
    _run_deserialization as run_deserialization,
    _run_serialization as run_serialization,
    async_deserialize,
    async_serialize,
)

# the older zarr format, as this module's names have always written it
_get_metadata = functools.partial(ts_impl._get_tensorstore_metadata, driver="zarr")
get_tensorstore_spec = functools.partial(ts_impl.get_tensorstore_spec, driver="zarr",
                                         ocdbt=False)

_CHECKPOINT_SUCCESS = "checkpoint_write_success"
_module_unique_count = itertools.count()
_DISTRIBUTED_SYSTEM_MSG = ("Please initialize the distributed system via "
                           "`jax.distributed.initialize()` at the start of your program.")
_REMOTE_URL_PREFIXES = ["gs://", "s3://"]
_REMOTE_DRIVERS = ("gcs", "s3")
_BARRIER_TIMED_OUT_MSG = (
    "Suggestions for possible fixes:\n"
    "* Check the logs to see if one or more processes failed.\n"
    "* Make sure the training and checkpointing endpoints are close geographically.\n"
    "* Try increasing the timeout you pass to GlobalAsyncCheckpointManager.")

logger = logging.getLogger(__name__)


class BarrierTimeoutError(Exception):
    pass


def is_remote_storage(tspec: dict[str, Any] | str) -> bool:
    """Whether `tspec` (a spec, or a kvstore URL) writes to cloud storage (gs://, s3://, or a
    gcs or s3 driver anywhere in its base/kvstore chain)."""
    if isinstance(tspec, str):
        return re.match(rf'^({"|".join(_REMOTE_URL_PREFIXES)})', tspec) is not None
    for key in ("base", "kvstore"):
        if key in tspec:
            return is_remote_storage(tspec[key])
    return tspec.get("driver") in _REMOTE_DRIVERS


def _get_key(key: int) -> str:
    return f"tensorstore_checkpoint_{key}"


class GlobalAsyncCheckpointManagerBase(abc.ABC):
    """What a manager of asynchronous checkpoints does: start writing (`serialize`), read
    (`deserialize`), wait for the writes (`wait_until_finished`), raise what the writing
    thread raised (`check_for_errors`)."""

    @abc.abstractmethod
    def check_for_errors(self):
        """Raise the error the writing thread met, if any (does not block)."""

    @abc.abstractmethod
    def wait_until_finished(self):
        """Block until the writes have finished."""

    @abc.abstractmethod
    def serialize(self, arrays, tensorstore_specs, *, on_commit_callback: Callable[[], None]):
        """Start writing `arrays` to `tensorstore_specs`."""

    @abc.abstractmethod
    def deserialize(self, shardings, tensorstore_specs, global_shapes=None, dtypes=None):
        """Read the arrays at `tensorstore_specs`."""


class AsyncManager:
    """A thread that waits for TensorStore's commits, meets the other processes at a barrier,
    then (process 0) runs the commit callback and tells the others it did."""

    def __init__(self, timeout_secs=300):
        self._timeout_secs = timeout_secs
        self._timeout_in_ms = timeout_secs * 1000
        self._commit_futures = None
        self._thread = None
        self._exception = None
        if _client.process_count() > 1 and _distributed.state.client is None:
            raise ValueError(_DISTRIBUTED_SYSTEM_MSG)
        self._client = _distributed.state.client
        self._count: int | None = None

    def __del__(self):
        if self._thread is not None and self._thread.is_alive():
            logger.warning("Please add `.wait_until_finished()` in the main thread before your "
                           "program finishes because there is a possibility of losing errors "
                           "raised if the this class is deleted before writing is completed.")

    def _thread_func(self):
        try:
            started = time.time()
            for future in self._commit_futures:
                future.result()
            processes = _client.process_count()
            barrier = None
            if processes > 1:          # everyone has committed before the callback runs
                barrier = _get_key(self._count)
                self._client.wait_at_barrier(barrier, self._timeout_in_ms)
            if _client.process_index() == 0:
                if self._on_commit_callback is not None:
                    self._on_commit_callback()
                if processes > 1:
                    self._client.key_value_set(barrier, _CHECKPOINT_SUCCESS)
            monitoring.record_event_duration_secs(
                "/jax/checkpoint/write/async/thread_duration_sec", time.time() - started)
        except Exception as e:          # raised in the main thread by check_for_errors
            self._exception = e

    def _start_async_commit(self, on_commit_callback):
        self._count = next(_module_unique_count)
        self._on_commit_callback = on_commit_callback
        self._thread = threading.Thread(target=self._thread_func)
        self._thread.start()

    def check_for_errors(self):
        if self._exception is not None:
            exception, self._exception = self._exception, None     # raised once
            if "DEADLINE_EXCEEDED: Barrier timed out" in str(exception):
                raise BarrierTimeoutError("\n".join([str(exception), _BARRIER_TIMED_OUT_MSG]))
            raise exception

    def wait_until_finished(self):
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.check_for_errors()
        if _client.process_count() > 1 and self._count is not None:
            # process 0 sets the key once its callback has run
            self._client.blocking_key_value_get(_get_key(self._count), self._timeout_in_ms)

    def _add_futures(self, futures):
        self._commit_futures = futures


class GlobalAsyncCheckpointManager(AsyncManager, GlobalAsyncCheckpointManagerBase):
    """Writes Arrays through TensorStore in the background (see `serialize`)."""

    def serialize(self, arrays, tensorstore_specs, *,
                  on_commit_callback: Callable[[], None] | None = None, transaction=None):
        """Start writing `arrays` to `tensorstore_specs` (after the previous writes finish).
        Returns once the data is copied out of the arrays; the commits are waited for in a
        thread, and when every process has committed, process 0 runs `on_commit_callback`
        (e.g. renaming a temporary folder to the final one)."""
        self.wait_until_finished()
        commit_futures: list = []

        async def run():
            return await asyncio.gather(*tree_map(
                lambda arr, spec: async_serialize(arr, spec, commit_future=commit_futures,
                                                  transaction=transaction),
                arrays, tensorstore_specs))
        asyncio.run(run())
        self._add_futures(commit_futures)
        self._start_async_commit(on_commit_callback)

    def serialize_with_paths(self, arrays: Sequence, paths: Sequence[str], *,
                             on_commit_callback: Callable[[], None] | None = None,
                             transaction=None):
        return self.serialize(arrays, tree_map(get_tensorstore_spec, paths),
                              on_commit_callback=on_commit_callback, transaction=transaction)

    def deserialize(self, shardings: Sequence, tensorstore_specs: Sequence[dict[str, Any]],
                    global_shapes=None, dtypes=None, concurrent_gb: int = 32):
        self.wait_until_finished()
        return ts_impl._run_deserialization(shardings, tensorstore_specs, global_shapes,
                                            dtypes, concurrent_gb)

    def deserialize_with_paths(self, shardings: Sequence, paths: Sequence[str],
                               global_shapes=None, dtypes=None, concurrent_gb: int = 32):
        return self.deserialize(shardings, tree_map(get_tensorstore_spec, paths),
                                global_shapes, dtypes, concurrent_gb)
