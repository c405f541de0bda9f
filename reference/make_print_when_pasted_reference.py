"""Write tests/data/print_when_pasted_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_print_when_pasted_reference.py

Each cell of tests/data/print_when_pasted_cases.py with the card's print-when rewrite pasted in
place of its `if`: what f(-1.0) and f(2.0) print under JAX ("nan! nan" for log(-1.0), nothing,
or the else branch's "ok", for log(2.0)); the margin case compiled as Python only.
"""
import contextlib
import io
import json
import os
import sys

import jax
import jax.numpy as jnp

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from print_when_pasted_cases import CASES, MARGIN, pasted  # noqa: E402


def printed(source):
    namespace = {"jax": jax, "jnp": jnp}
    exec(compile(source, "<pasted>", "exec"), namespace)
    out = []
    for x in (-1.0, 2.0):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            namespace["f"](x)
            jax.effects_barrier()
        out.append(buf.getvalue())
    return out


def main():
    compile(pasted(*MARGIN), "<margin>", "exec")
    out = {"jax": jax.__version__,
           "cases": {name: printed(pasted(*case)) for name, case in CASES.items()}}
    with open(os.path.join(DATA, "print_when_pasted_reference.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
