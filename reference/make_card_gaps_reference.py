"""Write tests/data/card_gaps_reference.json from real JAX 0.10.2 (run by hand, never by the
tests):

    .venv-jax/bin/python reference/make_card_gaps_reference.py

What `run` in tests/data/card_gaps_cases.py answers: JAX's errors for an unregistered class
given to grad/vmap/tree_map, checkify.check under jit unwrapped, grad of an integer output,
typed-key mistakes, a traced value where a jnp function's inner jit wants a static one, and
the order and count of while_loop's traces of a promoted carry; stop 101's: an int loop carry
made float, vmap's out_axes past a scalar output, an assert on a vector, jax.random.split of a
traced count, lax.switch branches of two dtypes; stop 103's: switch and cond branches off in
several places (several branches, leaves, a leaf in dtype and shape); stop 104's: keys of two
types in branches and carries, a reshape with two -1s, numbers and ragged rows given to
concatenate/stack, an uneven split, a matrix product of a number and others (STOP_104); and
the values of the fixes the cards advise."""
import json
import os
import sys

import jax

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from card_gaps_cases import run  # noqa: E402

with open(os.path.join(DATA, "card_gaps_reference.json"), "w") as f:
    json.dump(run(jax), f, indent=1, sort_keys=True)
    f.write("\n")
