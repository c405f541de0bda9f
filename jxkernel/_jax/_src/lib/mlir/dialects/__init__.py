"""jxkernel._src.lib.mlir.dialects: `hlo`, StableHLO's elementwise operations for lowering rules."""
