"""More ways a jitted function reads a global that is rebound after its trace (stop 89): a
Python scalar or a NumPy array read only by a print, containers of arrays (a tuple, a list, a
dict rebound or written in place), a read inside a loop or a branch body traced inside the
function, and traces reused from elsewhere (a jit called inside another jit's trace; the same
jit called on its own after, or from a new jit traced after the change; an eager fori_loop's
body function); a Ref a jitted function writes, rebound to a new Ref (JAX's array_refs page,
cell 2), and the fix, the Ref passed; an eager loop's and cond's body that only prints a global.
`run(jax)` calls each before and after rebinding, as a learner's cells would.
The reference (stale_more_reference.json) is real JAX 0.10.2's, written by
reference/make_stale_more_reference.py; tests/views/test_outside_values.py runs the same with
jxkernel and holds its stale-read notes to it.
"""
import contextlib
import io

import numpy as np

jax = jnp = None        # the library the programs run on: use(jax)
k = n = t = lst = d = w = kk = kb = x_ref = kp = None
g = None                # a jit the programs call (use)


def use(lib) -> None:
    """Bind the library and the globals' first values."""
    global jax, jnp, k, n, t, lst, d, w, kk, kb, g, x_ref, kp
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
    x_ref = lib.new_ref(jnp.zeros(3))         # written by ref_add (array_refs' cell 2)
    kp = 2.0                                  # printed by an eager loop's and cond's body


def rebind() -> None:
    """The globals' second values (the dict written in place, the others rebound)."""
    global k, n, t, lst, w, kk, kb, x_ref, kp
    k, n, kk, kb, kp = 3.0, np.arange(3.0) + 10, 3.0, 3.0, 3.0
    x_ref = jax.new_ref(1.0)
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


def ref_add():
    x_ref[1] += 1.


def ref_add_passed(r):                  # the fix: the Ref an argument, each call's own
    r[...] += 1.


def printing_body(i, c):
    print("kp =", kp)
    return c + 1


def printing_branch(x):
    print("kp in branch =", kp)
    return x + 1


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
    after the change (new_outer), and an eager fori_loop over `body` before and after (eager);
    `ref_add` jitted, called twice, x_ref rebound to a new Ref and called again (ref: the old
    Ref's and the new one's values, whether make_jaxpr's one constant is the Ref itself, and
    the fix's: the new Ref passed to `ref_add_passed`, jitted); an eager fori_loop over
    `printing_body` and a cond of `printing_branch` (body_printed: results, prints, constants)."""
    use(lib)
    jitted = {name: lib.jit(f) for name, f in PROGRAMS.items()}
    out = {}
    for name, f in jitted.items():
        first, printed_text = _call(f, 1.0)
        with contextlib.redirect_stdout(io.StringIO()):     # (its trace prints again)
            consts = len(lib.make_jaxpr(PROGRAMS[name])(1.0).consts)
        out[name] = {"first": first, "first_printed": printed_text, "consts": consts}
    eager_first = _call(lib.lax.fori_loop, 0, 2, body, 1.0)[0]
    add = lib.jit(ref_add)
    add()
    add()
    old_ref = x_ref
    ref = {"first": np.asarray(x_ref[...]).tolist(),
           "consts_are_the_ref": [c is x_ref for c in lib.make_jaxpr(add)().consts]}
    body_printed = {}
    for name, loop in _printing_loops(lib).items():
        value, printed_text = _call(loop, 1.0)
        with contextlib.redirect_stdout(io.StringIO()):
            consts = len(lib.make_jaxpr(loop)(1.0).consts)
        body_printed[name] = {"first": value, "first_printed": printed_text, "consts": consts}
    rebind()
    for name, f in jitted.items():
        out[name]["after"], out[name]["after_printed"] = _call(f, 1.0)
    out["inner_alone"] = _call(g, 1.0)[0]
    out["new_outer"] = _call(lib.jit(lambda x: g(x) * 2), 1.0)[0]
    out["eager"] = {"first": eager_first, "after": _call(lib.lax.fori_loop, 0, 2, body, 1.0)[0]}
    add()
    ref["after_old"], ref["after_new"] = (np.asarray(old_ref[...]).tolist(),
                                          np.asarray(x_ref[...]).tolist())
    fixed = lib.jit(ref_add_passed)
    fixed(x_ref)
    ref["fix_new"] = np.asarray(x_ref[...]).tolist()
    out["ref"] = ref
    for name, loop in _printing_loops(lib).items():
        body_printed[name]["after"], body_printed[name]["after_printed"] = _call(loop, 1.0)
    out["body_printed"] = body_printed
    return out


def _printing_loops(lib) -> dict:
    """An eager fori_loop over printing_body and an eager cond of printing_branch, each a
    function of its init (the bodies are the same objects each call: their traces are kept)."""
    return {"fori_loop": lambda x: lib.lax.fori_loop(0, 2, printing_body, x),
            "cond": lambda x: lib.lax.cond(True, printing_branch, lambda y: y - 1, x)}
