"""Where a tracer error says the offending value came from, as JAX 0.10.2 says it
(tests/core/test_tracer_origin.py compares): the arguments it depends on, or, for a value
made from constants, "This value became a tracer due to JAX operations on these lines" with
each operation and its line; the frames an UnexpectedTracerError lists under
`jax_tracer_error_num_traceback_frames`; and the tracers `jax.checking_leaks` lists. `run(jax)`
gives, per case, the exception's class and its message's lines up to JAX's documentation
link, with this file's folder dropped and object ids written N. The reference
(tracer_origin_reference.json) is real JAX's, written by
reference/make_tracer_origin_reference.py."""
import re

import numpy as np

_HERE = __file__.rsplit("/", 1)[0] + "/"
_SAVED = []                 # where the leaks below keep their tracers


def _said(fn):
    """The error's class and its lines up to (not with) the "See https://..." line, trailing
    blank lines dropped; None where `fn` runs."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        lines = []
        for line in str(e).replace(_HERE, "").splitlines():
            if line.startswith("See https://"):
                break
            lines.append(re.sub(r"\b\d{8,}\b", "N", line))
        while lines and not lines[-1].strip():
            lines.pop()
        return {"error": type(e).__name__, "lines": lines}
    return None


def _origins(jax):
    """Values made from constants under jit (JAX lists the operations), next to values that
    depend on arguments (JAX names them)."""
    jnp, lax = jax.numpy, jax.lax

    def if_on_constant(x):                  # sin of a literal, then mul, then gt
        y = jnp.sin(2.0)
        z = y * 3.0
        if z > 0:
            return x
        return -x

    def unrelated_literal(x):               # JAX names `x + 1.0` too: it takes a literal
        u = x + 1.0
        if jnp.cos(0.5) > 0:
            return u
        return x

    def numpy_constant(x):                  # a NumPy array: a constant of the jaxpr
        a = jnp.asarray(np.ones(3)) * 2
        return int(a.sum()) + x

    def no_literal(x):                      # iota, cos, sum: no literal, no constant
        w = jnp.cos(jnp.arange(3.0)).sum()
        return int(w) + x

    def many(x):                            # more than 5 operations: JAX shows 5
        a = jnp.cos(1.0) + jnp.sin(2.0) + jnp.tan(3.0) + jnp.exp(1.0) + jnp.log(2.0)
        return float(a + jnp.sqrt(4.0)) + x

    def helper(v):
        return jnp.sin(v) * 2.0

    def in_helper(x):                       # operations in a helper: its own line
        return x if helper(3.0) > 0 else -x

    def two_arguments(x, y):                # depends on arguments: named, no operations
        z = jnp.sin(x) * y + 1.0
        return x if z > 0 else y

    def index_constant(x):                  # __index__ of a constant-made value
        n = jnp.argmax(jnp.array([1, 3, 2]))
        return x * len(range(n))

    def inner(x):
        return x if jnp.sin(1.0) > 0 else -x

    def outer(x):                           # a jit inside a jit: the inner one's lines
        return jax.jit(inner)(x) * 2

    def zeros_of_constant(x):               # a size made from a constant: JAX's TypeError
        n = jnp.argmax(jnp.array([1, 3, 2]))
        return jnp.zeros(n) + x

    def where_of_constants(x):              # a jit equation (jnp.where's) among them
        y = jnp.where(jnp.cos(1.0) > 0, 1.0, 2.0)
        return x if y > 0 else -x

    def scan_body(c, x):                    # in a scan body: the body's operations
        return (c + x if jnp.cos(1.0) > 0 else c), x

    def fori_index(i, c):                   # made from a fori_loop body's index: JAX names i
        j = i * 2
        return c if j > 1 else -c

    def scan_x(c, x):                       # a scan body's x
        return (c if x > 0 else -c), x

    def branch(v):                          # a cond branch's operand
        return v if v > 0 else -v

    def concrete_needed(x):                 # the error raised with no context
        raise jax.errors.ConcretizationTypeError(x)

    return {
        "fori_body_argument": _said(lambda: jax.jit(
            lambda x: lax.fori_loop(0, 3, fori_index, x))(1.0)),
        "fori_body_argument_eager": _said(lambda: lax.fori_loop(0, 3, fori_index, 1.0)),
        "scan_body_argument": _said(lambda: lax.scan(scan_x, 0.0, jnp.ones(2))),
        "while_cond_argument": _said(lambda: lax.while_loop(
            lambda c: True if c < 3 else False, lambda c: c + 1, 0)),
        "cond_branch_operand": _said(lambda: lax.cond(jnp.array(True), branch, branch, 1.0)),
        "if_on_constant": _said(lambda: jax.jit(if_on_constant)(1.0)),
        "unrelated_literal": _said(lambda: jax.jit(unrelated_literal)(1.0)),
        "numpy_constant": _said(lambda: jax.jit(numpy_constant)(1.0)),
        "no_literal": _said(lambda: jax.jit(no_literal)(1.0)),
        "more_than_five": _said(lambda: jax.jit(many)(1.0)),
        "in_helper": _said(lambda: jax.jit(in_helper)(1.0)),
        "two_arguments": _said(lambda: jax.jit(two_arguments)(1.0, 2.0)),
        "index_constant": _said(lambda: jax.jit(index_constant)(jnp.arange(4.0))),
        "jit_in_jit": _said(lambda: jax.jit(outer)(1.0)),
        "make_jaxpr": _said(lambda: jax.make_jaxpr(if_on_constant)(1.0)),
        "scan_body": _said(lambda: lax.scan(scan_body, 0.0, jnp.ones(2))),
        "where_of_constants": _said(lambda: jax.jit(where_of_constants)(1.0)),
        "zeros_of_constant": _said(lambda: jax.jit(zeros_of_constant)(1.0)),
        # no context: JAX's message has a blank line before where the value came from
        "no_context_jit": _said(lambda: jax.jit(concrete_needed)(1.0)),
        "no_context_vmap": _said(lambda: jax.vmap(concrete_needed)(jnp.ones(2))),
    }


def _h1(jax, x):
    return _h2(jax, x) + 1


def _h2(jax, x):
    return _h3(jax, x) + 1


def _h3(jax, x):
    return _h4(jax, x) + 1


def _h4(jax, x):
    return _h5(jax, x) + 1


def _h5(jax, x):
    return _h6(jax, x) + 1


def _h6(jax, x):
    y = jax.numpy.sin(x)
    _SAVED.append(y)
    return y


def _frames(jax):
    """An UnexpectedTracerError of a value made six calls deep, under each setting of
    jax_tracer_error_num_traceback_frames (default 5; 0 lists none; 10 stops at the traced
    function), and a tracer error's operations under the smallest setting (not changed: JAX
    names one line each)."""
    found = {}

    def leak():
        _SAVED.clear()
        jax.clear_caches()
        jax.jit(lambda v: _h1(jax, v))(1.0)
        return _said(lambda: _SAVED[0] + 1)

    def constant(x):
        return x if jax.numpy.sin(2.0) > 0 else -x

    found["frames_default"] = leak()
    try:
        for n in (0, 1, 3, 10):
            jax.config.update("jax_tracer_error_num_traceback_frames", n)
            found[f"frames_{n}"] = leak()
        jax.config.update("jax_tracer_error_num_traceback_frames", 1)
        found["frames_1_operations"] = _said(lambda: jax.jit(constant)(1.0))
    finally:
        jax.config.update("jax_tracer_error_num_traceback_frames", 5)
        _SAVED.clear()
    return found


def _checked_leaks(jax):
    """What jax.checking_leaks lists for a leaked value: JAX lists every tracer the leaked one
    keeps alive through the equations that made it (the operands, literals among them, back to
    the arguments), each with why it is alive: newest first along a chain; where values fan
    out, in its garbage collector's order."""
    jnp = jax.numpy

    def chain(x):                           # sin, then mul by a literal
        y = jnp.sin(x)
        z = y * 3
        _SAVED.append(z)
        return x

    def two_inputs(x, w):                   # two arguments, a literal, three operations
        a = x + w
        b = a * 2
        c = jnp.cos(b)
        _SAVED.append(c)
        return x

    def constants(x):                       # made from literals only
        c = jnp.sin(2.0) * 3.0
        _SAVED.append(c)
        return x

    def argument(x):                        # the argument itself kept
        _SAVED.append(x)
        return x

    def diamond(x):                         # a value used twice
        a = jnp.sin(x)
        b = a * 2
        _SAVED.append(a + b)
        return x

    def two_held(x):                        # two values kept, one made from the other
        y = jnp.sin(x)
        _SAVED.extend([y, y * 3])
        return x

    def numpy_constant(x):                  # a NumPy array: a constant's tracer
        _SAVED.append(jnp.asarray(np.ones(3)) * x)
        return x

    def square(x):                          # one operand twice: "at indices 0, 1"
        _SAVED.append(x * x)
        return x

    def where(x):                           # through jnp.where's inner jit
        _SAVED.append(jnp.where(x > 0, x, 0.0))
        return x

    found = {}
    for name, fn, args in (("leak_chain", chain, (1.0,)),
                           ("leak_two_inputs", two_inputs, (1.0, 2.0)),
                           ("leak_constants", constants, (1.0,)),
                           ("leak_argument", argument, (1.0,)),
                           ("leak_diamond", diamond, (1.0,)),
                           ("leak_two_held", two_held, (1.0,)),
                           ("leak_numpy_constant", numpy_constant, (1.0,)),
                           ("leak_square", square, (1.0,)),
                           ("leak_where", where, (1.0,))):
        _SAVED.clear()
        with jax.checking_leaks():
            found[name] = _said(lambda: jax.jit(fn)(*args))
        _SAVED.clear()
    return found


def run(jax):
    return {**_origins(jax), **_frames(jax), **_checked_leaks(jax)}
