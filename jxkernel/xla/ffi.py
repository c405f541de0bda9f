"""jaxlib's side of jax.ffi: registering custom-call targets, types and batch partitioning
with XLA, and where jaxlib keeps the XLA FFI headers (jxkernel/ffi.py is the public module).

    >>> os.path.isdir(include_dir())
    True
"""
from __future__ import annotations

import os

import jaxlib

from .client import xc


def register_ffi_target(name: str, fn, platform: str = "cpu", api_version: int = 1,
                        **kwargs) -> None:
    """Register `fn` (a PyCapsule of the handler, or a dict of them by FFI stage) as the
    custom-call target `name`: api_version 1 for the typed FFI, 0 for the older ABI."""
    return xc.register_custom_call_target(name, fn, platform, api_version, **kwargs)


def register_ffi_type(name: str, type_registration, platform: str = "cpu") -> None:
    """Register a user type for the typed FFI (type_id and optional type_info capsules)."""
    return xc.register_custom_type(name, type_registration, platform=platform)


def register_ffi_type_id(name: str, obj, platform: str = "cpu") -> None:
    """Gone with jaxlib 0.8 (as JAX 0.10.2 says): use register_ffi_type."""
    raise ValueError("register_ffi_type_id is not supported after jaxlib version 381.")


def register_ffi_target_as_batch_partitionable(name: str) -> None:
    """Let XLA partition the target `name` along its batch dimensions."""
    xc.register_custom_call_as_batch_partitionable(name)


def include_dir() -> str:
    """The folder of the XLA FFI C++ headers that jaxlib ships (for building handlers)."""
    return os.path.join(os.path.dirname(os.path.abspath(jaxlib.__file__)), "include")
