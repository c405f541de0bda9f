"""`sparsify`: run a function written for dense arrays on BCOO arrays. The function is
traced to a jaxpr with each sparse argument standing as a dense array of its shape; the
jaxpr is then interpreted, each equation that meets a sparse value running its sparse rule
(`sparse_rules_bcoo`, one per primitive) and any other binding its primitive as usual.
With `use_tracer=True` the function runs once instead, each sparse argument a
`SparseTracer` (a tracer of the array's shape holding it) whose `SparseTrace` runs the same
rules primitive by primitive.
BCOO's and BCSR's operators and methods, sparsified jnp functions, as JAX's, are in
`methods.py`'s mixins, which the classes inherit.

    >>> M = BCOO.fromdense(jnp.array([[0., 1.], [2., 0.]]))
    >>> sparsify(lambda m, v: 2 * m @ v)(M, jnp.array([1., 1.]))
    Array([2., 4.], dtype=float32)
"""
from __future__ import annotations

import functools

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...core.avals import ShapedArray, get_aval
from ...core.interpret import read_atom
from ...core.ir import Literal, literal_value
from ...core.primitive import all_primitives
from ...core.staging import trace_to_jaxpr
from ...core.trace import Trace, Tracer, new_trace, set_current_trace
from ...lax.cond import cond_p
from ...lax.convolution import conv_general_dilated_p
from ...lax.scan import scan_p
from ...lax import special as _special  # noqa: F401  (its bessel primitives, named below)
from ...lax.while_loop import while_p
from ...transforms.api_util import flatten_fun
from ...transforms.custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
from ...transforms.jit.primitive import jit_p
from ...tree_util import equality_errors_pytreedef, keystr, tree_flatten, tree_unflatten
from ._base import JAXSparse, is_sparse
from .api import todense_p
from .bcoo import BCOO, bcoo_multiply_dense, bcoo_todense
from .bcoo_layout import bcoo_sum_duplicates
from .bcoo_shape import (bcoo_broadcast_in_dim, bcoo_concatenate, bcoo_dynamic_slice,
                         bcoo_gather, bcoo_reduce_sum, bcoo_reshape, bcoo_rev, bcoo_slice,
                         bcoo_squeeze)
from .bcoo_spdot import bcoo_conv_general_dilated, bcoo_dot_general, bcoo_multiply_sparse
from .bcsr import BCSR, bcsr_dot_general
from .bcsr_ops import bcsr_broadcast_in_dim, bcsr_concatenate, bcsr_sum_duplicates

sparse_rules_bcoo: dict = {}
sparse_rules_bcsr: dict = {}

# f(0) = 0 for these, so they act on the stored data alone; the linear ones also commute
# with summing duplicate indices, so they need no unique indices
_ZERO_PRESERVING_LINEAR = ("conj", "copy", "imag", "neg", "real", "stop_gradient")
_ZERO_PRESERVING = ("abs", "asin", "asinh", "atan", "atanh", "bessel_i1e", "expm1", "log1p",
                    "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh",
                    "convert_element_type")
# these would make every implicit zero nonzero: JAX refuses them, pointing at todense()
_DENSIFYING = ("acos", "acosh", "bessel_i0e", "cos", "cosh", "eq", "exp", "ge", "gt", "le",
               "lt", "log", "ne", "xor")


def _unimplemented(prim):
    if prim.name in _DENSIFYING:
        return NotImplementedError(
            f"sparse rule for {prim} is not implemented because it would result in dense "
            "output. If this is your intent, use sparse.todense() to convert your arguments "
            "to dense matrices.")
    return NotImplementedError(f"sparse rule for {prim} is not implemented.")


def eval_sparse(jaxpr, consts, args) -> list:
    """The outputs of `jaxpr` on `consts` and `args`, any of which may be sparse arrays."""
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    read = functools.partial(read_atom, env)
    for eqn in jaxpr.eqns:
        invals = [read(v) for v in eqn.invars]
        prim = eqn.primitive
        if any(is_sparse(x) for x in invals):
            table = sparse_rules_bcsr if any(isinstance(x, BCSR) for x in invals) else \
                sparse_rules_bcoo
            rule = table.get(prim)
            if rule is None:
                raise _unimplemented(prim)
            invals = [literal_value(x) if isinstance(x, Literal) else x for x in invals]
            outs = rule(*invals, **eqn.params)
        else:
            outs = prim.bind(*invals, **eqn.params)
            outs = outs if prim.multiple_results else [outs]
        env.update(zip(eqn.outvars, outs))
    return [_as_output(read(v)) for v in jaxpr.outvars]


def _as_output(x):
    """An output that is a literal of the jaxpr (a constant result), as the array it stands
    for: weakly typed where the literal is."""
    if isinstance(x, Literal):
        return jnp.asarray(literal_value(x))
    return jnp.asarray(x) if isinstance(x, (np.ndarray, np.generic)) else x


def _with_pattern(x, token) -> JAXSparse:
    """`x` marked with the sparsity pattern `token`: values computed from one another keep
    it, and two sparse operands share their indices only when their tokens are one (two
    arguments never do, even the same array passed twice: JAX's buffer references)."""
    out = type(x)(x._bufs, shape=x.shape, indices_sorted=x.indices_sorted,
                  unique_indices=x.unique_indices)
    out._pattern = token
    return out


def _aval(x):
    return ShapedArray(x.shape, x.dtype) if is_sparse(x) else get_aval(x)


def _sparsify_flat(f, args, kwargs):
    """f's outputs (a pytree that may hold BCOO arrays) on `args`, by the interpreter."""
    leaves, in_tree = tree_flatten(args, is_leaf=is_sparse)
    flat, out_tree = flatten_fun(functools.partial(f, **kwargs), in_tree)
    closed = trace_to_jaxpr(flat, [_aval(x) for x in leaves])
    leaves = [_with_pattern(x, object()) if is_sparse(x) else x for x in leaves]
    outs = eval_sparse(closed.jaxpr, closed.consts, leaves)
    return tree_unflatten(out_tree(), outs)


class SparseTracer(Tracer):
    """A value inside `sparsify(f, use_tracer=True)`: `value` is a sparse array (or a dense
    one); to the function it is an array of its shape and dtype."""
    __slots__ = ("value",)

    def __init__(self, trace, value):
        self._trace, self.value = trace, value

    @property
    def aval(self):
        return _aval(self.value)

    def _short_repr(self):
        return f"SparseTracer({self.value!r})"


class SparseTrace(Trace):
    """Each primitive that meets a sparse value runs its sparse rule (the interpreter's
    table) with the parent trace current; the others bind as usual."""

    def unpack(self, x):
        if type(x) is SparseTracer and x._trace is self:
            return x.value
        if isinstance(x, Tracer):
            self.check_foreign_tracer(x)
        return x

    def process_primitive(self, prim, args, params):
        vals = [self.unpack(x) for x in args]
        with set_current_trace(self.parent):
            if not any(is_sparse(x) for x in vals):
                return prim.bind(*vals, **params)
            table = sparse_rules_bcsr if any(isinstance(x, BCSR) for x in vals) else \
                sparse_rules_bcoo
            rule = table.get(prim)
            if rule is None:
                raise _unimplemented(prim)
            outs = [self.wrap(x) for x in rule(*vals, **params)]
        return outs if prim.multiple_results else outs[0]

    def wrap(self, x):
        return SparseTracer(self, x) if is_sparse(x) else x

    def describe_self(self):
        return "sparsify"


def _sparsify_with_tracer(f, args, kwargs):
    """f's outputs on `args`, run once with each sparse argument a SparseTracer."""
    leaves, in_tree = tree_flatten(args, is_leaf=is_sparse)
    with new_trace(SparseTrace) as trace:
        # every argument a SparseTracer, a dense one too (as JAX's: `isinstance(x,
        # SparseTracer)` holds for each argument inside)
        tracers = [SparseTracer(trace, _with_pattern(x, object()) if is_sparse(x) else
                                jnp.asarray(x)) for x in leaves]
        out = f(*tree_unflatten(in_tree, tracers), **kwargs)
        out_leaves, out_tree = tree_flatten(out)
        out_leaves = [trace.unpack(x) for x in out_leaves]
    return tree_unflatten(out_tree, [_as_output(x) for x in out_leaves])


def sparsify(f, use_tracer=False):
    """Experimental sparsification transform.

    Examples:

      Decorate JAX functions to make them compatible with :class:`jax.experimental.sparse.BCOO`
      matrices:

      >>> @sparsify
      ... def f(M, v):
      ...   return 2 * M.T @ v
      >>> f(BCOO.fromdense(jnp.arange(12).reshape(3, 4)), jnp.array([3, 4, 2]))
      Array([ 64,  82, 100, 118], dtype=int32)
    """
    run = _sparsify_with_tracer if use_tracer else _sparsify_flat

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        return run(f, args, kwargs)
    return wrapped


# ------------------------------------------------------------------ the rules
def _data_op(mat, data):
    """`mat`'s indices holding new data: the same pattern, as later rules see."""
    return _with_pattern(type(mat)((data, *mat._bufs[1:]), shape=mat.shape,
                                   indices_sorted=mat.indices_sorted,
                                   unique_indices=mat.unique_indices), _pattern_of(mat))


def _unique_indices_of(x):
    """`x` with each index stored once (duplicates summed, in the same nse), for the rules
    that are not linear: f(a) + f(b) is not f(a + b)."""
    if x.unique_indices:
        return x
    if isinstance(x, BCSR):
        return bcsr_sum_duplicates(x, nse=x.nse)
    return bcoo_sum_duplicates(x, nse=x.nse)


def _unary_rule(prim, linear: bool):
    def rule(x, **params):
        if not linear:
            x = _unique_indices_of(x)
        return [_data_op(x, prim.bind(x.data, **params))]
    return rule


def _integer_pow_rule(x, *, y):
    if y <= 0:
        raise NotImplementedError(
            f"sparse rule for {all_primitives['integer_pow']} with non-positive exponent {y} "
            "is not implemented because it would result in dense output. If this is your "
            "intent, use sparse.todense() to convert your argument to a dense array.")
    return _unary_rule(all_primitives["integer_pow"], False)(x, y=y)


def _dot_general_rule(lhs, rhs, *, dimension_numbers, preferred_element_type=None, **_):
    return [bcoo_dot_general(lhs, rhs, dimension_numbers=dimension_numbers,
                             preferred_element_type=preferred_element_type)]


def _bcsr_dot_general_rule(lhs, rhs, *, dimension_numbers, preferred_element_type=None, **_):
    return [bcsr_dot_general(lhs, rhs, dimension_numbers=dimension_numbers,
                             preferred_element_type=preferred_element_type)]


def _transpose_rule(x, *, permutation):
    return [x.transpose(tuple(permutation))]


def _pattern_of(x):
    return getattr(x, "_pattern", None) or object()


def _same_pattern(x, y) -> bool:
    token = getattr(x, "_pattern", None)
    return token is not None and token is getattr(y, "_pattern", None)


def _add_rule(x, y):
    out_shape = tuple(np.broadcast_shapes(np.shape(x), np.shape(y)))
    if is_sparse(x) and is_sparse(y):
        if x.shape != y.shape:
            raise NotImplementedError("Addition between sparse matrices of different shapes.")
        if _same_pattern(x, y):
            return [_data_op(x, lax.add(x.data, y.data))]
        if x.indices.ndim != y.indices.ndim or x.data.ndim != y.data.ndim:
            raise NotImplementedError("Addition between sparse matrices with different "
                                      "batch/dense dimensions.")
        axis = x.indices.ndim - 2          # both sets of stored elements, side by side
        return [BCOO((lax.concatenate([x.data, y.data], axis),
                      lax.concatenate([x.indices, y.indices], axis)), shape=x.shape)]
    if is_sparse(y):
        x, y = y, x
    if np.shape(y) != out_shape:
        raise NotImplementedError(
            "Addition between a sparse array X and a dense array Y is not implemented when "
            "the output shape is larger than Y.shape. This is to prevent silent densification "
            "of a large sparse array. If this is your intent, you can explicitly cast the "
            "sparse array to a dense matrix.")
    return [bcoo_todense(x) + y]


def _sub_rule(x, y):
    if is_sparse(x) and is_sparse(y):
        return _add_rule(x, _data_op(y, lax.neg(y.data)))
    raise NotImplementedError("Subtraction between sparse and dense array.")


def _mul_rule(x, y, out_dtype=None):
    # (out_dtype: mul's param, None unless given; both operands converted to it, as JAX's
    # _mul_sparse)
    def cast(v):
        if out_dtype is None:
            return v
        return _data_op(v, v.data.astype(out_dtype)) if is_sparse(v) else \
            jnp.asarray(v).astype(out_dtype)
    if is_sparse(x) and is_sparse(y):
        if _same_pattern(x, y) and x.unique_indices:
            return [_data_op(x, lax.mul(x.data, y.data, out_dtype=out_dtype))]
        return [bcoo_multiply_sparse(cast(x), cast(y))]
    if is_sparse(y):
        x, y = y, x
    x, y = cast(x), cast(y)
    return [_data_op(x, bcoo_multiply_dense(x, y))]


def _div_rule(x, y):
    if is_sparse(y):
        raise NotImplementedError(
            "Division by a sparse array is not implemented because it would result in dense "
            "output. If this is your intent, use sparse.todense() to convert your arguments "
            "to a dense array.")
    return [_data_op(x, bcoo_multiply_dense(x, 1. / jnp.asarray(y)))]


def _reduce_sum_rule(x, *, axes, **_):
    mat = bcoo_reduce_sum(x, axes=axes)
    return [mat.data.sum() if mat.shape == () else mat]


def _reshape_rule(x, *, new_sizes, dimensions=None, **_):
    return [bcoo_reshape(x, new_sizes=new_sizes, dimensions=dimensions)]


def _standard_rule(fun):
    """A rule that is the BCOO function of the primitive, its arguments as they come (a
    dense one among them is the function's to refuse or take)."""
    return lambda *args, **params: [fun(*args, **params)]


def _slice_rule(x, *, start_indices, limit_indices, strides=None):
    return [bcoo_slice(x, start_indices=start_indices, limit_indices=limit_indices,
                       strides=strides)]


def _dynamic_slice_rule(x, *starts, slice_sizes):
    return [bcoo_dynamic_slice(x, starts, slice_sizes)]


def _gather_rule(operand, start_indices, **params):
    if is_sparse(start_indices):
        raise NotImplementedError("sparse rule for gather with sparse start_indices is not "
                                  "implemented: pass them dense")
    return [bcoo_gather(operand, start_indices, **params)]


def _stack_rule(broadcast_in_dim, concatenate):
    """One new size-1 dim per operand at `axis`, then their concatenation there."""
    def rule(*xs, axis):
        def expand(x):
            shape = x.shape[:axis] + (1,) + x.shape[axis:]
            dims = [d if d < axis else d + 1 for d in range(x.ndim)]
            return broadcast_in_dim(x, shape=shape, broadcast_dimensions=dims)
        return [concatenate([expand(x) for x in xs], dimension=axis)]
    return rule


def _broadcast_rule(broadcast_in_dim):
    def rule(x, *dyn, shape, broadcast_dimensions, **_):
        return [broadcast_in_dim(x, shape=shape, broadcast_dimensions=broadcast_dimensions)]
    return rule


def _concatenate_rule(concatenate):
    return lambda *xs, dimension: [concatenate(xs, dimension=dimension)]


def _todense_rule(x, *, tree):
    return [x.todense()]


def _call_rule(param):
    """A call of a jaxpr (jit, custom_jvp_call, custom_vjp_call): its jaxpr is interpreted
    inline, so the sparse values flow into it (a custom rule's derivative is not kept)."""
    def rule(*args, **params):
        closed = params[param]
        return eval_sparse(closed.jaxpr, closed.consts, args)
    return rule


def _tree_of(values):
    leaves, tree = tree_flatten(list(values))
    return leaves, tree


def _check_same(what, tree_in, tree_out):
    if tree_in != tree_out:
        raise TypeError(f"sparsify: {what} must keep the sparse/dense structure of its "
                        f"carry; got {tree_in} in and {tree_out} out")


def _while_rule(*args, cond_jaxpr, cond_nconsts, body_jaxpr, body_nconsts):
    cconsts, bconsts = args[:cond_nconsts], args[cond_nconsts:cond_nconsts + body_nconsts]
    init_leaves, tree = _tree_of(args[cond_nconsts + body_nconsts:])

    def cond_fun(leaves):
        carry = tree_unflatten(tree, leaves)
        return eval_sparse(cond_jaxpr.jaxpr, cond_jaxpr.consts, [*cconsts, *carry])[0]

    def body_fun(leaves):
        carry = tree_unflatten(tree, leaves)
        out_leaves, out_tree = _tree_of(eval_sparse(body_jaxpr.jaxpr, body_jaxpr.consts,
                                                    [*bconsts, *carry]))
        _check_same("while_loop's body", tree, out_tree)
        return out_leaves
    return tree_unflatten(tree, lax.while_loop(cond_fun, body_fun, init_leaves))


def _check_branch_trees(tree0, tree, i):
    """JAX's TypeError where branch `i`'s sparsified outputs differ in structure from
    branch 0's (a sparse result in one, a dense one in the other), named as JAX names them:
    branch 0 as true_fun, branch 1 as false_fun."""
    if tree == tree0:
        return
    what0, what = "sparsified true_fun output", ("sparsified false_fun output" if i == 1 else
                                                f"sparsified branch {i} output")
    raise TypeError("\n".join(
        [f"{what0} must have same type structure as {what}, but there are differences: "] +
        [f"    * at output{keystr(tuple(path))}, {what0} has {thing0} and {what} has "
         f"{thing}, so {why}" for path, thing0, thing, why in
         equality_errors_pytreedef(tree0, tree)]))


def _cond_rule(index, *operands, branches, **_):
    leaves, tree = _tree_of(operands)
    out_trees = []

    def branch_fun(closed):
        def run(*xs):
            out_leaves, out_tree = _tree_of(eval_sparse(closed.jaxpr, closed.consts,
                                                        tree_unflatten(tree, list(xs))))
            if out_trees:       # before lax.switch compares the branches' plain leaves
                _check_branch_trees(out_trees[0], out_tree, len(out_trees))
            out_trees.append(out_tree)
            return out_leaves
        return run
    outs = lax.switch(index, [branch_fun(b) for b in branches], *leaves)
    return tree_unflatten(out_trees[0], outs)


def _scan_rule(*args, jaxpr, num_consts, num_carry, length, reverse, **_):
    consts, carry = args[:num_consts], args[num_consts:num_consts + num_carry]
    xs = args[num_consts + num_carry:]
    if any(is_sparse(x) for x in xs):
        raise NotImplementedError("sparsify of scan over sparse xs is not implemented in "
                                  "jxkernel (sparse consts and carries are)")
    carry_leaves, carry_tree = _tree_of(carry)
    ys_tree = []

    def body(c, x):
        outs = eval_sparse(jaxpr.jaxpr, jaxpr.consts,
                           [*consts, *tree_unflatten(carry_tree, c), *x])
        c_leaves, c_tree = _tree_of(outs[:num_carry])
        _check_same("scan's body", carry_tree, c_tree)
        y_leaves, y_tree = _tree_of(outs[num_carry:])
        ys_tree.append(y_tree)
        return c_leaves, y_leaves
    c_out, ys = lax.scan(body, carry_leaves, list(xs), length=length, reverse=reverse)
    return [*tree_unflatten(carry_tree, c_out), *tree_unflatten(ys_tree[0], ys)]


def _install_rules():
    named = {**{n: _unary_rule(all_primitives[n], True) for n in _ZERO_PRESERVING_LINEAR
                if n in all_primitives},
             **{n: _unary_rule(all_primitives[n], False) for n in _ZERO_PRESERVING
                if n in all_primitives},
             "integer_pow": _integer_pow_rule, "dot_general": _dot_general_rule,
             "transpose": _transpose_rule, "add": _add_rule, "add_any": _add_rule,
             "sub": _sub_rule, "mul": _mul_rule, "div": _div_rule,
             "reduce_sum": _reduce_sum_rule, "reshape": _reshape_rule,
             "slice": _slice_rule, "dynamic_slice": _dynamic_slice_rule,
             "gather": _gather_rule,
             "squeeze": _standard_rule(bcoo_squeeze), "rev": _standard_rule(bcoo_rev),
             "broadcast_in_dim": _broadcast_rule(bcoo_broadcast_in_dim),
             "stack": _stack_rule(bcoo_broadcast_in_dim, bcoo_concatenate),
             "concatenate": _concatenate_rule(bcoo_concatenate)}
    for name, rule in named.items():
        sparse_rules_bcoo[all_primitives[name]] = rule
    generic = {jit_p: _call_rule("jaxpr"), custom_jvp_call_p: _call_rule("call_jaxpr"),
               custom_vjp_call_p: _call_rule("call_jaxpr"), while_p: _while_rule,
               cond_p: _cond_rule, scan_p: _scan_rule}
    generic[todense_p] = _todense_rule
    sparse_rules_bcoo.update(generic)
    sparse_rules_bcoo[conv_general_dilated_p] = _standard_rule(bcoo_conv_general_dilated)
    # BCSR's: the data-only ones, its product with a dense array, and the calls and loops
    sparse_rules_bcsr.update(generic)
    for prim, rule in sparse_rules_bcoo.items():
        if prim.name in _ZERO_PRESERVING_LINEAR + _ZERO_PRESERVING + ("integer_pow",):
            sparse_rules_bcsr[prim] = rule
    sparse_rules_bcsr[all_primitives["dot_general"]] = _bcsr_dot_general_rule
    sparse_rules_bcsr.update({
        all_primitives["broadcast_in_dim"]: _broadcast_rule(bcsr_broadcast_in_dim),
        all_primitives["stack"]: _stack_rule(bcsr_broadcast_in_dim, bcsr_concatenate),
        all_primitives["concatenate"]: _concatenate_rule(bcsr_concatenate)})


_install_rules()
