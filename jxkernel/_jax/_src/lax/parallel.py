"""jxkernel._src.lax.parallel, as jax._src.lax.parallel: JAX's private home of the collectives
(jxkernel/lax/parallel/), `pargmax`/`pargmin`, which JAX keeps out of jax.lax, and the
asynchronous collectives' start functions (`psum_start`, ...: lax/parallel/futures.py).

    >>> jax.vmap(lambda x: pargmax(x, "i"), axis_name="i")(jnp.array([1., 3., 2.]))
    Array([1, 1, 1], dtype=int32)
"""
from ....lax.parallel import (all_gather, all_gather_p, all_to_all, all_to_all_p,  # noqa: F401
                              axis_index, axis_index_p, pargmax, pargmin, pbroadcast, pmax,
                              pmax_p, pmean, pmin, pmin_p, ppermute, ppermute_p, pshuffle,
                              psum, psum_p, psum_scatter, pswapaxes)
from ....lax.parallel.futures import (Future, all_gather_done_p, all_gather_start,  # noqa: F401
                                      all_to_all_done_p, all_to_all_start, pbroadcast_done_p,
                                      pbroadcast_start, ppermute_done_p, ppermute_start,
                                      psum_done_p, psum_scatter_start, psum_start,
                                      reduce_scatter_done_p)
