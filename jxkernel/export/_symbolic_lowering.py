"""Lowering with symbolic dimensions: sizes print as `?` (`tensor<?x4xf32>`), the dimension
variables are read from the arguments at the top of `main` (`stablehlo.get_dimension_size`),
and ops whose result shape depends on them take their shape as an operand
(`dynamic_broadcast_in_dim`, `dynamic_reshape`, `dynamic_iota`, `real_dynamic_slice`).

At call time, jaxlib's shape refinement specializes such a module to the static shapes of
the arguments (`_refined_text` in _export.py).

A primitive without a symbolic-aware lowering that meets a symbolic dimension is refused at
export time, naming the primitive and the dimension (JAX 0.10.2 cannot export this one
either, with an error of its own):

    >>> from jxkernel import export
    >>> a, = export.symbolic_shape("a")
    >>> draw = jax.jit(lambda x: jax.lax.rng_uniform(0., 1., x.shape))
    >>> export.export(draw)(jax.ShapeDtypeStruct((a, 4), np.float32))
    Traceback (most recent call last):
      ...
    NotImplementedError: export with symbolic shapes: primitive 'rng_uniform' meets the symbolic dimension 'a' (in an operand or result of type f32[a,4]), and jxkernel has no shape-polymorphic lowering for it. Export with concrete shapes for this function.

A custom call whose results have symbolic sizes (LAPACK's) takes each result's shape as an
operand after its own, named by `indices_of_shape_operands` (JAX's `result_shapes`); shape
refinement types the results from them.
"""
from __future__ import annotations

import numpy as np

from ..core.primitive import lowering_rules
from ..core.symbolic import is_symbolic
from ..lax import _lowering as _hl
from ..lax import _rules
from ..lax import elementwise as _elementwise
from ..lax import reductions as _reductions
from ..lax import convolution, shapes, slicing, windowed
from ..lax.fft import fft_p
from ..lax.transfer import device_put_p
from ..lax.reductions import cumsum_p
from ..lax.slicing import GatherScatterMode, _dims_attr, dynamic_slice_p, gather_p
from ..lax.slicing import gather_scatter as _gather_scatter
from ..lax.slicing.gather_scatter import gather_fill
from ..xla import lowering as _xla_lowering
from ..xla import stablehlo as hlo
from . import _symbolic_windows
from .shape_poly import (InconclusiveDimensionOperation, UnexpectedDimVar, _DimExpr,
                         cannot_solve, solving_plan, specs_text)

_I32 = "tensor<i32>"


def has_symbolic(shape) -> bool:
    """Whether a dimension of `shape` is symbolic (`a`, `2*b`), not a number."""
    return any(map(is_symbolic, shape))


# ------------------------------------------------------------------ dimension values
class SymbolicLowering:
    """The module's dimension variables as SSA values, and shape operands built from them."""

    def __init__(self, block, in_avals, args, arg_paths):
        self.values = {}
        # each variable read from a dimension k*v + rest of an argument, once rest's variables
        # are read, in JAX's order (shape_poly.solving_plan)
        dims = [(d, (arg, axis, path)) for aval, arg, path in zip(in_avals, args, arg_paths)
                for axis, d in enumerate(aval.shape) if isinstance(d, _DimExpr)]
        steps, unsolved = solving_plan(dims)
        if unsolved:
            raise cannot_solve(steps, [(d, f"{path}.shape[{axis}]")
                                       for d, (_, axis, path) in unsolved],
                               specs_text([a.shape for a in in_avals], arg_paths))
        for step in steps:
            if step[0] == "var":
                _, name, k, rest, _, (arg, axis, _) = step
                self.values[name] = _solve(block, arg, axis, k, None if isinstance(rest, int)
                                           and rest == 0 else self.dim(block, rest))
        # a constraint's variables too must come from the arguments (JAX's check at export)
        scopes = {id(d.scope): d.scope for aval in in_avals for d in aval.shape
                  if isinstance(d, _DimExpr)}
        for scope in scopes.values():
            for _, known in scope._constraints:
                for name in known.variables():
                    if name not in self.values and name not in scope._equal:
                        raise self._unexpected(name)

    def for_region(self, block, in_avals, args) -> SymbolicLowering:
        """What a region isolated from the values above it (a shard_map body's
        sdy.manual_computation) computes sizes with: nothing symbolic (_RegionWithoutSizes)."""
        return _RegionWithoutSizes()

    def _unexpected(self, name) -> UnexpectedDimVar:
        """JAX's error and words: the variables the arguments give, and where to read on."""
        return UnexpectedDimVar(
            f"Encountered dimension variable '{name}' that is not appearing in the shapes of "
            f"the function arguments.\nThe following dimension variables are appearing in the "
            f"shapes of the function arguments: {sorted(self.values)}.\nPlease see "
            f"https://docs.jax.dev/en/latest/export/shape_poly.html"
            f"#dimension-variables-must-be-solvable-from-the-input-shapes for more details.")

    def dim(self, block, d):
        """A tensor<i32> holding dimension `d` (an int or a symbolic expression)."""
        if not isinstance(d, _DimExpr):
            return block.constant(np.int32(d))
        # JAX 0.10.2's order of operations (_DimExpr._evaluate): the terms largest first, each
        # the product of its factors largest first (a power as repeated products), times its
        # coefficient unless 1; added left to right, the constant last
        mul = lambda x, y: block.op1("stablehlo.multiply", [x, y], _I32)
        total = None
        for coeff, factors in d.jax_terms():
            term = None
            for atom, power in factors:
                value = self._atom(block, atom)
                factor = value
                for _ in range(power - 1):
                    factor = mul(factor, value)
                term = factor if term is None else mul(term, factor)
            if term is None:
                term = block.constant(np.int32(coeff))
            elif coeff != 1:
                term = mul(term, block.constant(np.int32(coeff)))
            total = term if total is None else block.op1("stablehlo.add", [total, term], _I32)
        return total

    def _atom(self, block, atom):
        if atom.op == "var":
            name = atom.args[0]
            if name not in self.values:
                raise self._unexpected(name)
            return self.values[name]
        x, y = (self.dim(block, v) for v in atom.args)
        if atom.op in ("max", "min"):
            return block.op1(f"stablehlo.{atom.op}imum", [x, y], _I32)
        quotient = _floor_divide(block, x, y)
        if atom.op == "floordiv":
            return quotient
        product = block.op1("stablehlo.multiply", [quotient, y], _I32)
        return block.op1("stablehlo.subtract", [x, product], _I32)

    def shape(self, block, shape):
        """A tensor<Nxi32> of the sizes in `shape`."""
        if not has_symbolic(shape):
            return block.constant(np.asarray(shape, np.int32))
        parts = [block.op1("stablehlo.reshape", [self.dim(block, d)], "tensor<1xi32>")
                 for d in shape]
        return block.op1("stablehlo.concatenate", parts, f"tensor<{len(shape)}xi32>",
                         {"dimension": hlo.i64_attr(0)})

    def iota(self, ctx, shape, dtype, dimension):
        attrs = {"iota_dimension": hlo.i64_attr(dimension)}
        out_type = hlo.tensor_type(tuple(shape), dtype)
        if not has_symbolic(shape):
            return ctx.block.op1("stablehlo.iota", [], out_type, attrs, loc=ctx.loc)
        return ctx.block.op1("stablehlo.dynamic_iota", [self.shape(ctx.block, shape)],
                             out_type, attrs, loc=ctx.loc)

    def broadcast_in_dim(self, ctx, value, shape, dtype, dims):
        attrs = {"broadcast_dimensions": hlo.i64_array(dims)}
        out_type = hlo.tensor_type(tuple(shape), dtype)
        if not has_symbolic(shape):
            return ctx.block.op1("stablehlo.broadcast_in_dim", [value], out_type, attrs,
                                 loc=ctx.loc)
        return ctx.block.op1("stablehlo.dynamic_broadcast_in_dim",
                             [value, self.shape(ctx.block, shape)], out_type, attrs, loc=ctx.loc)


class _RegionWithoutSizes(SymbolicLowering):
    """A shard_map body's sizes in a module with symbolic shapes: its operations that need no
    size (collectives, elementwise operations of its values) lower as they are; one that needs
    a symbolic size is refused at export. Main's size values are out of the region's reach,
    and those read again from the region's own arguments (get_dimension_size in the manual
    computation) crash jaxlib 0.10.2's shape refinement when the export is called (a
    segmentation fault)."""

    def __init__(self):             # (no variables of its own)
        self.values = {}

    def dim(self, block, d):
        if not isinstance(d, _DimExpr):
            return block.constant(np.int32(d))
        raise NotImplementedError(
            f"export with symbolic shapes: an operation in a shard_map body needs the value "
            f"of the symbolic dimension '{d}', which jxkernel does not compute inside the "
            f"body's sdy.manual_computation. Export with concrete shapes for this function, "
            f"or keep the body to operations that need no size (collectives, elementwise "
            f"operations between its values).")


def _solve(block, arg, axis, coeff, rest):
    """The variable v of a dimension `coeff*v + rest` of `arg` (`rest`: a tensor<i32> of the
    variables read before, None for 0; the size fits, as checked before calling)."""
    value = block.op1("stablehlo.get_dimension_size", [arg], _I32,
                      {"dimension": hlo.i64_attr(axis)})
    if rest is not None:
        value = block.op1("stablehlo.subtract", [value, rest], _I32)
    if coeff != 1:
        value = block.op1("stablehlo.divide", [value, block.constant(np.int32(coeff))], _I32)
    return value


def _floor_divide(block, x, y):
    """x // y rounding toward minus infinity (StableHLO's divide truncates): one less where
    the signs differ and the division is inexact. Built of ops jaxlib's shape refinement folds
    (sign, remainder, compare, and, select: as JAX's; an `xor` would be left unfolded and the
    call of such a module refused)."""
    quotient = block.op1("stablehlo.divide", [x, y], _I32)
    zero = block.constant(np.int32(0))
    signs_differ = _compare(block, block.op1("stablehlo.sign", [x], _I32),
                            block.op1("stablehlo.sign", [y], _I32), "NE")
    inexact = _compare(block, block.op1("stablehlo.remainder", [x, y], _I32), zero, "NE")
    adjust = block.op1("stablehlo.and", [signs_differ, inexact], "tensor<i1>")
    lower = block.op1("stablehlo.subtract", [quotient, block.constant(np.int32(1))], _I32)
    return block.op1("stablehlo.select", [adjust, lower, quotient], _I32)


def _compare(block, x, y, direction):
    return block.op1("stablehlo.compare", [x, y], "tensor<i1>", {
        "comparison_direction": hlo.enum("comparison_direction", direction),
        "compare_type": hlo.enum("comparison_type", "SIGNED")})


# ------------------------------------------------------------------ rules
def _broadcast_in_dim(ctx, x, *, shape, broadcast_dimensions, sharding=None):
    return ctx.module_ctx.symbolic.broadcast_in_dim(ctx, x, shape, ctx.avals_out[0].dtype,
                                                    broadcast_dimensions)


def _reshape(ctx, x, *, new_sizes, dimensions, sharding=None):
    aval = ctx.avals_in[0]
    if dimensions is not None:
        permuted = tuple(aval.shape[d] for d in dimensions)
        x = ctx.op1("stablehlo.transpose", [x], {"permutation": hlo.i64_array(dimensions)},
                    result_type=hlo.tensor_type(permuted, aval.dtype))
    return _dynamic_reshape(ctx, x)


def _dynamic_reshape(ctx, x, **_):
    out = ctx.avals_out[0]
    if not has_symbolic(out.shape):
        return ctx.op1("stablehlo.reshape", [x])
    return ctx.op1("stablehlo.dynamic_reshape", [x, ctx.module_ctx.symbolic.shape(ctx.block,
                                                                                  out.shape)])


def _stack(ctx, *xs, axis):
    """Each operand reshaped to a unit axis at `axis` (its shape an operand), then one
    concatenate."""
    aval = ctx.avals_in[0]
    if not has_symbolic(aval.shape):
        return lowering_rules[shapes.stack_p](ctx, *xs, axis=axis)
    unit = list(aval.shape)
    unit.insert(axis, 1)
    shape = ctx.module_ctx.symbolic.shape(ctx.block, unit)
    parts = [ctx.op1("stablehlo.dynamic_reshape", [x, shape],
                     result_type=hlo.tensor_type(tuple(unit), aval.dtype)) for x in xs]
    return ctx.op1("stablehlo.concatenate", parts, {"dimension": hlo.i64_attr(axis)})


def _iota(ctx, *, dtype, shape, dimension, sharding=None):
    return ctx.module_ctx.symbolic.iota(ctx, shape, dtype, dimension)


def _slice(ctx, x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * len(start_indices)
    if not (has_symbolic(ctx.avals_in[0].shape) or has_symbolic(limit_indices)):
        return lowering_rules[slicing.slice_p](ctx, x, start_indices=start_indices,
                                                  limit_indices=limit_indices, strides=strides)
    return _real_dynamic_slice(ctx, x, start_indices, limit_indices, strides, ctx.avals_out[0])


def _real_dynamic_slice(ctx, x, starts, limits, strides, aval):
    operands = [ctx.module_ctx.symbolic.shape(ctx.block, v) for v in (starts, limits, strides)]
    return ctx.op1("stablehlo.real_dynamic_slice", [x, *operands],
                   result_type=hlo.aval_type(aval))


def _dynamic_slice(ctx, x, *idx, slice_sizes):
    """dynamic_slice; with symbolic slice sizes a `real_dynamic_slice` from the starts clamped
    as dynamic_slice clamps them (to 0 .. size - slice size), as JAX's `mlir.dynamic_slice`."""
    if not has_symbolic(slice_sizes):
        return lowering_rules[dynamic_slice_p](ctx, x, *idx, slice_sizes=slice_sizes)
    symbolic, block, n = ctx.module_ctx.symbolic, ctx.block, len(slice_sizes)
    vector = f"tensor<{n}xi32>"
    starts = [block.op1("stablehlo.reshape", [_hl.convert(ctx, i, aval, np.int32)],
                        "tensor<1xi32>") for i, aval in zip(idx, ctx.avals_in[1:])]
    start = block.op1("stablehlo.concatenate", starts, vector, {"dimension": hlo.i64_attr(0)})
    sizes = symbolic.shape(block, slice_sizes)
    room = block.op1("stablehlo.subtract", [symbolic.shape(block, ctx.avals_in[0].shape),
                                            sizes], vector)
    start = block.op1("stablehlo.clamp", [block.constant(np.zeros(n, np.int32)), start, room],
                      vector)
    limit = block.op1("stablehlo.add", [start, sizes], vector)
    return ctx.op1("stablehlo.real_dynamic_slice",
                   [x, start, limit, block.constant(np.ones(n, np.int32))])


def _split(ctx, x, *, sizes, axis):
    shape = ctx.avals_in[0].shape
    if not (has_symbolic(shape) or has_symbolic(sizes)):
        return lowering_rules[shapes.split_p](ctx, x, sizes=sizes, axis=axis)
    start, outs = 0, []
    for size, aval in zip(sizes, ctx.avals_out):
        starts, limits = [0] * len(shape), list(shape)
        starts[axis], limits[axis] = start, start + size
        outs.append(_real_dynamic_slice(ctx, x, starts, limits, [1] * len(shape), aval))
        start += size
    return outs


def _pad(ctx, x, padding_value, *, padding_config):
    low, high, interior = zip(*padding_config) if padding_config else ((), (), ())
    if not (has_symbolic(ctx.avals_in[0].shape) or has_symbolic(low + high)):
        return lowering_rules[slicing.pad_p](ctx, x, padding_value,
                                                padding_config=padding_config)
    shape = ctx.module_ctx.symbolic.shape
    return ctx.op1("stablehlo.dynamic_pad", [x, padding_value, shape(ctx.block, low),
                                             shape(ctx.block, high), shape(ctx.block, interior)])


def _overrides() -> dict:
    # scatters (mode CLIP clamps with bounds computed in the module where they are symbolic)
    scatters = {prim: lowering_rules[prim] for prim in lowering_rules
                if getattr(lowering_rules[prim], "__module__", None) == _gather_scatter.__name__
                and prim.name.startswith("scatter")}
    cumulative = {prim: _cumulative(prim) for prim in lowering_rules
                  if prim.name in _CUMULATIVE_KINDS and
                  getattr(lowering_rules[prim], "__module__", None) ==
                  lowering_rules[cumsum_p].__module__}
    # ops whose result type is all that meets a symbolic size (their windows and lengths are
    # attributes: constants here, as in JAX, whose shape refinement infers the rest)
    attributed = {prim: _static_sizes(prim, _attribute_sizes)
                  for prim in (fft_p, windowed.select_and_gather_add_p,
                               windowed.select_and_scatter_add_p, _reductions.reduce_p,
                               device_put_p)}
    return {**scatters, **cumulative, **attributed, gather_p: _gather,
            convolution.conv_general_dilated_p: _symbolic_windows.conv,
            **_symbolic_windows.window_reductions(),
            dynamic_slice_p: _dynamic_slice,
            shapes.broadcast_in_dim_p: _broadcast_in_dim, shapes.reshape_p: _reshape,
            shapes.squeeze_p: _dynamic_reshape, shapes.iota_p: _iota, shapes.stack_p: _stack,
            slicing.pad_p: _pad, shapes.split_p: _split, slicing.slice_p: _slice}


# Primitives whose lowering only prints its result type (now with `?`) or broadcasts through
# the symbolic-aware helper; their bodies (jit, custom_jvp...) are lowered with these rules.
_SAFE = frozenset("""
    convert_element_type reduce_sum reduce_max reduce_min reduce_prod reduce_and reduce_or
    dot_general transpose concatenate select_n clamp copy rev jit pjit closed_call
    custom_jvp_call custom_vjp_call cond while stop_gradient add_any sort argmax argmin
    dynamic_update_slice shard_map ppermute pvary sharding_constraint reshard
""".split()) | frozenset("""
    triangular_solve lu lu_pivots_to_permutation eigh geqrf geqp3 householder_product ormqr
    qr cholesky eig schur hessenberg svd tridiagonal_solve tridiagonal custom_linear_solve
    iota_2x32_shape rng_bit_generator bitcast_convert_type threefry2x32 top_k approx_top_k
""".split())
# ... and the elementwise ops' rules, defined by these modules
_ELEMENTWISE_MODULES = frozenset({_elementwise.__name__, _rules.__name__})


def _safe(prim) -> bool:
    """Whether `prim`'s rule is run as it is under symbolic shapes: jxkernel's elementwise
    and listed ones, and a library's (`jax.interpreters.mlir.register_lowering`), which
    JAX 0.10.2 runs too, its ops typed from their operands (`tensor<?x4xf32>`)."""
    rule = lowering_rules.get(prim)
    return prim.name in _SAFE or getattr(rule, "__module__", None) in _ELEMENTWISE_MODULES \
        or getattr(rule, "registered", False)


class SymbolicRules:
    """`lowering_rules` as export with symbolic shapes sees them (ModuleContext.rules)."""

    def __init__(self):
        self._rules = _overrides()

    def get(self, prim):
        rule = self._rules.get(prim)
        if rule is None and prim in lowering_rules:
            rule = self._rules[prim] = lowering_rules[prim] if _safe(prim) else \
                _retraced(prim) if _by_lower_fun(prim) else _guarded(prim)
        return rule


def _by_lower_fun(prim) -> bool:
    """Whether `prim` lowers by tracing its definition in other primitives (`lower_fun`):
    those are lowered with these rules in turn, so they need no refusal of their own."""
    return getattr(lowering_rules[prim], "__module__", None) == _hl.__name__ and \
        lowering_rules[prim].__name__ == "rule"


def _retraced(prim):
    """`prim`'s lower_fun rule; where tracing its definition meets a symbolic size as an
    int, the error names the primitive."""
    rule = lowering_rules[prim]

    def retraced(ctx, *args, **params):
        try:
            return rule(ctx, *args, **params)
        except (TypeError, InconclusiveDimensionOperation) as e:
            dims = [d for a in [*ctx.avals_in, *ctx.avals_out] for d in a.shape if is_symbolic(d)]
            if not dims:
                raise
            raise NotImplementedError(
                f"export with symbolic shapes: primitive '{prim}' meets the symbolic "
                f"dimension '{dims[0]}', and its lowering cannot handle it ({e}). Export with "
                f"concrete shapes for this function.") from e
    return retraced


def _guarded(prim):
    """`prim`'s own rule, refused when a symbolic dimension reaches it."""
    rule = lowering_rules[prim]

    def guarded(ctx, *args, **params):
        for aval in [*ctx.avals_in, *ctx.avals_out]:
            dims = [d for d in getattr(aval, "shape", ()) if is_symbolic(d)]
            if dims:
                raise _refusal(prim, dims[0], f"in an operand or result of type "
                                              f"{aval.str_short(True)}")
        return rule(ctx, *args, **params)
    return guarded


def _refusal(prim, dim, where: str) -> NotImplementedError:
    return NotImplementedError(
        f"export with symbolic shapes: primitive '{prim}' meets the symbolic dimension "
        f"'{dim}' ({where}), and jxkernel has no shape-polymorphic lowering for it. Export "
        f"with concrete shapes for this function.")


def _attribute_sizes(ctx, params) -> list:
    """The sizes a window reduction's or an FFT's op takes as attributes."""
    names = ("window_dimensions", "window_strides", "base_dilation", "window_dilation",
             "fft_lengths")
    sizes = [d for n in names for d in (params.get(n) or ())]
    return sizes + [d for pair in params.get("padding") or () for d in pair]


def _static_sizes(prim, sizes_of):
    """`prim`'s own rule (its result type prints `?`), refused when the sizes that its op
    takes as an attribute, `sizes_of(ctx, params)`, are symbolic."""
    rule = lowering_rules[prim]

    def checked(ctx, *args, **params):
        dims = [d for d in sizes_of(ctx, params) if is_symbolic(d)]
        if dims:
            raise _refusal(prim, dims[0], "in a size the op takes as a constant")
        return rule(ctx, *args, **params)
    return checked


def _gather(ctx, operand, indices, **params):
    """gather; symbolic slice sizes become an operand (`dynamic_gather`); mode FILL_OR_DROP
    checks the indices against bounds computed in the module where they are symbolic."""
    dn, sizes = params["dimension_numbers"], params["slice_sizes"]
    if not has_symbolic(sizes):
        return lowering_rules[gather_p](ctx, operand, indices, **params)
    dims = _dims_attr("gather", [
        ("offset_dims", dn.offset_dims), ("collapsed_slice_dims", dn.collapsed_slice_dims),
        ("operand_batching_dims", dn.operand_batching_dims),
        ("start_indices_batching_dims", dn.start_indices_batching_dims),
        ("start_index_map", dn.start_index_map)], ctx.avals_in[1].ndim - 1)
    result = ctx.op1("stablehlo.dynamic_gather",
                     [operand, indices, ctx.module_ctx.symbolic.shape(ctx.block, sizes)],
                     {"dimension_numbers": dims,
                      "indices_are_sorted": hlo.bool_attr(params["indices_are_sorted"])})
    if params["mode"] != GatherScatterMode.FILL_OR_DROP:
        return result
    return gather_fill(ctx, result, indices, dn, sizes, params["fill_value"])


# each cumulative primitive's reducer (lax/reductions.py's kinds)
_CUMULATIVE_KINDS = {"cumsum": "add", "cumprod": "mul", "cummax": "max", "cummin": "min",
                     "cumlogsumexp": "logaddexp"}


def _cumulative(prim):
    """A cumulative op over a symbolic axis: its reduce_window (a window as long as the axis,
    that length less one padded before it) with the sizes as operands, the
    `stablehlo.dynamic_reduce_window` custom call JAX writes (shape refinement makes it a
    reduce_window again); other axes symbolic: the rule's own op, typed with `?`."""
    rule = lowering_rules[prim]

    def lower(ctx, x, *, axis, reverse):
        aval = ctx.avals_in[0]
        n = aval.shape[axis]
        if not is_symbolic(n):
            return rule(ctx, x, axis=axis, reverse=reverse)
        window, padding = [1] * aval.ndim, [(0, 0)] * aval.ndim
        window[axis] = n
        padding[axis] = (0, n - 1) if reverse else (n - 1, 0)
        kind = _CUMULATIVE_KINDS[prim.name]
        init = ctx.constant(_reductions._identity(kind, aval.dtype))
        return _symbolic_windows.dynamic_reduce_window(
            ctx, [x], [init], _symbolic_windows.reducer_function(ctx, kind, aval.dtype),
            window, [1] * aval.ndim, padding)[0]
    return lower


def _sizes_outside_export(module_ctx, block, jaxpr, args, dim_values) -> None:
    """xla/lowering.py's `symbolic_sizes`: a jaxpr lowered outside jax.export whose
    equations have symbolic sizes, its arguments none (an eager or jitted
    `jnp.zeros((a + 1,))`), lowers with the sizes computed in the module, where no argument
    gives a variable: JAX 0.10.2's UnexpectedDimVar, naming it and the (no) variables the
    arguments give. Arguments of symbolic shapes (`jit(f).lower` of them): the variables
    are `dim_values`, main's first arguments (_dim_vars_outside_export), as JAX's."""
    in_avals = [v.aval for v in jaxpr.invars]
    if dim_values:
        module_ctx.symbolic = _GivenSizes(dim_values)
    elif any(has_symbolic(getattr(a, "shape", ())) for a in in_avals) or not any(
            has_symbolic(getattr(v.aval, "shape", ()))
            for eqn in jaxpr.eqns for v in eqn.outvars):
        return
    else:
        module_ctx.symbolic = SymbolicLowering(block, in_avals, args,
                                               [f"args[{i}]" for i in range(len(args))])
    module_ctx.rules = SymbolicRules()


def _dim_vars_outside_export(jaxpr) -> list:
    """xla/lowering.py's `symbolic_dim_vars`: the dimension variables of the arguments'
    shapes, sorted by name (JAX's `ShapePolyLoweringState.dim_vars`)."""
    names = set()
    for v in jaxpr.invars:
        for d in getattr(v.aval, "shape", ()):
            if isinstance(d, _DimExpr):
                names.update(d.variables())
    return sorted(names)


class _GivenSizes(SymbolicLowering):
    """Sizes computed from the dimension variables' values given as main's arguments (a
    jit's module over symbolic shapes: JAX's `jax.global_constant` arguments)."""

    def __init__(self, values):
        self.values = dict(values)


_xla_lowering.symbolic_sizes = _sizes_outside_export
_xla_lowering.symbolic_dim_vars = _dim_vars_outside_export
