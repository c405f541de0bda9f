"""Five jitted programs that read this module's globals, each a way a global array can be read
while tracing: for a print of its type alone (JAX's parallel.md `add_arrays`), as a jax Array
in the program, as a NumPy array in the program (converted), for its shape alone, and for its
value read by Python (a literal of the program). `use(jax)` binds the library and the globals'
first values, `rebind()` their second ones; `run(jax)` calls each program before and after
rebinding, as a learner's cells would. The reference (stale_in_program_reference.json) is
real JAX 0.10.2's, written by reference/make_stale_in_program_reference.py;
tests/views/test_outside_values.py runs the same with
jxkernel and holds its stale-read notes to it.
"""
import contextlib
import io

import numpy as np

jax = jnp = None        # the library the programs run on: use(jax)
result = w = n = s = lr = None


def use(lib) -> None:
    """Bind the library and the globals' first values."""
    global jax, jnp, result, w, n, s, lr
    jax, jnp = lib, lib.numpy
    result = jnp.ones((4, 8), jnp.int32)      # read for a print of its type only
    w = jnp.arange(3.0)                       # a jax Array in the program
    n = np.arange(3.0)                        # a NumPy array in the program (converted)
    s = jnp.ones(3)                           # read for its shape alone
    lr = jnp.float32(0.5)                     # its value read by Python: a literal


def rebind() -> None:
    """The globals' second values (each of the same type but `s`, which grows)."""
    global result, w, n, s, lr
    result, w, n, s, lr = jnp.zeros((4, 8), jnp.int32), jnp.arange(3.0) + 10, \
        np.arange(3.0) + 10, jnp.ones(5), jnp.float32(4.0)


def printed(x):
    print(f"{jax.typeof(result)=!s}")
    return x + 1


def scaled(x):
    return x * w


def shifted(x):
    return x + n


def by_shape(x):
    return x * s.shape[0]


def host_read(x):
    return x * float(lr)


PROGRAMS = {"printed": printed, "scaled": scaled, "shifted": shifted, "by_shape": by_shape,
            "host_read": host_read}


def _call(f) -> tuple:
    """(f(1.0) as a list, what the call printed)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        value = np.asarray(f(1.0)).tolist()
    return value, out.getvalue()


def run(lib) -> dict:
    """Each program jitted and called (first, first_printed) and its number of closed-over
    constants (consts: make_jaxpr's), the globals rebound, and each called again (after,
    after_printed): the old programs, not traced anew."""
    use(lib)
    jitted = {name: lib.jit(f) for name, f in PROGRAMS.items()}
    out = {}
    for name, f in jitted.items():
        first, printed_text = _call(f)
        out[name] = {"first": first, "first_printed": printed_text,
                     "consts": len(lib.make_jaxpr(PROGRAMS[name])(1.0).consts)}
    rebind()
    for name, f in jitted.items():
        out[name]["after"], out[name]["after_printed"] = _call(f)
    return out
