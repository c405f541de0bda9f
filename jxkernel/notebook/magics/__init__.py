"""The magics, one class per topic as IPython's own (`IPython.core.magics`: ExecutionMagics,
NamespaceMagics, ...), each a `@magics_class` that `load_ipython_extension` registers:

    jit.py          JitMagics         %%jit, %jaxpr / %%jaxpr (--diff), %hlo, %jxtraced
    inspection.py   InspectionMagics  %explain, %jxcompiles, %jxnotes, %jxguard, %jxreport
    timing.py       TimingMagics      %timeit / %%timeit (--dispatch, --phases)
    session.py      SessionMagics     %jxbackend, %jxmemory, %jxbugs

Each magic is documented by its docstring and `magic_arguments` (so `%%jit?` is its help);
base.py holds what they share (the extension's state, reading `f(x)` on a magic's line).
"""
from __future__ import annotations

from .inspection import InspectionMagics
from .jit import JitMagics
from .session import SessionMagics
from .timing import TimingMagics

MAGIC_CLASSES = (JitMagics, InspectionMagics, TimingMagics, SessionMagics)

__all__ = ["MAGIC_CLASSES", "JitMagics", "InspectionMagics", "TimingMagics", "SessionMagics"]
