"""What a learner times with %timeit, run the way %timeit runs it (one warm-up run, then
timed runs of the same statement in one namespace), for the compiles each run makes:
`run(jax)` counts the "Compiling ..." lines jax_log_compiles logs (to the "jax" loggers) in
the warm-up and in three timed runs. The reference (timeit_compiles_reference.json) is real
JAX 0.10.2's, written by reference/make_timeit_compiles_reference.py;
tests/notebook/test_timeit_compiles_against_jax.py runs the same with jxkernel and holds
%timeit's lines ("Compiled on the first run", "The timed runs compiled too") to it."""
import contextlib
import logging

X = "x = jnp.arange(4.0)\n"
# name: (setup, timed statement)
CASES = {
    "jit_of_a_lambda": (X, "jax.jit(lambda v: v + 1)(x)"),
    "jit_of_a_def_made_in_it": (X, "def g(v):\n    return v * 3\njax.jit(g)(x)"),
    "jit_of_a_def_made_before": (X + "def f(v):\n    return v - 2\n", "jax.jit(f)(x)"),
    "jitted_once_before": (X + "h = jax.jit(lambda v: v * 5)\n", "h(x)"),
}
TIMED_RUNS = 3


class _Compiles(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record):
        self.count += record.getMessage().startswith("Compiling ")


@contextlib.contextmanager
def _counting(jax):
    """A _Compiles handler on the "jax" loggers, at DEBUG, under jax.log_compiles."""
    handler, logger = _Compiles(), logging.getLogger("jax")
    logger.addHandler(handler)
    was = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        with jax.log_compiles(True):
            yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(was)


def run(jax) -> dict:
    out = {}
    with _counting(jax) as handler:
        for name, (setup, stmt) in CASES.items():
            namespace = {"jax": jax, "jnp": jax.numpy}
            exec(setup, namespace)
            handler.count = 0
            exec(stmt, namespace)
            warm = handler.count
            handler.count = 0
            for _ in range(TIMED_RUNS):
                exec(stmt, namespace)
            out[name] = {"warm_up": warm, "timed": handler.count}
    return {"compiles": out, "timed_runs": TIMED_RUNS}


def cell_compiles(jax) -> dict:
    """Each case as a learner's cells in IPython: its setup, then `%%timeit -n TIMED_RUNS -r 1`
    of its statement (IPython's own %timeit: TIMED_RUNS runs, no warm-up, no calibration), and
    the "Compiling ..." lines jax_log_compiles logs over that cell (JAX's count, which the
    cell's note of jxkernel's %timeit says; reference/make_timeit_compiles_reference.py)."""
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    shell.user_ns.update(jax=jax, jnp=jax.numpy)
    out = {}
    with _counting(jax) as handler:
        for name, (setup, stmt) in CASES.items():
            assert shell.run_cell(setup).success
            handler.count = 0
            assert shell.run_cell(f"%%timeit -q -n {TIMED_RUNS} -r 1\n{stmt}").success
            out[name] = handler.count
    return out
