"""jxkernel.scipy.optimize: minimize (BFGS, JAX's line search) and OptimizeResults."""
from ._minimize import OptimizeResults, minimize

__all__ = ["OptimizeResults", "minimize"]
