"""Slicing primitives, as in JAX's lax/slicing.py: slice and pad, dynamic_slice and
dynamic_update_slice, gather and the scatter family (scatter, scatter-add, scatter-sub,
scatter-mul, scatter-min, scatter-max). One module per pair of primitives that are each
other's transposes, each primitive followed by its rules and the module's lax functions, with
JAX's signatures, at its bottom: slice_pad.py, dynamic_slices.py, gather_scatter.py; and
dimension_numbers.py, the parameters gather and scatter share. clamped_starts.py computes on the
host which start a dynamic slice uses for the one it was given, and start_watch.py records the
user's calls whose known start XLA moved, for the notebook's note.

    >>> dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
    ...                                 start_index_map=(0,))
    >>> lax.gather(jnp.arange(6).reshape(3, 2), jnp.array([[2], [0]]), dn, (1, 2))
    Array([[4, 5],
           [0, 1]], dtype=int32)
    >>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                                  scatter_dims_to_operand_dims=(0,))
    >>> lax.scatter_add(jnp.zeros(3), jnp.array([[2], [2]]), jnp.array([1., 2.]), dn)
    Array([0., 0., 3.], dtype=float32)

Out-of-bounds start indices follow XLA, as in JAX: dynamic_slice/dynamic_update_slice
clamp them so the window fits. A gather does what its `mode` says: CLIP clamps each window
into range (XLA's own behaviour), FILL_OR_DROP returns `fill_value` for any window not
wholly in bounds (a mask computed beside the gather), PROMISE_IN_BOUNDS checks nothing.
Scatters drop windows (FILL_OR_DROP, XLA's behaviour) or clamp indices (CLIP).

Differentiation and batching follow JAX's rules. Transposes come in pairs: slice and pad,
dynamic_slice and dynamic_update_slice (into zeros), gather and scatter-add with the same
dimension numbers. scatter-add/sub are linear; scatter-mul needs unique indices for its
updates' gradient; scatter-min/max average the tangents of tied values; a plain scatter with
possibly overlapping updates masks all but the winning update (by scattering ids) and
becomes scatter-adds. A batched dynamic_slice or dynamic_update_slice with batched start
indices becomes a gather or scatter, whose batching rules pair the operand's and the
indices' batch dims through operand_batching_dims and the indices' batching dims.
"""
from __future__ import annotations

from .dimension_numbers import (GatherDimensionNumbers, GatherScatterMode,  # noqa: F401
                                ScatterDimensionNumbers)
from .slice_pad import index_in_dim, pad, pad_p, slice, slice_in_dim, slice_p  # noqa: F401
from .dynamic_slices import (dynamic_index_in_dim, dynamic_slice,  # noqa: F401
                             dynamic_slice_in_dim, dynamic_slice_p, dynamic_update_index_in_dim,
                             dynamic_update_slice, dynamic_update_slice_in_dim,
                             dynamic_update_slice_p)
from .gather_scatter import (gather, gather_p, index_take, scatter, scatter_add,  # noqa: F401
                             scatter_add_p, scatter_apply, scatter_max, scatter_max_p, scatter_min,
                             scatter_min_p, scatter_mul, scatter_mul_p, scatter_p, scatter_sub,
                             scatter_sub_p)

# what jnp's indexing (numpy/indexing.py) and jax.export's symbolic lowering
# (export/_symbolic_lowering.py) reach here by name, beside the public names
from .dynamic_slices import size_as_array  # noqa: F401
from .gather_scatter import _scatter, _scatter_lowering  # noqa: F401
from .dimension_numbers import _dims_attr  # noqa: F401


__all__ = ["slice_p", "pad_p", "dynamic_slice_p", "dynamic_update_slice_p", "gather_p",
           "scatter_p", "scatter_add_p", "scatter_sub_p", "scatter_mul_p", "scatter_min_p",
           "scatter_max_p", "GatherDimensionNumbers", "ScatterDimensionNumbers",
           "GatherScatterMode", "slice", "slice_in_dim", "index_in_dim", "pad", "dynamic_slice",
           "dynamic_slice_in_dim", "dynamic_index_in_dim", "dynamic_update_slice",
           "dynamic_update_slice_in_dim", "dynamic_update_index_in_dim", "gather", "scatter",
           "scatter_add", "scatter_sub", "scatter_mul", "scatter_min", "scatter_max",
           "scatter_apply", "index_take"]
