"""jxkernel._src.lib.mlir, as jax._src.lib.mlir: the StableHLO dialect's elementwise builders
for lowering rules (`dialects.hlo`), and jaxlib's `ir` (what `Lowered.compiler_ir()` is made
of), loaded on first access (jax.extend.mlir's)."""


def __getattr__(name):
    if name == "ir":
        from ....extend.mlir import ir    # jaxlib: loaded on first access only
        return ir
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
