"""jax.experimental.array_serialization: Arrays saved to and read from TensorStore
(`serialization`, `tensorstore_impl`). Each submodule imports tensorstore when it is imported,
never before; JAX's package itself names nothing."""
