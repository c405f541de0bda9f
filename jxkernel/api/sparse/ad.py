"""Sparse-aware `grad`, `value_and_grad`, `jacfwd` and `jacrev` (JAX's `sparse.ad`): with
respect to a sparse argument, the derivative is taken in the subspace of its sparsity
pattern: with respect to its data alone, and given back as a sparse array of the same
indices.

    >>> from jxkernel.experimental.sparse import BCOO
    >>> X = BCOO.fromdense(jnp.array([0., 2., 3.]))
    >>> grad(lambda X: (X @ jnp.array([1., 2., 3.])) ** 2)(X).data
    Array([52., 78.], dtype=float32)
"""
from __future__ import annotations

import itertools
import operator

from ...transforms.ad import grad as _grad, value_and_grad as _value_and_grad
from ...transforms.batching import vmap
from ...tree_util import tree_flatten, tree_leaves, tree_unflatten
from ..jacobians import jacfwd as _jacfwd, jacrev as _jacrev
from ._base import is_sparse


def _index_tuple(argnums) -> tuple:
    return (operator.index(argnums),) if not isinstance(argnums, (tuple, list)) else \
        tuple(operator.index(a) for a in argnums)


def _split(sizes):
    out, start = [], 0
    for n in sizes:
        out.append(list(range(start, start + n)))
        start += n
    return out


def flatten_fun_for_sparse_ad(fun, argnums, args):
    """`fun` as a function of the flat buffers of `args`, the flat argnums that select the
    data buffer of each sparse argument in `argnums` (every leaf of a dense one), and the
    function that rebuilds sparse gradients from the data gradients."""
    argnums_tup = _index_tuple(argnums)
    # first flatten to sparse arrays and dense leaves, then each sparse array to its buffers
    leaves1, tree1 = tree_flatten(args, is_leaf=is_sparse)
    per_arg1 = _split([c.num_leaves for c in tree1.children()])
    argnums_flat1 = list(itertools.chain.from_iterable(
        nums for i, nums in enumerate(per_arg1) if i in argnums_tup))
    args_flat, tree2 = tree_flatten(leaves1)
    per_leaf2 = _split([c.num_leaves for c in tree2.children()])
    per_leaf2 = [nums[:1] if is_sparse(leaf) else nums for leaf, nums in zip(leaves1, per_leaf2)]
    argnums_flat = tuple(itertools.chain.from_iterable(
        nums for i, nums in enumerate(per_leaf2) if i in argnums_flat1))

    def fun_flat(*flat, **kwargs):
        return fun(*tree_unflatten(tree1, tree_unflatten(tree2, list(flat))), **kwargs)

    def reconstruct(i, grad_out):
        bufs, tree = tree_flatten(leaves1[i])
        rebuild = lambda g: tree_unflatten(tree, [g, *bufs[1:]])
        for _ in range(grad_out.ndim - bufs[0].ndim):     # jacobians: one more dim per output dim
            rebuild = vmap(rebuild)
        return rebuild(grad_out)

    def postprocess_gradients(grads_out):
        leaf_grads = [None] * tree1.num_leaves
        for i, g in zip(argnums_flat1, grads_out):
            leaf_grads[i] = reconstruct(i, g)
        grad_tree = tree_unflatten(tree1, leaf_grads)
        grad_tree = tuple(g for g in grad_tree if tree_leaves(g))
        return grad_tree[0] if len(grad_tree) == 1 else grad_tree

    return fun_flat, argnums_flat, args_flat, postprocess_gradients


def value_and_grad(fun, argnums=0, has_aux=False, **kwargs):
    """Sparse-aware version of :func:`jax.value_and_grad`

    Arguments and return values are the same as :func:`jax.value_and_grad`, but when
    taking the gradient with respect to a :class:`jax.experimental.sparse` array, the
    gradient is computed in the subspace defined by the array's sparsity pattern.
    """
    def value_and_grad_fun(*args, **kw):
        fun_flat, argnums_flat, args_flat, post = flatten_fun_for_sparse_ad(fun, argnums, args)
        val, g = _value_and_grad(fun_flat, argnums=argnums_flat, has_aux=has_aux,
                                 **kwargs)(*args_flat, **kw)
        return val, post(g)
    return value_and_grad_fun


def grad(fun, argnums=0, has_aux=False, **kwargs):
    """Sparse-aware version of :func:`jax.grad`

    Arguments and return values are the same as :func:`jax.grad`, but when taking
    the gradient with respect to a :class:`jax.experimental.sparse` array, the
    gradient is computed in the subspace defined by the array's sparsity pattern.
    """
    def grad_fun(*args, **kw):
        fun_flat, argnums_flat, args_flat, post = flatten_fun_for_sparse_ad(fun, argnums, args)
        out = _grad(fun_flat, argnums=argnums_flat, has_aux=has_aux, **kwargs)(*args_flat, **kw)
        return (post(out[0]), out[1]) if has_aux else post(out)
    return grad_fun


def _jac(transform):
    def make(fun, argnums=0, has_aux=False, **kwargs):
        def jac_fun(*args, **kw):
            fun_flat, argnums_flat, args_flat, post = flatten_fun_for_sparse_ad(fun, argnums,
                                                                                args)
            out = transform(fun_flat, argnums=argnums_flat, has_aux=has_aux,
                            **kwargs)(*args_flat, **kw)
            return (post(out[0]), out[1]) if has_aux else post(out)
        return jac_fun
    return make


jacfwd = _jac(_jacfwd)
jacfwd.__doc__ = """Sparse-aware version of :func:`jax.jacfwd` (dense outputs only)."""
jacrev = _jac(_jacrev)
jacrev.__doc__ = """Sparse-aware version of :func:`jax.jacrev` (dense outputs only)."""
jacobian = jacrev
