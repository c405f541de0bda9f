"""`print_environment_info`: versions, devices and the JAX_/XLA_/JXKERNEL_ environment
variables, for bug reports (JAX's jax._src.environment_info). Re-exported by jxkernel/__init__.
"""
from __future__ import annotations

import os
import platform
import sys

import numpy as np

from ..core.native import STATE as FASTPATH_STATE
from ..xla import client as _client
from ..xla import relayout

__all__ = ["print_environment_info", "issues_address"]


def _version(package: str) -> str:
    import importlib.metadata    # here, not at the top: it loads email, zipfile, csv, ...
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def issues_address() -> str:
    """Where to report a bug: the `Issues` address in the installed package's metadata
    (pyproject.toml's [project.urls], the one place it is written), '' where it has none.

    >>> issues_address().endswith("/issues")
    True
    """
    import importlib.metadata
    try:
        urls = importlib.metadata.metadata("jxkernel").get_all("Project-URL") or []
    except importlib.metadata.PackageNotFoundError:
        return ""
    for entry in urls:                    # "Issues, https://github.com/.../issues"
        label, _, url = entry.partition(",")
        if label.strip().lower() == "issues":
            return url.strip()
    return ""


def _fast_path() -> str:
    """The compiled fast path's state (core/native.py's STATE), and where it is built but
    makes no jit hits any more, why (xla/relayout.py: a layout other than row-major)."""
    if relayout.watching and FASTPATH_STATE.startswith("on"):
        return f"{FASTPATH_STATE}; jit calls take the Python path since {relayout.started_by}"
    return FASTPATH_STATE


def print_environment_info(return_string: bool = False) -> str | None:
    """Versions, devices and JAX_/XLA_/JXKERNEL_ environment variables, for bug reports.

    >>> print_environment_info(return_string=True).splitlines()[0]
    'jxkernel: 0.1.0'
    """
    devices = _client.devices()
    info = "\n".join([
        # version.py sits at the package root, above this layer: read it from the root
        f"jxkernel: {sys.modules['jxkernel'].__version__}",
        f"jaxlib: {_version('jaxlib')}",
        f"numpy:  {np.__version__}",
        f"python: {sys.version.replace(chr(10), ' ')}",
        f"device info: {devices[0].device_kind}-{len(devices)}, "
        f"{len(_client.local_devices())} local devices",
        f"process_count: {_client.process_count()}",
        f"platform: {platform.uname()}",
        f"fast path: {_fast_path()}"])        # the compiled cache hit: on, or why not
    for key, value in os.environ.items():
        if key.startswith(("JAX_", "XLA_", "JXKERNEL_")):
            info += f"\n{key}={value}"
    if return_string:
        return info
    print(info)
    return None
