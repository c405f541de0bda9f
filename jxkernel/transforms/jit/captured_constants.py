"""JAX's warning when a jitted function's trace holds more bytes of constants (arrays it
closes over) than `jax_captured_constants_warn_bytes` (2 GB by default; -1: never): they go
into the compiled program, which is expensive. With `jax_captured_constants_report_frames`
(-1: every frame) it says where the five largest are used.

    >>> pprint_bytes(65536), pprint_bytes(0)
    ('65.54KB', '0.00B')
"""
from __future__ import annotations

import heapq
import math
import warnings

import numpy as np

from ...core.avals import abstract_token
from ...core.config import config
from ...core.source_info import user_stacklevel
from ...core.staging import is_ref
from ...core.ir import ClosedJaxpr, jaxpr_params
from ...core.source_info import creation_frames
from ...xla.array import is_plain


def pprint_bytes(num_bytes) -> str:
    """Bytes with a decimal prefix and two decimals, as JAX prints them."""
    prefixes = ("", "K", "M", "G", "T")
    if num_bytes <= 0:
        return "0.00B"
    exponent = min(math.floor(math.log(num_bytes, 1000)), len(prefixes) - 1)
    return f"{num_bytes / 1000 ** exponent:.2f}{prefixes[exponent]}B"


def check_captured_constants(closed: ClosedJaxpr) -> None:
    """Warn (UserWarning, JAX's words) if `closed`'s constants pass the threshold."""
    threshold = config.read("jax_captured_constants_warn_bytes")
    if threshold == -1:
        return
    sizes = [getattr(c, "nbytes", 0) for c in closed.consts]
    total = sum(sizes)
    if total < threshold:
        return
    message = (f"A large amount of constants were captured during lowering "
               f"({pprint_bytes(total)} total). If this is intentional, disable this warning "
               f"by setting JAX_CAPTURED_CONSTANTS_WARN_BYTES=-1. ")
    frames = config.read("jax_captured_constants_report_frames")
    if not frames:
        warnings.warn(message + "To obtain a report of where these constants were "
                                "encountered, set JAX_CAPTURED_CONSTANTS_REPORT_FRAMES=-1.",
                      stacklevel=user_stacklevel())
        return
    message += ("The subsequent report may be disabled by setting "
                f"JAX_CAPTURED_CONSTANTS_REPORT_FRAMES=0.\n\nLargest "
                f"{min(frames, len(closed.consts))} allocation(s):\n")
    largest = heapq.nlargest(5, zip(sizes, closed.jaxpr.constvars, closed.consts),
                             key=lambda t: t[0])
    for nbytes, var, const in largest:
        aval = var.aval      # (JAX's str_short: the dtype's whole name, `float32[128,128]`)
        shape = ",".join(map(str, aval.shape))
        message += (f"  Constant {type(const)}, {aval.dtype.name}[{shape}], "
                    f"{pprint_bytes(nbytes)} captured at:\n")
        for eqn in _readers(closed.jaxpr, var):
            where = creation_frames(eqn.source_info, frames if frames > 0 else 10 ** 6) \
                if eqn.source_info is not None else []
            text = "\n".join(str(f) for f in where) or "unknown"
            message += "    " + text.replace("\n", "\n    ") + "\n\n"
    warnings.warn(message, stacklevel=user_stacklevel())


def _readers(jaxpr, var):
    """The innermost equations reading `var` (into a call's jaxpr through its binder)."""
    for eqn in jaxpr.eqns:
        index = next((i for i, a in enumerate(eqn.invars) if a is var), None)
        if index is None:
            continue
        inner = [j.jaxpr if isinstance(j, ClosedJaxpr) else j for j in jaxpr_params(eqn.params)]
        inner = [j for j in inner if len(j.invars) == len(eqn.invars)]
        if not inner:
            yield eqn
        for j in inner:
            yield from _readers(j, j.invars[index])


# Closed-over constants of more bytes than this stay arguments of `main` (None: none do).
# JAX 0.10.2 (jax_use_simplified_jaxpr_constants off, its default) writes every one into the
# module as a stablehlo.constant, whatever its size (only warning past 2 GB, above); so does
# jxkernel up to 1 MiB. Past that its text costs more than JAX's (a hex string MLIR parses
# again), and XLA folds what reads it: a jit of `sin(x) * c + c[::-1]` compiled in about
# 0.5-0.9 s with a 16 MB `c` written in (JAX 0.4-0.55 s) and 4-5 s at 64 MB (JAX 2-3 s),
# 0.08 s and 0.2 s with `c` an argument; at 1 MB 40-60 ms (JAX 45-140 ms). Calls take the
# same time either way.
EMBED_MAX_BYTES = 1 << 20


def embedded(closed: ClosedJaxpr) -> dict:
    """{const index: host value} of `closed`'s constants a top-level program writes into its
    module, as JAX does (pipeline.lower's `embedded`): each Array on one device and each NumPy
    value or scalar of a NumPy dtype, and a token (a new one); a Ref (each call's value), a key
    array and an Array over several devices stay arguments."""
    out = {}
    for i, (c, v) in enumerate(zip(closed.consts, closed.jaxpr.constvars)):
        if v.aval is abstract_token:        # (a token: `stablehlo.create_token`, as JAX's)
            out[i] = c
            continue
        if is_ref(c) or not isinstance(getattr(v.aval, "dtype", None), np.dtype) or \
                not (is_plain(c) or isinstance(c, (np.ndarray, np.generic, int, float,
                                                   complex, bool))):
            continue
        if EMBED_MAX_BYTES is not None and getattr(c, "nbytes", 0) > EMBED_MAX_BYTES:
            continue
        out[i] = c
    return out
