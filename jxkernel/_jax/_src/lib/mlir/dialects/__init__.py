"""jxkernel._src.lib.mlir.dialects: `hlo`, StableHLO's elementwise operations for lowering rules,
and jaxlib's Shardy dialect `sdy` (jax.extend.mlir's), loaded on first access."""
from ......core.lazy_names import lazy_names

__getattr__, __dir__ = lazy_names(__name__, globals(), {
    "hlo": (".hlo", None), "sdy": ("jxkernel._jax.extend.mlir.dialects.sdy", None)})
