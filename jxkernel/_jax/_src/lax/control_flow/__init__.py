"""jxkernel._src.lax.control_flow, as jax._src.lax.control_flow: JAX's private home of the
control-flow primitives and functions (jxkernel.lax's cond.py, scan.py, while_loop.py,
loops.py, solves.py), which JAX's tests import as `lax_control_flow`.

    >>> from jxkernel._src.lax import control_flow
    >>> control_flow.cond(True, lambda: 1, lambda: 2)
    Array(1, dtype=int32, weak_type=True)
"""
from .....lax import (associative_scan, cond, cond_p, cumlogsumexp, cumlogsumexp_p,  # noqa: F401
                     cummax, cummax_p, cummin, cummin_p, cumprod, cumprod_p, cumsum, cumsum_p,
                     fori_loop, map, optimization_barrier_p, platform_dependent,
                     platform_index_p, scan, scan_p, switch, while_loop, while_p)
from .....lax.solves import custom_linear_solve, custom_root, linear_solve_p  # noqa: F401
from . import common  # noqa: F401
