"""Write tests/data/eager_program_names_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_eager_program_names_reference.py

Runs each case of tests/data/eager_program_names_cases.py in a process of its own (no program
compiled by an earlier case), with `jax_explain_cache_misses` on, a fresh cache folder and
`jax_persistent_cache_min_compile_time_secs` 0, and records the names of the programs its
persistent-cache misses name, in order ("PERSISTENT COMPILATION CACHE MISS for 'jit_sin'"):
{"case": ["jit_sin"]}.
"""
import json
import logging
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
MISS = re.compile(r"PERSISTENT COMPILATION CACHE MISS for '([^']*)'")


def child(name: str) -> None:
    sys.path.insert(0, DATA)
    from eager_program_names_cases import inputs, run
    import jax
    names = []

    class Collect(logging.Handler):
        def emit(self, record):
            found = MISS.match(record.getMessage())
            if found:
                names.append(found.group(1))

    jax.config.update("jax_explain_cache_misses", True)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_compilation_cache_dir", tempfile.mkdtemp(prefix="jaxcache-"))
    args = inputs(jax)
    logging.getLogger("jax._src.compiler").addHandler(Collect(logging.WARNING))
    run(jax, name, args)
    print(json.dumps(names))


def main():
    sys.path.insert(0, DATA)
    from eager_program_names_cases import CASES
    import jax
    out = {}
    for name in CASES:
        done = subprocess.run([sys.executable, __file__, "--child", name], check=True,
                              capture_output=True, text=True,
                              env=dict(os.environ, JAX_PLATFORMS="cpu"))
        out[name] = json.loads(done.stdout.strip().splitlines()[-1])
        print(name, out[name])
    with open(os.path.join(DATA, "eager_program_names_reference.json"), "w") as f:
        json.dump({"jax_version": jax.__version__, "cases": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        main()
