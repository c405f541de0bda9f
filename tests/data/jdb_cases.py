"""jax.debug.breakpoint's text debugger (jdb) fed commands from a file, run the same way by
real JAX 0.10.2 (reference/make_jdb_reference.py writes jdb_reference.json) and by jxkernel
(tests/api/test_debug_breakpoint.py): what it prints for each case (the cases' file named by
its base name), or the SystemExit it raises. The gaps JAX's tests/debugger_test.py showed."""
import io
import re

A_GLOBAL = "a module global"


def _session(jax, commands, fun, *args) -> dict:
    """Run `fun(stdin, stdout, *args)` with `commands` as the debugger's input; its output
    lines (this file's path as its base name), and the SystemExit's code where it raises one,
    or the error's class and whether its text names SystemExit (under jit the callback's
    SystemExit reaches the caller as a runtime error)."""
    stdin, stdout = io.StringIO("".join(c + "\n" for c in commands)), io.StringIO()
    try:
        fun(stdin, stdout, *args)
        jax.effects_barrier()
        exit_code = None
    except SystemExit as e:
        exit_code = e.code
    except Exception as e:      # noqa: BLE001 -- the class and the cause's name are compared
        runtime = isinstance(e, jax.errors.JaxRuntimeError)   # (jxkernel's: a subclass)
        exit_code = ["JaxRuntimeError" if runtime else type(e).__name__, "SystemExit" in str(e)]
    text = re.sub(r"\S*jdb_cases\.py", "jdb_cases.py", stdout.getvalue())
    return {"out": text.split("\n"), "exit": exit_code}


def run(jax) -> dict:
    jnp = jax.numpy
    x = jnp.array(2., jnp.float32)

    @jax.jit
    def plain(stdin, stdout, x):
        y = jnp.sin(x)
        jax.debug.breakpoint(stdin=stdin, stdout=stdout)
        return y

    @jax.jit
    def locals_(stdin, stdout, x):
        pair = (x + 1., "text")
        weird = {(lambda v: v): 2., (lambda v: v * 2): 3}
        jax.debug.breakpoint(stdin=stdin, stdout=stdout)
        return pair[0] + len(weird)

    def inner(stdin, stdout, x):
        y = x + 1.
        jax.debug.breakpoint(stdin=stdin, stdout=stdout, ordered=True)
        return y

    @jax.jit
    def outer(stdin, stdout, x):
        y = inner(stdin, stdout, x) * 2.
        jax.debug.breakpoint(stdin=stdin, stdout=stdout, ordered=True)
        return y

    def eager(stdin, stdout, x):
        y = jnp.sin(x)
        jax.debug.breakpoint(stdin=stdin, stdout=stdout)
        return y

    # jit's static arguments: the two files
    plain = jax.jit(plain.__wrapped__, static_argnums=(0, 1))
    locals_ = jax.jit(locals_.__wrapped__, static_argnums=(0, 1))
    outer = jax.jit(outer.__wrapped__, static_argnums=(0, 1))
    return {
        "continue": _session(jax, ["c"], plain, x),
        "end of input": _session(jax, [], eager, x),
        "quit": _session(jax, ["q"], eager, x),
        "quit under jit": _session(jax, ["q"], plain, x),
        "list": _session(jax, ["l", "c"], plain, x),
        "context after up and down": _session(jax, ["d", "c"], plain, x),
        "globals": _session(jax, ["p A_GLOBAL", "p len([1, 2])", "c"], plain, x),
        "locals": _session(jax, ["p pair", "p weird", "p x", "c"], locals_, x),
        "ordered": _session(jax, ["p y", "c", "p y", "c"], outer, x),
    }
