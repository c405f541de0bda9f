"""jxkernel.flatten_util, as jax.flatten_util: `ravel_pytree`, a pytree of arrays as one
flat vector and the function that undoes it (for optimizers and solvers written on vectors).

    >>> flat, unravel = ravel_pytree({"a": jnp.ones(2), "b": jnp.zeros((1, 2))})
    >>> flat
    Array([1., 1., 0., 0.], dtype=float32)
    >>> unravel(flat + 1)["b"]
    Array([[1., 1.]], dtype=float32)
"""
import functools

import numpy as np

from .. import lax
from ..core import dtypes
from ..tree_util import tree_flatten, tree_unflatten

__all__ = ["ravel_pytree"]


class _HashablePartial(functools.partial):
    """A partial application equal to another with the same function and arguments, so
    an unravel function can be a static argument of jit (its cache key)."""

    def __eq__(self, other):
        return (type(other) is _HashablePartial and self.func is other.func
                and self.args == other.args and self.keywords == other.keywords)

    def __hash__(self):
        return hash((self.func, self.args, tuple(sorted(self.keywords.items()))))


def ravel_pytree(pytree):
    """The leaves of `pytree` raveled and concatenated into one 1-D array of their
    promoted dtype, and a function that cuts such a vector back into the tree (leaves cast
    back to their own dtypes). No leaves give an empty float32 vector.

        >>> flat, unravel = ravel_pytree([jnp.ones(2, jnp.int32), 1.5])
        >>> flat
        Array([1. , 1. , 1.5], dtype=float32)
        >>> unravel(flat)[0]
        Array([1, 1], dtype=int32)
    """
    leaves, treedef = tree_flatten(pytree)
    flat, unravel_list = _ravel_list(leaves)
    return flat, _HashablePartial(_unravel_pytree, treedef, unravel_list)


def _unravel_pytree(treedef, unravel_list, flat):
    return tree_unflatten(treedef, unravel_list(flat))


def _ravel_list(leaves):
    if not leaves:
        return lax.full((0,), 0, np.float32), _HashablePartial(_no_leaves)
    from_dtypes = tuple(dtypes.dtype(leaf) for leaf in leaves)
    to_dtype, _ = dtypes.result_type(*from_dtypes)
    sizes = tuple(int(np.size(leaf)) for leaf in leaves)
    shapes = tuple(tuple(np.shape(leaf)) for leaf in leaves)
    if all(d == to_dtype for d in from_dtypes):
        # one dtype: no casts, so unravel takes a vector of any dtype (as JAX's does)
        flat = lax.concatenate([lax.reshape(leaf, (size,)) for leaf, size in zip(leaves, sizes)], 0)
        return flat, _HashablePartial(_unravel_list_one_dtype, sizes, shapes)
    flat = lax.concatenate([lax.reshape(lax.convert_element_type(leaf, to_dtype), (size,))
                            for leaf, size in zip(leaves, sizes)], 0)
    return flat, _HashablePartial(_unravel_list_cast, sizes, shapes, from_dtypes, to_dtype)


def _no_leaves(flat):
    return []


def _unravel_list_one_dtype(sizes, shapes, flat):
    return [lax.reshape(chunk, shape) for chunk, shape in zip(_split(flat, sizes), shapes)]


def _unravel_list_cast(sizes, shapes, from_dtypes, to_dtype, flat):
    flat_dtype = dtypes.dtype(flat)
    if flat_dtype != to_dtype:
        raise TypeError(f"unravel function given array of dtype {flat_dtype}, "
                        f"but expected dtype {to_dtype}: pass a vector of the raveled "
                        f"tree's dtype")
    return [lax.convert_element_type(lax.reshape(chunk, shape), dtype)
            for chunk, shape, dtype in zip(_split(flat, sizes), shapes, from_dtypes)]


def _split(flat, sizes):
    if np.shape(flat) != (sum(sizes),):
        raise ValueError(f"unravel function given an array of shape {np.shape(flat)}, "
                         f"expected shape ({sum(sizes)},): the raveled tree's length")
    return lax.split(flat, sizes)
