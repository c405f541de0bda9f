"""jxkernel.experimental.layout, as jax.experimental.layout: how an array lies in memory
(`Layout`: its dimensions from major to minor, and a tiling) and a `Format`, a layout with the
sharding it goes with: a request (with_layout_constraint) or what XLA compiled a program for
(`Compiled.input_formats`, `output_formats`).

    >>> Layout((0, 1))
    Layout(major_to_minor=(0, 1), tiling=None, sub_byte_element_size_in_bits=0)
    >>> Format(Layout.AUTO).layout
    AUTO
    >>> jax.jit(lambda x: with_layout_constraint(x * 2, Layout((1, 0))))(jnp.ones((2, 2)))
    Array([[2., 2.],
           [2., 2.]], dtype=float32)
"""
from __future__ import annotations

from ...core.avals import get_aval
from ...lax.layout_constraint import layout_constraint_p
from ...transforms.api_util import flatten_axes
from ...tree_util import tree_flatten, tree_unflatten
# (made below the transforms: Compiled.input_formats gives Formats)
from ...xla.layout import AutoLayout, Format, Layout  # noqa: F401


def with_layout_constraint(x, layouts):
    """Each array of the pytree `x` laid out as its `Layout` in `layouts` (a prefix of `x`'s
    tree) says, where XLA places it inside a jit (the values are unchanged)."""
    leaves, tree = tree_flatten(x)
    layouts_flat = tuple(flatten_axes("with_layout_constraint layouts", tree, layouts))
    if any(not isinstance(layout, Layout) for layout in layouts_flat):
        raise ValueError("layouts passed to `with_layout_constraint` must be of type `Layout`. "
                         f"Got {[type(layout) for layout in layouts_flat]}")
    for leaf, layout in zip(leaves, layouts_flat):
        try:
            layout.check_compatible_aval(get_aval(leaf).shape)
        except ValueError as e:
            raise ValueError(f"One of with_layout_constraint arguments is incompatible with its "
                             f"layout annotation {layout}: {e}") from None
    return tree_unflatten(tree, [layout_constraint_p.bind(leaf, layout=layout)
                                 for leaf, layout in zip(leaves, layouts_flat)])
