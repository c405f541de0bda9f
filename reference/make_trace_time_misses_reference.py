"""Write tests/data/trace_time_misses_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_trace_time_misses_reference.py [--print]

Runs the cases of tests/data/trace_time_misses_cases.py one after another in one process,
with `jax_explain_cache_misses` on, and records what JAX's tracing-cache log
(`jax._src.interpreters.partial_eval`, WARNING) says at each step of each case:
{"case": [[step label, [message, ...]], ...]}. A message is kept whole, with the cases' file
named "<cases>" and the function's id ("f id=140...") written " id=<id>" (it changes from run
to run); whether two messages name one id is recorded apart: "same_ids", per case, the
message numbers (in order over the case) whose id is the first "never seen" message's.
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


def main():
    import jax
    import trace_time_misses_cases as cases
    jax.config.update("jax_explain_cache_misses", True)
    file = cases.__file__

    class Collect(logging.Handler):
        def __init__(self):
            super().__init__(logging.WARNING)
            self.steps = []

        def emit(self, record):
            self.steps[-1][1].append(record.getMessage())

    out = {}
    for name in cases.CASES:
        collect = Collect()
        logger = logging.getLogger("jax._src.interpreters.partial_eval")
        logger.addHandler(collect)
        try:
            cases.run(jax, name, lambda label: collect.steps.append([label, []]))
        finally:
            logger.removeHandler(collect)
        ids = [m.group(1) for _, messages in collect.steps for text in messages
               for m in ID.finditer(text)]
        out[name] = {
            "steps": [[label, [ID.sub(" id=<id>", text.replace(file, "<cases>"))
                               for text in messages]] for label, messages in collect.steps],
            "same_ids": [i for i, found in enumerate(ids) if ids and found == ids[0]]}
        if "--print" in sys.argv:
            print(f"=== {name}")
            for label, messages in out[name]["steps"]:
                print(f"-- {label}")
                print("\n".join(messages))
    with open(os.path.join(DATA, "trace_time_misses_reference.json"), "w") as f:
        json.dump({"jax_version": jax.__version__, "cases": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
