"""Programs a learner meets a NaN in, for the stepper's `first_nan()` against JAX 0.10.2's
`jax_debug_nans` on the same program. `run(jax)` calls each case's function with
debug_nans on, eagerly ("eager") and under `jax.jit` ("jit"), and records what it raised:
the primitive `FloatingPointError: invalid value (nan) encountered in <primitive>` names
(None when the message is another: JAX's "the de-optimized function did not produce invalid
values", kept as "no_invalid_values" true), and the last line of a learner's function in this
file the traceback passes through (None when none: grad's backward pass), and how many times
JAX printed its "Calling the de-optimized version" line. A case that did not
raise records None. The reference (first_nan_reference.json) is real JAX's, written by
reference/make_first_nan_reference.py; tests/views/test_first_nan_against_jax.py steps the
same functions with jxkernel's stepper, and runs `run(jxkernel)`, and compares.

Each case is `name: (function, build)`: `build(jax)` gives the function to call and its
arguments (NumPy arrays; `run` puts them on the device first, with `jax.device_put`, which
checks nothing under debug_nans, so that every operation is JAX's)."""
import contextlib
import io
import traceback

import numpy as np

X = np.array([1.0, 2.0, 3.0, 4.0], np.float32)


# ---- the learner's functions: the lines JAX names are these
def log_then_sqrt(jnp, x):
    y = jnp.log(x - 3)
    return jnp.sqrt(y) * 2


def zero_over_zero(jnp, x):
    d = x - x
    return d / d


def softmax_overflow(jnp, x):
    e = jnp.exp(x * 100.0)
    return e / e.sum()


def log_times_zero(jnp, x):
    z = jnp.log(x * 0.0)
    return z * 0.0


def arccos_past_one(jnp, x):
    c = jnp.arccos(x / 3.0)
    return c + 1.0


def masked_log(jnp, x):
    return jnp.where(x > 2, jnp.log(x - 3), 0.0)


def helper_body(jnp, v):
    w = v * 2
    return jnp.log(w - 6)


def calls_helper(jax, jnp, x):
    helper = jax.jit(lambda v: helper_body(jnp, v))
    y = helper(x + 1.0)
    return jnp.sqrt(y)


def scanned(jax, jnp, x):
    def body(c, v):
        return c + jnp.log(v - 3), None
    return jax.lax.scan(body, 0.0, x)[0]


def in_cond(jax, jnp, x):
    return jax.lax.cond(x[0] > 0, lambda v: jnp.log(v - 3), lambda v: v, x)


def in_while(jax, jnp, x):
    return jax.lax.while_loop(lambda s: s[0] < 3, lambda s: (s[0] + 1, jnp.log(s[1] - 3)),
                              (0, x))[1]


def sqrt_at_zero(jnp, x):
    return jnp.where(x > 0, jnp.sqrt(x), 0.0).sum()


def sum_of_infs(jnp, x):
    e = jnp.exp(x * 100.0) * jnp.array([1.0, -1.0, 1.0, -1.0])
    return jnp.sum(e)


def sqrt_times(jnp, x):
    return jnp.sqrt(x) * x          # d/dx at 0: 0 * inf in the backward pass


def lax_log(lax, x):
    return lax.log(x - 3)


def step_with_grad(jax, jnp, w, x):
    g = jax.grad(lambda v: sqrt_at_zero(jnp, v * x))(w)
    return w - 0.1 * g


CASES = {
    "log_then_sqrt": lambda jax: (lambda x: log_then_sqrt(jax.numpy, x), (X,)),
    "zero_over_zero": lambda jax: (lambda x: zero_over_zero(jax.numpy, x), (X,)),
    "softmax_overflow": lambda jax: (lambda x: softmax_overflow(jax.numpy, x), (X,)),
    "log_times_zero": lambda jax: (lambda x: log_times_zero(jax.numpy, x), (X,)),
    "arccos_past_one": lambda jax: (lambda x: arccos_past_one(jax.numpy, x), (X,)),
    "masked_log": lambda jax: (lambda x: masked_log(jax.numpy, x), (X,)),
    "calls_helper": lambda jax: (lambda x: calls_helper(jax, jax.numpy, x), (X,)),
    "scanned": lambda jax: (lambda x: scanned(jax, jax.numpy, x), (X,)),
    "in_cond": lambda jax: (lambda x: in_cond(jax, jax.numpy, x), (X,)),
    "in_while": lambda jax: (lambda x: in_while(jax, jax.numpy, x), (X,)),
    # grad of a where over sqrt at 0: inf times a zero cotangent in the backward pass
    "grad_sqrt_at_zero": lambda jax: (jax.grad(lambda x: sqrt_at_zero(jax.numpy, x)),
                                      (np.array([0.0, 1.0], np.float32),)),
    # inf - inf inside jnp.sum, a jit of jxkernel's as of JAX's
    "sum_of_infs": lambda jax: (lambda x: sum_of_infs(jax.numpy, x), (X,)),
    # a primitive of lax's bound by the learner: JAX runs it without a jit of its own
    "lax_log": lambda jax: (lambda x: lax_log(jax.lax, x), (X,)),
    # a training step: the NaN made by grad's backward pass inside the learner's function
    "step_with_grad": lambda jax: (lambda w: step_with_grad(jax, jax.numpy, w, np.array(
        [0.0, 1.0], np.float32)), (np.array([1.0, 1.0], np.float32),)),
    # grad of a jitted function: the jit's backward pass reruns op by op
    "grad_of_jit": lambda jax: (jax.grad(jax.jit(lambda x: sqrt_times(jax.numpy, x))),
                                (np.float32(0.0),)),
    # the NaN came in with the argument: no equation made it
    "nan_input": lambda jax: (lambda a: a + 1.0, (np.array([np.nan, 1.0], np.float32),)),
}

_LEARNER = {fn.__code__.co_name for fn in (
    log_then_sqrt, zero_over_zero, softmax_overflow, log_times_zero, arccos_past_one,
    masked_log, helper_body, calls_helper, scanned, in_cond, in_while, sqrt_at_zero, lax_log,
    sum_of_infs, step_with_grad, sqrt_times)}
_PREFIX = "invalid value (nan) encountered in "


def _raised(fn, args) -> dict | None:
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            fn(*args)
    except FloatingPointError as e:
        first = str(e).splitlines()[0]
        frames = [fr for fr in traceback.extract_tb(e.__traceback__)
                  if fr.filename == __file__ and fr.name in _LEARNER | {"<lambda>", "body"}
                  and fr.line and "CASES" not in fr.line]
        frames = [fr for fr in frames if not fr.line.startswith('"')]
        return {"primitive": first[len(_PREFIX):] if first.startswith(_PREFIX) else None,
                "no_invalid_values": "did not produce invalid values" in str(e),
                "line": frames[-1].lineno if frames else None,
                # how many times "Invalid nan value encountered in the output of a jax.jit
                # function. Calling the de-optimized version." was printed: once for each jit
                # that made the NaN (jnp's functions are jits in JAX), none for a bare primitive
                "reruns_said": printed.getvalue().count("Calling the de-optimized"),
                # the source trace a transformation chains to the error: grad's backward pass
                # names the forward line it came from (JaxStackTraceBeforeTransformation)
                "source_trace": type(e.__cause__).__name__ if e.__cause__ else None,
                # and the line of this file that trace ends at
                "source_line": next((fr.lineno for fr in reversed(traceback.extract_tb(
                    e.__cause__.__traceback__)) if fr.filename == __file__), None)
                if e.__cause__ else None}
    return None


def run(jax) -> dict:
    out = {}
    with jax.debug_nans(True):
        for name, build in CASES.items():
            fn, args = build(jax)
            args = tuple(jax.device_put(a) for a in args)
            out[name] = {"eager": _raised(fn, args), "jit": _raised(jax.jit(fn), args)}
    return {"cases": out}
