"""Write tests/data/recompile_reference.json from real JAX 0.10.2 (run by hand, never by the
tests):

    .venv-jax/bin/python reference/make_recompile_reference.py [--print] [--only a,b]

Runs each scenario of tests/data/recompile_cases.py with `jax_explain_cache_misses` on and
records the tracing-cache misses JAX logs for the scenario's own functions. JAX 0.10.2 logs
them from `trace_to_jaxpr`'s cache (jax/_src/interpreters/partial_eval.py, `explain`, logger
`jax._src.interpreters.partial_eval`, level WARNING), one message per miss:

    TRACING CACHE MISS at <call site>:
      never seen function:
        <name> id=<id> defined at <file>:<line>
      [but seen another function defined on the same line; maybe the function is
      being re-defined repeatedly, preventing caching?]

or, for a function traced before,

      for <name> defined at <file>:<line>
      all previously seen cache keys differ. For the closest previous key:
      different input types:          (or: different input pytree: / Tracing context ...)
      * at x, now f32[4] and before f32[3]

Per scenario: {"misses": [{"function", "kind", "changes": [{"kind", "path", "before",
"after"}], "redefined_hint"}], "error": None or the exception class, "messages": the raw
text (ids dropped), "out": the value of the scenario's `out` where it sets one (a
cache hit after a closed-over value changed: JAX's answer), "lowerings": how many programs of the scenario's
functions JAX lowered for XLA to compile (`jax_log_compiles`: pxla's "Compiling jit(<name>)
with global shapes", logged as it lowers; a vmap or grad of a jitted function lowers
programs of its own without a tracing miss, a committed array one more, and a call after
`.lower()` none)}. A miss's kind is "never seen function", "tree",
"types", "config" ("Tracing context doesn't match"), "debug" ("Debug info doesn't match") or
"unavailable"; a "types" change's kind is "shape", "dtype" or "weak_type" (the first that
differs), a "tree" change's "tree", a "config" change's "config" with the config's name as
its path. "line" is the line of the scenario the function was defined on (None for a callable
JAX names "<unknown>", an object with __call__, logged where the scenario calls it).
`--print` prints the messages too; `--only a,b` records those scenarios again and keeps the
file's others.
"""
import json
import logging
import os
import re
import sys

import jax
import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from recompile_cases import FILE_PREFIX, RAISES, SCENARIOS, run  # noqa: E402

LOGGER = "jax._src.interpreters.partial_eval"
COMPILE_LOGGER = "jax._src.interpreters.pxla"
WEAK_TYPE_HINT = "https://docs.jax.dev/en/latest/type_promotion.html#weak-types"


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []
        self.compiled = []          # "jit(<name>)" per program lowered for XLA

    def emit(self, record):
        text = record.getMessage()
        if text.startswith("TRACING CACHE MISS"):
            self.messages.append(text)
        elif text.startswith("Compiling "):              # jax_log_compiles, from pxla
            # "Compiling jit(<unnamed function>) with ...": the name may hold a space
            self.compiled.append(text[len("Compiling "):].split(" with global shapes")[0])


_TYPE = re.compile(r"^([a-z]+\d*(?:<[^>]*>)?)\[([^\]]*)\](\{weak_type=(True|False)\})?")


def split_type(text):
    """"f32[3]{weak_type=True}" -> ("f32", "3", True)."""
    m = _TYPE.match(text.strip())
    if m is None:
        return text, None, None
    return m.group(1), m.group(2), m.group(4) == "True" if m.group(4) else None


def type_kind(before, after):
    (d0, s0, w0), (d1, s1, w1) = split_type(before), split_type(after)
    if s0 != s1:
        return "shape"
    if d0 != d1:
        return "dtype"
    return "weak_type"


def _defined_line(message):
    """The line the missed function was defined on ("defined at <recompile:x>:3" -> 3): a
    scenario's functions told apart (JAX logs an outer jit's miss before the inner ones its
    trace meets, jxkernel after them, so misses are compared function by function)."""
    m = re.search(r"defined at <recompile:[^>]*>:(\d+)", message)
    return int(m.group(1)) if m else None


def parse(message):
    """One logged miss as a record (see the module's docstring)."""
    lines = message.splitlines()
    miss = {"function": None, "kind": None, "changes": [], "redefined_hint": False,
            "line": _defined_line(message)}
    if len(lines) > 1 and lines[1].strip() == "never seen function:":
        miss["function"] = lines[2].split()[0]
        miss["kind"] = "never seen function"
        miss["redefined_hint"] = "re-defined repeatedly" in message
        return miss
    miss["function"] = lines[1].split()[1]          # "  for f defined at ..."
    # the weak-type hint's address is glued to the last line of the diff: drop it
    body = "\n".join(lines[3:]).replace(WEAK_TYPE_HINT, "")
    if body.startswith("  different input types"):
        miss["kind"] = "types"
        for m in re.finditer(r"\* at (.*), now (.*) and before (.*)", body):
            path, after, before = m.groups()
            miss["changes"].append({"kind": type_kind(before, after), "path": path,
                                    "before": before, "after": after})
    elif body.startswith("  different input pytree"):
        miss["kind"] = "tree"
        for m in re.finditer(r"\* at input path (.*), now (.*) and before (.*), so (.*)", body):
            path, after, before, why = m.groups()
            miss["changes"].append({"kind": "tree", "path": path, "before": before,
                                    "after": after, "why": why})
    elif body.startswith("  Tracing context"):
        miss["kind"] = "config"
        # "* user_context differs: ...", or where a context was made since (every key has
        # one value more) "* number of tracing context values differs: now 48 and before 47"
        for m in re.finditer(r"\* (\S+|number of tracing context values) differs: now (.*) "
                             r"and before (.*)", body):
            name, after, before = m.groups()
            miss["changes"].append({"kind": "config", "path": name, "before": before,
                                    "after": after})
    elif body.startswith("  Debug info"):
        miss["kind"] = "debug"
    else:
        miss["kind"] = "unavailable"
    return miss


def clean(message):
    """The message without what changes from run to run: the function's id (the call site
    is kept whole, with its column: "TRACING CACHE MISS at <recompile:x>:3:4 (<module>):")."""
    return re.sub(r" id=\d+", "", message)


def _scenarios(message):
    """Whether a logged miss is of the scenario's own functions: defined in its file, or a
    callable JAX names without a file (jax.jit(Model()): "<unknown>", no "defined at")
    called from it (JAX logs no function of its own files, so such a miss is the user's)."""
    return f"defined at {FILE_PREFIX}" in message or \
        message.startswith(f"TRACING CACHE MISS at {FILE_PREFIX}") and " defined at " not in message


def record(name, run_case=run, raises=RAISES):
    """What JAX logged and lowered for scenario `name`, run by `run_case` (a case module's
    `run`: recompile_cases' by default; `raises`, the names of its scenarios that raise)."""
    collect = Collect()
    loggers = [logging.getLogger(LOGGER), logging.getLogger(COMPILE_LOGGER)]
    for logger in loggers:
        logger.addHandler(collect)
    try:
        result = run_case(jax, name)
    finally:
        for logger in loggers:
            logger.removeHandler(collect)
    # an object's address changes from run to run: "<Model object at 0x…>"
    mine = [re.sub(r" at 0x[0-9a-f]+>", " at 0x…>", m)
            for m in collect.messages if _scenarios(m)]
    error = type(result).__name__ if name in raises and isinstance(result, Exception) else None
    misses = [parse(m) for m in mine]
    # a callable JAX knows no file of is "<unknown>" in the log and compiles as
    # "jit(<unnamed function>)" (api_util.fun_name's default)
    names = {"jit(<unnamed function>)" if m["function"] == "<unknown>" else
             f"jit({m['function']})" for m in misses}
    found = {"misses": misses, "error": error, "messages": [clean(m) for m in mine],
             "lowerings": sum(c in names for c in collect.compiled)}
    if isinstance(result, dict) and "out" in result:   # a hit's value: the old one kept?
        found["out"] = np.asarray(result["out"]).tolist()
    return found


def _only():
    """`--only a,b`: the scenarios to record again (the others kept from the file)."""
    args = sys.argv[1:]
    return args[args.index("--only") + 1].split(",") if "--only" in args else list(SCENARIOS)


def main():
    jax.config.update("jax_explain_cache_misses", True)
    jax.config.update("jax_log_compiles", True)
    path = os.path.join(DATA, "recompile_reference.json")
    out = {}
    if "--only" in sys.argv:
        with open(path) as f:
            out = {k: v for k, v in json.load(f)["scenarios"].items() if k in SCENARIOS}
    for name in _only():
        out[name] = record(name)
        if "--print" in sys.argv:
            print(f"=== {name}: {len(out[name]['misses'])} misses, error {out[name]['error']}")
            for m in out[name]["messages"]:
                print(m)
    out = {"jax_version": jax.__version__, "scenarios": out}
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
