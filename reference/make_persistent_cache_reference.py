"""Write tests/data/persistent_cache_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_persistent_cache_reference.py

Runs each case of tests/data/persistent_cache_cases.py in a process of its own (JAX decides
once per process whether its persistent cache is used), with `jax_explain_cache_misses` on, a
fresh cache folder (none for FOLDERLESS cases) and
`jax_persistent_cache_min_compile_time_secs` 0 (left at its default for DEFAULT_MIN_TIME
cases), and records, in order, the WARNING records of
the tracing cache (jax._src.interpreters.partial_eval) and of the persistent cache
(jax._src.compiler, jax._src.compilation_cache): {"case": [line, ...]}, each line its
message's first line with the key's hash as "<hash>" and a compile time as "<s>"; also
the option's default ("min_compile_time_default").
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
LOGGERS = ("jax._src.interpreters.partial_eval", "jax._src.compiler", "jax._src.compilation_cache")


def normalized(message: str) -> str:
    """A record's first line without what changes from run to run (ids, hashes, times)."""
    first = message.splitlines()[0]
    first = re.sub(r"-[0-9a-f]{64}'", "-<hash>'", first)
    return re.sub(r"\(\d+\.\d+s\)", "(<s>)", first)


def child(name: str) -> None:
    sys.path.insert(0, DATA)
    from persistent_cache_cases import DEFAULT_MIN_TIME, FOLDERLESS, run
    import jax
    lines = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(normalized(record.getMessage()))

    handler = Collect(logging.WARNING)
    for logger in LOGGERS:
        logging.getLogger(logger).addHandler(handler)
    jax.config.update("jax_explain_cache_misses", True)
    if name not in DEFAULT_MIN_TIME:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    if name not in FOLDERLESS:
        jax.config.update("jax_compilation_cache_dir", tempfile.mkdtemp(prefix="jaxcache-"))
    run(jax, name)
    print(json.dumps(lines))


def main():
    sys.path.insert(0, DATA)
    from persistent_cache_cases import CASES
    import jax
    out = {}
    for name in CASES:
        out[name] = child_answer(__file__, name)
        print(name, json.dumps(out[name], indent=1))
    with open(os.path.join(DATA, "persistent_cache_reference.json"), "w") as f:
        json.dump({"jax_version": jax.__version__, "min_compile_time_default":
                   jax.config.jax_persistent_cache_min_compile_time_secs, "cases": out},
                  f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        main()
