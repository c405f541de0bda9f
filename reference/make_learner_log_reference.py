"""Write tests/data/learner_log_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_learner_log_reference.py [--print]

Runs the small learner programs of tests/data/learner_log_cases.py one after another in one
process, with `jax_explain_cache_misses` and `jax_log_compiles` on, and records per step
what JAX's tracing-cache log (`jax._src.interpreters.partial_eval`) and its compile lines
(`jax._src.dispatch`, `jax._src.interpreters.pxla`) say, at WARNING: {"case": {"steps":
[[step label, [miss message, ...]], ...], "log_compiles": [[step label, [line, ...]], ...],
"same_ids": [...]}}. As reference/make_trace_time_misses_reference.py (whose recording this
is, for another corpus): the cases' file written "<cases>", ids " id=<id>", seconds "<s>".
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


def main():
    import jax
    import learner_log_cases as cases
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
    with open(os.path.join(DATA, "learner_log_reference.json"), "w") as f:
        json.dump({"jax_version": jax.__version__, "cases": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
