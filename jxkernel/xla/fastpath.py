"""The compiled fast path's side in xla: the `Hit`s that jit's last hit and an eager
primitive's last run hold, and what the extension reads, given to it once (`connect`).

The extension itself (core/_fastpath.c) is built at install and loaded by core/native.py;
its entry points are chosen in the class bodies (`Primitive.bind`, Jitted's C base
`JitFunction`, `Array.block_until_ready`, Array's `+ - * /`). A `Hit` does a hit's check and call
in C; where the extension is off, `jit_hit` and `eager_hit` give None and the Python paths
in transforms/jit/function.py and xla/dispatch.py do the same work.

    >>> native is None or hasattr(native, "Hit")
    True
"""
from __future__ import annotations

import operator

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray
from ..core.config import config
from ..core.native import native
from ..core.primitive import impl_rules
from ..core.trace import _ctx, eval_trace
from .array import Array
from .deleted import Gone
from . import relayout
from .scalars import scalar_buffer

MISS = type("Miss", (), {"__repr__": lambda self: "MISS", "__slots__": ()})()  # Hit: no match


def connect(last_runs: dict) -> None:
    """Give the extension what its Hits and entry points read (xla/dispatch.py calls this
    with its `_last_run`); before it, every entry point calls its Python method."""
    if native is not None:
        native.setup(config=config, ctx=_ctx, eval_trace=eval_trace, miss=MISS,
                     array_type=Array, last_runs=last_runs, impl_rules=impl_rules,
                     gone_type=Gone, aval_type=ShapedArray, ndarray_type=np.ndarray)


def jit_hit(avals, where, generation, exe, finish, entry, kinds=None, consts=(), order=None,
            tree=None, flatten=None):
    """A `Hit` for a jit cache entry whose executable is plain (one device, no host callbacks;
    one that donates arguments deletes and marks them in C after each run, each with its
    reason from `donation_whys`), or None. `kinds`:
    per argument None (an Array), the Python scalar type taken there or NumPy data's dtype
    (scalars.scalar_kinds), for calls such as f(x, 2.0) and f(np.ones(3)); `consts`: the buffers
    of its closed-over constants, passed before the arguments; `order`: for a call with keyword
    arguments, per argument its index in the call's stack (jit.cache.c_last_hit); `tree`: for
    arguments that are containers, their structure (a PyTreeDef), which the Hit flattens them
    with `flatten` to check. Arguments the program does not take (`exe.kept`) are checked, and
    not passed."""
    donating = getattr(exe, "plain_donating", False)
    if native is None or not (getattr(exe, "plain", False) or donating) or relayout.watching:
        return None            # (buffers of other layouts than row-major: each run checks)
    c = len(consts)
    kept = exe.kept or range(c + len(avals))           # (its argument i: the call's kept[i])
    donate = tuple(kept[i] - c for i in exe.donated) if donating else None
    unused = None
    if exe.kept is not None:          # the program takes some: it is given those alone
        consts = [b for i, b in enumerate(consts) if i in exe.kept]
        unused = tuple(i for i in range(len(avals)) if c + i not in exe.kept)
    if donate and (min(donate) < 0 or kinds and any(kinds[i] is not None for i in donate)):
        return None        # (a constant, or a Python scalar, whose buffer is cached: Python's)
    return native.Hit(tuple(avals), where, generation, exe._execute, exe.handlers,
                      _as_inputs(exe.out_avals, avals), finish, entry, None, True, kinds,
                      scalar_buffer if kinds is not None else None, tuple(consts), order=order,
                      donate=donate, whys=exe.donation_whys() if donating else None,
                      executable=exe if donating else None, tree=tree, flatten=flatten,
                      unused=unused)


def _as_inputs(out_avals, avals) -> tuple:
    """The output avals, each one equal to an input's that input's object: a result passed
    back in (x = f(x), a training step's state) then matches by identity in C, not through
    ShapedArray.__eq__ (a Python call per argument, about 0.5 µs)."""
    inputs = {}
    for a in avals:                  # (by hash: a tree's hundred leaves stay cheap)
        inputs.setdefault(a, a)
    return tuple(inputs.get(out, out) for out in out_avals)


def eager_hit(avals, where, generation, exe, params, single):
    """A `Hit` for an eager primitive's last run (`single`: return the one output), or None."""
    if native is None or not avals or not getattr(exe, "plain", False) or relayout.watching:
        return None
    return native.Hit(tuple(avals), where, generation, exe._execute, exe.handlers,
                      tuple(exe.out_avals), operator.itemgetter(0) if single else None, None,
                      params, False, alike=_alike(avals))


def _alike(avals) -> int:
    """For Array's operators in C: 2 for two operands of one inexact type, 1 of one integer
    type (not bool), else 0 (jnp's promotion would change something, or nothing is known)."""
    if len(avals) != 2 or avals[0] != avals[1]:
        return 0
    dtype = avals[0].dtype
    return 2 if dtype in dtypes.INEXACT_DTYPES else 1 if dtype in dtypes.INT_DTYPES else 0
