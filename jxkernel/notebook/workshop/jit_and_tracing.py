"""The exercises of demos/02_jit_and_tracing.ipynb."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ...transforms.jit import jit
from . import TRACER_ERRORS, NotYet, exercise, expect_whole_number
from .program_checks import compilations, expect_compiles_at_most


@exercise("jit-trace-count", hints=(
    "print is a Python side effect: it runs when Python runs the function's body.",
    "Under jit, Python runs the body only while tracing: once per new signature (shapes and "
    "dtypes of the arrays). A call with the same signature reuses the compiled program.",
    "The four calls have the signatures f32[3], f32[3], f32[3], f32[4]. How many are new?",
), solution="prints = 2")
def _trace_count(answer):
    expect_whole_number(answer)
    if answer > 2:
        raise NotYet(f"Fewer than {answer}: a call whose arrays have the shapes and dtypes of an "
                     f"earlier call does not trace again, whatever the values.")
    if answer < 2:
        raise NotYet(f"More than {answer}: jnp.ones(4) has a shape the function has not seen, "
                     f"so it is traced (and print runs) again.")


@exercise("jit-where", hints=(
    "Under jit, `x > 0` is a traced array: Python's `if` cannot ask for its value.",
    "jnp.where(condition, a, b) picks from a where condition is true and from b elsewhere, "
    "for every element, inside the compiled program.",
    "return jnp.where(x > 0, x, 0.0)",
), solution="def clip_negative(x):\n    return jnp.where(x > 0, x, 0.0)")
def _where(answer):
    x = jnp.array([-2.0, 0.0, 3.5])
    try:
        got = np.asarray(jit(answer)(x))
    except TRACER_ERRORS as e:
        raise NotYet("Under jit your function asks Python for the value of a traced array "
                     f"({type(e).__name__}); use jnp.where instead of `if`.") from None
    want = np.array([0.0, 0.0, 3.5], np.float32)
    if got.shape != want.shape:
        raise NotYet(f"For x of shape (3,) the result should have shape (3,), not {got.shape}.")
    if not np.array_equal(got, want):
        raise NotYet(f"clip_negative([-2, 0, 3.5]) gave {got.tolist()}, not [0, 0, 3.5]: "
                     f"negative entries become 0, the others stay.")


@exercise("jit-static", hints=(
    "range(n) needs n's value while tracing, but a traced n is only a shape and a dtype.",
    "A static argument is not traced: jit compiles once per value of it (a new value "
    "recompiles), and inside the function it is the Python value itself.",
    "jax.jit(power, static_argnames='n')",
), solution="power_jit = jax.jit(power, static_argnames='n')")
def _static(answer):
    if not hasattr(answer, "lower"):
        raise NotYet("That is not a jitted function: wrap power with jax.jit(...).")
    x = jnp.array([2.0, 3.0])
    try:
        cubes, fourths = np.asarray(answer(x, n=3)), np.asarray(answer(x, n=4))
    except TRACER_ERRORS as e:
        raise NotYet(f"n is still traced ({type(e).__name__}): tell jit that n is static.") \
            from None
    if cubes.tolist() != [8.0, 27.0] or fourths.tolist() != [16.0, 81.0]:
        raise NotYet(f"power_jit([2, 3], n=3) gave {cubes.tolist()} and n=4 gave "
                     f"{fourths.tolist()}: keep power as it is and only jit it.")


LENGTHS = range(1, 17)


@exercise("jit-buckets", hints=(
    "Every new length is a new shape, and a new shape compiles again: 16 lengths, 16 "
    "compilations. Fewer shapes means fewer compilations.",
    "Pad x with zeros (they do not change a sum) to one of a few sizes before calling the "
    "jitted sum, for example the next power of two: 1, 2, 4, 8, 16.",
    "size = 1 << (len(x) - 1).bit_length() is the next power of two; np.pad(x, (0, size - "
    "len(x))) pads with zeros on the host, before jit sees the array.",
), solution="summed = jax.jit(jnp.sum)\n\n"
            "def bucketed_sum(x):\n"
            "    size = 1 << (len(x) - 1).bit_length()       # the next power of two\n"
            "    return summed(np.pad(x, (0, size - len(x))))")
def _buckets(answer):
    def run():
        for n in LENGTHS:
            x = np.arange(n, dtype=np.float32)
            got = float(answer(x))
            if got != float(x.sum()):
                raise NotYet(f"bucketed_sum of the {n} numbers 0..{n - 1} gave {got}, not "
                             f"{float(x.sum())}.")
    expect_compiles_at_most(compilations(run), 5, f"bucketed_sum, called on {len(LENGTHS)} "
                            f"lengths,", "Each new shape that reaches jit compiles again: pad "
                            "to a few sizes first.")
