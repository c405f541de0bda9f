"""jax.tools: JAX's command-line helpers; `jax_to_ir` (a function's HLO for a list of named
argument shapes)."""
