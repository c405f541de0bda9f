"""Record what JAX 0.10.2 with Flax 0.12.7 and Optax 0.2.8 says for a learner's Flax NNX cells
(tests/data/learner_flax_cases.py) into tests/data/learner_flax_reference.json.

.venv-jax has no Flax: run with an environment that has the three, e.g.

    python -m uv venv -p 3.11 /tmp/venvjf
    python -m uv pip install -p /tmp/venvjf/bin/python jax==0.10.2 jaxlib==0.10.2 \\
        flax==0.12.7 optax==0.2.8
    /tmp/venvjf/bin/python reference/make_learner_flax_reference.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
sys.path.insert(0, DATA)

import flax  # noqa: E402
import jax  # noqa: E402
import optax  # noqa: E402
from learner_flax_cases import outcome  # noqa: E402

assert (jax.__version__, flax.__version__, optax.__version__) == ("0.10.2", "0.12.7", "0.2.8")
namespace = {"__name__": "__main__"}


def run_cell(source):
    exec(compile(source, "<cell>", "exec"), namespace)


facts = outcome(run_cell, namespace)
facts["versions"] = [jax.__version__, flax.__version__, optax.__version__]
with open(os.path.join(DATA, "learner_flax_reference.json"), "w") as f:
    json.dump(facts, f, indent=1, sort_keys=True)
    f.write("\n")
print(json.dumps(facts, indent=1))
