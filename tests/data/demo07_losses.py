"""Demo 07's training loop (demos/07_pytrees_and_training.ipynb), every step's loss recorded:
the notebook's own cells run as tests/data/demos_cells.py runs them (the jxkernel imports made
JAX's for `jax`), up to and including its training cell, whose loop runs `STEPS` steps (the
count it runs on the NumPy backend, JupyterLite's) with `train_step` wrapped to keep each
step's loss. reference/make_demo07_losses_reference.py runs it under real JAX 0.10.2;
tests/notebook/test_demo07_numpy_losses.py with jxkernel on the NumPy backend.

Run as a script: `python demo07_losses.py jax|jxkernel` prints {"backend", "losses"} as JSON
(the losses float32 values written as floats, exactly).
"""
import json
import re
import sys

import demos_cells

NOTEBOOK = "07_pytrees_and_training.ipynb"
STEPS = 100                               # the notebook's `steps` on the NumPy backend
_LOOP = re.compile(r"^steps = .*$", re.M)


def losses(library: str, steps: int = STEPS) -> dict:
    """{"backend": the default backend's name, "losses": [float per step]}."""
    ns = {"__name__": "__main__", **demos_cells.workshop_helpers()}
    ns["__jit_cell__"] = demos_cells.jit_cell_runner(ns)
    dropped = set()
    for index, source, tags, markdown in demos_cells.code_cells(NOTEBOOK):
        if markdown:
            continue
        code, skipped = demos_cells.neutralised(source, tags, library, dropped)
        assert code is not None, (index, skipped)
        if "def train_step" not in code:
            demos_cells._exec_cell(code, ns)
            continue
        definitions, loop = code.split("\nparams = init(", 1)
        assert _LOOP.search(loop), "the training cell's loop sets `steps` on one line"
        exec(definitions, ns)
        recorded, step = [], ns["train_step"]

        def train_step(*args):
            params, value = step(*args)
            recorded.append(float(value))            # a float32 scalar: exact as a float
            return params, value

        ns["train_step"] = train_step
        exec("params = init(" + _LOOP.sub(f"steps = {steps}", loop), ns)
        return {"backend": ns["jax"].default_backend(), "losses": recorded}
    raise AssertionError(f"{NOTEBOOK} has no cell defining train_step")


if __name__ == "__main__":
    sys.stdout.write(json.dumps(losses(sys.argv[1])))
