"""jax.extend.mlir.dialects: jaxlib's MLIR dialect bindings, one module each (`func`,
`stablehlo`, `chlo`, `arith`, ...), as JAX re-exports them."""
