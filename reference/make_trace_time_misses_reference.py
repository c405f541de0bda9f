"""Write tests/data/trace_time_misses_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_trace_time_misses_reference.py [--print]

Runs the cases of tests/data/trace_time_misses_cases.py one after another in one process,
with `jax_explain_cache_misses` on, and records what JAX's tracing-cache log
(`jax._src.interpreters.partial_eval`, WARNING) says at each step of each case:
{"case": [[step label, [message, ...]], ...]}. A message is kept whole, with the cases' file
named "<cases>" and the function's id ("f id=140...") written " id=<id>" (it changes from run
to run); whether two messages name one id is recorded apart: "same_ids", per case, the
message numbers (in order over the case) whose id is the first "never seen" message's.
With `jax_log_compiles` on too, the lines JAX logs of tracing, lowering and compiling at each
step ("Finished tracing f for jit in <s> sec", "Compiling jit(f) with global shapes and
types ...", ...), the seconds written "<s>": "log_compiles": [[step label, [line, ...]], ...].
"""
import json
import logging
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
sys.path.insert(0, DATA)
ID = re.compile(r" id=(\d+)")
SECONDS = re.compile(r"in \d+(\.\d+)?(e-?\d+)? sec")
MISSES = "jax._src.interpreters.partial_eval"
COMPILES = ("jax._src.dispatch", "jax._src.interpreters.pxla")


def record(cases_module: str, out_name: str) -> None:
    """Run the CASES of tests/data/`cases_module` (each `run(jax, name, step)`) and write
    what JAX logged at each step to tests/data/`out_name` (learner_log's corpus too)."""
    import importlib
    import jax
    cases = importlib.import_module(cases_module)
    jax.config.update("jax_explain_cache_misses", True)
    jax.config.update("jax_log_compiles", True)
    file = cases.__file__

    class Collect(logging.Handler):
        def __init__(self):
            super().__init__(logging.WARNING)
            self.steps, self.lines = [], []

        def emit(self, record):
            if record.name == MISSES:
                self.steps[-1][1].append(record.getMessage())
            else:
                self.lines[-1][1].append(SECONDS.sub("in <s> sec", record.getMessage()))

        def step(self, label):
            self.steps.append([label, []])
            self.lines.append([label, []])

    out = {}
    for name in cases.CASES:
        collect = Collect()
        loggers = [logging.getLogger(n) for n in (MISSES, *COMPILES)]
        for logger in loggers:
            logger.addHandler(collect)
        try:
            cases.run(jax, name, collect.step)
        finally:
            for logger in loggers:
                logger.removeHandler(collect)
        ids = [m.group(1) for _, messages in collect.steps for text in messages
               for m in ID.finditer(text)]
        out[name] = {
            "steps": [[label, [ID.sub(" id=<id>", text.replace(file, "<cases>"))
                               for text in messages]] for label, messages in collect.steps],
            "same_ids": [i for i, found in enumerate(ids) if ids and found == ids[0]],
            "log_compiles": collect.lines}
        if "--print" in sys.argv:
            print(f"=== {name}")
            for label, messages in out[name]["steps"]:
                print(f"-- {label}")
                print("\n".join(messages))
            for label, lines in out[name]["log_compiles"]:
                print(f"-- {label} (log_compiles)")
                print("\n".join(lines))
    with open(os.path.join(DATA, out_name), "w") as f:
        json.dump({"jax_version": jax.__version__, "cases": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    record("trace_time_misses_cases", "trace_time_misses_reference.json")
