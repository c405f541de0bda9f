"""Checks on the compiled program, not only its value: what a JAX learner must learn to see.

An exercise's test calls these after the values are right; each raises `NotYet` saying in
plain words what it saw and what to change:

    expect_compiles_at_most(events, 5, "bucketed_sum", fix)   # "compiled 16 times: f32[1], ..."
    expect_traced_loop(f, args, "running_max", fix)            # the jaxpr has a scan or while
    expect_no_host_transfer_in_loop(f, args, "train", fix)     # no callback to Python per step
    expect_peak_memory_below(f, args, n_bytes, "step", fix)    # XLA's memory analysis

`compilations(run)` gives the compile events `run()` caused (jxkernel's compile log). The
checks' own compiles (the memory analysis) stay out of the learner's compile log.

    >>> import jxkernel as jax, jxkernel.numpy as jnp
    >>> f = jax.jit(lambda x: jnp.sum(x))
    >>> events = compilations(lambda: [f(jnp.ones(n)) for n in (3, 5, 3)])
    >>> expect_compiles_at_most(events, 1, "f", "Pad to one length.")
    Traceback (most recent call last):
    jxkernel.notebook.workshop.NotYet: f compiled 2 times for these calls: f32[3], f32[5]; at most 1 is the goal. Pad to one length.
"""
from __future__ import annotations

import collections

from ...core import compile_record
from ...core.ir import ClosedJaxpr, jaxpr_params
from ...transforms.jit import jit
from ...transforms.make_jaxpr import make_jaxpr
from . import NotYet

LOOPS = ("scan", "while")
CALLBACKS = ("debug_callback", "debug_print", "pure_callback", "io_callback")


def compilations(run) -> list:
    """The compile events (jxkernel.compile_log) that calling `run()` caused: compilations,
    not retraces of a body or jit inside another program (those compile nothing)."""
    before = compile_record.last_seq()
    run()
    return [e for e in compile_record.events_since(before + 1) if e.compiled]


def _signature(event) -> str:
    avals = [aval for _, aval in event.signature]
    return avals[0] if len(avals) == 1 else f"({', '.join(avals)})"


def expect_compiles_at_most(events, most: int, what: str, fix: str = "") -> None:
    """At most `most` of `events` (from `compilations`): "compiles once across these shapes"
    is `most=1`. Says how many compiled, and for which signatures."""
    if len(events) <= most:
        return
    shown = [_signature(e) for e in events]
    listed = ", ".join(shown[:6]) + (", ..." if len(shown) > 6 else "")
    raise NotYet(f"{what} compiled {len(events)} times for these calls: {listed}; at most "
                 f"{most} is the goal. {fix}".strip())


def _walk(jaxpr, inside: tuple = ()):
    """(equation, the loop primitives around it) for every equation, nested ones included."""
    for eqn in jaxpr.eqns:
        yield eqn, inside
        here = inside + ((eqn.primitive.name,) if eqn.primitive.name in LOOPS else ())
        for sub in jaxpr_params(eqn.params):
            yield from _walk(sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub, here)


def _counts(jaxpr) -> str:
    common = collections.Counter(e.primitive.name for e in jaxpr.eqns).most_common(3)
    return ", ".join(f"{name} ×{n}" for name, n in common)


def expect_traced_loop(f, args, what: str, fix: str = "", loops=LOOPS) -> None:
    """`f(*args)` traces to a program with a loop (`scan` or `while`; `fori_loop` is one of
    them), not a Python loop unrolled into a copy of its body per step."""
    program = make_jaxpr(f)(*args).jaxpr
    if any(eqn.primitive.name in loops for eqn, _ in _walk(program)):
        return
    raise NotYet(f"{what} was unrolled: its jaxpr has {len(program.eqns)} equations "
                 f"({_counts(program)}) and no {' or '.join(loops)}, a copy of the loop's body "
                 f"per step (see %jaxpr). {fix}".strip())


def expect_no_host_transfer_in_loop(f, args, what: str, fix: str = "") -> None:
    """`f(*args)`'s loops run on the device: no callback to Python inside a `scan` or
    `while` body (jax.debug.print, pure_callback, io_callback), which would copy values to
    the host and wait for Python at every step."""
    program = make_jaxpr(f)(*args).jaxpr
    seen = sorted({f"{eqn.primitive.name} in a {inside[-1]} loop"
                   for eqn, inside in _walk(program)
                   if inside and eqn.primitive.name in CALLBACKS})
    if seen:
        raise NotYet(f"{what}'s loop calls back to Python at every step ({', '.join(seen)}): "
                     f"a device-to-host transfer per iteration, and the device waits for "
                     f"Python each time. {fix}".strip())


def peak_bytes(f, args) -> dict:
    """XLA's memory analysis of `jit(f)` for `args`: the bytes of arguments, outputs and
    temporaries, those an output reuses (donation), and the peak (their sum less the reuse).
    `f` may be jitted already (its donation then counts)."""
    with compile_record.unlogged():                     # the check's compile, not the learner's
        stats = (f if hasattr(f, "lower") else jit(f)).lower(*args).compile().memory_analysis()
    sizes = {"arguments": stats.argument_size_in_bytes, "outputs": stats.output_size_in_bytes,
             "temporaries": stats.temp_size_in_bytes, "reused": stats.alias_size_in_bytes}
    sizes["peak"] = sizes["arguments"] + sizes["outputs"] + sizes["temporaries"] - \
        sizes["reused"]
    return sizes


def expect_peak_memory_below(f, args, limit: int, what: str, fix: str = "") -> None:
    """`jit(f)(*args)` needs fewer than `limit` bytes at its peak (XLA's memory analysis)."""
    sizes = peak_bytes(f, args)
    if sizes["peak"] < limit:
        return
    raise NotYet(f"{what} needs {sizes['peak']:,} bytes at its peak (arguments "
                 f"{sizes['arguments']:,}, outputs {sizes['outputs']:,}, temporaries "
                 f"{sizes['temporaries']:,}, reused {sizes['reused']:,}); it should stay "
                 f"below {limit:,}. {fix}".strip())
