"""jxkernel.distributed, as jax.distributed: one program run by several processes (one per
host, usually), whose devices together form `jxkernel.devices()`.

    >>> jxkernel.distributed.initialize("10.0.0.1:1234", num_processes=2, process_id=0)  # doctest: +SKIP
    >>> jxkernel.process_count(), jxkernel.process_index()  # doctest: +SKIP
    (2, 0)

Process 0 starts jaxlib's coordination service at the coordinator address; every process
connects to it. Call `initialize` before anything starts a backend (a computation,
`devices()`, `device_put`). Under Slurm or Open MPI the arguments can be left out: they
are read from the environment as JAX reads them. How to run it: docs/distributed.md.
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence

from ..xla import client as _client
from ..xla import distributed as _runtime   # this module loads on first use of jax.distributed

__all__ = ["initialize", "is_initialized", "shutdown"]

# Clusters are tried in this order (JAX's); a port is derived from the job id so that every
# process of a job computes the same one.
_PORT_RANGE_START = 65535 - 2**12 + 1


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None,
               local_device_ids: int | Sequence[int] | None = None,
               cluster_detection_method: str | None = None, initialization_timeout: int = 300,
               coordinator_bind_address: str | None = None,
               heartbeat_timeout_seconds: int = 100, shutdown_timeout_seconds: int = 300,
               partition_index: int | None = None) -> None:
    """Join the multi-process run: process 0 serves at `coordinator_address` ("host:port");
    all connect to it and wait (up to `initialization_timeout` s) for the others.

    A process that stops sending heartbeats for `heartbeat_timeout_seconds` is declared
    dead and jaxlib then terminates every other process with an error saying so.
    """
    _runtime.refuse_if_started()
    coordinator_address = coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
    if isinstance(local_device_ids, int):
        local_device_ids = [local_device_ids]
    if local_device_ids is None and os.environ.get("JAX_LOCAL_DEVICE_IDS"):
        local_device_ids = [int(i) for i in os.environ["JAX_LOCAL_DEVICE_IDS"].split(",")]
    if cluster_detection_method != "deactivate" and None in (
            coordinator_address, num_processes, process_id, local_device_ids):
        coordinator_address, num_processes, process_id, local_device_ids = detect_cluster(
            coordinator_address, num_processes, process_id, local_device_ids,
            cluster_detection_method)
    _check_arguments(coordinator_address, num_processes, process_id)
    bind = coordinator_bind_address or os.environ.get("JAX_COORDINATOR_BIND_ADDRESS")
    _runtime.connect(coordinator_address, num_processes, process_id, bind_address=bind,
                     init_timeout=initialization_timeout,
                     heartbeat_timeout=heartbeat_timeout_seconds,
                     shutdown_timeout=shutdown_timeout_seconds)
    if local_device_ids:     # which GPUs this process drives (PJRT plugins only; not CPU)
        _client._plugin_distributed["visible_devices"] = [int(i) for i in local_device_ids]


def _check_arguments(coordinator_address, num_processes, process_id) -> None:
    if coordinator_address is None:
        raise ValueError("coordinator_address should be defined.")
    if num_processes is None:
        raise ValueError("Number of processes must be defined.")
    if process_id is None:
        raise ValueError("The process id of the current process must be defined.")
    if not isinstance(process_id, int):
        raise TypeError(f"process_id must be a nonnegative int. Got process_id={process_id} "
                        f"of type {type(process_id)}.")
    if not isinstance(num_processes, int):
        raise TypeError(f"num_processes must be a positive int. Got num_processes="
                        f"{num_processes} of type {type(num_processes)}.")
    if not 0 <= process_id < num_processes:
        raise ValueError(f"process_id and num_processes must be nonnegative, with process_id "
                         f"< num_processes. Got process_id={process_id}, num_processes="
                         f"{num_processes}.")


def is_initialized() -> bool:
    """Whether `initialize` has connected this process (and `shutdown` has not run)."""
    return _runtime.is_connected()


def shutdown() -> None:
    """Leave the run: waits for the other processes to shut down too (up to
    `shutdown_timeout_seconds`); process 0 then stops the service. Also runs at exit."""
    _runtime.disconnect()


# ----------------------------------------------------------------------------- clusters
def detect_cluster(coordinator_address=None, num_processes=None, process_id=None,
                   local_device_ids=None, method=None, environ=None) -> tuple:
    """(coordinator_address, num_processes, process_id, local_device_ids), the ones not
    given read from a Slurm or Open MPI environment (`method`: "slurm" or "ompi" to pick
    one; None: the first found).

    >>> detect_cluster(environ={"OMPI_MCA_orte_hnp_uri": "4096.0;tcp://10.0.0.5:4000",
    ...     "OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_RANK": "1",
    ...     "OMPI_COMM_WORLD_LOCAL_RANK": "0"})
    ('10.0.0.5:61441', 2, 1, [0])
    """
    env = os.environ if environ is None else environ
    cluster = _pick_cluster(method, env)
    if cluster is None:
        return coordinator_address, num_processes, process_id, local_device_ids
    if coordinator_address is None:
        coordinator_address = cluster.coordinator_address(env, env.get("JAX_COORDINATOR_PORT"))
    if num_processes is None:
        num_processes = int(env[cluster.PROCESS_COUNT])
    if process_id is None:
        process_id = int(env[cluster.PROCESS_ID])
    if local_device_ids is None:       # one device per process, as on a GPU cluster
        local_device_ids = [int(env[cluster.LOCAL_PROCESS_ID])]
    return coordinator_address, num_processes, process_id, local_device_ids


def _pick_cluster(method, env):
    if method is None:
        return next((c for c in _CLUSTERS.values() if c.present(env)), None)
    if method not in _CLUSTERS:
        raise ValueError(f"cluster_detection_method={method!r} is not supported by jxkernel; "
                         f"use one of {sorted(_CLUSTERS)}, 'deactivate', or pass "
                         f"coordinator_address, num_processes and process_id yourself")
    if not _CLUSTERS[method].present(env):
        raise RuntimeError(f"cluster_detection_method={method!r}: this process does not run "
                           f"under {method} (its environment variables "
                           f"{_CLUSTERS[method].REQUIRED} are not all set)")
    return _CLUSTERS[method]


class _OpenMPI:
    """Open MPI's `mpirun`: the launcher's address is in its ORTE URI."""
    REQUIRED = ("OMPI_MCA_orte_hnp_uri",)
    PROCESS_COUNT, PROCESS_ID = "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"
    LOCAL_PROCESS_ID = "OMPI_COMM_WORLD_LOCAL_RANK"

    @classmethod
    def present(cls, env) -> bool:
        return all(v in env for v in cls.REQUIRED)

    @staticmethod
    def coordinator_address(env, port=None) -> str:
        # e.g. "1531576320.0;tcp://10.96.0.1,10.148.0.1:34911" or "...;tcp6://[fe80::1,...]:43370"
        uri = env["OMPI_MCA_orte_hnp_uri"]
        if port is None:      # job ids are multiples of 2**12
            port = int(uri.split(".", 1)[0]) // 2**12 % 2**12 + _PORT_RANGE_START
        found = re.search(r"tcp://(.+?)[,:]|tcp6://\[(.+?)[,\]]", uri)
        if found is None:
            raise RuntimeError(f"Could not parse coordinator IP address from Open MPI "
                               f"environment (OMPI_MCA_orte_hnp_uri={uri!r}).")
        return f"{found.group(1) or found.group(2)}:{port}"


class _Slurm:
    """Slurm's `srun`: the coordinator is the first host of the job step."""
    REQUIRED = ("SLURM_JOB_ID", "SLURM_STEP_NODELIST", "SLURM_NTASKS", "SLURM_PROCID",
                "SLURM_LOCALID")
    PROCESS_COUNT, PROCESS_ID, LOCAL_PROCESS_ID = "SLURM_NTASKS", "SLURM_PROCID", "SLURM_LOCALID"

    @classmethod
    def present(cls, env) -> bool:
        return all(v in env for v in cls.REQUIRED)

    @staticmethod
    def coordinator_address(env, port=None) -> str:
        if port is None:
            port = int(env["SLURM_JOB_ID"]) % 2**12 + _PORT_RANGE_START
        return f"{first_slurm_host(env['SLURM_STEP_NODELIST'])}:{port}"


def first_slurm_host(node_list: str) -> str:
    """The first host of a Slurm node list.

    >>> first_slurm_host("node[007-015,020],login1")
    'node007'
    """
    name, bracket, rest = re.match(r"([^,\[]*)(\[?)([^\]]*)", node_list).groups()
    return name + re.split(r"[,-]", rest)[0] if bracket else name


_CLUSTERS = {"ompi": _OpenMPI, "slurm": _Slurm}
