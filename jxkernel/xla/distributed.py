"""jaxlib's distributed runtime: the coordination service, its client, and programs whose
devices span several processes.

Connect before the first backend is made; a backend made then sees every process's devices:

    >>> connect("127.0.0.1:1234", num_processes=1, process_id=0)   # doctest: +SKIP
    >>> get_backend("cpu").global_devices                            # doctest: +SKIP
    [CpuDevice(id=0)]

Process 0 runs the coordination service; every process connects a client to it. The CPU
backend made afterwards spans the processes: its client gets the distributed client, this
process's node id and the node count, and gloo collectives over TCP that find their peers
through the service's key-value store (docs/jaxlib.md §12 says what was verified).
"""
from __future__ import annotations

import atexit
import pickle

import numpy as np

from ..core.avals import ShapedArray
from ..core.mesh import Mesh, NamedSharding
from . import client as _client
from .buffer import _COPY, _to_host, sharding_for
from .client import xc
from .sharded import _assemble

_xla = xc._xla


class _State:
    service = None        # the coordination service (process 0 only)
    client = None         # this process's DistributedRuntimeClient
    process_id = 0
    num_processes = 1
    coordinator_address = None


state = _State()


def is_connected() -> bool:
    return state.client is not None


def refuse_if_started() -> None:
    """A backend made before `connect` would not span the processes: refuse, as JAX does."""
    if _client._backends:
        raise RuntimeError("jax.distributed.initialize() must be called before any JAX calls "
                           "that might initialise the XLA backend. This includes any "
                           "computation, but also calls to jax.devices, jax.device_put, and "
                           "others.")


def connect(coordinator_address: str, num_processes: int, process_id: int, *,
            bind_address: str | None = None, init_timeout: int = 300,
            heartbeat_timeout: int = 100, shutdown_timeout: int = 300) -> None:
    """Start the service (process 0), connect this process's client, and make the CPU
    backend, when it starts, span all processes."""
    refuse_if_started()
    if state.client is not None:
        raise RuntimeError("distributed.initialize should only be called once.")
    if process_id == 0:
        # "[::]:port" listens on every address of this host, on the coordinator's port
        bind = bind_address or "[::]:" + coordinator_address.rsplit(":", 1)[1]
        state.service = _xla.get_distributed_runtime_service(
            bind, num_processes, heartbeat_timeout=heartbeat_timeout,
            shutdown_timeout=shutdown_timeout)
    state.client = _xla.get_distributed_runtime_client(
        coordinator_address, process_id, init_timeout=init_timeout,
        heartbeat_timeout=heartbeat_timeout, shutdown_timeout=shutdown_timeout,
        use_compression=True)
    state.client.connect()
    state.process_id, state.num_processes = process_id, num_processes
    state.coordinator_address = coordinator_address
    _client._cpu_client_options.update(
        distributed_client=state.client, node_id=process_id, num_nodes=num_processes,
        collectives=_xla.make_gloo_tcp_collectives(distributed_client=state.client))
    _client._plugin_distributed.update(client=state.client, node_id=process_id,
                                       num_nodes=num_processes)
    atexit.register(disconnect)


def disconnect() -> None:
    """Leave the service (every client waits for the others) and stop it on process 0."""
    if state.client is not None:
        state.client.shutdown()
        state.client = None
    if state.service is not None:
        state.service.shutdown()
        state.service = None
    _client._cpu_client_options.clear()    # a backend not started yet will be one process's
    _client._plugin_distributed.clear()


# ----------------------------------------------------------------------------- key-value store
def _require_client():
    if state.client is None:
        raise RuntimeError("The distributed runtime is not running: call "
                           "jxkernel.distributed.initialize(...) first.")
    return state.client


def key_value_set(key: str, value: bytes) -> None:
    _require_client().key_value_set_bytes(key, value)


def key_value_get(key: str, timeout_s: float) -> bytes:
    """The value of `key`, waiting up to `timeout_s` for another process to set it."""
    return _require_client().blocking_key_value_get_bytes(key, int(timeout_s * 1000))


def barrier(name: str, timeout_s: float) -> None:
    _require_client().wait_at_barrier(name, int(timeout_s * 1000))


def key_value_delete(key: str) -> None:
    _require_client().key_value_delete(key)


def encode_many(values: list) -> bytes:
    """NumPy arrays as bytes for the key-value store (dtype, shape and raw data each)."""
    return pickle.dumps([(v.dtype, v.shape, np.ascontiguousarray(v).tobytes()) for v in values])


def decode_many(data: bytes) -> list:
    return [np.frombuffer(raw, dtype=dtype).reshape(shape)
            for dtype, shape, raw in pickle.loads(data)]


# ------------------------------------------------------------------ pmap across processes
def pmap_devices(local_size: int, backend=None) -> tuple:
    """The devices of a pmap over all processes: each process's first `local_size` local
    devices, process by process (what jax.pmap picks when no devices are named)."""
    found = _client.get_backend(backend).global_devices
    by_process: dict = {}
    for d in found:
        by_process.setdefault(d.process_index, []).append(d)
    for p, mine in sorted(by_process.items()):
        if local_size > len(mine):
            raise ValueError(f"pmap's mapped axis has size {local_size}, but process {p} has "
                             f"only {len(mine)} local devices; in a multi-process run each "
                             f"process maps over at most its local devices")
    return tuple(d for _, mine in sorted(by_process.items()) for d in mine[:local_size])


# ----------------------------------------------------------------------------- global arrays
def _local_mesh_devices(sharding) -> list:
    me = _client.process_index()
    return [d for d in sharding.mesh._flat_devices if d.process_index == me]


def is_fully_addressable(x) -> bool:
    """Whether all of `x`'s devices belong to this process."""
    me = _client.process_index()
    return all(d.process_index == me for d in x.devices())


def global_from_host_local(value: np.ndarray, sharding):
    """The global array (an Array over all processes' devices) of which `value` is
    this process's part: along each split dimension, this process's run of blocks. With 2
    processes of 2 devices and P('x') over a 4-device mesh, a (2, 3) `value` on each makes
    a (4, 3) array: process 0's rows first."""
    ndim = value.ndim
    tiles = sharding._tiles(ndim)
    blocks_of = {d: blocks for d, (blocks, _) in zip(sharding.mesh.devices.flat,
                                                     sharding._placements(ndim))}
    local = _local_mesh_devices(sharding)
    held = [sorted({blocks_of[d][i] for d in local}) for i in range(ndim)]
    for dim, (size, runs) in enumerate(zip(value.shape, held)):
        if runs != list(range(runs[0], runs[0] + len(runs))) or size % len(runs):
            raise ValueError(f"host_local_array_to_global_array: process "
                             f"{_client.process_index()} holds blocks {runs} of dimension {dim} "
                             f"(size {size} here); its devices must hold a contiguous run of "
                             f"blocks that divides its local data evenly")
    global_shape = tuple(n * t // len(h) for n, t, h in zip(value.shape, tiles, held))
    block = tuple(g // t for g, t in zip(global_shape, tiles))
    block_aval = ShapedArray(block, value.dtype)
    bufs = []
    for d in local:
        index = tuple(slice((b - h[0]) * s, (b - h[0] + 1) * s)
                      for b, h, s in zip(blocks_of[d], held, block))
        bufs.append(xc.batched_device_put(block_aval, sharding_for((d,)),
                                          [np.ascontiguousarray(value[index])], [d], True, False,
                                          _COPY, True))
    return _assemble(bufs, ShapedArray(global_shape, value.dtype), sharding)


def first_local_block(x) -> np.ndarray:
    """The block of a global array on this process's first device of its mesh, on the host."""
    return np.array(_to_host(_client.shard_buffers(x._buf)[0]))


def local_mesh(mesh):
    """The part of `mesh` on this process's devices: a box of it, same axis names."""
    me = _client.process_index()
    mine = np.vectorize(lambda d: d.process_index == me, otypes=[bool])(mesh.devices)
    box = tuple(slice(int(w.min()), int(w.max()) + 1) for w in np.nonzero(mine))
    if not mine.any() or not mine[box].all():
        raise ValueError(f"Process {me}'s devices do not form a box of the mesh {mesh}; "
                         f"build the mesh with each process's devices side by side "
                         f"(jax.make_mesh does)")
    return Mesh(mesh.devices[box], mesh.axis_names, axis_types=mesh.axis_types)


def host_local_from_global(x, spec):
    """This process's part of global array `x` (laid out by `spec` over its mesh), as an
    array over the local mesh: the inverse of `global_from_host_local`. No data moves."""
    sharding = NamedSharding(local_mesh(x.sharding.mesh), spec)
    block = x.sharding.shard_shape(x.shape)
    shape = tuple(b * t for b, t in zip(block, sharding._tiles(x.ndim)))
    return _assemble(list(_client.shard_buffers(x._buf)), ShapedArray(shape, x.dtype), sharding)
