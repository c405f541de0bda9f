"""JAX's logging options and the loggers of its compile lines. `run(jax)` -> {case: the
records a handler on logging.getLogger("jax") sees for one jit call, as [logger name, level,
the message's first two words]} under jax_debug_log_modules ("jax", "", one module),
jax_log_compiles, jax_explain_cache_misses and jax_logging_level. `in_subprocess(python,
preamble)` -> {case: facts of stderr} for JAX_LOGGING_LEVEL=DEBUG set in the environment
(JAX's logging_test.py's subprocess tests): the trace line written once with debug modules
named too, nothing written after jax_logging_level is set to None, and jaxlib's C++ log
following jax_logging_level (the coordination service's "Initializing CoordinationService"
line of `jax.distributed.initialize` at DEBUG, not at WARNING)."""
import logging
import os
import subprocess
import textwrap

# JAX's loggers of the compile lines (its other DEBUG lines, the persistent cache's keys and
# compile options, are JAX's own machinery: not compared)
NAMES = ("jax._src.dispatch", "jax._src.interpreters.pxla", "jax._src.interpreters.partial_eval")


def run(jax):
    records = []

    class Capture(logging.Handler):
        def emit(self, record):
            if record.name in NAMES:
                records.append([record.name, record.levelname,
                                " ".join(record.getMessage().split()[:2])])

    handler = Capture(logging.DEBUG)
    logging.getLogger("jax").addHandler(handler)
    level = jax.config.jax_logging_level        # given back at the end, for what runs next
    out = {}
    x = jax.numpy.ones(3)
    scenarios = [("debug_modules_jax", "jax_debug_log_modules", "jax"),
                 ("debug_modules_none", "jax_debug_log_modules", ""),
                 ("debug_modules_dispatch", "jax_debug_log_modules", "jax._src.dispatch"),
                 ("log_compiles", "jax_log_compiles", True),
                 ("explain_cache_misses", "jax_explain_cache_misses", True),
                 ("logging_level_debug", "jax_logging_level", "DEBUG"),
                 ("logging_level_none", "jax_logging_level", None)]
    try:
        for i, (case, option, value) in enumerate(scenarios):
            before = getattr(jax.config, option)
            jax.config.update(option, value)
            try:
                records.clear()
                jax.jit(lambda x, i=i: x + i)(x)
                out[case] = list(records)
            finally:
                if option != "jax_logging_level":
                    jax.config.update(option, before)
        out["logging_level_after_none"] = jax.config.jax_logging_level
        try:
            jax.config.update("jax_logging_level", "LOUD")
            out["logging_level_refused"] = "no error"
        except ValueError as e:
            out["logging_level_refused"] = str(e)
    finally:
        logging.getLogger("jax").removeHandler(handler)
        jax.config.update("jax_logging_level", None)
        jax.config.update("jax_logging_level", level)
        logging.getLogger("jax").setLevel(logging.NOTSET)     # (None leaves the level set)
        logging.getLogger("jaxlib").setLevel(logging.NOTSET)
    return out


SEPARATOR = "-----separator-----"


def in_subprocess(python, preamble):
    """Two programs run with JAX_LOGGING_LEVEL=DEBUG, `preamble` importing jax."""
    env = {**os.environ, "JAX_LOGGING_LEVEL": "DEBUG"}
    env.pop("JAX_DEBUG_LOG_MODULES", None)

    def program(body):
        text = preamble + "\n" + textwrap.dedent(body)
        return subprocess.run([python, "-c", text], env=env, capture_output=True, text=True,
                              timeout=300).stderr

    double = program("""
        jax.config.update("jax_debug_log_modules", "jax._src.compiler,jax._src.dispatch")
        jax.jit(lambda x: x)(1)
        """)
    toggled = program(f"""
        import sys
        jax.jit(lambda x: x)(1)
        jax.config.update("jax_logging_level", None)
        sys.stderr.write("{SEPARATOR}")
        jax.jit(lambda x: x + 1)(1)
        """)
    coordination = program(f"""
        import socket, sys

        def address():
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
            s.close()
            return f"127.0.0.1:{{port}}"

        jax.distributed.initialize(address(), num_processes=1, process_id=0)
        jax.distributed.shutdown()
        sys.stderr.write("{SEPARATOR}")
        jax.config.update("jax_logging_level", "WARNING")
        jax.distributed.initialize(address(), num_processes=1, process_id=0)
        jax.distributed.shutdown()
        """)
    verbose, _, silent = toggled.partition(SEPARATOR)
    debug_service, _, warning_service = coordination.partition(SEPARATOR)
    service_line = "Initializing CoordinationService"
    return {"trace_lines_with_debug_modules": sum(
                "Finished tracing <lambda> for jit" in line for line in double.splitlines()),
            # JAX's format: "DEBUG:<date> <time>,<ms>:jax._src.dispatch:<line>: Finished ..."
            "trace_line_level_and_logger": next(
                (line.split(":")[0::4][:2] for line in verbose.splitlines()
                 if "Finished tracing" in line), None),
            "verbose_has_trace_line": "Finished tracing <lambda> for jit" in verbose,
            "silent_after_none": silent,
            "coordination_line_at_debug": service_line in debug_service,
            "coordination_line_at_warning": service_line in warning_service,
            "coordination_separator_written": SEPARATOR in coordination}
