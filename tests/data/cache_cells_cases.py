"""Six short learner programs around jit's caches, as notebook cells, run one after another in
one kernel with `jax_explain_cache_misses` on: recorded under JAX 0.10.2 by
reference/make_cache_cells_reference.py (into cache_cells_reference.json) and run in a real
jxkernel kernel by tests/notebook/test_cache_cells.py, which compares every line a learner
sees of each cell (its printed and displayed values, the misses logged, an error's last line).

A cell's file is named after its code, as ipykernel names it (/tmp/ipykernel_<pid>/<hash>.py:
the same code run again in a new cell has the same file), so both sides' lines are compared
with each file named "<cell N>", N counting the distinct files in order of first use.
"""

SETUP = "jax.config.update('jax_explain_cache_misses', True)"

# (name, what the learner did, cells); run in this order in one kernel (the config change
# last: it would change every later trace)
PROGRAMS = [
    ("redefined_in_a_new_cell",
     "the same function defined again in a new cell, then jitted and called",
     ["def f(x):\n    return x * 2\njax.jit(f)(jnp.ones(3))",
      "def f(x):\n    return x * 2\njax.jit(f)(jnp.ones(3))"]),
    ("lambda_in_a_loop",
     "jax.jit of a lambda made in a loop",
     ["for i in range(3):\n    out = jax.jit(lambda x: x + i)(jnp.ones(3))\nout"]),
    ("static_array",
     "an array passed as a static argument",
     ["def scale(x, n):\n    return x * n\nscale_jit = jax.jit(scale, static_argnums=1)",
      "scale_jit(jnp.ones(3), jnp.ones(3))",
      "scale_jit(jnp.ones(3), 2)"]),
    ("closure_over_a_changing_global",
     "a jitted function reads a global, which is then changed",
     ["factor = 2.0\ndef times(x):\n    return x * factor\ntimes_jit = jax.jit(times)\n"
      "times_jit(jnp.ones(3))",
      "factor = 3.0\ntimes_jit(jnp.ones(3))"]),
    ("clear_caches",
     "jax.clear_caches() between two calls of one jitted function",
     ["double = jax.jit(lambda x: x * 2)\ndouble(jnp.ones(3))",
      "jax.clear_caches()\ndouble(jnp.ones(3))"]),
    ("config_changed",
     "a config option changed between two calls of one jitted function",
     ["mm = jax.jit(lambda a: a @ a)\nmm(jnp.ones((2, 2)))",
      "jax.config.update('jax_default_matmul_precision', 'highest')\nmm(jnp.ones((2, 2)))"]),
]
