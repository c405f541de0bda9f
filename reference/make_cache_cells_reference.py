"""Write tests/data/cache_cells_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_cache_cells_reference.py

Runs the programs of tests/data/cache_cells_cases.py one after another in one process, each
cell as ipykernel runs it: compiled from a file named after its code
(/tmp/ipykernel_<pid>/<hash>.py), the value of a last expression displayed (its repr), an
error shown by its type and message. What the learner sees of each cell, in order: the
WARNING records JAX logs (with no handler set, Python prints a warning's message on stderr,
as a kernel shows it), then the displayed value or the error ("TypeError: ..."):
{"program": [[line, ...] per cell]}, each cell's file named "<cell N>" (N: the first cell of
its code, counted over all programs) and JAX's function ids ("f id=140...") left out.
"""
import ast
import json
import logging
import os
import re
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
sys.path.insert(0, DATA)
FILE = re.compile(r"/tmp/ipykernel_\d+/\d+\.py")


def cell_names(files: dict):
    """A line with each cell's file (`files`: file -> "<cell N>") named "<cell N>" and JAX's
    function ids left out."""
    def named(text: str) -> str:
        text = re.sub(r" id=\d+", "", text)
        return FILE.sub(lambda m: files.get(m.group(0), m.group(0)), text)
    return named


def file_of(code: str) -> str:
    """The cell's file, named after its code as ipykernel names it."""
    return f"/tmp/ipykernel_{os.getpid()}/{zlib.crc32(code.encode())}.py"


def run_cell(code: str, env: dict) -> tuple:
    """(the cell's displayed value or None, its error's text or None)."""
    filename = file_of(code)
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    try:
        exec(compile(tree, filename, "exec"), env)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), filename, "eval"), env)
            return (None if value is None else repr(value)), None
    except Exception as e:                    # noqa: BLE001 (the learner's error, shown)
        return None, f"{type(e).__name__}: {e}"
    return None, None


def main():
    from cache_cells_cases import PROGRAMS, SETUP
    import jax
    import jax.numpy as jnp
    logged = []

    class Collect(logging.Handler):
        def emit(self, record):
            logged.append(record.getMessage())

    logging.getLogger("jax").addHandler(Collect(logging.WARNING))
    env = {"jax": jax, "jnp": jnp, "__name__": "__main__"}
    exec(SETUP, env)
    files = {}
    for _, _, sources in PROGRAMS:
        for code in sources:
            files.setdefault(file_of(code), f"<cell {len(files) + 1}>")
    cells, out = cell_names(files), {}
    for name, _, sources in PROGRAMS:
        out[name] = []
        for code in sources:
            logged.clear()
            value, error = run_cell(code, env)
            lines = [line for message in logged for line in message.splitlines()]
            lines += (value or error or "").splitlines()
            out[name].append([cells(line) for line in lines])
        print(name, json.dumps(out[name], indent=1))
    with open(os.path.join(DATA, "cache_cells_reference.json"), "w") as f:
        json.dump({"jax_version": jax.__version__, "programs": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
