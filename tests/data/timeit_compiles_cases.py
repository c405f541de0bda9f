"""What a learner times with %timeit, run the way %timeit runs it (one warm-up run, then
timed runs of the same statement in one namespace), for the compiles each run makes:
`run(jax)` counts the "Compiling ..." lines jax_log_compiles logs (to the "jax" loggers) in
the warm-up and in three timed runs. The reference (timeit_compiles_reference.json) is real
JAX 0.10.2's, written by reference/make_timeit_compiles_reference.py;
tests/notebook/test_timeit_compiles_against_jax.py runs the same with jxkernel and holds
%timeit's lines ("Compiled on the first run", "The timed runs compiled too") to it."""
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


def run(jax) -> dict:
    handler = _Compiles()
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    was = logger.level
    logger.setLevel(logging.DEBUG)
    out = {}
    try:
        with jax.log_compiles(True):
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
    finally:
        logger.removeHandler(handler)
        logger.setLevel(was)
    return {"compiles": out, "timed_runs": TIMED_RUNS}
