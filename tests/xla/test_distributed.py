"""Multi-process runs on jaxlib's distributed runtime: 2 and 4 processes on 127.0.0.1 run a
pmap with collectives, a data-parallel train step, a sharded jit train step and a shard_map
psum on a global mesh, and multihost_utils, and must match the one-process answer over the
same 4 rows and real JAX's run; a process that dies makes the others fail, not hang.

Both runs start together (one batch of subprocesses, each bounded in time and killed by the
fixture); the tests then check what each process printed as JSON. Cluster detection is
checked on fake environments.
"""
import json
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
from distributed_cases import source
from doc_examples import check_docstring_examples
from fresh_process import as_the_suite_compiles
from numerics import REDUCTION, assert_allclose_ulp

import jxkernel as jax
from jxkernel import distributed
import locations  # tests/support: the repository's folders

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),     # the GPU tier skips this file (docs/gpu.md)
              pytest.mark.xla_only("several devices")]             # several processes sharing XLA's CPU devices

ROOT = locations.ROOT
TIMEOUT_S = 90

# (compiled as the test process compiles `single`, which they must match)
WORKER = as_the_suite_compiles(source("jxkernel"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(port, pid, nproc, mode, devices):
    env = {**os.environ, "PYTHONPATH": ROOT, "TF_CPP_MIN_LOG_LEVEL": "1"}
    return subprocess.Popen([sys.executable, "-c", WORKER, str(port), str(pid), str(nproc), mode,
                             str(devices)],
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
    """Both runs of this file, started at once: 'two' (2 processes x 2 CPU devices; at the
    end process 1 crashes while process 0 enters a collective) and 'four' (4 x 1; ends with
    shutdown). Each is (returncode, stdout, stderr, seconds) per process."""
    layout = {"two": (2, 2, "die"), "four": (4, 1, "shutdown")}
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


@pytest.fixture(scope="module")
def single():
    """The one-process answer: the same program over 4 rows, mapped by vmap in this process
    (its collectives then reduce along the batch axis), each piece one jit."""
    ns = {}
    exec(source("jxkernel", program_only=True), ns)
    x = ns["batch"](0, 4)
    total, index, size, gathered = jax.jit(jax.vmap(ns["collectives"], axis_name="i"))(x)
    w, losses = ns["train"](lambda f: jax.jit(jax.vmap(f, axis_name="i")), x)
    global_w, global_loss = ns["train_global"](jax.jit(ns["global_step"]), ns["W0"], x / 10,
                                               np.cos(x[:, :2] / 10))
    return {"x": x.tolist(), "global_w": np.asarray(global_w).tolist(),
            "global_loss": np.asarray(global_loss).tolist(),"psum": np.asarray(total).tolist(), "axis_index": np.asarray(index).tolist(),
            "axis_size": np.asarray(size).tolist(), "all_gather": np.asarray(gathered).tolist(),
            "w": w, "losses": losses}


def _results(run):
    """Each process's RESULT object (printed before any deliberate crash)."""
    outs = []
    for code, stdout, stderr, _ in run:
        line = next((x for x in stdout.splitlines() if x.startswith("RESULT ")), None)
        assert line is not None, f"exit {code}\n{stdout[-3000:]}\n{stderr[-3000:]}"
        outs.append(json.loads(line[len("RESULT "):]))
    return outs


@pytest.mark.parametrize("name,nproc,local", [("two", 2, 2), ("four", 4, 1)])
def test_processes_share_the_devices_and_match_one_process(runs, single, name, nproc, local):
    outs = _results(runs[name])
    ids = outs[0]["devices"]
    assert len(ids) == 4 and all(o["devices"] == ids for o in outs)
    for pid, o in enumerate(outs):
        assert (o["index"], o["count"], o["device_count"], o["local_count"]) == (pid, nproc, 4, local)
        assert o["local"] == ids[pid * local:(pid + 1) * local] == o["shards"]
        assert o["initialized"] is True
        rows = slice(pid * local, (pid + 1) * local)
        # integer-valued sums and copies: exact on every CPU
        for key in ("psum", "axis_index", "axis_size", "all_gather"):
            assert o[key] == single[key][rows], key
        assert o["axis_size"] == [4] * local and o["psum"] == [[18.0, 22.0, 26.0]] * local
        # float sums of 4 terms, added in another order across processes than by vmap
        assert_allclose_ulp(np.float32(o["w"]), np.float32(single["w"][rows]), REDUCTION)
        assert_allclose_ulp(np.float32(o["losses"]), np.float32(single["losses"][rows]), REDUCTION)
        # the global mesh: each process's rows joined into the batch; the sharded jit's step
        assert o["global_shape"] == [4, 3]
        assert o["global_x"] == (np.float32(single["x"]) / 10).tolist()     # copies: exact
        assert_allclose_ulp(np.float32(o["global_w"]), np.float32(single["global_w"]), REDUCTION)
        assert_allclose_ulp(np.float32(o["global_loss"]), np.float32(single["global_loss"]),
                            REDUCTION)
        # shard_map over the global mesh: psum adds every process's block
        assert o["shard_map_index"] == [0, 1, 2, 3]
        assert_allclose_ulp(np.float32(o["shard_map_psum"]),
                            (np.float32(single["x"]) / 10).sum(0, keepdims=True), REDUCTION)


def test_shutdown_leaves_the_run(runs):
    assert [code for code, *_ in runs["four"]] == [0, 0, 0, 0]
    assert [o["after_shutdown"] for o in _results(runs["four"])] == [False] * 4


FLOATS = ("w", "losses", "global_w", "global_loss", "shard_map_psum")


@pytest.mark.parametrize("name", ["two", "four"])
def test_every_process_answers_what_jax_answers(runs, name):
    """Against real JAX's run of the same program (reference/make_distributed_reference.py):
    device ids, shards, collectives, multihost_utils and error texts exactly; the trained
    weights within the ulps of a reordered 4-term sum."""
    recorded = locations.jax_answers("distributed_reference.json")[name]
    for ours, theirs in zip(_results(runs[name]), recorded, strict=True):
        for key in sorted(set(ours) & set(theirs) - set(FLOATS)):
            assert ours[key] == theirs[key], key
        for key in FLOATS:
            assert_allclose_ulp(np.float32(ours[key]), np.float32(theirs[key]), REDUCTION,
                                err_msg=key)


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
    (code0, out0, err0, seconds), (code1, _, _, _) = runs["two"]
    assert code1 == 3
    assert code0 not in (0, None), out0 + err0     # jaxlib aborts it (SIGABRT), not a hang
    assert "the collective returned" not in out0
    assert "another task died" in err0 and "stopped sending heartbeats" in err0, err0[-2000:]
    assert seconds < TIMEOUT_S


def test_initialize_after_the_backend_started_is_refused():
    jax.devices()
    with pytest.raises(RuntimeError, match="must be called before any JAX calls"):
        distributed.initialize("127.0.0.1:1", num_processes=2, process_id=0)
    assert not distributed.is_initialized()


SLURM = {"SLURM_JOB_ID": "123456", "SLURM_STEP_NODELIST": "gpu[017-020,031],login2",
         "SLURM_NTASKS": "8", "SLURM_PROCID": "5", "SLURM_LOCALID": "1"}
OMPI = {"OMPI_MCA_orte_hnp_uri": "1531576320.0;tcp://10.96.0.1,10.148.0.1:34911",
        "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_RANK": "2",
        "OMPI_COMM_WORLD_LOCAL_RANK": "0"}


def test_slurm_and_open_mpi_environments_are_read_as_jax_reads_them():
    # every expected value here is what jax 0.10.2's clusters module returns for the same env
    detect = distributed.detect_cluster
    # port: job id mod 4096 in the top 4096 ports; host: the step's first node
    assert detect(environ=SLURM) == ("gpu017:62016", 8, 5, [1])
    assert detect(environ={**SLURM, "JAX_COORDINATOR_PORT": "9999"})[0] == "gpu017:9999"
    assert detect(environ={**SLURM, "SLURM_STEP_NODELIST": "node7"})[0] == "node7:62016"
    # Open MPI: the launcher's first address; job ids are multiples of 4096
    assert detect(environ=OMPI) == ("10.96.0.1:62624", 4, 2, [0])
    tcp6 = {**OMPI, "OMPI_MCA_orte_hnp_uri": "1314521088.0;tcp6://[fe80::b9b,2620:10d::2]:43370"}
    assert detect(environ=tcp6)[0] == "fe80::b9b:62880"
    # given values win; Open MPI is tried before Slurm; nothing found: nothing filled in
    assert detect("h:1", 2, 1, [3], environ={**SLURM, **OMPI}) == ("h:1", 2, 1, [3])
    assert detect(environ={**SLURM, **OMPI})[1] == 4
    assert detect(method="slurm", environ={**SLURM, **OMPI})[1] == 8
    assert detect(environ={}) == (None, None, None, None)
    with pytest.raises(RuntimeError, match="does not run under slurm"):
        detect(method="slurm", environ=OMPI)
    with pytest.raises(ValueError, match="'mpi4py' is not supported"):
        detect(method="mpi4py", environ=OMPI)


def test_docstring_examples():
    check_docstring_examples("jxkernel.distributed", skip_module_docstring=True)


def test_initialize_names_what_is_missing_or_wrong(monkeypatch):
    for name in ("JAX_COORDINATOR_ADDRESS", *SLURM, *OMPI):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("jxkernel.xla.client._backends", {})   # as if nothing had started
    with pytest.raises(ValueError, match="coordinator_address should be defined"):
        distributed.initialize()
    with pytest.raises(ValueError, match="Number of processes must be defined"):
        distributed.initialize("127.0.0.1:1")
    with pytest.raises(TypeError, match="process_id must be a nonnegative int. Got process_id=1.0"):
        distributed.initialize("127.0.0.1:1", 2, 1.0)
    with pytest.raises(ValueError, match="Got process_id=2, num_processes=2"):
        distributed.initialize("127.0.0.1:1", 2, 2)
    assert not distributed.is_initialized()
