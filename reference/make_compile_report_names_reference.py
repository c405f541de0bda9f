"""Write tests/data/compile_report_names_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_compile_report_names_reference.py

What the compile report names and claims, as JAX says it, each case in a process of its own
with `jax_log_compiles` and `jax_explain_cache_misses` on: {"normal": [line, ...]}, the
lines naming jax.random.normal's program ("Compiling jit(_normal) with global shapes and
types ..."), seconds written "<s>"; {"scan": {"init": {"traces", "misses", "carry"}}}: for
`lax.scan(lambda c, x: (c + x, c), init, jnp.arange(3.0))` with init 0 and the note's fix
(jnp.asarray(0, jnp.float32)), how often the body was traced, the TRACING CACHE MISS lines
for it, and the carry's dtype.
"""
import json
import logging
import os
import re
import sys

from recording import child_answer     # (this folder's)

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
SECONDS = re.compile(r"in \d+(\.\d+)?(e-?\d+)? sec")
INITS = {"0": "0", "jnp.asarray(0, jnp.float32)": "jnp.asarray(0, jnp.float32)"}


def child(case: str) -> None:
    import jax
    import jax.numpy as jnp
    lines = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(SECONDS.sub("in <s> sec", record.getMessage()))

    key = jax.random.key(0)
    floats = jnp.arange(3.0)
    jax.config.update("jax_log_compiles", True)
    jax.config.update("jax_explain_cache_misses", True)
    handler = Collect(logging.DEBUG)
    logging.getLogger("jax").addHandler(handler)      # its modules' loggers propagate there
    if case == "normal":
        jax.random.normal(key, (3,))
        jax.random.normal(key, ())
        print(json.dumps([line for line in lines if "_normal" in line]))
        return
    traces = [0]

    def body(c, x):
        traces[0] += 1
        return c + x, c
    carry, _ = jax.lax.scan(body, eval(INITS[case]), floats)
    misses = [re.sub(r"id=\d+", "id=<id>", line.split("\n", 1)[1].replace(__file__, "<file>"))
              for line in lines if line.startswith("TRACING CACHE MISS") and "body" in line]
    print(json.dumps({"traces": traces[0], "misses": misses, "carry": str(carry.dtype)}))


def main():
    import jax
    out = {"jax_version": jax.__version__, "scan": {}}
    for case in ["normal", *INITS]:
        got = child_answer(__file__, case)
        if case == "normal":
            out["normal"] = got
        else:
            out["scan"][case] = got
        print(case, got)
    with open(os.path.join(DATA, "compile_report_names_reference.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        main()
