"""The multi-process program of tests/xla/test_distributed.py, run by jxkernel there and by real
JAX in reference/make_distributed_reference.py (into distributed_reference.json).

`source(library, program_only=False)` is the code to run, for "jxkernel" or "jax": imports,
then PROGRAM (functions), then WORKER (a process of a run; its arguments: port, process id,
process count, mode, local CPU devices; it prints one "RESULT {json}" line).
"""
import textwrap

IMPORTS = """
import {lib} as jax
import {lib}.numpy as jnp
from {lib} import lax
from {lib}.experimental import multihost_utils as mh
from {lib}.sharding import NamedSharding, PartitionSpec as P
"""

# The computation, the same for the multi-process runs and the one-process answer.
PROGRAM = textwrap.dedent("""
    import numpy as np

    def batch(first, count):       # rows first .. first+count-1 of one (4, 3) batch
        rows = np.arange(first, first + count)
        return (rows[:, None] * 3 + np.arange(3)).astype(np.float32)

    def collectives(v):
        return lax.psum(v, "i"), lax.axis_index("i"), lax.psum(1, "i"), lax.all_gather(v, "i")

    def loss(w, xb, yb):
        return jnp.mean((jnp.tanh(xb @ w) - yb) ** 2)

    def step(w, xb, yb):           # data-parallel SGD: gradients averaged over every device
        g = lax.pmean(jax.grad(loss)(w, xb, yb), "i")
        return w - 0.5 * g, lax.pmean(loss(w, xb, yb), "i")

    W0 = np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)

    def train(map_devices, x, steps=3):
        xb = (x / 10).reshape(len(x), 1, 3)
        ws, run = np.broadcast_to(W0, (len(x), 3, 2)), map_devices(step)
        for _ in range(steps):
            ws, losses = run(ws, xb, np.cos(xb[..., :2]))
        return np.asarray(ws).tolist(), np.asarray(losses).tolist()

    def global_step(w, xb, yb):    # the same step for a sharded jit over the whole batch
        return w - 0.5 * jax.grad(loss)(w, xb, yb), loss(w, xb, yb)

    def train_global(run, w, xb, yb, steps=3):
        for _ in range(steps):
            w, l = run(w, xb, yb)
        return w, l
""")

WORKER = textwrap.dedent("""
    import json, os, sys
    port, pid, nproc, mode = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    ndev = int(sys.argv[5])
    jax.config.update("jax_num_cpu_devices", ndev)
    jax.distributed.initialize(f"127.0.0.1:{port}", nproc, pid, initialization_timeout=30,
                               # short only where a crash must be noticed: a starved but
                               # live process must not be taken for dead
                               heartbeat_timeout_seconds=3 if mode == "die" else 60,
                               shutdown_timeout_seconds=30)
    out = {"devices": [d.id for d in jax.devices()],
           "local": [d.id for d in jax.local_devices()],
           "index": jax.process_index(), "count": jax.process_count(),
           "device_count": jax.device_count(), "local_count": jax.local_device_count(),
           "initialized": jax.distributed.is_initialized()}
    x = batch(pid * jax.local_device_count(), jax.local_device_count())
    total, index, size, gathered = jax.pmap(collectives, "i")(x)
    out.update(psum=np.asarray(total).tolist(), axis_index=np.asarray(index).tolist(),
               axis_size=np.asarray(size).tolist(), all_gather=np.asarray(gathered).tolist(),
               shards=[s.device.id for s in total.addressable_shards],
               result_devices=sorted(d.id for d in total.devices()))
    out["w"], out["losses"] = train(lambda f: jax.pmap(f, "i"), x)
    # a global mesh over all processes' devices: the batch split over it, a sharded jit
    mesh = jax.make_mesh((4,), ("x",))
    xg, yg, wg = mh.host_local_array_to_global_array(
        (x / 10, np.cos(x[:, :2] / 10), W0), mesh, (P("x"), P("x"), P()))
    replicated = NamedSharding(mesh, P())
    wg, lg = train_global(jax.jit(global_step, out_shardings=(replicated, replicated)),
                          wg, xg, yg)
    summed = jax.jit(jax.shard_map(lambda b: (lax.psum(b, "x"), lax.axis_index("x")[None]),
                                   mesh=mesh, in_specs=P("x"), out_specs=(P(), P("x"))))(xg)
    out.update(shard_map_psum=mh.process_allgather(summed[0], tiled=True).tolist(),
               shard_map_index=mh.process_allgather(summed[1], tiled=True).tolist())
    back = mh.global_array_to_host_local_array(xg, mesh, P("x"))
    out.update(host_local=np.asarray(back).tolist(), host_local_shape=list(back.shape),
               host_local_devices=sorted(d.id for d in back.devices()))
    # built from this process's blocks only; its global value is not this process's to read
    cb = jax.make_array_from_callback((8, 2), NamedSharding(mesh, P("x")),
                                      lambda i: np.arange(16.0, dtype=np.float32).reshape(8, 2)[i])
    out["callback_shards"] = [[s.device.id, [[d.start, d.stop] for d in s.index],
                               np.asarray(s.data).tolist()] for s in cb.addressable_shards]
    out["callback_global"] = mh.process_allgather(cb, tiled=True).tolist()
    try:
        np.asarray(cb)
        out["callback_fetch"] = "allowed"
    except RuntimeError as e:
        out["callback_fetch"] = str(e)
    out.update(global_shape=list(xg.shape), global_x=mh.process_allgather(xg, tiled=True).tolist(),
               global_w=mh.process_allgather(wg, tiled=True).tolist(),
               global_loss=mh.process_allgather(lg, tiled=True).tolist())
    out["allgather"] = mh.process_allgather(np.float32(pid) + np.arange(2, dtype=np.float32)).tolist()
    out["allgather_tiled"] = mh.process_allgather({"a": np.arange(2) + 10 * pid}, tiled=True)["a"].tolist()
    out["allgather_dtype"] = str(mh.process_allgather(np.arange(2) + pid).dtype)
    sent = mh.broadcast_one_to_all({"seed": np.int32(7 + pid), "v": np.ones(2) * pid})
    out["broadcast"] = {k: v.tolist() for k, v in sent.items()}
    out["from_last"] = mh.broadcast_one_to_all(np.int32(pid), is_source=pid == nproc - 1).tolist()
    mh.sync_global_devices("end of test")
    try:
        mh.sync_global_devices(f"a name of process {pid}")
    except AssertionError as e:
        out["mismatch"] = str(e)
    if mode == "shutdown":
        jax.distributed.shutdown()
        out["after_shutdown"] = jax.distributed.is_initialized()
    print("RESULT " + json.dumps(out), flush=True)
    if mode == "die":         # process 1 crashes; process 0 then waits in a collective
        if pid == 1:
            os._exit(3)
        jax.pmap(lambda v: lax.psum(v, "i"), "i")(x).block_until_ready()
        print("the collective returned without the dead process", flush=True)
""")


def source(library: str, program_only: bool = False) -> str:
    """The code of a worker process (or only the imports and functions) for `library`."""
    return IMPORTS.format(lib=library) + PROGRAM + ("" if program_only else WORKER)
