"""`jax.profiler`: traces for TensorBoard and Perfetto, annotations, device memory profiles.

    >>> import jxkernel as jax, jxkernel.numpy as jnp, tempfile
    >>> logs = tempfile.mkdtemp()
    >>> with jax.profiler.trace(logs, create_perfetto_trace=True):
    ...     with jax.profiler.TraceAnnotation("my_step"):
    ...         y = jnp.sin(jnp.ones(3)).block_until_ready()
    >>> (latest_run(logs) / "perfetto_trace.json.gz").exists()
    True

writes `logs/plugins/profile/<date_time>/<host>.xplane.pb` (open the folder `logs` with
TensorBoard's profile plugin) and, beside it, `<host>.trace.json.gz` and
`perfetto_trace.json.gz` (drop it on https://ui.perfetto.dev). The collecting is jaxlib's
(jxkernel/xla/profiler.py): host threads, Python calls, XLA's compile passes and executions.
"""
from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import json
import os
import pathlib
import socketserver
import threading

from ..xla import client as _client
from ..xla import profiler as _xla_profiler
from ..xla.profiler import ProfileData, ProfileEvent, ProfileOptions, ProfilePlane  # noqa: F401

__all__ = ["ProfileData", "ProfileEvent", "ProfileOptions", "ProfilePlane",
           "StepTraceAnnotation", "TraceAnnotation", "annotate_function",
           "device_memory_profile", "save_device_memory_profile", "start_server",
           "start_trace", "stop_server", "stop_trace", "trace"]

PERFETTO_PORT = 9001          # the port ui.perfetto.dev fetches traces from


class _TraceState:
    """The one trace that may run at a time, and what to write when it stops."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.session, self.log_dir = None, None
        self.perfetto_trace = self.perfetto_link = False


_state = _TraceState()
_server: list = []            # the running profiler server, if any


# ------------------------------------------------------------------ traces
def start_trace(log_dir, create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False,
                profiler_options: ProfileOptions | None = None) -> None:
    """Start collecting a trace, written to `log_dir` by `stop_trace()`; one at a time.

    `create_perfetto_trace` also writes `perfetto_trace.json.gz`; `create_perfetto_link`
    does too, then serves it to https://ui.perfetto.dev and waits until it is fetched.
    """
    with _state.lock:
        if _state.session is not None:
            raise RuntimeError("Profile has already been started. Only one profile may be run "
                               "at a time.")
        _client.get_backend()           # the default backend's devices must be in the trace
        _xla_profiler.note_versions()
        _state.session = _xla_profiler.new_session(profiler_options)
        _state.log_dir = os.fspath(log_dir)
        _state.perfetto_trace = create_perfetto_trace or create_perfetto_link
        _state.perfetto_link = create_perfetto_link


def stop_trace() -> None:
    """Stop the running trace and write it to the `log_dir` given to `start_trace`."""
    with _state.lock:
        if _state.session is None:
            raise RuntimeError("No profile started")
        session, log_dir = _state.session, _state.log_dir
        perfetto_trace, perfetto_link = _state.perfetto_trace, _state.perfetto_link
        _state.reset()
        session.stop_and_export(log_dir)
        _xla_profiler.clear_metadata()
        if perfetto_trace:
            path = write_perfetto_trace(latest_run(log_dir))
            if perfetto_link:
                serve_to_perfetto(path)


@contextlib.contextmanager
def trace(log_dir, create_perfetto_link=False, create_perfetto_trace=False,
          profiler_options=None):
    """``with trace(log_dir):`` collects a trace of the block (see `start_trace`)."""
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


def latest_run(log_dir) -> pathlib.Path:
    """The newest run folder under `log_dir/plugins/profile` (one per trace, named by time)."""
    runs = list((pathlib.Path(log_dir).absolute() / "plugins" / "profile").iterdir())
    return max(runs, key=os.path.getmtime)


def write_perfetto_trace(run: pathlib.Path) -> pathlib.Path:
    """`run/perfetto_trace.json.gz`: the run's trace.json without its `metadata` entry,
    which Perfetto's JSON importer does not accept."""
    found = list(run.glob("*.trace.json.gz"))
    if len(found) != 1:
        raise ValueError(f"Invalid trace folder: {run} holds {len(found)} *.trace.json.gz files; "
                         f"expected one")
    with gzip.open(found[0], "rb") as f:
        events = json.load(f)
    events.pop("metadata", None)
    path = run / "perfetto_trace.json.gz"
    with gzip.open(path, "wb") as f:
        f.write(json.dumps(events).encode("utf-8"))
    return path


class _OneFileHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the folder of the trace to ui.perfetto.dev (another origin: CORS allowed)."""

    def end_headers(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def do_GET(self):
        self.server.last_path = self.path
        super().do_GET()

    def log_message(self, *args):       # no request lines on stderr
        pass


def serve_to_perfetto(path, port: int = PERFETTO_PORT, announce=print) -> None:
    """Serve `path` on 127.0.0.1:`port` until it has been fetched once, after announcing the
    ui.perfetto.dev link that loads it."""
    path = pathlib.Path(path)
    handler = functools.partial(_OneFileHandler, directory=str(path.parent))
    socketserver.TCPServer.allow_reuse_address = True
    with socketserver.TCPServer(("127.0.0.1", port), handler) as httpd:
        httpd.last_path = None
        real_port = httpd.server_address[1]
        announce(f"Open URL in browser: https://ui.perfetto.dev/#!/?url="
                 f"http://127.0.0.1:{real_port}/{path.name}")
        while httpd.last_path != "/" + path.name:
            httpd.handle_request()


# ------------------------------------------------------------------ annotations
class TraceAnnotation(_xla_profiler.TraceMe):
    """An event named `name` (with `kwargs` as its arguments) on the trace's timeline,
    spanning a ``with`` block, or every call of a function it decorates.

    >>> with TraceAnnotation("load", batch=3):
    ...     pass
    """

    def __init__(self, name: str, **kwargs):
        super().__init__(name, **kwargs)
        self._name, self._kwargs = name, kwargs

    def __call__(self, fun):
        @functools.wraps(fun)
        def annotated(*args, **kwargs):
            with type(self)(self._name, **self._kwargs):
                return fun(*args, **kwargs)
        return annotated


class StepTraceAnnotation(TraceAnnotation):
    """A training step's annotation: ``StepTraceAnnotation("train", step_num=i)``; the
    profiler's step analysis groups events by these."""

    def __init__(self, name: str, **kwargs):
        super().__init__(name, _r=1, **kwargs)
        self._kwargs = kwargs


def annotate_function(func, name: str | None = None, **decorator_kwargs):
    """Decorate `func` so that each call is a trace event named `name` (default: its
    qualified name); ``functools.partial(annotate_function, name=...)`` names it."""
    name = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with TraceAnnotation(name, **decorator_kwargs):
            return func(*args, **kwargs)
    return wrapper


# ------------------------------------------------------------------ memory
def device_memory_profile(backend: str | None = None) -> bytes:
    """The device allocations alive now, as gzipped pprof protobuf bytes (`pprof -http :8080
    FILE` shows them)."""
    return _xla_profiler.heap_profile(backend)


def save_device_memory_profile(filename, backend: str | None = None) -> None:
    """Write `device_memory_profile(backend)` to `filename`."""
    profile = device_memory_profile(backend)
    with open(filename, "wb") as f:
        f.write(profile)


# ------------------------------------------------------------------ server
def start_server(port: int):
    """Start jaxlib's profiler server on `port`, for TensorBoard's "capture profile"."""
    if _server:
        raise ValueError("Only one profiler server can be active at a time.")
    _client.get_backend()
    _server.append(_xla_profiler.start_server(port))
    return _server[0]


def stop_server() -> None:
    """Stop the server `start_server` started (dropping it shuts it down)."""
    if not _server:
        raise ValueError("No active profiler server.")
    _server.clear()
