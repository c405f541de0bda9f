"""The exercises of demos/08_performance.ipynb."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ...core import compile_record
from . import NotYet, exercise
from .program_checks import expect_peak_memory_below


@exercise("perf-wait", hints=(
    "A jitted call returns as soon as the work is queued; the numbers may not be there yet.",
    "result.block_until_ready() waits until they are (and returns result).",
    "return f(x).block_until_ready()",
), solution="def run_and_wait(f, x):\n    return f(x).block_until_ready()")
def _wait(answer):
    calls = []

    class Pending:
        """A result that records whether anyone waited for it."""
        def __init__(self, value):
            self.value = value

        def block_until_ready(self):
            calls.append("waited")
            return self

    got = answer(lambda x: Pending(x * 2), 3)
    if not calls:
        raise NotYet("run_and_wait returned without waiting for the result: call "
                     "block_until_ready() on it.")
    if not isinstance(got, Pending) or got.value != 6:
        raise NotYet("run_and_wait(f, x) should return f(x) itself (after waiting).")


@exercise("perf-flops", hints=(
    "jax.jit(f).lower(*args) gives the program for these arguments; .compile() compiles it.",
    "The compiled program's .cost_analysis() is a dict of XLA's estimates (on the numpy "
    "backend, jxkernel's estimate from the jaxpr); 'flops' counts floating-point operations.",
    "matmul_flops = jax.jit(matmul).lower(a, b).compile().cost_analysis()['flops']",
), solution="matmul_flops = jax.jit(matmul).lower(a, b).compile().cost_analysis()['flops']")
def _flops(answer):
    try:
        value = float(answer)
    except (TypeError, ValueError):
        raise NotYet(f"Answer with the number cost_analysis() reports (you gave "
                     f"{answer!r}).") from None
    want = 2.0 * 128 ** 3          # a multiply and an add per term: 2 n³ for n×n matrices
    if value != want:
        raise NotYet(f"{value:g} is not what cost_analysis() reports for a 128×128 matmul; "
                     f"read it from the compiled program's cost_analysis().")


@exercise("perf-donate", hints=(
    "Donating an argument lets XLA write the result into that argument's memory instead of "
    "allocating new memory.",
    "jax.jit(f, donate_argnums=0) donates the first argument; afterwards that array is "
    "deleted (using it raises).",
    "step_donating = jax.jit(step, donate_argnums=0)",
), solution="step_donating = jax.jit(step, donate_argnums=0)")
def _donate(answer):
    if not hasattr(answer, "lower"):
        raise NotYet("That is not a jitted function: use jax.jit(step, ...).")
    state = jnp.ones(1000)
    with compile_record.unlogged():   # the check's call, not the learner's: their next call
        out = np.asarray(answer(state))   # is not explained against this one
    if not np.array_equal(out, np.full(1000, 0.5, np.float32)):
        raise NotYet("step_donating should compute what step does: state * 0.5.")
    fresh = jnp.ones(1000)
    # The numpy backend (the browser) allocates each result with NumPy and reuses no memory,
    # and has no XLA memory analysis: there, donation shows as the argument deleted after the
    # call (as on every backend), checked below; the peak is XLA's to show.
    if fresh.device.platform != "numpy":
        expect_peak_memory_below(answer, (fresh,), 2 * fresh.nbytes, "step_donating",
                                 "The state and the result each take memory: nothing was "
                                 "donated. Use donate_argnums, so the result reuses the "
                                 "state's memory.")
    if not state.is_deleted():
        raise NotYet("The state passed in is still alive: nothing was donated. Use "
                     "donate_argnums.")
