"""Multi-process runs on jaxlib's distributed runtime: 2 and 4 processes on 127.0.0.1 run a
pmap with collectives, a data-parallel train step and multihost_utils, and must match one
process with the same 4 devices; a process that dies makes the others fail, not hang.

All the runs start together (one batch of subprocesses, each bounded in time and killed
by the fixture); the tests then check what each process printed as JSON.
"""
import json
import os
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import jxkernel as jax
from jxkernel import distributed

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT_S = 90

WORKER = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    port, pid, nproc, mode = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    import jxkernel as jax
    from jxkernel import lax
    from jxkernel.experimental import multihost_utils as mh
    import jxkernel.numpy as jnp
    if nproc > 1:
        jax.distributed.initialize(f"127.0.0.1:{port}", nproc, pid, initialization_timeout=30,
                                   heartbeat_timeout_seconds=2, shutdown_timeout_seconds=30)
    out = {"devices": [d.id for d in jax.devices()],
           "local": [d.id for d in jax.local_devices()],
           "index": jax.process_index(), "count": jax.process_count(),
           "device_count": jax.device_count(), "local_count": jax.local_device_count(),
           "initialized": jax.distributed.is_initialized()}
    n_local = jax.local_device_count()
    # this process's slice of the global batch: rows pid*n_local ... of one (4, 3) array
    rows = np.arange(pid * n_local, (pid + 1) * n_local)
    x = (rows[:, None] * 3 + np.arange(3)).astype(np.float32)
    if mode == "die":
        f = jax.pmap(lambda v: lax.psum(v, "i"), "i")
        if pid == 1:
            print("dying", flush=True)
            os._exit(3)
        f(x).block_until_ready()
        print("the collective returned without the dead process", flush=True)
        sys.exit(0)
    total, index, size, gathered = jax.pmap(
        lambda v: (lax.psum(v, "i"), lax.axis_index("i"), lax.psum(1, "i"),
                   lax.all_gather(v, "i")), "i")(x)
    out.update(psum=np.asarray(total).tolist(), axis_index=np.asarray(index).tolist(),
               axis_size=np.asarray(size).tolist(), all_gather=np.asarray(gathered).tolist(),
               shards=[s.device.id for s in total.addressable_shards])

    def loss(w, xb, yb):
        return jnp.mean((jnp.tanh(xb @ w) - yb) ** 2)

    def step(w, xb, yb):      # data-parallel SGD: gradients averaged over every device
        g = lax.pmean(jax.grad(loss)(w, xb, yb), "i")
        return w - 0.5 * g, lax.pmean(loss(w, xb, yb), "i")

    w = np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)
    xb = (x / 10).reshape(n_local, 1, 3)
    yb = np.cos(xb[..., :2])
    ws = np.broadcast_to(w, (n_local, 3, 2))
    train = jax.pmap(step, "i")
    for _ in range(3):
        ws, losses = train(ws, xb, yb)
    out.update(w=np.asarray(ws).tolist(), losses=np.asarray(losses).tolist())
    if nproc > 1:
        out["allgather"] = mh.process_allgather(np.float32(pid) + np.arange(2, dtype=np.float32)).tolist()
        out["allgather_tiled"] = mh.process_allgather(
            {"a": np.arange(2) + 10 * pid}, tiled=True)["a"].tolist()
        out["allgather_dtype"] = str(mh.process_allgather(np.arange(2) + pid).dtype)
        sent = mh.broadcast_one_to_all({"seed": np.int32(7 + pid), "v": np.ones(2) * pid})
        out["broadcast"] = {k: v.tolist() for k, v in sent.items()}
        out["from_last"] = mh.broadcast_one_to_all(np.int32(pid), is_source=pid == nproc - 1).tolist()
        mh.sync_global_devices("end of test")
        try:
            mh.sync_global_devices(f"a name of process {pid}")
        except AssertionError as e:
            out["mismatch"] = str(e)
        jax.distributed.shutdown()
        out["after_shutdown"] = jax.distributed.is_initialized()
    print("RESULT " + json.dumps(out), flush=True)
""")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(port, pid, nproc, mode, devices):
    env = {**os.environ, "PYTHONPATH": ROOT, "JXKERNEL_CPU_DEVICES": str(devices),
           "TF_CPP_MIN_LOG_LEVEL": "1"}
    return subprocess.Popen([sys.executable, "-c", WORKER, str(port), str(pid), str(nproc), mode],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _collect(procs, started):
    """(returncode, stdout, stderr, seconds) per process; a process still running at the
    deadline is killed (returncode None)."""
    results = []
    for p in procs:
        try:
            stdout, stderr = p.communicate(timeout=max(1.0, started + TIMEOUT_S - time.time()))
            results.append((p.returncode, stdout, stderr, time.time() - started))
        except subprocess.TimeoutExpired:
            p.kill()
            stdout, stderr = p.communicate()
            results.append((None, stdout, stderr, time.time() - started))
    return results


@pytest.fixture(scope="module")
def runs():
    """Every run of this file, started at once: 'single' (1 process, 4 devices), 'two'
    (2 processes x 2 devices), 'four' (4 x 1) and 'die' (2 x 1, process 1 exits early)."""
    layout = {"single": (1, 4, "ok"), "two": (2, 2, "ok"), "four": (4, 1, "ok"),
              "die": (2, 1, "die")}
    started = time.time()
    procs = {}
    try:
        for name, (nproc, devices, mode) in layout.items():
            port = _free_port()
            procs[name] = [_start(port, pid, nproc, mode, devices) for pid in range(nproc)]
        return {name: _collect(ps, started) for name, ps in procs.items()}
    finally:
        for ps in procs.values():
            for p in ps:
                if p.poll() is None:
                    p.kill()
                    p.wait()


def _results(run):
    outs = []
    for code, stdout, stderr, _ in run:
        assert code == 0, f"exit {code}\n{stdout[-3000:]}\n{stderr[-3000:]}"
        line = next(x for x in stdout.splitlines() if x.startswith("RESULT "))
        outs.append(json.loads(line[len("RESULT "):]))
    return outs


@pytest.mark.parametrize("name,nproc,local", [("two", 2, 2), ("four", 4, 1)])
def test_processes_share_the_devices_and_match_one_process(runs, name, nproc, local):
    (single,) = _results(runs["single"])
    outs = _results(runs[name])
    ids = outs[0]["devices"]
    assert len(ids) == 4 and all(o["devices"] == ids for o in outs)
    for pid, o in enumerate(outs):
        assert (o["index"], o["count"], o["device_count"], o["local_count"]) == (pid, nproc, 4, local)
        assert o["local"] == ids[pid * local:(pid + 1) * local] == o["shards"]
        assert o["initialized"] is True and o["after_shutdown"] is False
        rows = slice(pid * local, (pid + 1) * local)
        # integer-valued sums and copies: exact on every CPU
        for key in ("psum", "axis_index", "axis_size", "all_gather"):
            assert o[key] == single[key][rows], key
        assert o["axis_size"] == [4] * local
        np.testing.assert_array_equal(o["psum"], np.broadcast_to(np.arange(12.0).reshape(4, 3).sum(0), (local, 3)))
        # the train step reduces in another order across processes (gloo) than within one
        np.testing.assert_allclose(o["w"], single["w"][rows], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(o["losses"], single["losses"][rows], rtol=1e-6)


@pytest.mark.parametrize("name,nproc", [("two", 2), ("four", 4)])
def test_multihost_utils_exchange_host_values(runs, name, nproc):
    for pid, o in enumerate(_results(runs[name])):
        assert o["allgather"] == [[p, p + 1] for p in range(nproc)]
        assert o["allgather_tiled"] == [v for p in range(nproc) for v in (10 * p, 10 * p + 1)]
        assert o["allgather_dtype"] == "int32"       # as on a device, without x64
        assert o["broadcast"] == {"seed": 7, "v": [0.0, 0.0]}
        assert o["from_last"] == nproc - 1
        assert o["mismatch"].startswith("sync_global_devices name mismatch ('a name of process")


def test_a_dead_process_makes_the_others_fail_within_the_timeout(runs):
    (code0, out0, err0, seconds), (code1, out1, _, _) = runs["die"]
    assert code1 == 3 and "dying" in out1
    assert code0 not in (0, None), out0 + err0
    assert "the collective returned" not in out0
    assert "another task died" in err0 and "stopped sending heartbeats" in err0, err0[-2000:]
    assert seconds < TIMEOUT_S


def test_initialize_after_the_backend_started_is_refused():
    jax.devices()
    with pytest.raises(RuntimeError, match="must be called before any JAX calls"):
        distributed.initialize("127.0.0.1:1", num_processes=2, process_id=0)
    assert not distributed.is_initialized()
