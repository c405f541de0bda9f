"""Helpers for differentiation rules, which live beside each primitive in lax/.

A jvp rule maps (primals, tangents) to (primal_out, tangent_out); tangents may
be symbolic `Zero`s, so unused inputs cost nothing. A transpose rule maps an
output cotangent to the cotangents of the primitive's *linear* inputs, which it
receives as `UndefinedPrimal`s (the others arrive as values):

    defjvp(sin_p, lambda g, ans, x: mul(g, cos(x)))
    deflinear(neg_p, lambda ct: [neg(ct)])
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes, physical, vma, sharding_types
from ..core.avals import ShapedArray, get_aval, parts_of
from ..core.interpreter_primitives import (broadcast_in_dim, convert_element_type, reduce_sum,
                                          reshape, reshard as reshard_value)
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                              lowering_rules, numpy_rules, sharding_rules, transpose_rules)
from ..tree_util import tree_map
from . import batch_util as bu

from ..core.dtypes import float0  # noqa: E402,F401  (the tangent dtype of ints and bools)


class Zero:
    """A symbolic zero tangent or cotangent of type `aval`."""
    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    @staticmethod
    def like(x) -> Zero:
        return Zero(get_aval(x))

    # what custom rules with symbolic_zeros=True may ask of it (JAX's SymbolicZero)
    shape = property(lambda self: self.aval.shape)
    # a tangent's dtype, as JAX's (whose Zero holds the tangent aval): float0 for an int, a
    # bool or a key
    dtype = property(lambda self: dtypes.primal_dtype_to_tangent_dtype(self.aval.dtype))
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)

    def __repr__(self):       # JAX's: the aval's long text, `~` for a weak type (~float32[])
        return f"Zero({self.aval})"


class UndefinedPrimal:
    """A linear input of a transposed equation: its value is what we solve for."""
    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval})"


def is_undefined(x) -> bool:
    return type(x) is UndefinedPrimal


def aval_of(x) -> ShapedArray:
    return x.aval if type(x) in (Zero, UndefinedPrimal) else get_aval(x)


def zeros(aval: ShapedArray):
    """A concrete zero array of `aval` (a broadcast scalar, as JAX makes it)."""
    if dtypes.is_extended(aval.dtype):
        # an extended dtype's zero is its rules' (Flax's fp8_meta32: -inf, as max accumulates)
        zero = aval.dtype._rules.zero(aval.dtype)
        if getattr(zero, "dtype", None) == dtypes.float0:
            # a typed key's (its tangent type): no data, so a NumPy array, as JAX's float0
            # zeros are (a float0 has nothing to broadcast on a device)
            return np.zeros(aval.shape, dtypes.float0)
        out = broadcast_in_dim(zero, aval.shape, ()) if aval.shape else zero
        return vma.pvary(out, aval.vma) if aval.vma else out
    zero = np.zeros((), aval.dtype)
    if not dtypes.is_canonical(aval.dtype):
        # a 64-bit aval while x64 is off (made in an enable_x64 block): a NumPy zero would
        # narrow when bound; converted, it keeps the dtype
        zero = convert_element_type(zero, aval.dtype)
    if aval.weak_type and aval.shape:
        # weakly typed as `aval`, as JAX's zeros_like_shaped_array: a weak Python zero when
        # that is what `aval`'s dtype holds (a literal when staged)
        py_zero = zero.item()
        zero = py_zero if dtypes.is_python_scalar(py_zero) and \
            dtypes.python_scalar_dtype(py_zero) == aval.dtype else _convert(zero, aval)
    # typed as `aval` (JAX's zeros_like_shaped_array: a zero carry tangent of a scan over a
    # split batch is split so too)
    out = broadcast_in_dim(zero, aval.shape, (), sharding_types.abstract_sharding(aval)) \
        if aval.shape else _convert(zero, aval)
    return vma.pvary(out, aval.vma) if aval.vma else out     # varying as `aval` (shard_map)


def _convert(x, aval):
    return convert_element_type(x, aval.dtype, aval.weak_type)


def instantiate(t):
    """A tangent as an array: a symbolic Zero becomes real zeros."""
    return zeros(t.aval) if type(t) is Zero else t


def is_differentiable(aval) -> bool:
    return dtypes.has_tangent(aval.dtype)


# ------------------------------------------------------------------ add_any
# Sums of tangents/cotangents. Its own primitive (as in JAX) so a gradient's jaxpr shows
# where contributions meet, and so transposition knows it is linear in both inputs.
add_any_p = Primitive("add_any")


def _add_any_abstract_eval(x, y):
    if x.shape != y.shape or x.dtype != y.dtype:
        raise TypeError(f"add_any needs equal types, got {x.str_short(True)} and "
                        f"{y.str_short(True)}")
    return ShapedArray(x.shape, x.dtype, x.weak_type and y.weak_type)


abstract_eval_rules[add_any_p] = _add_any_abstract_eval
sharding_rules[add_any_p] = sharding_types.add_any_rule
sharding_types.ur_rules[add_any_p] = sharding_types.add_ur_rule
lowering_rules[add_any_p] = lambda ctx, x, y: ctx.op1("stablehlo.add", [x, y])
numpy_rules[add_any_p] = lambda x, y: np.add(x, y)
jvp_rules[add_any_p] = lambda primals, tangents: (
    add_any_p.bind(*primals), add_tangents(*tangents))
transpose_rules[add_any_p] = lambda ct, x, y: [ct, ct]


def _add_any_physical(in_avals, out_avals, x, y):
    """add_any on an extended dtype's data: its rules' `add` (Flax's fp8_meta32 takes the
    max), traced on the logical values and made physical, as JAX lowers it with lower_fun."""
    dtype = in_avals[0].dtype
    return physical.eval_logical(lambda a, b: dtype._rules.add(dtype, a, b), in_avals, x, y)


physical.physical_rules[add_any_p] = _add_any_physical


def _add_any_batching(vals, dims):
    x, y = vals
    if dims[0] == dims[1]:
        return add_any_p.bind(x, y), dims[0]
    size = bu.axis_size_of(vals, dims)
    return add_any_p.bind(bu.bdim_at_front(x, dims[0], size), bu.bdim_at_front(y, dims[1], size)), 0


batching_rules[add_any_p] = _add_any_batching


def add_tangents(a, b):
    """a + b for tangents, where either may be a symbolic Zero."""
    if type(a) is Zero:
        return b
    if type(b) is Zero:
        return a
    return add_any_p.bind(a, b)


# ------------------------------------------------------------------ broadcasting
def broadcast_to(t, aval):
    """Tangent `t` spread to `aval`'s shape (lax's binary ops broadcast rank-0 operands and
    size-1 dims, so a tangent of such an operand must be broadcast to the output), typed as
    `aval` is: JAX's _maybe_broadcast types it as the primal output (a bias's tangent added
    to a batch split over 'x' is split so too, as select_n's cases must all be); one of
    `aval`'s shape but another type is resharded to it, as JAX's.

        >>> broadcast_to(jnp.ones((1, 4)), ShapedArray((8, 4), np.float32)).shape
        (8, 4)
    """
    t_aval = aval_of(t)
    t_shape = t_aval.shape
    if t_shape == aval.shape:
        if _typed_otherwise(t_aval, aval):
            return reshard_value(t, sharding_types.abstract_sharding(aval))
        return as_array(t)
    sharding = sharding_types.abstract_sharding(aval)
    if not t_shape:
        return broadcast_in_dim(t, aval.shape, (), sharding)
    keep = tuple(i for i, d in enumerate(t_shape) if d == aval.shape[i])
    squeezed = reshape(t, tuple(t_shape[i] for i in keep)) if len(keep) < len(t_shape) else t
    return broadcast_in_dim(squeezed, aval.shape, keep, sharding)


def as_array(t):
    """Tangent `t` as an Array where it is a Python or NumPy scalar: it leaves an operation
    as an Array, as JAX's does (its operands pass through convert_element_type).

        >>> as_array(2.0)
        Array(2., dtype=float32, weak_type=True)
    """
    return _convert(t, aval_of(t)) if isinstance(t, (int, float, complex, np.generic)) else t


def unbroadcast(ct, aval):
    """Cotangent `ct` summed back to `aval`'s shape and typed as `aval`: the transpose of
    broadcast_to. One of `aval`'s shape but another type (a replicated bias's, added to a
    split batch) is reshaped to `aval`'s type, as JAX's _unbroadcast.

        >>> unbroadcast(jnp.ones((8, 4)), ShapedArray((1, 4), np.float32))
        Array([[8., 8., 8., 8.]], dtype=float32)
    """
    if type(ct) is Zero:
        return Zero(aval)
    if type(aval) is ShapedArray:
        aval = aval.sets_swapped()    # (unreduced where `aval` is reduced: JAX's type)
    ct_aval = get_aval(ct)
    ct_shape = ct_aval.shape
    if ct_shape != aval.shape or _typed_otherwise(ct_aval, aval):
        if not aval.shape:
            ct = reduce_sum(ct, tuple(range(len(ct_shape))))
        else:
            axes = tuple(i for i, (c, a) in enumerate(zip(ct_shape, aval.shape)) if c != a)
            if axes:
                ct = reduce_sum(ct, axes)
            ct = reshape(ct, aval.shape, sharding_types.abstract_sharding(aval))
    if get_aval(ct).dtype != aval.dtype:
        ct = _convert(ct, aval.update(weak_type=False))
    return ct


def _typed_otherwise(x_aval, aval) -> bool:
    """Whether a value of type `x_aval` and `aval`'s shape is split otherwise than `aval`'s
    type says (an untyped one counts as unsplit): JAX's _maybe_broadcast and _unbroadcast
    then change its type. False where `aval` is untyped (no Explicit axis in sight)."""
    if getattr(aval, "split", None) is None:
        return False
    x_parts = parts_of(x_aval) if getattr(x_aval, "split", None) is not None \
        else [()] * len(x_aval.shape)
    return x_parts != parts_of(aval)


# ------------------------------------------------------------------ rule factories
def defjvp(prim, *jvp_fns):
    """jvp from one function per input: `fn(tangent, ans, *primals, **params)` gives that
    input's contribution to the output tangent (None: not differentiable in that input)."""
    def rule(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        out_aval = get_aval(ans)
        total = Zero(out_aval)
        for fn, t in zip(jvp_fns, tangents):
            if fn is not None and type(t) is not Zero:
                total = add_tangents(total, broadcast_to(fn(t, ans, *primals, **params), out_aval))
        return ans, total
    jvp_rules[prim] = rule


def defjvp_zero(prim):
    """A primitive with zero derivative everywhere (comparisons, integer ops, ...)."""
    def rule(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        if prim.multiple_results:
            return ans, [Zero(get_aval(a)) for a in ans]
        return ans, Zero(get_aval(ans))
    jvp_rules[prim] = rule


def deflinear(prim, transpose_fn):
    """A primitive linear in all its inputs: jvp applies it to the tangents; the transpose is
    `transpose_fn(ct, **params)` giving one cotangent per input."""
    deflinear2(prim, lambda ct, *args, **params: transpose_fn(ct, **params))


def deflinear2(prim, transpose_fn):
    """Like deflinear, but `transpose_fn(ct, *args, **params)` also sees the inputs
    (UndefinedPrimal for the linear ones), e.g. to know their shapes."""
    def jvp(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        if all(type(t) is Zero for t in tangents):
            return ans, Zero(get_aval(ans))
        return ans, prim.bind(*map(instantiate, tangents), **params)

    def transpose(ct, *args, **params):
        if type(ct) is Zero:
            return [Zero(aval_of(a)) if is_undefined(a) else None for a in args]
        return transpose_fn(ct, *args, **params)
    jvp_rules[prim] = jvp
    transpose_rules[prim] = transpose


# the primitives defbilinear made: a backward pass skips their transpose into an input whose
# cotangent is not wanted (`VJP.with_refs(DontWant())`), as JAX's fancy_bilinear_transpose
bilinear: set = set()


def defbilinear(prim, lhs_rule, rhs_rule):
    """A primitive linear in each of its two inputs separately (mul, dot, conv): the tangent
    is prim(t_x, y) + prim(x, t_y); the transpose, linear in one input at a time, is
    `lhs_rule(ct, x, y, **params)` or `rhs_rule(ct, x, y, **params)`."""
    bilinear.add(prim)
    defjvp(prim, lambda g, ans, x, y, **params: prim.bind(g, y, **params),
           lambda g, ans, x, y, **params: prim.bind(x, g, **params))

    def transpose(ct, x, y, **params):
        if is_undefined(x):
            return [Zero(x.aval) if type(ct) is Zero else lhs_rule(ct, x, y, **params), None]
        return [None, Zero(y.aval) if type(ct) is Zero else rhs_rule(ct, x, y, **params)]
    transpose_rules[prim] = transpose


# ------------------------------------------------------------------ stop_gradient
stop_gradient_p = Primitive("stop_gradient")
abstract_eval_rules[stop_gradient_p] = lambda x: x
lowering_rules[stop_gradient_p] = lambda ctx, x: x
numpy_rules[stop_gradient_p] = lambda x: x
defjvp_zero(stop_gradient_p)
batching_rules[stop_gradient_p] = lambda vals, dims: (stop_gradient_p.bind(vals[0]), dims[0])
sharding_rules[stop_gradient_p] = sharding_types.same_as_operand_rule


def stop_gradient(x):
    """`x` with zero derivative: differentiation treats it as a constant (any pytree).

    >>> import jxkernel as jax
    >>> jax.grad(lambda x: x * stop_gradient(x))(3.0)     # d/dx of x * 3
    Array(3., dtype=float32, weak_type=True)
    """

    def stop(leaf):       # integers too, as JAX's: a tracer of any transformation is let go
        if dtypes.is_extended(get_aval(leaf).dtype):
            return leaf
        return stop_gradient_p.bind(leaf)
    return tree_map(stop, x)
