"""More ways a jitted function reads a global that is rebound after its trace (stop 89): a
Python scalar or a NumPy array read only by a print, containers of arrays (a tuple, a list, a
dict rebound or written in place), a read inside a loop or a branch body traced inside the
function, and traces reused from elsewhere (a jit called inside another jit's trace; the same
jit called on its own after, or from a new jit traced after the change; an eager fori_loop's
body function). `run(jax)` calls each before and after rebinding, as a learner's cells would.
The reference (stale_more_reference.json) is real JAX 0.10.2's, written by
reference/make_stale_more_reference.py; tests/views/test_outside_values.py runs the same with
jxkernel and holds its stale-read notes to it.
"""
import contextlib
import io

import numpy as np

jax = jnp = None        # the library the programs run on: use(jax)
k = n = t = lst = d = w = kk = kb = None
g = None                # a jit the programs call (use)


def use(lib) -> None:
    """Bind the library and the globals' first values."""
    global jax, jnp, k, n, t, lst, d, w, kk, kb, g
    jax, jnp = lib, lib.numpy
    k = 2.0                                   # a Python scalar, printed only
    n = np.arange(3.0)                        # a NumPy array, printed only
    t = (jnp.ones(3), jnp.arange(3.0))        # a tuple of arrays, in the program
    lst = [jnp.ones(3), jnp.arange(3.0)]      # a list of arrays, in the program
    d = {"w": jnp.arange(3.0)}                # a dict of arrays, in the program
    w = jnp.arange(3.0)                       # read in a loop body, a branch, a scan body
    kk = 2.0                                  # read by g, a jit called inside another's
    kb = 2.0                                  # read by an eager fori_loop's body function
    g = lib.jit(inner)


def rebind() -> None:
    """The globals' second values (the dict written in place, the others rebound)."""
    global k, n, t, lst, w, kk, kb
    k, n, kk, kb = 3.0, np.arange(3.0) + 10, 3.0, 3.0
    t = (jnp.ones(3) * 2, jnp.arange(3.0) + 10)
    lst = [jnp.ones(3) * 2, jnp.arange(3.0) + 10]
    d["w"] = jnp.arange(3.0) + 10
    w = jnp.arange(3.0) + 10


def scalar_printed(x):
    print("k =", k)
    return x + 1


def numpy_printed(x):
    print("n =", n)
    return x + 1


def tuple_used(x):
    return x * t[0] + t[1]


def list_used(x):
    return x * lst[0] + lst[1]


def dict_used(x):
    return x + d["w"]


def loop_body(x):
    return jax.lax.fori_loop(0, 2, lambda i, c: c + w, x * jnp.ones(3))


def branch_body(x):
    return jax.lax.cond(x > 0, lambda: x + w, lambda: x - w)


def scan_body(x):
    return jax.lax.scan(lambda c, _: (c + w, None), x * jnp.ones(3), None, length=2)[0]


def inner(x):
    return x * kk


def outer(x):
    return g(x) + 1


def body(i, c):
    return c + kb


PROGRAMS = {"scalar_printed": scalar_printed, "numpy_printed": numpy_printed,
            "tuple_used": tuple_used, "list_used": list_used, "dict_used": dict_used,
            "loop_body": loop_body, "branch_body": branch_body, "scan_body": scan_body,
            "outer": outer}


def _call(f, *args) -> tuple:
    """(f(*args) as a list, what the call printed)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        value = np.asarray(f(*args)).tolist()
    return value, out.getvalue()


def run(lib) -> dict:
    """Each program jitted and called (first, first_printed) and its number of closed-over
    constants (consts: make_jaxpr's), the globals rebound, and each
    called again (after, after_printed); then the traces reused from elsewhere: `g`, traced
    only inside `outer`'s trace, called on its own (inner_alone) and from a new jit traced
    after the change (new_outer), and an eager fori_loop over `body` before and after (eager)."""
    use(lib)
    jitted = {name: lib.jit(f) for name, f in PROGRAMS.items()}
    out = {}
    for name, f in jitted.items():
        first, printed_text = _call(f, 1.0)
        with contextlib.redirect_stdout(io.StringIO()):     # (its trace prints again)
            consts = len(lib.make_jaxpr(PROGRAMS[name])(1.0).consts)
        out[name] = {"first": first, "first_printed": printed_text, "consts": consts}
    eager_first = _call(lib.lax.fori_loop, 0, 2, body, 1.0)[0]
    rebind()
    for name, f in jitted.items():
        out[name]["after"], out[name]["after_printed"] = _call(f, 1.0)
    out["inner_alone"] = _call(g, 1.0)[0]
    out["new_outer"] = _call(lib.jit(lambda x: g(x) * 2), 1.0)[0]
    out["eager"] = {"first": eager_first, "after": _call(lib.lax.fori_loop, 0, 2, body, 1.0)[0]}
    return out
