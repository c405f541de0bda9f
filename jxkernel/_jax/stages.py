"""jax.stages: a jitted function's ahead-of-time stages, as JAX 0.10.2 names them.

    >>> f = jxkernel.jit(lambda x, y: x * y)
    >>> compiled = f.trace(np.ones(3, np.float32), 2.0).lower().compile()
    >>> compiled.args_info[0][1]
    ArgInfo(_aval=ShapedArray(float32[], weak_type=True), donated=False)
    >>> compiled(np.ones(3, np.float32), 3.0)
    Array([3., 3., 3.], dtype=float32)

`Traced` (the jaxpr), `Lowered` (the StableHLO module) and `Compiled` (XLA's executable), and
what they share (`ArgInfo`, other dialects' texts, the errors of a call that does not fit),
are defined in jxkernel/transforms/jit/stages.py; this module gives them JAX's names.
"""
from ..transforms.jit.stages import ArgInfo, Compiled, CompilerOptions, Lowered, Traced, Wrapped

__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Traced", "Wrapped"]
