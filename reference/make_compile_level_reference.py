"""Write tests/data/compile_level_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_compile_level_reference.py [--print]

Runs each scenario of tests/data/compile_level_cases.py on DEVICES simulated CPU devices with
`jax_explain_cache_misses` and `jax_log_compiles` on, and records per scenario: "misses", the
tracing-cache misses of the scenario's own functions (parsed as
reference/make_recompile_reference.py parses them), "lowerings", how many programs of them JAX
lowered for XLA ("Compiling jit(<name>) with global shapes and types ..."), "xla_compiles", how
many XLA compiled ("Finished XLA compilation of jit(<name>) in ... sec": a lowering reused for
an array on another device is compiled again for that device, with no "Compiling" line), "mappings", each
lowering's "Argument mapping: (...)" text (what JAX's log says differs between two programs of
one trace: the arguments' shardings, UnspecifiedValue for an uncommitted Array), "messages" the
misses' raw text (ids dropped), and "error" (None, or the exception class).
"""
import json
import logging
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
sys.path.insert(0, DATA)
sys.path.insert(0, HERE)
from compile_level_cases import DEVICES, FILE_PREFIX, SCENARIOS, run  # noqa: E402

os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={DEVICES}"
import jax  # noqa: E402

from make_recompile_reference import LOGGER, COMPILE_LOGGER, clean, parse  # noqa: E402

XLA_LOGGER = "jax._src.dispatch"     # "Finished XLA compilation of jit(f) in 0.04 sec"


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages, self.compiled, self.xla = [], [], []

    def emit(self, record):
        text = record.getMessage()
        if text.startswith("TRACING CACHE MISS"):
            self.messages.append(text)
        elif text.startswith("Compiling "):
            name, rest = text[len("Compiling "):].split(" with global shapes", 1)
            self.compiled.append((name, rest.split("Argument mapping: ", 1)[1].rstrip(".")))
        elif text.startswith("Finished XLA compilation of "):
            self.xla.append(text[len("Finished XLA compilation of "):].rsplit(" in ", 1)[0])


def record(name):
    collect = Collect()
    loggers = [logging.getLogger(LOGGER), logging.getLogger(COMPILE_LOGGER),
               logging.getLogger(XLA_LOGGER)]
    for logger in loggers:
        logger.addHandler(collect)
    try:
        run(jax, name)
    finally:
        for logger in loggers:
            logger.removeHandler(collect)
    mine = [m for m in collect.messages if f"defined at {FILE_PREFIX}" in m]
    misses = [parse(m) for m in mine]
    names = {f"jit({m['function']})" for m in misses}
    mappings = [mapping for c, mapping in collect.compiled if c in names]
    return {"misses": misses, "error": None, "messages": [clean(m) for m in mine],
            "lowerings": len(mappings), "mappings": mappings,
            "xla_compiles": sum(c in names for c in collect.xla)}


def main():
    assert len(jax.devices()) == DEVICES, jax.devices()
    jax.config.update("jax_explain_cache_misses", True)
    jax.config.update("jax_log_compiles", True)
    out = {}
    for name in SCENARIOS:
        out[name] = record(name)
        if "--print" in sys.argv:
            print(f"=== {name}: {len(out[name]['misses'])} misses, "
                  f"{out[name]['lowerings']} lowerings, {out[name]['xla_compiles']} XLA compiles")
            for m in out[name]["mappings"]:
                print("   mapping", m)
            for m in out[name]["messages"]:
                print("  ", m.replace("\n", "\n   "))
    with open(os.path.join(DATA, "compile_level_reference.json"), "w") as f:
        json.dump({"jax_version": jax.__version__, "devices": DEVICES, "scenarios": out}, f,
                  indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
