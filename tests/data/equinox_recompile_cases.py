"""A learner's eqx.filter_jit train step that compiles again, and the fixes its compile note
advises, as notebook cells after learner_equinox_cases.SETUP (the quick start's model, loss and
`make_step`, compiled once for batches of 8): run under JAX 0.10.2 with Equinox 0.13.8 and Optax
0.2.8 by reference/make_equinox_recompile_reference.py (which records JAX's tracing cache
misses per cell), and in a jxkernel kernel by tests/notebook/test_equinox_recompile_notes.py."""

import re

# the note's fix pasted before the call (its snippet, with the learner's names x and y): the
# last, smaller batch padded to the 8 rows compiled before
PADDED = """\
x, y = make_batch(5)
n = x.shape[0]
x = jnp.pad(x, [(0, 8 - n)] + [(0, 0)] * (x.ndim - 1))
mask = jnp.arange(8) < n    # pass it in: weigh each row by it
n = y.shape[0]
y = jnp.pad(y, [(0, 8 - n)] + [(0, 0)] * (y.ndim - 1))
mask = jnp.arange(8) < n    # pass it in: weigh each row by it
model, opt_state, padded_loss = make_step(model, opt_state, x, y)
"""
# the last, smaller batch as it comes: make_step compiles again
LAST_BATCH = """\
x, y = make_batch(5)
model, opt_state, last_loss = make_step(model, opt_state, x, y)
"""
# a Python number among the step's arguments: eqx.filter_jit makes it static
SCALE = """\
@eqx.filter_jit
def scale(x, n):
  return x * n
scaled = scale(jnp.ones(3), 2)
"""
SCALE_AGAIN = "scaled = scale(jnp.ones(3), 3)\n"
# the note's fix: the number passed as an array, traced
SCALE_FIXED = """\
@eqx.filter_jit
def scale_traced(x, n):
  return x * n
scaled = scale_traced(jnp.ones(3), jnp.asarray(2))
scaled = scale_traced(jnp.ones(3), jnp.asarray(3))
"""
# in this order, one kernel: PADDED before LAST_BATCH (which compiles make_step for 5 rows)
CELLS = {"padded": PADDED, "last_batch": LAST_BATCH, "scale": SCALE,
         "scale_again": SCALE_AGAIN, "scale_fixed": SCALE_FIXED}


def miss_lines(log: str) -> list:
    """JAX's tracing cache misses in `log` (jax_explain_cache_misses' text), each as
    [function, its "* at ..." lines], object addresses written 0x..., ids and a file's folder
    left out ("make_step defined at equinox/_jit.py:43")."""
    found = []
    for block in log.split("TRACING CACHE MISS")[1:]:
        lines = block.splitlines()
        # "for f defined at ...", or after "never seen function:", "f id=... defined at ..."
        function = next((re.sub(r"^for | id=\d+|(?<=defined at ).*/(?=equinox/)", "", l.strip())
                         for l in lines if l.strip().startswith("for ") or " id=" in l), "")
        found.append([function] + [re.sub(r"0x[0-9a-f]+", "0x...", l.strip())
                                   for l in lines if l.strip().startswith("* at ")
                                   or l.strip() == "never seen function:"])
    return found
