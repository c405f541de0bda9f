"""jxkernel._src.lib.gpu_solver, as jax._src.lib.gpu_solver (jaxlib's `gpu_solver`): the GPU
solver kernels the installed plugins hold, which JAX's scipy tests read to skip what a ROCm
build lacks. jxkernel/xla/gpu_solver.py asks jaxlib.

    >>> sorted(registrations())
    ['CUDA', 'ROCM']
"""
from ....xla.gpu_solver import registrations  # noqa: F401
