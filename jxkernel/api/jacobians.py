"""Jacobians and Hessians, built from jvp/vjp and vmap as JAX builds them.

    >>> jacfwd(lambda x: x ** 2)(jnp.arange(3.0))
    Array([[0., 0., 0.],
           [0., 2., 0.],
           [0., 0., 4.]], dtype=float32)

jacfwd pushes every standard basis vector forward at once (vmap of jvp);
jacrev pulls every basis covector back (vmap of the vjp function). Results are
pytrees: output structure outside, input structure inside.

`fwd_and_bwd` splits a vjp into its two passes, each jitted (JAX's api.py), so the
backward pass compiles once, not once per vjp.
"""
from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..core import dtypes
from ..core.avals import context_abstract_mesh, get_aval
from ..lax import elementwise as ew, shapes
from ..core.interpreter_primitives import convert_element_type as _convert_element_type
from ..core.interpreter_primitives import convert_element_type_p
from ..core.mesh import NamedSharding, PartitionSpec
from ..tree_util import (tree_flatten, tree_map, tree_structure, tree_transpose,
                         tree_unflatten)
from ..transforms.ad import _check_grad_input, check_output_dtype, grad_input_aval, jvp, vjp
from ..transforms.api_util import (argnums_in_range, check_callable, ensure_index,
                                   partial_over, wraps)
from ..transforms.batching import vmap
from ..transforms.jit import jit


def _std_basis(tree):
    """Stacked one-hot vectors: for leaves of total size n, a pytree whose leaves have a
    leading axis of n (row i is the i-th basis vector, reshaped into the leaves). Built as
    JAX's: jnp.eye split into the leaves (the `split` primitive, even for one leaf)."""
    avals = [get_aval(x) for x in tree_flatten(tree)[0]]
    total = sum(a.size for a in avals)
    dtype = dtypes.result_type(*[a.dtype for a in avals])[0] if avals else np.float32
    # JAX's conversion here carries a sharding that differs from the operand's, so JAX's
    # trace keeps it even where it changes nothing (`convert_element_type` after `split`)
    return _unravel_array_into_pytree(tree, 1, None, jnp.eye(total, dtype=dtype), always=True)


def _unravel_array_into_pytree(tree, axis: int, example, arr, always: bool = False):
    """`arr` cut along `axis` into one piece per leaf of `tree` (jnp.split at NumPy's cumsum
    of the sizes, so the sizes print as np.int64 as in JAX), each reshaped to the leaf's shape
    in place of that axis and given the dtype of `example` (of the leaf when None)."""
    leaves, treedef = tree_flatten(tree)
    avals = [get_aval(x) for x in leaves]
    if isinstance(arr, np.ndarray) and arr.dtype == dtypes.float0:
        arr = np.zeros(arr.shape, np.bool_)     # (an integer input's block: zeros, as JAX's)
    arr_shape = get_aval(arr).shape
    parts = jnp.split(arr, np.cumsum([a.size for a in avals[:-1]]), axis)
    out = [_possible_downcast(shapes.reshape(x, arr_shape[:axis] + a.shape + arr_shape[axis + 1:]),
                              leaf if example is None else example, always)
           for x, a, leaf in zip(parts, avals, leaves)]
    return tree_unflatten(treedef, out)


_JAC_DOC = ("Jacobian of {fun} with respect to positional argument(s) {argnums}. Takes the "
            "same arguments as {fun} but returns the jacobian of the output with respect to "
            "the arguments at positions {argnums}.")


def _check_jacfwd_input(aval, holomorphic):
    """JAX's: jacfwd takes real inputs (complex ones only with holomorphic=True)."""
    if holomorphic or dtypes.is_float(aval.dtype):
        return _check_grad_input(aval, False, holomorphic, "jacfwd")
    raise TypeError(f"jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
                    f"np.floating), but got {aval.dtype.name}. For holomorphic differentiation, "
                    f"pass holomorphic=True. For differentiation of non-holomorphic functions "
                    f"involving complex inputs or integer inputs, use jax.jvp directly.")


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Jacobian of `fun` by forward mode: efficient for few inputs, many outputs."""
    check_callable(fun)
    argnums = ensure_index(argnums)     # at once, as JAX's (jacrev's is checked when called)
    @wraps(fun, docstr=_JAC_DOC, argnums=argnums)
    def jacfun(*args, **kwargs):
        f_partial, dyn = partial_over(fun, argnums_in_range(argnums, len(args)), args, kwargs)
        # A tree_map, as JAX's: it rebuilds the arguments' pytrees with None leaves, so a
        # class whose unflatten validates its children fails here as under JAX.
        tree_map(lambda x: _check_jacfwd_input(grad_input_aval(x), holomorphic), dyn)

        def push(tangents):
            return jvp(f_partial, dyn, tangents, has_aux=has_aux)

        if has_aux:
            y, jac, aux = vmap(push, out_axes=(None, -1, None))(_std_basis(dyn))
        else:
            y, jac = vmap(push, out_axes=(None, -1))(_std_basis(dyn))

        example_args = dyn[0] if isinstance(argnums, int) else dyn

        def unravel(y_leaf, jac_leaf):      # JAX's _jacfwd_unravel
            return _unravel_array_into_pytree(example_args, -1 % get_aval(jac_leaf).ndim,
                                              y_leaf, jac_leaf)
        result = tree_map(unravel, y, jac)
        return (result, aux) if has_aux else result
    return jacfun


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """The Jacobian of `fun` by reverse mode: efficient for few outputs, many inputs."""
    check_callable(fun)
    @wraps(fun, docstr=_JAC_DOC, argnums=argnums)
    def jacfun(*args, **kwargs):
        f_partial, dyn = partial_over(fun, argnums_in_range(argnums, len(args)), args, kwargs)
        tree_map(lambda x: _check_grad_input(grad_input_aval(x), allow_int, holomorphic, "jacrev"),
                 dyn)  # a tree_map, as JAX's (see jacfwd)
        if has_aux:
            y, pullback, aux = vjp(f_partial, *dyn, has_aux=True)
        else:
            y, pullback = vjp(f_partial, *dyn)
        tree_map(lambda v: check_output_dtype("jacrev", holomorphic, get_aval(v)), y)
        jac = vmap(pullback)(_std_basis(y))            # per input leaf: (n_out,) + in_shape
        jac = jac[0] if isinstance(argnums, int) else jac
        example_args = dyn[0] if isinstance(argnums, int) else dyn
        # JAX's _jacrev_unravel per input leaf: [in][out], then transposed
        nested = tree_map(lambda x, j: _unravel_array_into_pytree(y, 0, x, j), example_args, jac)
        result = tree_transpose(tree_structure(example_args), tree_structure(y), nested)
        return (result, aux) if has_aux else result
    return jacfun


def _possible_downcast(x, example, always: bool = False):
    """A Jacobian block with the dtype and weak type of `example` (the output leaf for jacfwd,
    the input leaf for jacrev), its real part if `example` is real, as JAX's. A conversion
    that changes nothing is left out, as JAX's trace forwards it (its forwarding rule), unless
    `always` (the basis: see _std_basis)."""
    aval, want = get_aval(x), get_aval(example)
    if dtypes.is_complex(aval.dtype) and not dtypes.is_complex(want.dtype):
        x = ew.real(x)
        aval = get_aval(x)
    if not always and aval.dtype == want.dtype and aval.weak_type == want.weak_type:
        return x
    if always:          # JAX's basis spec, one entry longer than the block: never its type's
        spec = PartitionSpec(*[None] * (len(aval.shape) + 1))
        return convert_element_type_p.bind(x, new_dtype=want.dtype, weak_type=want.weak_type,
                                           sharding=NamedSharding(context_abstract_mesh(), spec))
    return _convert_element_type(x, want.dtype, want.weak_type)


jacobian = jacrev


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Hessian of scalar `fun`: jacfwd of jacrev, as JAX computes it."""
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


def fwd_and_bwd(fun, argnums, has_aux=False, jitted=True):
    """(fwd, bwd): `fwd(*args)` is `jax.vjp` of `fun` in the arguments `argnums` (returning
    (out, residuals), or (out, residuals, aux) with `has_aux`), `bwd(residuals, cotangent)`
    their cotangents (one array for an int `argnums`). Both jitted unless `jitted=False`: the
    backward pass compiles once, not once per vjp.

    >>> fwd, bwd = fwd_and_bwd(lambda x, w: x * w, argnums=1)
    >>> y, res = fwd(2.0, 3.0)
    >>> float(bwd(res, 1.0))
    2.0
    """
    check_callable(fun)
    argnums = ensure_index(argnums)
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    def fwd(*args):
        def partial_fun(*dyn):
            full = list(args)
            for i, value in zip(nums, dyn):
                full[i] = value
            return fun(*full)
        return vjp(partial_fun, *[args[i] for i in nums], has_aux=has_aux)

    def bwd(f_vjp, outgrad):
        g = f_vjp(outgrad)
        return g[0] if single else g

    return (jit(fwd), jit(bwd)) if jitted else (fwd, bwd)
