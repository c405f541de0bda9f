"""Write tests/data/eager_grad_log_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_eager_grad_log_reference.py

Runs each program of tests/data/eager_grad_log_cases.py in a process of its own (no program
compiled by an earlier one), x = jnp.ones(3) made before `jax_log_compiles` is turned on, and
records the steps its log names, in order: {"programs": {"grad_sum_sq": [["traced",
"integer_pow"], ["compiled", "integer_pow"], ...]}} ("Finished tracing NAME for jit" and
"Compiling jit(NAME) with ...").
"""
import json
import logging
import os
import sys

from recording import child_answer     # (this folder's)

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def child(name):
    sys.path.insert(0, DATA)
    from eager_grad_log_cases import PROGRAMS, steps
    import jax
    import jax.numpy as jnp
    x = jnp.ones(3)
    x.block_until_ready()
    collect = Collect()
    logging.getLogger("jax").addHandler(collect)
    logging.getLogger("jax").setLevel(logging.DEBUG)
    jax.config.update("jax_log_compiles", True)
    PROGRAMS[name](jax, jnp, x)
    print(json.dumps(steps(collect.lines)))


def main():
    sys.path.insert(0, DATA)
    from eager_grad_log_cases import PROGRAMS
    import jax
    out = {}
    for name in PROGRAMS:
        out[name] = child_answer(__file__, name)
        print(name, out[name])
    with open(os.path.join(DATA, "eager_grad_log_reference.json"), "w") as f:
        json.dump({"jax_version": jax.__version__, "programs": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        main()
