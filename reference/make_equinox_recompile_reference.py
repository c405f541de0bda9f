"""Record JAX 0.10.2's tracing cache misses (jax_explain_cache_misses, with Equinox 0.13.8 and
Optax 0.2.8) for each cell of tests/data/equinox_recompile_cases.py, after the learner's
SETUP, into tests/data/equinox_recompile_reference.json: {cell: [[function, JAX's lines], ...]}
and the losses the padded and the last batch's cells leave.

.venv-jax has no Equinox: run with an environment that has the three (as
reference/make_learner_equinox_reference.py says), e.g.

    /tmp/venvje/bin/python reference/make_equinox_recompile_reference.py
"""
import io
import json
import logging
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
sys.path.insert(0, DATA)

import equinox  # noqa: E402
import jax  # noqa: E402
import optax  # noqa: E402
from equinox_recompile_cases import CELLS, miss_lines  # noqa: E402
from learner_equinox_cases import SETUP  # noqa: E402

assert (jax.__version__, equinox.__version__, optax.__version__) == ("0.10.2", "0.13.8", "0.2.8")
namespace = {"__name__": "__main__"}
log = io.StringIO()
logging.getLogger("jax").addHandler(logging.StreamHandler(log))
exec(compile(SETUP, "<cell>", "exec"), namespace)
jax.config.update("jax_explain_cache_misses", True)
facts = {}
for name, source in CELLS.items():
    log.seek(0)
    log.truncate()
    exec(compile(source, "<cell>", "exec"), namespace)
    facts[name] = miss_lines(log.getvalue())
facts["losses"] = {k: float(namespace[k]) for k in ("padded_loss", "last_loss")}
facts["versions"] = [jax.__version__, equinox.__version__, optax.__version__]
with open(os.path.join(DATA, "equinox_recompile_reference.json"), "w") as f:
    json.dump(facts, f, indent=1, sort_keys=True)
    f.write("\n")
print(json.dumps(facts, indent=1))
