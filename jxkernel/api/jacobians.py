"""Jacobians and Hessians, built from jvp/vjp and vmap as JAX builds them.

    >>> jacfwd(lambda x: x ** 2)(jnp.arange(3.0))
    Array([[0., 0., 0.],
           [0., 2., 0.],
           [0., 0., 4.]], dtype=float32)

jacfwd pushes every standard basis vector forward at once (vmap of jvp);
jacrev pulls every basis covector back (vmap of the vjp function). Results are
pytrees: output structure outside, input structure inside.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.avals import get_aval
from ..lax import elementwise as ew, shapes, slicing
from ..core.interpreter_primitives import convert_element_type as _convert_element_type
from ..lax.conversion import convert_element_type
from ..tree_util import tree_flatten, tree_map, tree_transpose, tree_unflatten
from ..transforms.ad import _check_grad_input, check_output_dtype, jvp, vjp
from ..transforms.api_util import wraps
from ..transforms.batching import vmap


def _argnums_partial(fun, argnums, args, kwargs):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    nums = tuple(i % len(args) for i in nums)

    def partial_fun(*dyn):
        full = list(args)
        for i, a in zip(nums, dyn):
            full[i] = a
        return fun(*full, **kwargs)
    return partial_fun, tuple(args[i] for i in nums)


def _std_basis(tree):
    """Stacked one-hot vectors: for leaves of total size n, a pytree whose leaves have a
    leading axis of n (row i is the i-th basis vector, reshaped into the leaves)."""
    leaves, treedef = tree_flatten(tree)
    avals = [get_aval(x) for x in leaves]
    total = sum(a.size for a in avals)
    dtype = dtypes.result_type(*[a.dtype for a in avals])[0] if avals else np.float32
    rows = shapes.broadcasted_iota(np.int32, (total, total), 0)
    cols = shapes.broadcasted_iota(np.int32, (total, total), 1)
    eye = convert_element_type(ew.eq(rows, cols), dtype)
    out, start = [], 0
    for a in avals:
        block = slicing.slice(eye, (0, start), (total, start + a.size))
        # weak as its leaf, as JAX's _possible_downcast makes it (a tracer of it prints `~`)
        out.append(shapes.reshape(_convert_element_type(block, a.dtype, a.weak_type),
                                  (total,) + a.shape))
        start += a.size
    return tree_unflatten(treedef, out)


def _split_last(x, in_avals):
    """A forward-mode Jacobian block (out_shape + (n_in,)) split per input leaf and reshaped
    to out_shape + in_shape."""
    aval = get_aval(x)
    out, start = [], 0
    for a in in_avals:
        piece = slicing.slice_in_dim(x, start, start + a.size, axis=aval.ndim - 1)
        out.append(shapes.reshape(piece, tuple(aval.shape[:-1]) + a.shape))
        start += a.size
    return out


_JAC_DOC = ("Jacobian of {fun} with respect to positional argument(s) {argnums}. Takes the "
            "same arguments as {fun} but returns the jacobian of the output with respect to "
            "the arguments at positions {argnums}.")


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Jacobian of `fun` by forward mode: efficient for few inputs, many outputs."""
    @wraps(fun, docstr=_JAC_DOC, argnums=argnums)
    def jacfun(*args, **kwargs):
        f_partial, dyn = _argnums_partial(fun, argnums, args, kwargs)
        # A tree_map, as JAX's: it rebuilds the arguments' pytrees with None leaves, so a
        # class whose unflatten validates its children fails here as under JAX.
        tree_map(lambda x: _check_grad_input(get_aval(x), False, holomorphic, "jacfwd"), dyn)
        in_leaves, in_tree = tree_flatten(dyn)
        in_avals = [get_aval(x) for x in in_leaves]

        def push(tangents):
            return jvp(f_partial, dyn, tangents, has_aux=has_aux)

        if has_aux:
            y, jac, aux = vmap(push, out_axes=(None, -1, None))(_std_basis(dyn))
        else:
            y, jac = vmap(push, out_axes=(None, -1))(_std_basis(dyn))

        def unravel(y_leaf, jac_leaf):
            parts = [_possible_downcast(p, y_leaf) for p in _split_last(jac_leaf, in_avals)]
            tree = tree_unflatten(in_tree, parts)
            return tree[0] if isinstance(argnums, int) else tree
        result = tree_map(unravel, y, jac)
        return (result, aux) if has_aux else result
    return jacfun


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """The Jacobian of `fun` by reverse mode: efficient for few outputs, many inputs."""
    @wraps(fun, docstr=_JAC_DOC, argnums=argnums)
    def jacfun(*args, **kwargs):
        f_partial, dyn = _argnums_partial(fun, argnums, args, kwargs)
        tree_map(lambda x: _check_grad_input(get_aval(x), allow_int, holomorphic, "jacrev"),
                 dyn)  # a tree_map, as JAX's (see jacfwd)
        if has_aux:
            y, pullback, aux = vjp(f_partial, *dyn, has_aux=True)
        else:
            y, pullback = vjp(f_partial, *dyn)
        tree_map(lambda v: check_output_dtype("jacrev", holomorphic, get_aval(v)), y)
        y_leaves, y_tree = tree_flatten(y)
        y_avals = [get_aval(v) for v in y_leaves]
        jac = vmap(pullback)(_std_basis(y))            # per input leaf: (n_out,) + in_shape
        jac = jac[0] if isinstance(argnums, int) else jac
        in_leaves, in_tree = tree_flatten(jac)

        def per_input(j, x):
            return tree_unflatten(y_tree, [_possible_downcast(p, x)
                                           for p in _split_first(j, y_avals)])
        per_in = [per_input(j, x) for j, x in zip(in_leaves, tree_flatten(dyn)[0])]  # [in][out]
        nested = tree_unflatten(in_tree, per_in)
        result = tree_transpose(in_tree, y_tree, nested)
        return (result, aux) if has_aux else result
    return jacfun


def _possible_downcast(x, example):
    """A Jacobian block with the dtype and weak type of `example` (the output leaf for jacfwd,
    the input leaf for jacrev), its real part if `example` is real, as JAX's."""
    aval, want = get_aval(x), get_aval(example)
    if dtypes.is_complex(aval.dtype) and not dtypes.is_complex(want.dtype):
        x = ew.real(x)
    return _convert_element_type(x, want.dtype, want.weak_type)


def _split_first(j, out_avals):
    """Rows of a reverse-mode Jacobian block, grouped per output leaf: (n_out, *in) pieces
    reshaped to out_shape + in_shape."""
    aval = get_aval(j)
    in_shape = aval.shape[1:]
    out, start = [], 0
    for a in out_avals:
        piece = slicing.slice_in_dim(j, start, start + a.size, axis=0)
        out.append(shapes.reshape(piece, a.shape + in_shape))
        start += a.size
    return out


jacobian = jacrev


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Hessian of scalar `fun`: jacfwd of jacrev, as JAX computes it."""
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)
