"""Write tests/data/aot_compile_log_reference.json from real JAX 0.10.2 (run by hand, never
by the tests):

    .venv-jax/bin/python reference/make_aot_compile_log_reference.py

What jax_explain_cache_misses and jax_log_compiles log for explicit ahead-of-time compiles
(`jax.jit(f, static_argnums=0).lower(7).compile()`) after a call of `jax.jit(f)`: per step,
the tracing-miss lines (the file's path as <case>) and whether XLA compiled. The notebook's
compile note of such a compile (jxkernel/notebook/notes/compile_notes.py) says what changed and
offers no fix: the compile was asked for."""
import json
import logging
import os

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
STEPS = [("call", "jax.jit(f)(3)"),
         ("aot_static_7", "jax.jit(f, static_argnums=0).lower(7).compile()"),
         ("aot_static_8", "jax.jit(f, static_argnums=0).lower(8).compile()")]


class Keep(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines += record.getMessage().splitlines()


def main():
    jax.config.update("jax_explain_cache_misses", True)
    jax.config.update("jax_log_compiles", True)
    keep = Keep()
    logging.getLogger("jax").addHandler(keep)
    env = {"jax": jax}
    exec(compile("def f(x):\n    return 2 * x\n", "<case>", "exec"), env)
    out = {}
    for name, source in STEPS:
        keep.lines = []
        exec(compile(source, "<case>", "exec"), env)
        miss = [line for line in keep.lines if not line.startswith(("Finished", "Compiling"))]
        out[name] = {"source": source, "miss": [line.split(" id=")[0] for line in miss],
                     "xla_compiled": any(line.startswith("Finished XLA compilation")
                                         for line in keep.lines)}
    with open(os.path.join(DATA, "aot_compile_log_reference.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
