"""Run one page's cells in one namespace and write what each printed (NumPy and stdlib only).

The same file runs under real JAX (``.venv-jax``) and under jxkernel
(``JXKERNEL_AS_JAX=1``), so both sides capture a page the same way:

    python -m conformance.docs.worker CELLS.json OUT.jsonl

``CELLS.json`` is ``{"name": page, "cells": [{"index", "code"}]}``; each cell's record is a
line of ``OUT.jsonl`` written as soon as the cell ends (a page cut off by its time limit
keeps the cells it finished): ``{"index", "out": [lines], "error": "Type: message" | null}``.
A cell's output is what it printed and, as a notebook shows it, the ``repr`` of a last
expression that is not None (a trailing ``;`` hides it). IPython's line and cell magics
become plain Python: ``%timeit stmt`` and ``%time stmt`` run ``stmt`` once (timings are
not compared; as in IPython, ``%time`` shows its expression's value and ``%timeit`` none), ``%%time``/``%%timeit`` run the cell's body once, ``!shell`` and the
other magics are dropped.

    >>> strip_magics("%timeit f(x).block_until_ready()\\n!pip install foo\\ny = 1")
    'f(x).block_until_ready();\\npass\\ny = 1'
"""
import ast
import contextlib
import io
import json
import linecache
import re
import sys
import traceback

_LINE_MAGIC = re.compile(r"^(\s*)%(timeit|time)\b((?:\s+-\w+(?:\s+\d+)?)*)\s+(.*)$")
_CELL_MAGIC = re.compile(r"^%%(timeit|time|capture)\b.*$")
_OTHER = re.compile(r"^(\s*)(?:[!%].*)$")


def strip_magics(code):
    """A cell's IPython syntax as plain Python (see the module's docstring)."""
    lines = code.split("\n")
    if lines and _CELL_MAGIC.match(lines[0]):
        lines = lines[1:]
    out = []
    for line in lines:
        magic = _LINE_MAGIC.match(line)
        other = _OTHER.match(line)
        if magic:
            # %timeit shows no value (%time shows its expression's): a `;` hides it
            hide = ";" if magic.group(2) == "timeit" else ""
            out.append(magic.group(1) + magic.group(4).rstrip() + hide)
        elif other:
            out.append(other.group(1) + "pass")
        else:
            out.append(line)
    return "\n".join(out)


def _register_source(filename, code):
    """Keep the cell's text where ``inspect`` and traceback look for source lines."""
    lines = [line + "\n" for line in code.split("\n")]
    linecache.cache[filename] = (len(code), None, lines, filename)


def _wait_for_effects():
    """Printing callbacks (``jax.debug.print``) may still be in flight when a cell ends."""
    jax = sys.modules.get("jax")
    barrier = getattr(jax, "effects_barrier", None)
    if barrier is not None:
        try:
            barrier()
        except Exception:   # noqa: BLE001 -- a page may have left the runtime unusable
            pass


def run_cell(code, namespace, filename):
    """What the cell printed (and showed), and its exception as ``Type: first line``."""
    code = strip_magics(code)
    _register_source(filename, code)
    out, error = io.StringIO(), None
    with contextlib.redirect_stdout(out):
        try:
            tree = ast.parse(code, filename)
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr) \
                    and not code.rstrip().endswith(";"):
                last = ast.Expression(tree.body.pop().value)
            exec(compile(tree, filename, "exec"), namespace)
            if last is not None:
                value = eval(compile(last, filename, "eval"), namespace)
                if value is not None:
                    print(repr(value))
            _wait_for_effects()
        except BaseException as e:   # noqa: BLE001 -- a cell's failure is data here
            if isinstance(e, KeyboardInterrupt):
                raise
            message = str(e).strip().splitlines()
            error = f"{type(e).__name__}: {message[0] if message else ''}"
            trace = traceback.format_exception(e)
            error += "\n" + "".join(trace[-4:])[-2000:]
    return out.getvalue().splitlines(), error


def main(cells_path, out_path):
    with open(cells_path) as f:
        page = json.load(f)
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    sys.argv = [page["name"]]
    # pages draw from NumPy's and Python's global generators unseeded: seed both the same
    # way on both sides, so a page's data are the same under JAX and jxkernel. JAX's import
    # draws from NumPy's generator, so jax is imported first.
    import random
    import numpy as np
    try:
        import jax.numpy  # noqa: F401
    except ImportError:
        pass
    random.seed(0)
    np.random.seed(0)
    with open(out_path, "w") as out:
        for cell in page["cells"]:
            filename = f"<cell {cell['index']}>"
            lines, error = run_cell(cell["code"], namespace, filename)
            out.write(json.dumps({"index": cell["index"], "out": lines, "error": error}) + "\n")
            out.flush()
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    # a page may leave threads or XLA state whose teardown hangs; the records are written
    import os
    os._exit(0)
