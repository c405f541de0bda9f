"""Gradients holding NaN where the function's value is finite, taken under jit or vmap, for
the note under a cell that computes one (jxkernel/notebook/notes/nan_notes.py, gradient_calls.py):
run by reference/make_nan_jit_gradient_reference.py (JAX 0.10.2, into
nan_jit_gradient_reference.json) and by tests/notebook/test_nan_jit_notes.py.

Per case: the source of a cell (it defines `f`, its NaN-making line numbered from 1, and the
jitted function taking its gradient, if any), the program run in the next cell (it sets
`out`), the line of `f` the note names, and the line the note writes in its place (None: it
explains in words). The reference holds `out`, `out` with f's line replaced by the note's
fix, and the first line of jax_debug_nans's error for the program (None: it raised none).

    >>> CASES["grad_inside_step"][1]
    'out = step(0.0)'
"""

import numpy as np

from nan_gradient_cases import with_statement_replaced  # (this folder)

LOG = "def f(x):\n    return jnp.where(x > 0, jnp.log(x), 0.0)\n"
LOG_FIX = "return jnp.where(x > 0, jnp.log(jnp.where(x > 0, x, 1.0)), 0.0)"
STEP = "@jax.jit\ndef step(x):\n    return x - 0.1 * jax.grad(f)(x)\n"

CASES = {
    # the FAQ's where, its gradient function jitted: told at the line calling it
    "jit_of_grad": (LOG, "out = jax.jit(jax.grad(f))(0.0)", 2, LOG_FIX),
    # the gradient taken inside a jitted training step: told at the line inside it
    "grad_inside_step": (LOG + STEP, "out = step(0.0)", 2, LOG_FIX),
    # an eager vmap of the gradient: example 0 of two holds NaN
    "vmap_of_grad": (LOG, "out = jax.vmap(jax.grad(f))(jnp.array([0.0, 1.0]))", 2, LOG_FIX),
    # a jitted vmap of the gradient: examples 0 and 3 of four (at -1, log's NaN value is not
    # taken, and its derivative, -1, finite: no NaN)
    "jit_of_vmap_of_grad": (LOG, "out = jax.jit(jax.vmap(jax.grad(f)))(jnp.array([0.0, 1.0, "
                            "-1.0, 0.0]))", 2, LOG_FIX),
    # gradient descent with a jitted step: w walks below 0, that step's gradient is NaN, and
    # every step after starts from a NaN w (inputs holding NaN: not told)
    "training_loop": ("def f(w):\n    return jnp.where(w > 0, jnp.sqrt(w), 0.)\n@jax.jit\n"
                      "def step(w):\n    return w - 1.0 * jax.grad(f)(w)\n",
                      "w = jnp.array(2.0)\nfor i in range(12):\n    w = step(w)\nout = w", 2,
                      "return jnp.where(w > 0, jnp.sqrt(jnp.where(w > 0, w, 1.0)), 0.)"),
    # the same loop, its step donating w (a training step's donate_argnums): each call
    # deletes the w it was given, so the note's record keeps a copy first
    "donating_training_loop": ("def f(w):\n    return jnp.where(w > 0, jnp.sqrt(w), 0.)\n"
                               "def step(w):\n    return w - 1.0 * jax.grad(f)(w)\n"
                               "step = jax.jit(step, donate_argnums=0)\n",
                               "w = jnp.array(2.0)\nfor i in range(12):\n    w = step(w)\n"
                               "out = w", 2,
                               "return jnp.where(w > 0, jnp.sqrt(jnp.where(w > 0, w, 1.0)), 0.)"),
    # the gradient taken in a jitted function called inside another jitted function
    "inner_jit": (LOG + "@jax.jit\ndef inner(x):\n    return jax.grad(f)(x)\n@jax.jit\n"
                  "def outer(x):\n    return x - 0.1 * inner(x)\n", "out = outer(0.0)", 2,
                  LOG_FIX),
    # no where: a norm at zero has no derivative (x / |x|): told in words, naming
    # jax_debug_nans, which raises for the jitted step too
    "norm_inside_step": ("def f(x):\n    return jnp.linalg.norm(x)\n" + STEP,
                         "out = step(jnp.zeros(2))", 2, None),
}


# a function whose value is NaN though its inputs hold none, differentiated (the note names
# the operation that first made the NaN, in words): source, program, the line of the source
# that makes it, the primitive, and whether the gradient holds NaN too
LOSS = "def loss(w, x):\n    return jnp.sqrt(jnp.sum(w * x))\n"
VALUE_CASES = {
    # a jitted training step whose loss walks below 0 under sqrt: its value NaN from that step
    # on (the parameters NaN after it)
    "value_nan_training_loop": (
        LOSS + "@jax.jit\ndef step(w, x):\n    l, g = jax.value_and_grad(loss)(w, x)\n"
        "    return w - 0.3 * g, l\n",
        "w = jnp.array([1.0, 1.0])\nfor i in range(12):\n    w, l = step(w, jnp.ones(2))\n"
        "out = l", 2, "sqrt", True),
    # eagerly, one call: value and gradient NaN
    "value_nan_eager": (LOSS, "out = jax.value_and_grad(loss)(jnp.ones(2), -jnp.ones(2))[0]",
                        2, "sqrt", True),
    # log of a negative number under jit: the value NaN, its gradient (1 / x) finite
    "value_nan_finite_gradient": (
        "def f(x):\n    return jnp.log(x).sum()\n",
        "out = jax.jit(jax.value_and_grad(f))(-jnp.ones(2))[0]", 2, "log", False),
}


def fixed(name: str) -> str:
    """The case's source with the statement at the named line replaced by the note's fix
    (its lines, indented as the statement's first)."""
    source, _, line, fix = CASES[name]
    return with_statement_replaced(source, line, fix)


def _out(jax, source, program):
    names = {"jax": jax, "jnp": jax.numpy}
    exec(source, names)          # (anew each time: new functions, their jit caches empty)
    exec(program, names)
    return names["out"]


def run(jax) -> dict:
    """Each case's `out`, and with the note's fix its `fixed_out`; each VALUE_CASES' `out`."""
    out = {}
    for name, (source, program, _, fix) in CASES.items():
        out[name] = {"out": np.asarray(_out(jax, source, program)).tolist()}
        if fix is not None:
            out[name]["fixed_out"] = np.asarray(_out(jax, fixed(name), program)).tolist()
    for name, (source, program, *_) in VALUE_CASES.items():
        out[name] = {"out": np.asarray(_out(jax, source, program)).tolist()}
    return out


def debug_nans(jax, name: str) -> str | None:
    """The first line of the error jax_debug_nans raises for the case's program (None: it
    raised none). The reference takes each in a process of its own: in one process, JAX
    0.10.2's jax_debug_nans let the jitted training_loop's NaN pass after an eager vmap's
    check raised for vmap_of_grad."""
    source, program = (CASES.get(name) or VALUE_CASES[name])[:2]
    jax.config.update("jax_debug_nans", True)
    try:
        _out(jax, source, program)
        return None
    except FloatingPointError as e:
        return str(e).splitlines()[0]
    finally:
        jax.config.update("jax_debug_nans", False)
