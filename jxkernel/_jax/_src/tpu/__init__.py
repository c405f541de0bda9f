"""jax._src.tpu: the names JAX's tests import from JAX's TPU-algorithm package (linalg/)."""
