"""vmap over the leading batch axes of a sparse array's buffers (JAX's `sparse.util`
names, where the formats share them): an axis of size 1 can be shared by the whole batch, as a
broadcast batch dimension of a BCOO's indices is.

    >>> nfold_vmap(lambda x: x.sum(), 2)(jnp.ones((2, 3, 4))).shape
    (2, 3)
"""
from __future__ import annotations

from ... import lax
from ...transforms.api_util import flatten_axes
from ...transforms.batching import vmap
from ...tree_util import tree_flatten, tree_unflatten


def nfold_vmap(fun, N, *, broadcasted=True, in_axes=0):
    """`fun` vmapped `N` times over `in_axes` (each time the next axis); `broadcasted`: an
    argument whose mapped axis has size 1 is shared across the batch (`broadcasting_vmap`)."""
    mapper = broadcasting_vmap if broadcasted else vmap
    for _ in range(N):
        fun = mapper(fun, in_axes=in_axes)
    return fun


def broadcasting_vmap(fun, in_axes=0, out_axes=0):
    """vmap, where an argument whose mapped axis has size 1 is not mapped but shared by every
    element of the batch (the others must agree on the size, else ValueError).

    >>> broadcasting_vmap(jnp.add)(jnp.ones((1, 2)), jnp.zeros((3, 2))).shape
    (3, 2)
    """
    def batched_fun(*args):
        leaves, tree = tree_flatten(args)
        axes = flatten_axes("vmap in_axes", tree, in_axes, kws=False)
        size = max(x.shape[i] for x, i in zip(leaves, axes) if i is not None)
        if size > 1:
            if any(i is not None and x.shape[i] not in (1, size) for x, i in zip(leaves, axes)):
                raise ValueError("broadcasting_vmap: mismatched input shapes")
            leaves, axes = zip(*((x, None) if i is None else
                                 (lax.squeeze(x, (i,)), None) if x.shape[i] == 1 else (x, i)
                                 for x, i in zip(leaves, axes)))
        return vmap(fun, in_axes=tree_unflatten(tree, axes), out_axes=out_axes)(
            *tree_unflatten(tree, leaves))
    batched_fun.__wrapped__ = fun
    batched_fun.__name__ = getattr(fun, "__name__", "batched_fun")
    return batched_fun
