"""Write tests/data/tutorial_notes_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_tutorial_notes_reference.py

(third(): tutorial_notes3_reference.json, the third list's cases, stop 89; fourth():
tutorial_notes4_reference.json, stop 115's cases, alone with `... fourth`.)

For each case of tests/data/tutorial_notes_cases.py (a cell of JAX's tutorials, verbatim):
what it printed, the value of each of its CHECKS (calls made after it) as a list, JAX's
tracing-cache misses other than a first trace's (jax_explain_cache_misses), how many were
of a function never seen and how many of those JAX hinted was re-defined, and how many times
each jit compiled (jax_log_compiles' "Compiling jit(NAME)" lines, by NAME).
"""
import collections
import contextlib
import functools
import io
import json
import os
import re
import sys

import jax
import jax.numpy as jnp
import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from recording import kept_jax_log  # noqa: E402
from tutorial_notes_cases import CASES, CHECKS  # noqa: E402
from jax.experimental import io_callback  # noqa: E402


def never_seen_by(logs) -> dict:
    """How many "never seen function" misses JAX logged of each function, by name."""
    found = collections.Counter(
        line.split("never seen function:")[1].split()[0] for line in logs
        if "never seen function:" in line)
    return dict(sorted(found.items()))


def main(logs):
    out = {"jax": jax.__version__, "cases": {}}
    # one namespace, the cases run in order: as the test's cells in one shell
    names = {"jax": jax, "jnp": jnp, "jit": jax.jit, "grad": jax.grad, "vmap": jax.vmap,
             "np": np, "io_callback": io_callback, "partial": functools.partial,
             "custom_vjp": jax.custom_vjp, "vjp": jax.vjp, "while_loop": jax.lax.while_loop}
    for name, source in CASES.items():
        printed = io.StringIO()
        logs.clear()
        with contextlib.redirect_stdout(printed):
            exec(compile(source, f"<{name}>", "exec"), names)
            jax.effects_barrier()
        compiles = {}
        for line in logs:
            if line.startswith("Compiling jit("):
                fun = line[len("Compiling jit("):].split(")")[0]
                compiles[fun] = compiles.get(fun, 0) + 1
        with contextlib.redirect_stdout(printed):
            checks = [np.asarray(eval(call, names)).tolist() for call in CHECKS[name]]
            jax.effects_barrier()
        out["cases"][name] = {
            "printed": printed.getvalue().splitlines(), "checks": checks,
            "misses": [line for line in logs
                       if "CACHE MISS" in line and "never seen function" not in line],
            "compiles": compiles,
            "never_seen": sum("never seen function" in line for line in logs),
            "same_line_hints": sum("re-defined repeatedly" in line for line in logs),
            "never_seen_by": never_seen_by(logs)}
    with open(os.path.join(DATA, "tutorial_notes_reference.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


def third(logs):
    """tests/data/tutorial_notes3_reference.json (stop 89, h-docnotes3): for each case of
    tutorial_notes3_cases.py, run in order in one namespace, what it printed, what it
    raised (its type and first line) and how many times each jit compiled, by name; and JAX's AttributeError for each tree name 0.6.0
    removed, with whether its replacement is there."""
    from tutorial_notes3_cases import CASES3, REMOVED_TREE_NAMES
    names, out = {"jax": jax, "jnp": jnp, "np": np, "jit": jax.jit,
                  "functools": functools}, {"jax": jax.__version__, "cases": {}, "removed": {}}
    for name, source in CASES3.items():
        printed, error = io.StringIO(), None
        logs.clear()
        with contextlib.redirect_stdout(printed):
            try:
                exec(compile(source, f"<{name}>", "exec"), names)
            except Exception as e:                       # noqa: BLE001  (recorded)
                error = re.sub(r" at 0x[0-9a-f]+", "",     # (a function's address)
                               f"{type(e).__name__}: {str(e).splitlines()[0]}")
        compiles = collections.Counter(line[len("Compiling jit("):].split(")")[0]
                                       for line in logs if line.startswith("Compiling jit("))
        out["cases"][name] = {"printed": printed.getvalue().splitlines(), "error": error,
                              "compiles": dict(sorted(compiles.items()))}
    for name, replacement in REMOVED_TREE_NAMES.items():
        try:
            getattr(jax, name)
            message = None
        except AttributeError as e:
            message = str(e)
        out["removed"][name] = {"message": message,
                                "replacement_callable": callable(eval(replacement, names))}
    with open(os.path.join(DATA, "tutorial_notes3_reference.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


def fourth(logs):
    """tests/data/tutorial_notes4_reference.json (stop 115): for each case of
    tutorial_notes4_cases.py, run in order in one namespace (KEY_CHECKED's with
    jax_debug_key_reuse on), what it printed, what it raised (its type and first line) and how
    many times each jit compiled, by name."""
    from tutorial_notes4_cases import CASES4, KEY_CHECKED
    names = {"jax": jax, "jnp": jnp, "jit": jax.jit, "random": jax.random}
    out = {"jax": jax.__version__, "cases": {}}
    for name, source in CASES4.items():
        printed, error = io.StringIO(), None
        logs.clear()
        jax.config.update("jax_debug_key_reuse", name in KEY_CHECKED)
        with contextlib.redirect_stdout(printed):
            try:
                exec(compile(source, f"<{name}>", "exec"), names)
            except Exception as e:                       # noqa: BLE001  (recorded)
                error = f"{type(e).__name__}: {str(e).splitlines()[0]}"
        jax.config.update("jax_debug_key_reuse", False)
        compiles = collections.Counter(line[len("Compiling jit("):].split(")")[0]
                                       for line in logs if line.startswith("Compiling jit("))
        out["cases"][name] = {"printed": printed.getvalue().splitlines(), "error": error,
                              "compiles": dict(sorted(compiles.items()))}
    with open(os.path.join(DATA, "tutorial_notes4_reference.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    with kept_jax_log(jax) as logs:
        if sys.argv[1:] == ["fourth"]:          # stop 115's cases alone
            fourth(logs)
        else:
            main(logs)
            third(logs)
            fourth(logs)
