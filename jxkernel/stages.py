"""jax.stages: a jitted function's ahead-of-time stages, as JAX 0.10.2 names them.

    >>> f = jxkernel.jit(lambda x, y: x * y)
    >>> compiled = f.trace(np.ones(3, np.float32), 2.0).lower().compile()
    >>> compiled.args_info[0][1]
    ArgInfo(_aval=ShapedArray(float32[], weak_type=True), donated=False)
    >>> compiled(np.ones(3, np.float32), 3.0)
    Array([3., 3., 3.], dtype=float32)

`Traced` (the jaxpr), `Lowered` (the StableHLO module) and `Compiled` (XLA's executable) are
defined with `jit` (jxkernel/transforms/jit.py), what they share (`ArgInfo`, other dialects'
texts, the errors of a call that does not fit) in jxkernel/transforms/aot.py; this module
gives them JAX's names.
"""
from .transforms.aot import ArgInfo, CompilerOptions, Wrapped
from .transforms.jit import Compiled, Lowered, Traced

__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Traced", "Wrapped"]
