"""Write tests/data/eager_program_names_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_eager_program_names_reference.py

Runs each case of tests/data/eager_program_names_cases.py in a process of its own (no program
compiled by an earlier case), with `jax_explain_cache_misses` and `jax_log_compiles` on, a
fresh cache folder and `jax_persistent_cache_min_compile_time_secs` 0, and records, in order:
the names of the programs its persistent-cache misses name ("PERSISTENT COMPILATION CACHE
MISS for 'jit_sin'"): {"cases": {"case": ["jit_sin"]}}; and the lines `jax_log_compiles` logs
of each program ("Finished tracing sin for jit in 0.000518084 sec", "Compiling jit(sin) with
global shapes and types (ShapedArray(float32[3]),). Argument mapping: (UnspecifiedValue,).",
...), the seconds written "<s>": {"log_compiles": {"case": [line, ...]}}. And which public
`jax.numpy` functions JAX runs as a jit (a jnp.ufunc, or a jitted function), with the name its
program takes: {"jitted": {"multiply": "multiply", ...}}. And, per case, the names of the jit
equations at the top of its jaxpr under make_jaxpr (`jnp.nansum` is `jit[name=nansum]`, a
where= mask `jit[name=_where]`): {"jaxpr_jits": {"case": ["nansum"]}}.
"""
import json
import logging
import os
import re
import sys

from recording import child_answer     # (this folder's)
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
MISS = re.compile(r"PERSISTENT COMPILATION CACHE MISS for '([^']*)'")
# the lines jax_log_compiles adds for one program: dispatch's and pxla's
COMPILE_LINE = re.compile(r"^(Finished tracing |Compiling |Finished jaxpr to MLIR module "
                          r"conversion |Finished XLA compilation of )")
SECONDS = re.compile(r"in \d+(\.\d+)?(e-?\d+)? sec")


def child(name: str) -> None:
    sys.path.insert(0, DATA)
    from eager_program_names_cases import inputs, run
    import jax
    names, lines = [], []

    class Collect(logging.Handler):
        def emit(self, record):
            text = record.getMessage()
            found = MISS.match(text)
            if found:
                names.append(found.group(1))
            elif COMPILE_LINE.match(text):
                lines.append(SECONDS.sub("in <s> sec", text))

    jax.config.update("jax_explain_cache_misses", True)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_compilation_cache_dir", tempfile.mkdtemp(prefix="jaxcache-"))
    args = inputs(jax)
    jax.config.update("jax_log_compiles", True)
    handler = Collect(logging.DEBUG)
    for logger in ("jax._src.compiler", "jax._src.dispatch", "jax._src.interpreters.pxla"):
        logging.getLogger(logger).addHandler(handler)
    run(jax, name, args)
    print(json.dumps([names, lines]))


def main():
    sys.path.insert(0, DATA)
    from eager_program_names_cases import CASES
    import jax
    out, logged = {}, {}
    for name in CASES:
        out[name], logged[name] = child_answer(__file__, name)
        print(name, out[name], *logged[name], sep="\n  ")
    from eager_program_names_cases import inputs, top_level_jits
    args = inputs(jax)
    jits = {name: top_level_jits(jax, name, args) for name in CASES}
    jitted = {}
    for name in sorted(dir(jax.numpy)):
        fun = getattr(jax.numpy, name)
        if not name.startswith("_") and (isinstance(fun, jax.numpy.ufunc) or
                                          type(fun).__name__ == "PjitFunction"):
            jitted[name] = fun.__name__
    with open(os.path.join(DATA, "eager_program_names_reference.json"), "w") as f:
        json.dump({"jax_version": jax.__version__, "cases": out, "log_compiles": logged,
                   "jitted": jitted, "jaxpr_jits": jits}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        main()
