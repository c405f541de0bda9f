"""What jaxlib 0.10.2's distributed runtime offers (docs/jaxlib.md §12), probed in this
process with a one-process "cluster": the coordination service and client, the key-value
store, barriers, and a CPU client built on them with gloo collectives. (Several processes:
tests/xla/test_distributed.py.)"""
import socket

import pytest

from jxkernel.xla.client import xc

_xla = xc._xla


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def runtime():
    port = _free_port()
    service = _xla.get_distributed_runtime_service(f"[::]:{port}", 1, heartbeat_timeout=5,
                                                   shutdown_timeout=5)
    client = _xla.get_distributed_runtime_client(f"127.0.0.1:{port}", 0, init_timeout=10,
                                                 heartbeat_timeout=5, shutdown_timeout=5)
    client.connect()
    yield client
    client.shutdown()
    service.shutdown()


def test_the_key_value_store_holds_strings_and_bytes_and_times_out(runtime):
    runtime.key_value_set("probe/a", "1")
    runtime.key_value_set_bytes("probe/b", b"\x00\xff")
    assert runtime.blocking_key_value_get("probe/a", 1000) == "1"
    assert runtime.blocking_key_value_get_bytes("probe/b", 1000) == b"\x00\xff"
    assert runtime.key_value_dir_get_bytes("probe/") == [("probe/a", b"1"), ("probe/b", b"\x00\xff")]
    runtime.key_value_delete("probe/a")
    with pytest.raises(xc._xla.JaxRuntimeError, match="DEADLINE_EXCEEDED: GetKeyValue"):
        runtime.blocking_key_value_get("probe/a", 100)
    with pytest.raises(xc._xla.JaxRuntimeError, match="NOT_FOUND"):
        runtime.key_value_try_get("probe/a")
    with pytest.raises(xc._xla.JaxRuntimeError, match="ALREADY_EXISTS"):
        runtime.key_value_set("probe/b", "again")
    runtime.key_value_set("probe/b", "again", allow_overwrite=True)
    assert runtime.key_value_try_get("probe/b") == "again"
    assert (runtime.key_value_increment("probe/n", 2), runtime.key_value_increment("probe/n", 3)) == (2, 5)
    assert list(runtime.get_live_nodes([0])) == [0]


def test_a_barrier_of_one_process_passes_and_a_cpu_client_spans_the_nodes(runtime):
    runtime.wait_at_barrier("probe/barrier", 1000)
    collectives = _xla.make_gloo_tcp_collectives(distributed_client=runtime)
    client = xc.make_cpu_client(asynchronous=True, distributed_client=runtime, node_id=0,
                                num_nodes=1, collectives=collectives, num_devices=2)
    assert [d.id for d in client.devices()] == [0, 1]
    assert [d.process_index for d in client.devices()] == [0, 0]
    assert client.process_index() == 0 and client.local_devices() == client.devices()
