"""A learner's cells from JAX 0.10.2's debugging pages (debugging/checkify_guide.md,
debugging/flags.md, debugging/print_breakpoint.md) and their mistakes, each run the same way
by real JAX (reference/make_learner_debugging_reference.py writes
learner_debugging_reference.json) and by jxkernel (tests/notebook/test_learner_debugging.py).
What a learner reads of a failure: the error's class and first line, and for checkify's
JaxRuntimeError the line of this file its cause's traceback points at (JAX's filtered
traceback of the check: where the NaN was made, the index read, the check called)."""
import traceback


def _innermost_here(tb) -> str | None:
    """The code of the innermost frame of `tb` in this file (the learner's line), or None."""
    lines = [frame.line for frame in traceback.extract_tb(tb) if frame.filename == __file__]
    return lines[-1] if lines else None


def _thrown(fn) -> list | None:
    """[class, first line, the learner's line the cause's traceback names] of what `fn()`
    raises, or None."""
    try:
        fn()
    except Exception as e:      # the class, message and cause's frames are what is compared
        cause = e.__cause__
        return [type(e).__name__, str(e).strip().splitlines()[0],
                None if cause is None else _innermost_here(cause.__traceback__)]
    return None


def checkify_causes(jax):
    """checkify_guide.md's f under checkify's error sets, eagerly and jitted, its check
    called outside checkify, and under vmap: the message and the learner's line."""
    jnp = jax.numpy
    checkify = __import__(f"{jax.__name__}.experimental.checkify", fromlist=["checkify"])

    def f(x, i):
        checkify.check(i >= 0, "index needs to be non-negative!")
        y = x[i]
        z = jnp.sin(y)
        return z
    errors = checkify.user_checks | checkify.index_checks | checkify.float_checks
    checked = checkify.checkify(f, errors=errors)
    out = {}
    for name, args in [("out_of_bounds", (jnp.ones((5,)), 100)),
                       ("negative", (jnp.ones((5,)), -1)),
                       ("nan", (jnp.array([jnp.inf, 1]), 0))]:
        for how, fn in [("eager", checked), ("jit", jax.jit(checked))]:
            out[f"{name}, {how}"] = _thrown(lambda fn=fn, args=args: fn(*args)[0].throw())
    out["check outside checkify"] = _thrown(lambda: f(jnp.ones((5,)), -1))
    # (the cause: JAX's JaxStackTraceBeforeTransformation, at the check's line)
    out["check under jit without checkify"] = _thrown(lambda: jax.jit(f)(jnp.ones((5,)), -1))
    vmapped = jax.vmap(checkify.checkify(f, errors=checkify.all_checks))
    out["vmap"] = _thrown(lambda: vmapped(jnp.ones((3, 5)), jnp.array([-1, 2, 100]))[0].throw())
    return out


# checkify_guide.md's first cell: `i=i` formatted, run jitted (i traced into an array)
FORMAT_CELL = """\
def f(x, i):
  checkify.check(i >= 0, "index needs to be non-negative, got {i}", i=i)
  y = x[i]
  z = jnp.sin(y)
  return z

jittable_f = checkify.checkify(f)
err, z = jax.jit(jittable_f)(jnp.ones((5,)), -2)
jitted_message = err.get()
"""
# its next cell: the same f checkified with the error sets, called with Python ints
ERROR_SETS_CELL = """\
errors = checkify.user_checks | checkify.index_checks | checkify.float_checks
checked_f = checkify.checkify(f, errors=errors)
err, z = checked_f(jnp.ones((5,)), 100)
"""
# the check's line as the card writes it back, pasted, and the page's calls
FORMAT_FIXED_LINE = ('checkify.check(i >= 0, "index needs to be non-negative, got {i}", '
                     'i=jnp.asarray(i, jnp.int32))')
FORMAT_FIXED_CELL = FORMAT_CELL.replace(
    'checkify.check(i >= 0, "index needs to be non-negative, got {i}", i=i)',
    FORMAT_FIXED_LINE) + ERROR_SETS_CELL + """\
fixed_messages = [checker(x, i)[0].get() for checker in (checked_f, jax.jit(checked_f))
                  for x, i in [(jnp.ones((5,)), 100), (jnp.ones((5,)), -1),
                               (jnp.array([jnp.inf, 1]), 0), (jnp.ones((5,)), 2)]]
"""
def check_format_args(jax):
    """The page's first two cells (the second a TypeError) and the fixed cell's messages,
    under `jax` (the cells' `jax`, `jnp` and `checkify` are its)."""
    namespace = {"__name__": "__main__"}
    exec(_imports(jax), namespace)
    exec(FORMAT_CELL, namespace)
    out = {"jitted_message": namespace["jitted_message"]}
    try:
        exec(ERROR_SETS_CELL, namespace)
        out["error_sets"] = None
    except TypeError as e:
        out["error_sets"] = [type(e).__name__, str(e).splitlines()[0]]
    exec(FORMAT_FIXED_CELL, namespace)
    out["fixed_messages"] = namespace["fixed_messages"]
    return out


# print_breakpoint.md's learner, printing when a value is NaN with Python's if (inside jit: a
# TracerBoolConversionError); the card's rewrite of the `if` pasted in its place, called with a
# NaN and without; and checkify's float checks, the card's other way, on the same function
PRINT_WHEN_CELL = """\
@jax.jit
def f(x):
    y = jnp.log(x)
    if jnp.isnan(y):
        print("nan!", y)
    return y
"""
PRINT_WHEN_LINE = "jax.lax.cond(jnp.isnan(y), lambda: jax.debug.print('nan! {}', y), lambda: None)"
PRINT_WHEN_FIXED_CELL = PRINT_WHEN_CELL.replace(
    'if jnp.isnan(y):\n        print("nan!", y)', PRINT_WHEN_LINE)


def print_when(jax):
    """What the learner's cell raises, what the fixed cell prints for f(-1.0) then f(2.0),
    and checkify.checkify(f, errors=checkify.float_checks)(-1.0)'s message."""
    import contextlib
    import io
    namespace = {"__name__": "__main__"}
    exec(_imports(jax), namespace)
    exec(PRINT_WHEN_CELL, namespace)
    try:
        namespace["f"](-1.0)
        raised = None
    except Exception as e:     # the class and first line are what is compared
        raised = [type(e).__name__, str(e).strip().splitlines()[0]]
    exec(PRINT_WHEN_FIXED_CELL, namespace)
    printed = []
    for x in (-1.0, 2.0):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            namespace["f"](x)
            jax.effects_barrier()
        printed.append(out.getvalue())
    checkify = namespace["checkify"]
    err, _ = checkify.checkify(namespace["f"], errors=checkify.float_checks)(-1.0)
    return {"raised": raised, "printed": printed, "float_checks": err.get()}


def _imports(jax) -> str:
    """The cells' imports of `jax` (real JAX in the reference, jxkernel in the tests)."""
    return (f"import {jax.__name__} as jax\nimport {jax.__name__}.numpy as jnp\n"
            f"checkify = __import__('{jax.__name__}.experimental.checkify', "
            f"fromlist=['checkify'])\n")


def run(jax) -> dict:
    return {"checkify_causes": checkify_causes(jax), "check_format_args": check_format_args(jax),
            "print_when": print_when(jax)}
