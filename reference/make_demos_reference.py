"""Write tests/data/demos_jax_reference.json: the workshop's notebooks (demos/ and
demos/solutions/) run cell by cell with real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_demos_reference.py

tests/data/demos_cells.py runs them (its docstring states what it changes in a cell: the
jxkernel imports made JAX's, the setup cell, magics, %%jit cells, the workshop's helpers, the
views) and records each cell's stdout, error, last value and compile/trace log lines;
09_parallelism runs in a process of its own (four CPU devices before the backend starts), the
others together in one. tests/notebook/test_demos_against_jax.py runs the same cells with
jxkernel and compares. Stdout of the cells that print timings is recorded as JAX printed it
(the test does not compare those).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
sys.path.insert(0, DATA)
import demos_cells  # noqa: E402


def main() -> None:
    names = sorted(n for n in os.listdir(demos_cells.DEMOS) if n.endswith(".ipynb"))
    groups = [[n for n in names if n not in demos_cells.SEPARATE_PROCESS]] + \
        [[n] for n in names if n in demos_cells.SEPARATE_PROCESS]
    answers = {}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
    for group in groups:
        ran = subprocess.run([sys.executable, os.path.join(DATA, "demos_cells.py"), "jax",
                              *group], capture_output=True, text=True, env=env, check=True)
        answers.update(json.loads(ran.stdout))
    import jax
    out = {"jax": jax.__version__, "notebooks": answers}
    with open(os.path.join(DATA, "demos_jax_reference.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
