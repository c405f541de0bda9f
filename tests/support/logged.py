"""The messages jxkernel's loggers write while a block runs, for tests that compare them with the
lines JAX 0.10.2 logs for the same program.

    with logged_messages() as messages:          # jxkernel.compile_log, every level
        jax.jit(lambda x: x + 1)(1.0)
    messages                                     # ['Finished tracing <lambda> ...', ...]

A handler of our own on the named loggers, not pytest's caplog: a test asks for what one logger
(or two) wrote inside the block, in order, whatever other loggers and levels do around it.
"""
import contextlib
import logging
import re
import tempfile

COMPILE_LOG = "jxkernel.compile_log"


class _Appending(logging.Handler):
    def __init__(self, messages: list, level: int, tracebacks: bool):
        super().__init__(level)
        self.messages, self.tracebacks = messages, tracebacks

    def emit(self, record):
        text = record.getMessage()
        if self.tracebacks and record.exc_info:      # as a handler prints it (exc_text first)
            text += "\n" + (record.exc_text or self.formatter_for_tracebacks.formatException(
                record.exc_info))
        self.messages.append(text)

    formatter_for_tracebacks = logging.Formatter()


@contextlib.contextmanager
def logged_messages(*names: str, level: int = logging.DEBUG, tracebacks: bool = False):
    """A list the messages logged to the loggers `names` (the compile log if none) at `level` or
    above go into while the block runs (with `tracebacks`, a logged exception's traceback after
    its message); the handler is removed after it, also on an error."""
    messages: list = []
    handler = _Appending(messages, level, tracebacks)
    loggers = [logging.getLogger(name) for name in names or (COMPILE_LOG,)]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield messages
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


SECONDS = re.compile(r"in \d+(\.\d+)?(e-?\d+)? sec")


class Steps(logging.Handler):
    """Per step of a case, the misses logged and the lines jax_log_compiles adds (seconds
    written "<s>", the cases' file "<cases>"), as reference/make_trace_time_misses_reference.py
    records JAX's: `step(label)` opens a step.

        >>> steps = Steps("cases.py"); steps.step("first call")
        >>> steps.steps, steps.lines
        ([['first call', []]], [['first call', []]])
    """

    def __init__(self, cases_file: str):
        super().__init__(logging.WARNING)
        self.cases_file, self.steps, self.lines = cases_file, [], []

    def emit(self, record):
        text = record.getMessage()
        if text.startswith("TRACING CACHE MISS"):
            self.steps[-1][1].append(text.replace(self.cases_file, "<cases>"))
        elif text:
            self.lines[-1][1].append(SECONDS.sub("in <s> sec", text))

    def step(self, label):
        self.steps.append([label, []])
        self.lines.append([label, []])


def logged_steps(jxkernel, cases, name: str) -> tuple:
    """(misses per step, compile lines per step) of case `name` of a cases module (its
    `run(jax, name, step)`) run under `jxkernel` with jax_explain_cache_misses and
    jax_log_compiles on, in a compilation-cache folder of its own (no program found on disk:
    no "(disk cache)" in the lines), after `clear_caches()`: a program another test compiled
    earlier in the process (an eager `jnp.add` of the same types) is not found in memory, which
    would drop its compile lines (the lines depended on the order of the test files)."""
    jxkernel.clear_caches()
    handler, logger = Steps(cases.__file__), logging.getLogger(COMPILE_LOG)
    logger.addHandler(handler)
    try:
        with tempfile.TemporaryDirectory() as folder, \
                jxkernel.config.override("jax_compilation_cache_dir", folder), \
                jxkernel.config.override("jax_explain_cache_misses", True), \
                jxkernel.config.override("jax_log_compiles", True):
            cases.run(jxkernel, name, handler.step)
    finally:
        logger.removeHandler(handler)
    return handler.steps, handler.lines
