"""jxkernel.experimental.layout, as jax.experimental.layout: how an array lies in memory
(`Layout`: its dimensions from major to minor, and a tiling) and a `Format`, a layout with the
sharding it goes with. jxkernel lays out every array in XLA's default row-major order; these
describe a request or a result for code that passes them along (Flax's sharding helpers).

    >>> Layout((0, 1))
    Layout(major_to_minor=(0, 1), tiling=None, sub_byte_element_size_in_bits=0)
    >>> Format(Layout.AUTO).layout
    AUTO
"""
from __future__ import annotations

from ...api.sharding import Sharding


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
        if len(self.major_to_minor) != len(aval_shape):
            raise ValueError(f"Layout: major_to_minor={self.major_to_minor} names "
                             f"{len(self.major_to_minor)} dimensions but the value has shape "
                             f"{tuple(aval_shape)}: give one entry per dimension.")


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
