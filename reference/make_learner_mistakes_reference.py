"""Write tests/data/learner_mistakes_reference.json from real JAX 0.10.2 (run by hand, never
by the tests):

    .venv-jax/bin/python reference/make_learner_mistakes_reference.py

What `run` in tests/data/learner_mistakes_cases.py answers: JAX's errors for learners'
mistakes (an attribute typo on a tracer, a list as a static argument, .item() under jit), and
whether the fixes jxkernel advises for them work."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from learner_mistakes_cases import (draw_fixes, run, state_classes,  # noqa: E402
                                    torch_habits, tree_arithmetic)

with open(os.path.join(DATA, "learner_mistakes_reference.json"), "w") as f:
    json.dump({**run(jax), **draw_fixes(jax), **torch_habits(jax), **state_classes(jax),
               **tree_arithmetic(jax)}, f, indent=1, sort_keys=True)
    f.write("\n")
