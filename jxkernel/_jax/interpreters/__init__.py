"""jxkernel.interpreters, as jax.interpreters: the rule tables of the transformations, for
primitives defined outside jxkernel (`jxkernel.extend.core.Primitive`).

- `ad`: `primitive_jvps`, `primitive_transposes`, `Zero`, `UndefinedPrimal`, ...
- `batching`: `primitive_batchers`, `not_mapped`, ...
- `mlir`: `register_lowering`, `lower_fun`.

Each is imported on its own, as in JAX (`from jxkernel.interpreters import ad`).
"""
