"""Write tests/data/library_notes_reference.json from real JAX 0.10.2 with Flax 0.12.7,
Optax 0.2.8 and Equinox 0.13.8 installed beside it (conformance/libraries' venv; run by hand, never by the tests):

    .libs/venv-jax/bin/python reference/make_library_notes_reference.py

For each case of tests/data/library_notes_cases.py (a cell of a library's first tutorial, and
the fixes a note offered for it, pasted), in order in one namespace per library: what it
printed, the exception it raised (class and first line), JAX's tracing-cache misses other than
a first trace's (jax_explain_cache_misses, their "now ... before ..." lines; not those of
the libraries' own functions, Optax's tree_bias_correction, which no note tells either), and how many
times each jit compiled (jax_log_compiles' "Compiling jit(NAME)" lines, by NAME, the
learner's functions: those the cases define).
"""
import collections
import contextlib
import io
import json
import os
import re
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from library_notes_cases import EQUINOX, FLAX, OPTAX, SETUP  # noqa: E402
from recording import kept_jax_log  # noqa: E402


def run(cases, setup, logs) -> dict:
    namespace, out = {}, {}
    defined = set(re.findall(r"def (\w+)", "".join(cases.values())))
    exec(setup, namespace)
    for name, code in cases.items():
        logs.clear()
        printed, error = io.StringIO(), None
        with contextlib.redirect_stdout(printed):
            try:
                exec(compile(code, f"<{name}>", "exec"), namespace)
            except Exception as e:            # noqa: BLE001  (recorded: the case's answer)
                error = re.sub(r" at 0x[0-9a-f]+", "", f"{type(e).__name__}: "
                               f"{str(e).splitlines()[0]}")
        compiles = collections.Counter(
            m.group(1) for line in logs
            for m in [re.match(r"Compiling jit\((\w+)\)", line)]
            if m and m.group(1) in defined)
        out[name] = {"printed": printed.getvalue().splitlines(), "error": error,
                     "misses": [line for line in logs if "TRACING CACHE MISS" in line and
                                "never seen function" not in line and
                                "site-packages" not in line],
                     "redefined": sum("re-defined repeatedly" in line for line in logs),
                     "compiles": dict(sorted(compiles.items()))}
    return out


if __name__ == "__main__":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import equinox
    import flax
    import optax
    result = {"jax": jax.__version__, "flax": flax.__version__, "optax": optax.__version__,
              "equinox": equinox.__version__}
    for name, cases in (("flax", FLAX), ("optax", OPTAX), ("equinox", EQUINOX)):
        with kept_jax_log(jax) as logs:      # each library's cases in a namespace of their own
            result[f"{name}_cases"] = run(cases, SETUP[name], logs)
    with open(os.path.join(DATA, "library_notes_reference.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
