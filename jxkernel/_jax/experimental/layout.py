"""jxkernel.experimental.layout, as jax.experimental.layout: how an array lies in memory
(`Layout`: its dimensions from major to minor, and a tiling) and a `Format`, a layout with the
sharding it goes with. jxkernel lays out every array in XLA's default row-major order; these
describe a request or a result for code that passes them along (Flax's sharding helpers).

    >>> Layout((0, 1))
    Layout(major_to_minor=(0, 1), tiling=None, sub_byte_element_size_in_bits=0)
    >>> Format(Layout.AUTO).layout
    AUTO
    >>> jax.jit(lambda x: with_layout_constraint(x * 2, Layout((1, 0))))(jnp.ones((2, 2)))
    Array([[2., 2.],
           [2., 2.]], dtype=float32)
"""
from __future__ import annotations

from ...api.sharding import Sharding
from ...core.avals import get_aval
from ...lax.layout_constraint import layout_constraint_p
from ...transforms.api_util import flatten_axes
from ...tree_util import tree_flatten, tree_unflatten


class _AutoLayout:
    """The layout left to the compiler."""

    def __repr__(self):
        return "AUTO"


AutoLayout = _AutoLayout()


class Layout:
    """Dimensions from major to minor (row-major: 0, 1, ..., n-1), an optional tiling, and the
    element size in bits of sub-byte types (0: the dtype's own)."""
    AUTO = AutoLayout

    def __init__(self, major_to_minor, tiling=None, sub_byte_element_size_in_bits: int = 0):
        self.major_to_minor = tuple(major_to_minor)
        self.tiling = None if tiling is None else tuple(tuple(t) for t in tiling)
        self.sub_byte_element_size_in_bits = sub_byte_element_size_in_bits

    def _key(self):
        return self.major_to_minor, self.tiling, self.sub_byte_element_size_in_bits

    def __repr__(self):
        return (f"Layout(major_to_minor={self.major_to_minor}, tiling={self.tiling}, "
                f"sub_byte_element_size_in_bits={self.sub_byte_element_size_in_bits})")

    def __eq__(self, other):
        return isinstance(other, Layout) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def update(self, **changes) -> "Layout":
        fields = dict(zip(("major_to_minor", "tiling", "sub_byte_element_size_in_bits"),
                          self._key()))
        fields.update(changes)
        return Layout(**fields)

    def check_compatible_aval(self, aval_shape) -> None:
        if len(self.major_to_minor) != len(aval_shape):      # (JAX's words)
            raise ValueError(f"Length of major_to_minor and the rank of the value should "
                             f"match. Got major_to_minor={self.major_to_minor} and "
                             f"shape={tuple(aval_shape)}")


class Format:
    """A layout (a `Layout`, `Layout.AUTO` or None) and a sharding (a Sharding or None)."""
    __slots__ = ("layout", "sharding")

    def __init__(self, layout=None, sharding=None):
        if not isinstance(layout, (Layout, _AutoLayout, type(None))):
            raise TypeError(f"Format: layout must be None, Layout.AUTO or a Layout, got "
                            f"{layout!r} of type {type(layout).__name__}")
        if isinstance(layout, Layout) and sharding is None:
            raise ValueError(f"Format: a concrete layout {layout} needs a concrete sharding: "
                             f"pass a NamedSharding or SingleDeviceSharding as sharding.")
        if sharding is not None and not isinstance(sharding, Sharding):
            raise TypeError(f"Format: sharding must be None or a jax.sharding.Sharding, got "
                            f"{sharding!r} of type {type(sharding).__name__}")
        self.layout, self.sharding = layout, sharding

    def __repr__(self):
        return f"Format(layout={self.layout}, sharding={self.sharding})"

    def __eq__(self, other):
        return isinstance(other, Format) and (self.layout, self.sharding) == \
            (other.layout, other.sharding)

    def __hash__(self):
        return hash((self.layout, self.sharding))


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
