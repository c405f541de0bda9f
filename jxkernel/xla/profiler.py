"""jaxlib's profiler, the only place jxkernel.profiler reaches it (facts: docs/jaxlib.md §11).

A `ProfilerSession` starts collecting when made; `stop_and_export(log_dir)` writes the run to
`log_dir/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.xplane.pb` and `<host>.trace.json.gz`,
where TensorBoard's profile plugin looks. `TraceMe(name, **metadata)` is the annotation: a
context manager recorded only while a session runs.

    >>> import tempfile
    >>> session = new_session()
    >>> with TraceMe("my_step", step_num=1):
    ...     pass
    >>> session.stop_and_export(tempfile.mkdtemp())
"""
from __future__ import annotations

import gzip

from jaxlib import _profiler
# Importing _profile_data registers ProfileData with nanobind: without it a session's
# stop_and_get_profile_data() raises "Unable to convert function return value".
from jaxlib._profile_data import ProfileData, ProfileEvent, ProfilePlane  # noqa: F401
from jaxlib._profiler import ProfileOptions, ProfilerServer, TraceMe  # noqa: F401

from . import client


def new_session(options: ProfileOptions | None = None):
    """A started jaxlib ProfilerSession; every started backend shows up in it."""
    return _profiler.ProfilerSession(options if options is not None else ProfileOptions())


def note_versions() -> None:
    """Record jaxlib's and each started backend's version in the session's metadata."""
    from jaxlib import version
    _profiler.clear_metadata()
    _profiler.set_metadata("jaxlib_version", version.__version__)
    for backend in client.backends().values():
        _profiler.set_metadata(f"{backend.platform}_version", backend.platform_version)


def clear_metadata() -> None:
    _profiler.clear_metadata()


def start_server(port: int) -> ProfilerServer:
    """jaxlib's profiler server (gRPC) on `port`; it runs while the returned object lives."""
    return _profiler.start_server(port)


def heap_profile(platform: str | None = None) -> bytes:
    """The live device allocations of `platform`'s backend as a gzipped pprof protobuf.

    >>> heap_profile()[:2]
    b'\\x1f\\x8b'
    """
    return gzip.compress(client.get_backend(platform).client.heap_profile())
