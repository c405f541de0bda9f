"""jxkernel._src.lib.mlir, as jax._src.lib.mlir: the StableHLO dialect's elementwise builders
for lowering rules (`dialects.hlo`), and jaxlib's `ir` (what `Lowered.compiler_ir()` is made
of, jax.extend.mlir's), loaded on first access."""
from .....core.lazy_names import lazy_names

__getattr__, __dir__ = lazy_names(__name__, globals(), {"ir": ("jxkernel._jax.extend.mlir.ir",
                                                               None)})
