"""The two ways a call is dispatched, for the tests that run each case on both: the compiled
fast path (core/_fastpath.c; XLA's executables only, the NumPy backend's take the Python
path) and the Python path, every remembered hit forgotten before and after. Import `path`
into a test module to make it an autouse fixture there."""
import gc
import os
import sys

import pytest

import jxkernel
from jxkernel.core.config import config
from jxkernel.core.native import STATE
from jxkernel.xla import dispatch, fastpath


def forget_hits():
    """Drop every eager last run and make every jit's held hits stale (the executables stay)."""
    dispatch._fast.clear()
    dispatch._last_run.clear()
    config._note_generation()


@pytest.fixture(autouse=True, params=[pytest.param("compiled", marks=pytest.mark.xla_only(
    "XLA compiler")), "python"])
def path(request, monkeypatch):
    if request.param == "python":
        monkeypatch.setattr(fastpath, "native", None)
    elif fastpath.native is None:
        pytest.skip(f"the fast path is {STATE}")
    forget_hits()
    yield request.param
    forget_hits()


# run by Python's garbage collector whenever it runs, not by the call (xla/client.py's hook
# giving jaxlib its queued objects back, as JAX's): a collection may fall inside any call
_GC_HOOKS = {"_collect_jaxlib_garbage"}


def python_frames(call) -> list:
    """The names of jxkernel's Python functions `call()` runs (C functions are not seen; nor
    the garbage collector's hooks and finalizers: no collection runs inside the call, which in
    a long run fell there and ran jxkernel's code that the call does not)."""
    seen, ours = [], os.path.dirname(jxkernel.__file__)
    collecting = gc.isenabled()
    gc.disable()
    sys.setprofile(lambda frame, event, arg: seen.append(frame.f_code.co_name)
                   if event == "call" and frame.f_code.co_filename.startswith(ours)
                   and frame.f_code.co_name not in _GC_HOOKS else None)
    try:
        call()
    finally:
        sys.setprofile(None)
        if collecting:
            gc.enable()
    return seen
