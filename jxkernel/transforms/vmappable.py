"""Types vmap maps by rules of their own (JAX's `register_vmappable`): a container whose
in_axes/out_axes entry is a spec of its own type, turned into the value the function sees
by `to_elt` and rebuilt from a result by `from_elt`.

    >>> class Pair:                                  # not a pytree: vmap leaves it whole
    ...     def __init__(self, a, b): self.a, self.b = a, b
    >>> register_vmappable(Pair, int, int,
    ...     lambda cont, size, p, axis: Pair(cont(p.a, axis), cont(p.b, axis)),
    ...     lambda cont, size, p, axis: Pair(cont(size, p.a, axis), cont(size, p.b, axis)),
    ...     None)
    >>> jax.vmap(lambda p: Pair(p.a + p.b, p.b), axis_size=3)(Pair(jnp.ones(3), jnp.arange(3.))).a
    Array([1., 2., 3.], dtype=float32)
    >>> unregister_vmappable(Pair)

`to_elt(cont, axis_size, value, spec)` returns what the function sees, calling
`cont(array, axis)` for the arrays inside (the array mapped along `axis`, None: not mapped);
`from_elt(cont, axis_size, elt, spec)` returns the container of a result, calling
`cont(axis_size, array, axis)` to put each array's mapped axis at `axis`. (JAX passes to_elt
a function giving the index along the mapped axis where this passes the axis size.)
"""
from __future__ import annotations

from ..tree_util import tree_map

# data type -> (spec type, axis size type, to_elt, from_elt)
_registry: dict = {}


def register_vmappable(data_type: type, spec_type: type, axis_size_type: type, to_elt,
                       from_elt, make_iota=None) -> None:
    """Map values of `data_type` under vmap by `to_elt` and `from_elt`, with in_axes and
    out_axes entries of `spec_type` for them. (`make_iota` is accepted, as JAX's, unused.)"""
    _registry[data_type] = (spec_type, axis_size_type, to_elt, from_elt)


def unregister_vmappable(data_type: type) -> None:
    """Forget `data_type`'s rules; the other types keep theirs, spec types shared too."""
    _registry.pop(data_type, None)


def spec_types() -> set:
    """The types an in_axes or out_axes leaf may have besides int and None."""
    return {spec for spec, *_ in _registry.values()}


def is_vmappable(x) -> bool:
    return type(x) in _registry


class Whole:
    """A registered value held as one leaf of a pytree (not flattened, as JAX's flattening
    with `is_leaf=is_vmappable`)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def shadowed(tree):
    """`tree` with each registered value a `Whole` leaf (`tree` itself when none is
    registered: vmap's usual path)."""
    if not _registry:
        return tree
    return tree_map(lambda x: Whole(x) if is_vmappable(x) else x, tree, is_leaf=is_vmappable)


def to_elt(x, spec, size: int, array_to_elt):
    """What the function sees of `x` mapped by `spec`: its type's to_elt, a registered
    value inside it too; `array_to_elt(array, axis)` for the arrays."""
    def cont(value, axis):
        return to_elt(value, axis, size, array_to_elt) if is_vmappable(value) else \
            array_to_elt(value, axis)
    return _registry[type(x)][2](cont, size, x, spec)


def from_elt(elt, spec, size: int, array_from_elt):
    """The result `elt` rebuilt by its type's from_elt with its mapped axis where `spec`
    says; `array_from_elt(array, axis)` for the arrays."""
    def cont(axis_size, value, axis):
        return from_elt(value, axis, axis_size, array_from_elt) if is_vmappable(value) else \
            array_from_elt(value, axis)
    return _registry[type(elt)][3](cont, size, elt, spec)
