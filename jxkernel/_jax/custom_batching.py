"""jax.custom_batching: functions that bring their own vmap rule.

    >>> @sequential_vmap
    ... def f(x):
    ...     return x + 1                 # batched by a loop over the batch (lax.map)
    >>> jax.vmap(f)(jnp.arange(3))
    Array([1, 2, 3], dtype=int32)
"""
from ..lax.loops import map as _map
from ..transforms.custom_batching import custom_vmap, custom_vmap_call_p
from ..tree_util import tree_map

__all__ = ["custom_vmap", "sequential_vmap"]


def _split(mask, tree):
    return (tree_map(lambda m, x: x if m else None, mask, tree),
            tree_map(lambda m, x: None if m else x, mask, tree))


def _merge(mask, mapped, unmapped):
    return tree_map(lambda m, a, b: a if m else b, mask, mapped, unmapped)


def sequential_vmap(f):
    """`f` as a custom_vmap whose rule runs `f` once per batch member, in a loop (lax.map):
    for functions that cannot batch (a host callback, a solver with Python control flow)."""
    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size, in_batched, *args):
        mapped, unmapped = _split(in_batched, list(args))
        out = _map(lambda m: f(*_merge(in_batched, m, unmapped)), mapped)
        return out, tree_map(lambda _: True, out)

    return f
