"""A program lowered for another platform, compiled and run on the CPU.

Where a lowering differs on the GPU but emits plain StableHLO (no GPU custom calls), the CPU
can check its values against the CPU lowering's, on a machine without a GPU.
"""
import numpy as np

import jxkernel as jax
from jxkernel.xla.compiler import Executable, compile_module
from jxkernel.xla.lowering import lower_module


def run_lowered(f, args, platform):
    """(module text, f(*args)'s first result) with f's program lowered for `platform`.

    >>> text, y = run_lowered(lambda x: x * 2, (np.ones(2, np.float32),), "gpu")
    >>> y.tolist()
    [2.0, 2.0]
    """
    closed = jax.make_jaxpr(f)(*args)
    text = lower_module(closed.jaxpr, name="f", platform=platform)[0]
    # the module takes the jaxpr's constants first
    return text, run_text(text, closed.out_avals, (*closed.consts, *args))[0]


def run_text(text, out_avals, args) -> list:
    """The results, as NumPy arrays, of module `text` compiled and run on the CPU with `args`
    (a module exported for several platforms takes the platform's index first).

    >>> exp = jax.export.export(jax.jit(lambda x: x + 1))(np.int32(1))
    >>> run_text(exp.mlir_module(), exp.out_avals, (np.int32(2),))
    [array(3, dtype=int32)]
    """
    device = jax.devices("cpu")[0]
    loaded, _ = compile_module(text, [device])
    return [np.asarray(r) for r in Executable(loaded, out_avals, device)(*args)]
