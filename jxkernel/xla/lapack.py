"""LAPACK on CPU: jaxlib's typed-FFI kernels (potrf, geqrf, orgqr, syevd, ...) as XLA custom
calls. They exist only once registered with XLA, which `ensure_registered()` does the first
time a lowering emits one (so importing jxkernel costs nothing).

`_lapack.initialize()` must run before the first call: it loads the LAPACK routines from
SciPy's Cython bindings; without it a custom call segfaults.
"""
from __future__ import annotations

import threading

from .client import xc

_lock = threading.Lock()
_registered = False


def ensure_registered() -> None:
    """Register jaxlib's LAPACK custom-call targets with XLA (once per process)."""
    global _registered
    if _registered:
        return
    with _lock:
        if _registered:
            return
        from jaxlib import lapack
        lapack._lapack.initialize()
        for platform, targets in lapack.registrations().items():
            for name, fn, api_version in targets:
                xc.register_custom_call_target(name, fn, platform=platform,
                                               api_version=api_version)
        _registered = True


def prefix(dtype) -> str:
    """LAPACK's type letter: s, d, c, z for float32, float64, complex64, complex128."""
    import numpy as np
    letters = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
               np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}
    try:
        return letters[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"LAPACK has no routines for {np.dtype(dtype).name}; use float32, "
                        f"float64, complex64 or complex128") from None
