"""jxkernel._src.lib.mlir, as jax._src.lib.mlir: the StableHLO dialect's elementwise builders
for lowering rules (`dialects.hlo`)."""
