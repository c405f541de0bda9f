"""The exercises of demos/05_control_flow.ipynb."""
from __future__ import annotations

import numpy as np

from ... import grad
from ...transforms.jit import jit
from . import TRACER_ERRORS, NotYet, exercise
from .program_checks import (compilations, expect_compiles_at_most, expect_no_host_transfer_in_loop,
                             expect_traced_loop)


def _jitted(answer, *args, what):
    try:
        return np.asarray(jit(answer)(*args))
    except TRACER_ERRORS as e:
        raise NotYet(f"Under jit, {what} asks Python for a traced value ({type(e).__name__}): "
                     f"use the lax control flow this section shows.") from None


@exercise("cf-cond", hints=(
    "jnp.where(x != 0, 1 / x, 0.0) computes both branches: 1 / 0 is inf, and its derivative "
    "is nan; where then multiplies that nan by 0, and nan * 0 is nan.",
    "lax.cond(pred, true_fun, false_fun, x) runs only the branch it chooses, and only that "
    "branch is differentiated.",
    "return lax.cond(x != 0, lambda x: 1.0 / x, lambda x: 0.0 * x, x)",
), solution="def safe_reciprocal(x):\n"
            "    return lax.cond(x != 0, lambda x: 1.0 / x, lambda x: 0.0 * x, x)")
def _cond(answer):
    for x, want in ((4.0, 0.25), (0.0, 0.0), (-2.0, -0.5)):
        got = float(_jitted(answer, np.float32(x), what="safe_reciprocal"))
        if got != want:
            raise NotYet(f"safe_reciprocal({x}) gave {got}, not {want}.")
    slope = float(grad(answer)(np.float32(0.0)))
    if np.isnan(slope):
        raise NotYet("The values are right, but the derivative at 0 is nan: the branch you do "
                     "not take still runs (and is differentiated). Use lax.cond.")
    if slope != 0.0 or float(grad(answer)(np.float32(2.0))) != -0.25:
        raise NotYet(f"The derivative at 0 should be 0 and at 2 should be -0.25; got {slope} "
                     f"and {float(grad(answer)(np.float32(2.0)))}.")


@exercise("cf-fori", hints=(
    "range(n) needs n's value; under jit n is traced. lax.fori_loop(lower, upper, body, "
    "init) loops inside the program, with a traced upper bound.",
    "The body gets the index i and the running total and returns the new total.",
    "return lax.fori_loop(1, n + 1, lambda i, total: total + i * i, 0)",
), solution="def sum_of_squares(n):\n"
            "    return lax.fori_loop(1, n + 1, lambda i, total: total + i * i, 0)")
def _fori(answer):
    compiled = jit(answer)

    def run():
        for n, want in ((10, 385), (3, 14), (0, 0)):
            try:
                got = int(np.asarray(compiled(np.int32(n))))
            except TRACER_ERRORS as e:
                raise NotYet(f"Under jit, n is traced and Python's range cannot use it "
                             f"({type(e).__name__}): use lax.fori_loop.") from None
            if got != want:
                raise NotYet(f"sum_of_squares({n}) gave {got}, not {want} (1² + ... + {n}²).")
    expect_compiles_at_most(compilations(run), 1, "sum_of_squares, for three values of n,",
                            "n should be traced, not static, so one program serves every n.")
    expect_traced_loop(answer, (np.int32(10),), "sum_of_squares",
                       "Loop inside the program with lax.fori_loop.")


@exercise("cf-scan", hints=(
    "lax.scan(step, carry, xs) calls step(carry, x) for each x, carrying a value from one "
    "step to the next, and stacks what each step outputs.",
    "Carry the largest value so far; each step outputs the new largest value.",
    "def step(best, x): best = jnp.maximum(best, x); return best, best\n"
    "_, out = lax.scan(step, xs[0], xs); return out",
), solution="def running_max(xs):\n"
            "    def step(best, x):\n"
            "        best = jnp.maximum(best, x)\n"
            "        return best, best\n"
            "    _, out = lax.scan(step, xs[0], xs)\n"
            "    return out")
def _scan(answer):
    xs = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0], np.float32)
    got = _jitted(answer, xs, what="running_max")
    want = np.maximum.accumulate(xs)
    if got.shape != want.shape or not np.array_equal(got, want):
        raise NotYet(f"running_max({xs.tolist()}) gave {got.tolist()}, not {want.tolist()}.")
    expect_traced_loop(answer, (xs,), "The values are right, but running_max",
                       "lax.scan keeps one step, whatever the length.", loops=("scan",))


@exercise("cf-while", hints=(
    "Newton's step for the square root of a: x -> (x + a / x) / 2. Stop when x * x is "
    "within 1e-5 of a.",
    "lax.while_loop(cond_fun, body_fun, init): cond_fun(x) says whether to go on, "
    "body_fun(x) makes the next x.",
    "lax.while_loop(lambda x: jnp.abs(x * x - a) > 1e-5 * a, lambda x: (x + a / x) / 2, a)",
), solution="def newton_sqrt(a):\n"
            "    return lax.while_loop(lambda x: jnp.abs(x * x - a) > 1e-5 * a,\n"
            "                          lambda x: (x + a / x) / 2, a)")
def _while(answer):
    for a in (2.0, 9.0, 0.25, 1e4):
        got = float(_jitted(answer, np.float32(a), what="newton_sqrt"))
        # the stopping rule's own tolerance: |x² - a| <= 1e-5 a means x within 1e-5 of √a
        if not abs(got - np.sqrt(a)) <= 1e-5 * np.sqrt(a) + 1e-6:
            raise NotYet(f"newton_sqrt({a}) gave {got}, not {np.sqrt(a):.6g}.")
    a = np.float32(2.0)
    expect_traced_loop(answer, (a,), "newton_sqrt", "Use lax.while_loop.", loops=("while",))
    expect_no_host_transfer_in_loop(answer, (a,), "newton_sqrt", "Print the result after the "
                                    "loop, not each step inside it.")
