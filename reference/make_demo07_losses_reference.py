"""Write tests/data/demo07_losses_reference.json: demo 07's training loop
(demos/07_pytrees_and_training.ipynb) run for the 100 steps it runs on the NumPy backend, with
real JAX 0.10.2 on its CPU backend at XLA's default options, every step's loss recorded
(tests/data/demo07_losses.py runs the notebook's cells). Run by hand:

    .venv-jax/bin/python reference/make_demo07_losses_reference.py

tests/notebook/test_demo07_numpy_losses.py compares jxkernel's NumPy backend's losses with
these.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")


def main() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
    env["PYTHONPATH"] = DATA
    ran = subprocess.run([sys.executable, os.path.join(DATA, "demo07_losses.py"), "jax"],
                         capture_output=True, text=True, env=env, check=True)
    answers = json.loads(ran.stdout)
    import jax
    with open(os.path.join(DATA, "demo07_losses_reference.json"), "w") as f:
        json.dump({"jax_version": jax.__version__, **answers}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
