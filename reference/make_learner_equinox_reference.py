"""Record what JAX 0.10.2 with Equinox 0.13.8 and Optax 0.2.8 says for a learner's Equinox cells
(tests/data/learner_equinox_cases.py) into tests/data/learner_equinox_reference.json.

.venv-jax has no Equinox: run with an environment that has the three, e.g.

    python -m uv venv -p 3.11 /tmp/venvje
    python -m uv pip install -p /tmp/venvje/bin/python jax==0.10.2 jaxlib==0.10.2 \\
        equinox==0.13.8 optax==0.2.8
    /tmp/venvje/bin/python reference/make_learner_equinox_reference.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
sys.path.insert(0, DATA)

import equinox  # noqa: E402
import jax  # noqa: E402
import optax  # noqa: E402
from learner_equinox_cases import outcome  # noqa: E402

assert (jax.__version__, equinox.__version__, optax.__version__) == ("0.10.2", "0.13.8", "0.2.8")
namespace = {"__name__": "__main__"}


def run_cell(source):
    exec(compile(source, "<cell>", "exec"), namespace)


facts = outcome(run_cell, namespace)
facts["versions"] = [jax.__version__, equinox.__version__, optax.__version__]
with open(os.path.join(DATA, "learner_equinox_reference.json"), "w") as f:
    json.dump(facts, f, indent=1, sort_keys=True)
    f.write("\n")
print(json.dumps(facts, indent=1))
