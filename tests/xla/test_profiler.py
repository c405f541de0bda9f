"""jax.profiler on jaxlib's profiler: traces TensorBoard and Perfetto read, annotations,
device memory profiles; and the jaxlib facts it rests on (docs/jaxlib.md §11)."""
import gzip
import json
import socket
import threading
import urllib.request

import numpy as np
import pytest
from doc_examples import check_docstring_examples

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import profiler
from jxkernel.xla import profiler as xla_profiler


def protobuf_fields(data: bytes) -> list:
    """(field number, wire type, value) of each top-level field of a protobuf message; raises
    on bytes that are not one (a varint running off the end, a length past the end)."""
    fields, i = [], 0

    def varint():
        nonlocal i
        value, shift = 0, 0
        while True:
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    while i < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            value = varint()
        elif wire == 2:
            n = varint()
            value, i = data[i:i + n], i + n
        elif wire in (1, 5):
            n = 8 if wire == 1 else 4
            value, i = data[i:i + n], i + n
        else:
            raise ValueError(f"wire type {wire} at byte {i}")
        if i > len(data) or number == 0:
            raise ValueError(f"truncated or invalid field {number} at byte {i}")
        fields.append((number, wire, value))
    return fields


def pprof_strings(profile: bytes) -> list:
    """The string table (field 6) of a pprof Profile message."""
    return [v.decode() for number, wire, v in protobuf_fields(profile) if number == 6]


def trace_events(path) -> list:
    with gzip.open(path, "rb") as f:
        return json.load(f)["traceEvents"]


# ------------------------------------------------------------------ jaxlib's contract
def test_jaxlib_profiler_session_writes_tensorboard_files_with_trace_me_events(tmp_path):
    options = xla_profiler.ProfileOptions()
    assert (options.host_tracer_level, options.python_tracer_level) == (2, 1)
    assert not xla_profiler.TraceMe.is_enabled()
    session = xla_profiler.new_session()
    assert xla_profiler.TraceMe.is_enabled()
    with xla_profiler.TraceMe("contract_event", answer=42):
        pass
    session.stop_and_export(str(tmp_path))
    assert not xla_profiler.TraceMe.is_enabled()
    run, = (tmp_path / "plugins" / "profile").iterdir()
    host = socket.gethostname()
    assert sorted(p.name for p in run.iterdir()) == [f"{host}.trace.json.gz",
                                                     f"{host}.xplane.pb"]
    event, = [e for e in trace_events(run / f"{host}.trace.json.gz")
              if e.get("name") == "contract_event"]
    assert event["ph"] == "X" and event["args"] == {"answer": "42"}   # JSON args are strings
    xplane = (run / f"{host}.xplane.pb").read_bytes()
    assert {n for n, _, _ in protobuf_fields(xplane)} <= {1, 2, 3, 4}  # XSpace's fields
    data = xla_profiler.ProfileData.from_file(str(run / f"{host}.xplane.pb"))
    host_events = [e for plane in data.planes if plane.name == "/host:CPU"
                   for line in plane.lines for e in line.events if e.name == "contract_event"]
    assert [dict(e.stats) for e in host_events] == [{"answer": 42}]   # typed in the xplane


@pytest.mark.xla_only("XLA compiler")    # jaxlib's profiler
def test_jaxlib_heap_profile_is_an_uncompressed_pprof_message():
    x = jnp.arange(5.0) + 1
    raw = jax.xla.client.get_backend().client.heap_profile()
    assert raw[:2] != b"\x1f\x8b"                      # not gzipped: we compress it
    assert {"allocations", "space", "bytes"} <= set(pprof_strings(raw))
    x.block_until_ready()


# ------------------------------------------------------------------ jxkernel.profiler
@pytest.mark.xla_only("XLA compiler")    # jaxlib's profiler
def test_trace_writes_tensorboard_and_perfetto_files_holding_our_annotations(tmp_path):
    f = jax.jit(lambda v: jnp.sin(v) * 2)

    @profiler.annotate_function
    def host_work(n):
        return n + 1

    @profiler.TraceAnnotation("decorated_step", phase="eval")
    def decorated(v):
        return f(v)

    with profiler.trace(tmp_path, create_perfetto_trace=True):
        with profiler.TraceAnnotation("outer_block", batch=3):
            f(jnp.ones(4)).block_until_ready()
        for step in range(2):
            with profiler.StepTraceAnnotation("train", step_num=step):
                host_work(step)
        np.testing.assert_array_equal(decorated(jnp.zeros(2)), [0.0, 0.0])
    run = profiler.latest_run(tmp_path)
    host = socket.gethostname()
    assert sorted(p.name for p in run.iterdir()) == [
        "perfetto_trace.json.gz", f"{host}.trace.json.gz", f"{host}.xplane.pb"]
    assert (run / f"{host}.xplane.pb").stat().st_size > 1000
    with gzip.open(run / "perfetto_trace.json.gz", "rb") as fp:
        perfetto = json.load(fp)
    assert "metadata" not in perfetto and "traceEvents" in perfetto    # what Perfetto accepts
    named = {}
    for e in perfetto["traceEvents"]:
        named.setdefault(e.get("name"), []).append(e.get("args", {}))
    assert named["outer_block"] == [{"batch": "3"}]
    assert named["train"] == [{"step_num": "0"}, {"step_num": "1"}]
    assert named["decorated_step"] == [{"phase": "eval"}]
    assert len(named["test_trace_writes_tensorboard_and_perfetto_files_holding_our_"
                     "annotations.<locals>.host_work"]) == 2
    assert "CommonPjRtLoadedExecutable::ExecuteHelperOnSingleDevice" in named   # XLA's runs
    original = trace_events(run / f"{host}.trace.json.gz")
    assert len(original) == len(perfetto["traceEvents"])


def test_one_trace_at_a_time_and_stop_needs_a_start(tmp_path):
    with pytest.raises(RuntimeError, match="^No profile started$"):
        profiler.stop_trace()
    profiler.start_trace(tmp_path)
    with pytest.raises(RuntimeError, match="Profile has already been started"):
        profiler.start_trace(tmp_path / "other")
    profiler.stop_trace()
    assert not (tmp_path / "other").exists()
    with pytest.raises(RuntimeError, match="^No profile started$"):
        profiler.stop_trace()
    with pytest.raises(ZeroDivisionError):        # the trace stops when the block raises
        with profiler.trace(tmp_path / "raised"):
            1 / 0
    assert len(list((tmp_path / "raised" / "plugins" / "profile").iterdir())) == 1
    profiler.start_trace(tmp_path / "again")      # so a new one may start
    profiler.stop_trace()


def test_perfetto_link_serves_the_trace_once(tmp_path):
    path = tmp_path / "perfetto_trace.json.gz"
    path.write_bytes(gzip.compress(b'{"traceEvents": []}'))
    fetched, urls = [], []

    def fetch_in_background(message):
        urls.append(message)
        url = message.split("url=")[1]
        threading.Thread(target=lambda: fetched.append(
            urllib.request.urlopen(url, timeout=10).read())).start()

    profiler.serve_to_perfetto(path, port=0, announce=fetch_in_background)
    assert urls[0].startswith("Open URL in browser: https://ui.perfetto.dev/#!/?url="
                              "http://127.0.0.1:")
    assert urls[0].endswith("/perfetto_trace.json.gz")
    deadline = threading.Event()
    for _ in range(100):
        if fetched:
            break
        deadline.wait(0.05)
    assert fetched == [path.read_bytes()]


def allocate_for_the_memory_profile():
    return jnp.arange(1000.0) + 1


@pytest.mark.xla_only("XLA compiler")    # jaxlib's profiler
def test_device_memory_profile_is_gzipped_pprof_naming_allocations(tmp_path):
    kept = allocate_for_the_memory_profile()
    profile = profiler.device_memory_profile()
    assert profile[:2] == b"\x1f\x8b"
    strings = pprof_strings(gzip.decompress(profile))
    assert {"allocations", "space", "bytes", "buffer", "cpu:0"} <= set(strings)
    assert "allocate_for_the_memory_profile" in strings      # the Python allocation site
    assert __file__ in strings
    profiler.save_device_memory_profile(tmp_path / "mem.prof")
    assert pprof_strings(gzip.decompress((tmp_path / "mem.prof").read_bytes()))[:3] == \
        strings[:3]
    kept.block_until_ready()


def test_profiler_server_one_at_a_time():
    with pytest.raises(ValueError, match="No active profiler server"):
        profiler.stop_server()
    server = profiler.start_server(0)
    assert type(server).__name__ == "ProfilerServer"
    with pytest.raises(ValueError, match="Only one profiler server"):
        profiler.start_server(0)
    del server
    profiler.stop_server()
    with pytest.raises(ValueError, match="No active profiler server"):
        profiler.stop_server()


def test_profiler_loads_lazily_and_has_jax_names():
    assert set(profiler.__all__) == {
        "ProfileData", "ProfileEvent", "ProfileOptions", "ProfilePlane", "StepTraceAnnotation",
        "TraceAnnotation", "annotate_function", "device_memory_profile",
        "save_device_memory_profile", "start_server", "start_trace", "stop_server",
        "stop_trace", "trace"}
    assert jax.profiler is profiler


@pytest.mark.xla_only("XLA compiler")    # jaxlib's profiler
def test_docstring_examples():
    check_docstring_examples("jxkernel.profiler")
    check_docstring_examples("jxkernel.xla.profiler")
