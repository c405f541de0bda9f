"""jxkernel._src.lax.windowed_reductions, as jax._src.lax.windowed_reductions: JAX's private home
of the windowed reductions (jxkernel/lax/windowed.py), with the two functions its tests call
under their private names.

    >>> x = jnp.array([1., 3., 2., 0.])
    >>> _select_and_gather_add(x, x, lax.ge_p, (2,), (2,), [(0, 0)], (1,), (1,))
    Array([3., 2.], dtype=float32)
"""
from ....lax.windowed import (reduce_window, reduce_window_max_p,  # noqa: F401
                              reduce_window_min_p, reduce_window_p, reduce_window_shape_tuple,
                              reduce_window_sum_p, select_and_gather_add_p,
                              select_and_scatter_add_p)
from ....lax.windowed import select_and_gather_add as _select_and_gather_add  # noqa: F401
from ....lax.windowed import select_and_scatter_add as _select_and_scatter_add  # noqa: F401
