"""Example libraries, as jax.example_libraries: `stax` (layers as (init_fun, apply_fun) pairs)
and `optimizers` (optimizers as (init_fun, update_fun, get_params) triples).

Like JAX's, the package imports neither submodule: `from jax.example_libraries import stax`.
"""
