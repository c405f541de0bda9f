"""How an array lies in memory, as JAX's jax.experimental.layout: `Layout` (its dimensions
from major to minor, a tiling, a sub-byte element size) and `Format`, a layout with the
sharding it goes with; `Compiled.input_formats` and `output_formats` give them as XLA compiled
the program (`executable_layouts`). Public as jxkernel.experimental.layout.

    >>> Layout((1, 0))
    Layout(major_to_minor=(1, 0), tiling=None, sub_byte_element_size_in_bits=0)
"""
from __future__ import annotations

from ..core import avals
from .client import xc
from .sharding import Sharding

# what Format takes as a sharding: api/sharding.py makes it jax.sharding.Sharding when it loads
# (its abstract class: a user's subclass too)
sharding_types: tuple = Sharding


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
        if sharding is not None and not isinstance(sharding, sharding_types):
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

    @staticmethod
    def is_auto(layout) -> bool:
        return isinstance(layout, _AutoLayout)


avals.FORMAT_TYPES = (Format,)


def executable_layouts(layouts) -> list:
    """jaxlib's PjRtLayouts of a compiled program's parameters or results as `Layout`s (XLA's
    minor-to-major order reversed, as JAX's Layout.from_pjrt_layout)."""
    return [from_pjrt_layout(pjrt) for pjrt in layouts]


def from_pjrt_layout(pjrt) -> Layout:
    """One jaxlib PjRtLayout (a program's parameter's, a buffer's `_pjrt_layout`) as a
    `Layout`: XLA's minor-to-major order reversed."""
    xla = pjrt._xla_layout()
    return Layout(tuple(xla.minor_to_major())[::-1], xla.tiling(), xla.element_size_in_bits())


# XLA's element size of the types narrower than a byte (0 for the others: the dtype's own)
_SUB_BYTE_BITS = {"int2": 2, "uint2": 2, "int4": 4, "uint4": 4, "float4_e2m1fn": 4}


def default_layout(aval) -> Layout:
    """XLA's default layout of an array of this (physical) type: row-major, untiled.

    >>> default_layout(jax.ShapeDtypeStruct((2, 3), "int4"))
    Layout(major_to_minor=(0, 1), tiling=(), sub_byte_element_size_in_bits=4)
    """
    return Layout(tuple(range(len(aval.shape))), (),
                  _SUB_BYTE_BITS.get(getattr(aval.dtype, "name", ""), 0))


def check_put_format(fmt, aval) -> None:
    """JAX's ValueErrors for device_put of a value of type `aval` to a Format: its layout
    Layout.AUTO, or a layout without a sharding; a layout of another rank than the value's."""
    layout = fmt.layout
    if layout is None and fmt.sharding is None:
        return
    if not isinstance(fmt.sharding, sharding_types) or not isinstance(layout, (Layout, type(None))):
        raise ValueError(f"sharding and layout in `Layout` instance should be concrete. Got "
                         f"layout: {fmt!r} for input {aval.str_short()}")
    # (JAX puts through a jit whose one result is given the layout: that jit's check)
    check_layout_ranks([layout], [aval], ["result"], "outputs")


def sharding_of_format(fmt, ndim: int):
    """A Format's sharding, where its layout is the one jxkernel's arrays have: none given, or
    row-major without tiling (Orbax restores each shard with `Format(layout, sharding)`)."""
    layout = fmt.layout
    row_major = tuple(range(ndim))
    if layout is not None and (tuple(getattr(layout, "major_to_minor", ())) != row_major or
                               getattr(layout, "tiling", None)):
        raise NotImplementedError(f"device_put to {fmt!r}: jxkernel's arrays are row-major "
                                  f"(major_to_minor={row_major}); another layout is not "
                                  f"supported")
    return fmt.sharding


def is_row_major(layout: Layout) -> bool:
    """Whether `layout` is the one every jxkernel array and program has: row-major for its own
    rank, untiled, of the dtype's own element size."""
    return (layout.major_to_minor == tuple(range(len(layout.major_to_minor))) and
            not layout.tiling and not layout.sub_byte_element_size_in_bits)


def jit_sharding_of(leaf, what: str):
    """A leaf of jit's `what` ("in_shardings") less its Format: the sharding of a Format (None
    for Format() or Format(Layout.AUTO)); its layout is jit_layouts' (lowered as JAX's
    `mhlo.layout_mode`, `layout_mode`); any other leaf as it is. A bare Layout or
    Layout.AUTO is JAX's ValueError.

    >>> jit_sharding_of(Format(None, None), "in_shardings") is None
    True
    """
    del what
    if isinstance(leaf, (Layout, _AutoLayout)):      # (JAX's words)
        raise ValueError(f"`jax.jit` does not accept device-local layouts directly. Create a "
                         f"`Format` instance wrapping this device-local layout and pass that "
                         f"to `jit` instead. Got {leaf}")
    return leaf.sharding if isinstance(leaf, Format) else leaf


def is_laid_out(x) -> bool:
    """Whether `x` (jit's Format's layout, or None) asks for a layout: Layout.AUTO or a
    concrete Layout."""
    return isinstance(x, (Layout, _AutoLayout))


def layout_mode(layout, aval) -> str | None:
    """The `mhlo.layout_mode` attribute of a parameter or result given `layout` by jit (JAX's
    mlir._to_xla_layout): "auto" for Layout.AUTO, XLA's minor-to-major text for a concrete
    Layout other than the default one of `aval` (JAX's is_default_layout: none written), None
    for none.

    >>> layout_mode(Layout((1, 0)), jax.ShapeDtypeStruct((2, 3), "float32"))
    'mhlo.layout_mode = "{0,1}"'
    """
    if isinstance(layout, _AutoLayout):
        return 'mhlo.layout_mode = "auto"'
    text = xla_layout_text(layout, aval)
    return None if text is None else f'mhlo.layout_mode = "{text}"'


def xla_layout_text(layout, aval) -> str | None:
    """XLA's text of a concrete `layout` of a value of type `aval` ("{0,1}": minor to major,
    as jaxlib's xla_client.Layout prints it), or None where it is the default one (or not
    a Layout)."""
    if not isinstance(layout, Layout) or aval is avals.abstract_token or \
            layout == default_layout(aval) or (layout.tiling is None and
                                               layout.update(tiling=()) == default_layout(aval)):
        return None
    if layout.tiling is None:        # (jaxlib's text of the layout, as JAX's)
        return str(xc.Layout(layout.major_to_minor[::-1]))
    bits = layout.sub_byte_element_size_in_bits or _SUB_BYTE_BITS.get(
        getattr(aval.dtype, "name", ""), 0)
    return str(xc.Layout(layout.major_to_minor[::-1], layout.tiling, bits))


def jit_layouts(in_shardings, out_shardings, flatten, unflatten):
    """(in, out): jit's `in_shardings` and `out_shardings` trees with each Format's Layout in
    place of the Format (None elsewhere), or None where no Format there has a Layout: what
    `check_layout_ranks` checks each trace against. `flatten`/`unflatten`: tree_util's."""
    def layouts(tree):
        leaves, treedef = flatten(tree, is_leaf=lambda x: x is None or isinstance(x, Format))
        found = [x.layout if isinstance(x, Format) and is_laid_out(x.layout) else None
                 for x in leaves]
        return None if all(x is None for x in found) else unflatten(treedef, found)
    return layouts(in_shardings), layouts(out_shardings)


def check_layout_ranks(layouts, avals, names, what: str) -> None:
    """JAX's ValueError where a Layout given to jit (one per value, or None) is not of its
    value's rank. `what`: "arguments" or "outputs"; `names`: the values' pytree key paths."""
    for layout, aval, name in zip(layouts, avals, names):
        if not isinstance(layout, Layout):         # (None, Layout.AUTO: any rank)
            continue
        try:
            layout.check_compatible_aval(aval.shape)
        except ValueError as e:                        # (JAX's words)
            raise ValueError(f"One of jit {what} with pytree key path {name} is incompatible "
                             f"with its layout annotation {layout}: {e}") from None
