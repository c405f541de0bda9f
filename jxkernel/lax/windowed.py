"""Windowed reductions (pooling): `reduce_window` over a traced computation, its monoid forms
reduce_window_{sum,max,min}, and the two primitives the derivatives of max/min windows need:
select_and_gather_add (the jvp: each window's tangent at its chosen element) and
select_and_scatter_add (its transpose: cotangents sent back to the chosen elements).
Each primitive is followed by its rules.

    >>> lax.reduce_window(jnp.arange(6.), -jnp.inf, lax.max, (2,), (2,), 'VALID')
    Array([1., 3., 5.], dtype=float32)

A window's chosen element is the first, in row-major window order, that compares >= (max)
or <= (min) to the others, so on ties the whole derivative goes to one element, as in JAX.
Everything lowers to `stablehlo.reduce_window`, except select_and_scatter_add
(`stablehlo.select_and_scatter`).
"""
from __future__ import annotations

import builtins
import functools
import warnings

import numpy as np

from ..core import dtypes
from ..core.avals import ShapedArray, get_aval
from ..core.interpret import eval_jaxpr
from ..core.numpy_eval import eval_jaxpr_numpy
from ..core.ir import ClosedJaxpr, param_printers
from ..core import sharding_types
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, jvp_rules,
                              lowering_rules, numpy_rules, sharding_rules, transpose_rules)
from ..core.source_info import user_stacklevel
from ..core.staging import trace_to_jaxpr
from ..core.symbolic import dilate_dim, index_or_symbolic, is_symbolic, stride_dim
from ..core.interpreter_primitives import typed_constant
from ..tree_util import tree_unflatten
from ..xla import stablehlo as hlo
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from ..transforms.ad import jvp_flat
from . import _lowering as hl
from . import slicing
from .slicing.gather_scatter import _apply_at
from .slicing.slice_pad import _pad_numpy
from ._rules import NUMERIC
from .convolution import padtype_to_pads
from .elementwise import _scalar_on_mesh, add, extreme_zeros, ge_p, le_p, max, min, signed_zeros
from .reductions import (_NP_UFUNCS, _accumulation_dtype, _concrete, _flat_operands, _identity,
                         _reduction_jaxpr, _region)

_WINDOW_PARAMS = ("window_dimensions", "window_strides", "padding", "base_dilation",
                  "window_dilation")


# ------------------------------------------------------------------ window shapes
def _dilate(shape, dilation) -> tuple:
    """Length of each dimension with dilation - 1 holes between neighbours."""
    return tuple(dilate_dim(d, k) if is_symbolic(d) or is_symbolic(k) else
                 0 if d == 0 else 1 + k * (d - 1) for d, k in zip(shape, dilation))


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None) -> tuple:
    """The shape reduce_window gives: windows that fit in the dilated, padded operand.

    >>> lax.reduce_window_shape_tuple((4, 6), (2, 2), (2, 2), ((0, 0), (1, 1)))
    (2, 4)
    """
    if base_dilation is not None:
        operand_shape = _dilate(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = _dilate(window_dimensions, window_dilation)
    padded = [d + lo + hi for d, (lo, hi) in zip(operand_shape, padding)]
    # (a symbolic size: JAX's expression, max(0, ...) where undecided)
    return tuple(stride_dim(d, w, s) if any(map(is_symbolic, (d, w, s))) else
                 builtins.max(0, (d - w) // s + 1)
                 for d, w, s in zip(padded, window_dimensions, window_strides))


def _check_positive(arg, value):
    if not all(v >= 1 for v in value):
        raise TypeError(f"reduce_window {arg} must have every element be strictly positive, "
                        f"got {value}.")


def _window_shape(operand, window_dimensions, window_strides, padding, base_dilation=None,
                  window_dilation=None) -> tuple:
    """Output shape of a window op on `operand`, checking the window params against it (with
    JAX's messages)."""
    given = [("window_strides", window_strides), ("base_dilation", base_dilation),
             ("window_dilation", window_dilation)]
    given = [(arg, v) for arg, v in given if v is not None]
    for arg, value in [("window_dimensions", window_dimensions)] + given:
        _check_positive(arg, value)
    if operand.ndim != len(window_dimensions):
        raise TypeError(f"reduce_window got the wrong number of window_dimensions for operand: "
                        f"got operand shape {operand.shape} with window_dimensions "
                        f"{window_dimensions}.")
    for arg, value in given + [("padding", padding)]:
        if len(value) != len(window_dimensions):
            raise TypeError(f"reduce_window got inconsistent {arg} and window_dimensions: got "
                            f"{arg} {value} and window_dimensions {window_dimensions}.")
    return reduce_window_shape_tuple(operand.shape, window_dimensions, window_strides, padding,
                                     base_dilation, window_dilation)


def _insert(params: dict, at: int) -> dict:
    """Window params with a size-1, stride-1, unpadded window dimension inserted at `at` (the
    batch dimension of a vmapped window op)."""
    new = {"padding": (0, 0)}
    return {k: (v[:at] + (new.get(k, 1),) + v[at:] if k in _WINDOW_PARAMS else v)
            for k, v in params.items()}


def _window_attrs(window_dimensions, window_strides, padding, base_dilation=None,
                  window_dilation=None) -> dict:
    attrs = {"window_dimensions": hlo.i64_array(window_dimensions),
             "window_strides": hlo.i64_array(window_strides)}
    if base_dilation is not None:
        attrs["base_dilations"] = hlo.i64_array(base_dilation)
        attrs["window_dilations"] = hlo.i64_array(window_dilation)
    # an empty elements attribute needs its 0x2 type spelled out (a rank-0 operand)
    attrs["padding"] = hlo.dense_i64(padding) if padding else "dense<> : tensor<0x2xi64>"
    return attrs


def _np_windows(x, pad_value, window_dimensions, window_strides, padding, base_dilation=None,
               window_dilation=None):
    """Every window of x as an array of shape (output shape + window_dimensions): x dilated
    and padded with pad_value, each window's elements window_dilation apart (a strided view)."""
    n = x.ndim
    base, dil = base_dilation or (1,) * n, window_dilation or (1,) * n
    x = _pad_numpy(x, np.asarray(pad_value, x.dtype),
                   padding_config=[(lo, hi, b - 1) for (lo, hi), b in zip(padding, base)])
    span = [(w - 1) * d + 1 for w, d in zip(window_dimensions, dil)]
    if any(s > d for s, d in zip(span, x.shape)):           # no window fits: no output
        out = tuple(builtins.max(0, (d - s) // st + 1)
                    for d, s, st in zip(x.shape, span, window_strides))
        return np.zeros(out + tuple(window_dimensions), x.dtype)
    view = np.lib.stride_tricks.sliding_window_view(x, span)
    return view[tuple(builtins.slice(None, None, s) for s in window_strides)
                + tuple(builtins.slice(None, None, d) for d in dil)]


# ------------------------------------------------------------------ reduce_window_{sum,max,min}
def _check_number(operand):
    if operand.dtype not in NUMERIC:
        raise TypeError(f"operand to reduce_window_sum must have a number dtype, got "
                        f"{operand.dtype.name}")


# JAX's reduce_window_sharding_rule: the operand's type, where each resized split dimension's
# new size still divides by its axes' count
_window_sharding = sharding_types.varying_out_shape("reduce_window")


def _monoid_window(name, kind, check=None):
    """A window reduction by the monoid `kind`, from its identity (the padding value)."""
    prim = Primitive(name)

    def abstract(operand, **params):
        if check is not None:
            check(operand)
        return ShapedArray(_window_shape(operand, **params), operand.dtype, operand.weak_type)

    def lower(ctx, x, **params):
        dtype = ctx.avals_in[0].dtype
        return ctx.op1("stablehlo.reduce_window", [x, ctx.constant(_identity(kind, dtype))],
                       _window_attrs(**params), regions=[_region(ctx, kind, dtype)])

    def batch(vals, dims, **params):
        (x,), (d,) = vals, dims
        return prim.bind(x, **_insert(params, d)), d

    def numpy(x, **params):
        acc = _accumulation_dtype(x.dtype)
        windows = _np_windows(x.astype(acc, copy=False), _identity(kind, acc), **params)
        axes = tuple(range(x.ndim, 2 * x.ndim))
        out = _NP_UFUNCS[kind].reduce(windows, axis=axes, dtype=acc,
                                      initial=_identity(kind, acc)).astype(x.dtype)
        if kind in ("max", "min"):        # (np.maximum keeps the first of -0.0 and 0.0)
            out = signed_zeros(out, np.any(extreme_zeros(windows, kind), axis=axes), kind)
        return out

    abstract_eval_rules[prim] = abstract
    lowering_rules[prim] = lower
    numpy_rules[prim] = numpy
    batching_rules[prim] = batch
    sharding_rules[prim] = _window_sharding
    return prim


reduce_window_sum_p = _monoid_window("reduce_window_sum", "add", _check_number)
reduce_window_max_p = _monoid_window("reduce_window_max", "max")
reduce_window_min_p = _monoid_window("reduce_window_min", "min")


def _reduce_window_sum_transpose(ct, operand, *, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation):
    """Each input element was summed into the windows covering it: spread the cotangent
    back over the strides (interior padding), pad it so every input position sees all
    windows that covered it, and sum again with the base dilation as the stride."""
    in_shape, n = operand.aval.shape, len(window_dimensions)
    window = _dilate(window_dimensions, window_dilation)
    # (NumPy's integers, as JAX's conv VJP padding: they print as `np.int64(1)` in a jaxpr)
    low = np.subtract(window, [lo for lo, _ in padding]) - 1
    high = np.add(_dilate(in_shape, base_dilation), window) - 1 - \
        np.asarray(_dilate(bu.shape(ct), window_strides)) - low
    config = [(lo, hi, s - 1) for lo, hi, s in zip(low, high, window_strides)]
    padded = slicing.pad(ct, _scalar_on_mesh(ct, 0), config)     # (JAX's _zero(ct))
    out = reduce_window_sum_p.bind(
        padded, window_dimensions=window_dimensions, window_strides=base_dilation,
        padding=((0, 0),) * n, base_dilation=(1,) * n, window_dilation=window_dilation)
    assert bu.shape(out) == in_shape, (bu.shape(out), in_shape)
    return [out]


def _chooser_jvp(select_prim):
    def jvp(g, ans, operand, **params):
        return select_and_gather_add_p.bind(g, operand, select_prim=select_prim, **params)
    return jvp


ad.deflinear2(reduce_window_sum_p, _reduce_window_sum_transpose)
ad.defjvp(reduce_window_max_p, _chooser_jvp(ge_p))
ad.defjvp(reduce_window_min_p, _chooser_jvp(le_p))


def _select_identity(select_prim, dtype):
    """What never gets chosen: -inf for a max (ge) window, +inf for a min (le) one."""
    return _identity("max" if select_prim is ge_p else "min", dtype)


def _direction(select_prim) -> str:
    if select_prim not in (ge_p, le_p):
        raise TypeError(f"select_prim must be lax.ge_p or lax.le_p, got {select_prim}")
    return "GE" if select_prim is ge_p else "LE"


def _both_to_front(vals, dims):
    size = bu.axis_size_of(vals, dims)
    return [bu.bdim_at_front(x, d, size) for x, d in zip(vals, dims)]


# ------------------------------------------------------------------ select_and_gather_add
# params: select_prim (ge_p for max windows, le_p for min) and the five window params
select_and_gather_add_p = Primitive("select_and_gather_add")


def _select_and_gather_add_abstract_eval(tangents, operand, *, select_prim, **params):
    if tangents.shape != operand.shape:
        raise TypeError(f"select_and_gather_add tangents and operand shapes must match, got "
                        f"{tangents.shape} and {operand.shape}.")
    return ShapedArray(_window_shape(operand, **params), tangents.dtype,
                       tangents.weak_type and operand.weak_type)


def _select_and_gather_add_lowering(ctx, tangents, operand, *, select_prim, **params):
    """A two-operand reduce_window over (operand, tangents) pairs whose reducer keeps the
    pair with the larger (ge) or smaller (le) key; the first such pair on ties."""
    if ctx.platform in ("gpu", "rocm"):        # (JAX's rule for "gpu": CUDA's and ROCm's)
        return _select_and_gather_add_packed_lowering(ctx, tangents, operand,
                                                      select_prim=select_prim, **params)
    t_aval, x_aval = ctx.avals_in
    key, val = ShapedArray((), x_aval.dtype), ShapedArray((), t_aval.dtype)
    block = ctx.new_block([hl.aval_type(key), hl.aval_type(val)] * 2)
    rctx = ctx.with_block(block)
    kx, vx, ky, vy = block.args
    which = hl.compare(rctx, kx, ky, _direction(select_prim), key)
    block.ret([hl.select(rctx, which, kx, ky, key), hl.select(rctx, which, vx, vy, val)])
    inits = [ctx.constant(_select_identity(select_prim, x_aval.dtype)),
             ctx.constant(np.zeros((), t_aval.dtype))]
    out_shape = ctx.avals_out[0].shape
    return ctx.op("stablehlo.reduce_window", [operand, tangents, *inits], _window_attrs(**params),
                  regions=[block], result_types=[hlo.tensor_type(out_shape, x_aval.dtype),
                                                 hl.aval_type(ctx.avals_out[0])])[1]


def _select_and_gather_add_packed_lowering(ctx, tangents, operand, *, select_prim, **params):
    """GPU: XLA's CUDA backend has no reduce_window over two operands, so (as JAX lowers it
    there) each (operand, tangent) pair is packed into one unsigned word of twice the width,
    the operand's bits on top, and a one-operand reduce_window compares the top halves.
    No word is wide enough for two float64s: both are rounded to 32 bits first, with JAX's
    warning."""
    t_aval, x_aval = ctx.avals_in
    dtype, nbits = np.dtype(x_aval.dtype), np.dtype(x_aval.dtype).itemsize * 8
    uint = lambda bits: np.dtype(f"uint{bits}")
    double = 2 * nbits <= 64
    if double:
        word, wide = uint(nbits), uint(2 * nbits)
    else:
        warnings.warn("Using reduced precision for gradient of reduce-window min/max operator "
                      "to work around missing XLA support for pair-reductions. This is likely "
                      "from a second or higher derivative of a max-pooling operation.",
                      stacklevel=user_stacklevel())
        half = nbits // 2
        word = wide = uint(nbits)
        exponent_bits = dtypes.finfo(dtype).nexp
        mantissa_bits = half - exponent_bits - 1

    def op(rctx, name, operands, shape, out_dtype, attrs=None):
        return rctx.op1(name, operands, attrs, result_type=hlo.tensor_type(shape, out_dtype))

    def shift(rctx, name, value, bits, shape):
        return op(rctx, name, [value, hl.splat(rctx, bits, wide, shape)], shape, wide)

    def pack(rctx, key, value, shape):
        if double:
            key, value = (op(rctx, "stablehlo.convert", [op(rctx, "stablehlo.bitcast_convert",
                                                              [v], shape, word)], shape, wide)
                          for v in (key, value))
            key = shift(rctx, "stablehlo.shift_left", key, nbits, shape)
        else:
            rounded = {"exponent_bits": f"{exponent_bits} : i32",
                       "mantissa_bits": f"{mantissa_bits} : i32"}
            key, value = (op(rctx, "stablehlo.bitcast_convert", [op(
                rctx, "stablehlo.reduce_precision", [v], shape, dtype, rounded)], shape, word)
                for v in (key, value))
            value = shift(rctx, "stablehlo.shift_right_logical", value, half, shape)
        return op(rctx, "stablehlo.or", [key, value], shape, wide)

    def key_of(rctx, packed):               # the top half, as the operand's float
        if double:
            top = shift(rctx, "stablehlo.shift_right_logical", packed, nbits, ())
            top = op(rctx, "stablehlo.convert", [top], (), word)
        else:
            mask = rctx.constant(np.asarray(((1 << half) - 1) << half, wide))
            top = op(rctx, "stablehlo.and", [packed, mask], (), wide)
        return op(rctx, "stablehlo.bitcast_convert", [top], (), dtype)

    def value_of(rctx, packed, shape):      # the bottom half, as the tangent's float
        if double:
            low = op(rctx, "stablehlo.convert", [packed], shape, word)
        else:
            low = shift(rctx, "stablehlo.shift_left", packed, half, shape)
        return op(rctx, "stablehlo.bitcast_convert", [low], shape, t_aval.dtype)

    block = ctx.new_block([hlo.tensor_type((), wide)] * 2)
    rctx = ctx.with_block(block)
    x, y = block.args
    which = hl.compare(rctx, key_of(rctx, x), key_of(rctx, y), _direction(select_prim),
                       ShapedArray((), dtype))
    block.ret([hl.select(rctx, which, x, y, ShapedArray((), wide))])
    init = pack(ctx, ctx.constant(_select_identity(select_prim, dtype)),
                ctx.constant(np.zeros((), t_aval.dtype)), ())
    out_shape = ctx.avals_out[0].shape
    packed = ctx.op("stablehlo.reduce_window", [pack(ctx, operand, tangents, x_aval.shape), init],
                    _window_attrs(**params), regions=[block],
                    result_types=[hlo.tensor_type(out_shape, wide)])[0]
    return value_of(ctx, packed, out_shape)


def _jvp_linear_in_values(prim):
    """The jvp of `prim`(values, operand), linear in its values: the operand only chooses
    which elements, and that choice has zero derivative."""
    def jvp(primals, tangents, **params):
        values, operand = primals
        out = prim.bind(values, operand, **params)
        if type(tangents[0]) is ad.Zero:
            return out, ad.Zero(get_aval(out))
        return out, prim.bind(tangents[0], operand, **params)
    return jvp


def _select_and_gather_add_transpose(ct, tangents, operand, *, select_prim, window_dimensions,
                                     window_strides, padding, base_dilation, window_dilation):
    assert ad.is_undefined(tangents) and not ad.is_undefined(operand)
    if any(d != 1 for d in window_dilation):
        raise NotImplementedError(f"VJP not implemented for select_and_gather (MaxPool) with "
                                  f"window dilation, got window_dilation={window_dilation}.")
    if type(ct) is ad.Zero:
        return [ad.Zero(tangents.aval), None]
    dilated = any(d != 1 for d in base_dilation)
    if dilated:     # the holes of the dilated operand hold values that are never chosen
        operand = slicing.pad(operand, _select_identity(select_prim, ad.aval_of(operand).dtype),
                              [(0, 0, d - 1) for d in base_dilation])
    out = select_and_scatter_add_p.bind(ct, operand, select_prim=select_prim,
                                        window_dimensions=window_dimensions,
                                        window_strides=window_strides, padding=padding)
    if dilated:
        out = slicing.slice(out, (0,) * bu.ndim(out), bu.shape(out), base_dilation)
    return [out, None]


def _select_and_gather_add_batching(vals, dims, **params):
    return select_and_gather_add_p.bind(*_both_to_front(vals, dims), **_insert(params, 0)), 0


def _select_and_gather_add_sharding(name, in_avals, params, out_avals):
    """The operand's type (as a window reduction's); the tangents must be typed as it."""
    tangents, operand = in_avals
    if tangents.split is not None and operand.split is not None and (
            sharding_types.abstract_sharding(tangents) !=
            sharding_types.abstract_sharding(operand)):
        raise sharding_types.ShardingTypeError(
            f"select_and_gather_add tangents and operand shardings must match, got "
            f"{sharding_types.abstract_sharding(tangents)} and "
            f"{sharding_types.abstract_sharding(operand)}.")
    return _window_sharding(name, [operand], params, out_avals)


abstract_eval_rules[select_and_gather_add_p] = _select_and_gather_add_abstract_eval
lowering_rules[select_and_gather_add_p] = _select_and_gather_add_lowering
sharding_rules[select_and_gather_add_p] = _select_and_gather_add_sharding


def _np_selected(operand, select_prim, **params):
    """(windows of the operand flattened to one last axis, the index in each window of the
    element select_prim picks: the first largest (ge) or smallest (le), as XLA's sequential
    select does); the padding never gets picked."""
    n = operand.ndim
    windows = _np_windows(operand, _select_identity(select_prim, operand.dtype), **params)
    flat = windows.reshape(windows.shape[:n] + (-1,))
    pick = np.argmax if _direction(select_prim) == "GE" else np.argmin
    return flat, (pick(flat, axis=-1) if flat.shape[-1] else np.zeros(flat.shape[:n], np.intp))


def _select_and_gather_add_numpy(tangents, operand, *, select_prim, **params):
    _, chosen = _np_selected(operand, select_prim, **params)
    windows = _np_windows(tangents, 0, **params)
    flat = windows.reshape(windows.shape[:tangents.ndim] + (-1,))
    return np.take_along_axis(flat, chosen[..., None], -1)[..., 0]


numpy_rules[select_and_gather_add_p] = _select_and_gather_add_numpy
jvp_rules[select_and_gather_add_p] = _jvp_linear_in_values(select_and_gather_add_p)
transpose_rules[select_and_gather_add_p] = _select_and_gather_add_transpose
batching_rules[select_and_gather_add_p] = _select_and_gather_add_batching

# ------------------------------------------------------------------ select_and_scatter_add
# params: select_prim, window_dimensions, window_strides, padding (no dilations)
select_and_scatter_add_p = Primitive("select_and_scatter_add")


def _select_and_scatter_add_abstract_eval(source, operand, *, select_prim, window_dimensions,
                                          window_strides, padding):
    windows = _window_shape(operand, window_dimensions, window_strides, padding)
    if source.shape != windows or source.dtype != operand.dtype:
        raise TypeError(f"select_and_scatter_add needs one source value per window of the "
                        f"operand, of its dtype: operand {operand.str_short(True)} has windows "
                        f"{windows}, got source {source.str_short(True)}.")
    return ShapedArray(operand.shape, source.dtype, source.weak_type and operand.weak_type)


def _select_and_scatter_add_lowering(ctx, source, operand, *, select_prim, window_dimensions,
                                     window_strides, padding):
    """`stablehlo.select_and_scatter` with an add scatter. As JAX does on CPU and GPU (XLA
    crashes otherwise), the operand is padded with never-chosen values beforehand and the
    result sliced back, so the op itself sees no padding."""
    s_aval, x_aval = ctx.avals_in
    shape, n = x_aval.shape, x_aval.ndim
    padded = any(lo or hi for lo, hi in padding)
    if padded:
        low, high = [lo for lo, _ in padding], [hi for _, hi in padding]
        shape = tuple(d + lo + hi for d, lo, hi in zip(shape, low, high))
        operand = ctx.op1("stablehlo.pad", [operand, ctx.constant(
            _select_identity(select_prim, x_aval.dtype))], {
            "edge_padding_low": hlo.i64_array(low), "edge_padding_high": hlo.i64_array(high),
            "interior_padding": hlo.i64_array([0] * n)},
            result_type=hlo.tensor_type(shape, x_aval.dtype))
    key = ShapedArray((), x_aval.dtype)
    select = ctx.new_block([hl.aval_type(key)] * 2)
    select.ret([hl.compare(ctx.with_block(select), *select.args, _direction(select_prim), key)])
    scatter = hl.binary_region(ctx, "stablehlo.or" if s_aval.dtype == np.bool_ else "stablehlo.add",
                               s_aval.dtype)
    out = ctx.op1("stablehlo.select_and_scatter",
                  [operand, source, ctx.constant(np.zeros((), s_aval.dtype))],
                  _window_attrs(window_dimensions, window_strides, ((0, 0),) * n),
                  regions=[select, scatter], result_type=hlo.tensor_type(shape, s_aval.dtype))
    if padded and ctx.module_ctx.symbolic is not None and any(map(is_symbolic, x_aval.shape)):
        # jax.export with symbolic sizes: the bounds as operands
        sizes = ctx.module_ctx.symbolic.shape
        out = ctx.op1("stablehlo.real_dynamic_slice", [
            out, sizes(ctx.block, low),
            sizes(ctx.block, [lo + d for lo, d in zip(low, x_aval.shape)]),
            sizes(ctx.block, [1] * n)])
    elif padded:
        out = ctx.op1("stablehlo.slice", [out], {
            "start_indices": hlo.i64_array(low),
            "limit_indices": hlo.i64_array([lo + d for lo, d in zip(low, x_aval.shape)]),
            "strides": hlo.i64_array([1] * n)})
    return out


def _select_and_scatter_add_transpose(ct, source, operand, *, select_prim, window_dimensions,
                                      **params):
    assert ad.is_undefined(source) and not ad.is_undefined(operand)
    if type(ct) is ad.Zero:
        return [ad.Zero(source.aval), None]
    ones = (1,) * len(window_dimensions)
    return [select_and_gather_add_p.bind(ct, operand, select_prim=select_prim,
                                         window_dimensions=window_dimensions, **params,
                                         base_dilation=ones, window_dilation=ones), None]


def _select_and_scatter_add_batching(vals, dims, **params):
    return select_and_scatter_add_p.bind(*_both_to_front(vals, dims), **_insert(params, 0)), 0


abstract_eval_rules[select_and_scatter_add_p] = _select_and_scatter_add_abstract_eval
lowering_rules[select_and_scatter_add_p] = _select_and_scatter_add_lowering
# the operand's type, as JAX's (the source, one value per window, is the cotangent)
sharding_rules[select_and_scatter_add_p] = lambda name, in_avals, params, out_avals: (
    sharding_types.parts_of(in_avals[1]) if in_avals[1].split is not None else None)


def _window_params(window_dimensions, window_strides, padding, **dilations) -> dict:
    """The primitives' window params as hashable tuples, from any sequences."""
    return {"window_dimensions": tuple(window_dimensions),
            "window_strides": tuple(window_strides),
            "padding": tuple((int(lo), int(hi)) for lo, hi in padding),
            **{k: tuple(v) for k, v in dilations.items()}}


def select_and_gather_add(tangents, operand, select_prim, window_dimensions, window_strides,
                          padding, base_dilation, window_dilation):
    """Each window's `tangents` value at the element of `operand` that `select_prim` chooses
    (lax.ge_p: the window's first largest; lax.le_p: its first smallest): a max/min pooling's
    jvp (JAX's private `_select_and_gather_add`).

    >>> x = jnp.array([1., 3., 2., 0.])
    >>> select_and_gather_add(10 * x, x, lax.ge_p, (2,), (2,), [(0, 0)], (1,), (1,))
    Array([30., 20.], dtype=float32)
    """
    return select_and_gather_add_p.bind(
        tangents, operand, select_prim=select_prim,
        **_window_params(window_dimensions, window_strides, padding,
                         base_dilation=base_dilation, window_dilation=window_dilation))


def select_and_scatter_add(source, operand, select_prim, window_dimensions, window_strides,
                           padding):
    """`source`, one value per window, added at the element of `operand` that `select_prim`
    chooses in its window; zero elsewhere (select_and_gather_add's transpose; JAX's private
    `_select_and_scatter_add`).

    >>> x = jnp.array([1., 3., 2., 0.])
    >>> select_and_scatter_add(jnp.array([5., 7.]), x, lax.ge_p, (2,), (2,), [(0, 0)])
    Array([0., 5., 7., 0.], dtype=float32)
    """
    return select_and_scatter_add_p.bind(
        source, operand, select_prim=select_prim,
        **_window_params(window_dimensions, window_strides, padding))


def _np_window_positions(chosen, window_dimensions, window_strides) -> tuple:
    """Where in the (padded) operand each window's chosen element (its flat index in the
    window) is: an index array per dimension."""
    offsets = np.unravel_index(chosen, window_dimensions)
    starts = np.indices(chosen.shape, sparse=True)
    return tuple(o * s + off for o, s, off in zip(starts, window_strides, offsets))


def _select_and_scatter_add_numpy(source, operand, *, select_prim, window_dimensions,
                                  window_strides, padding):
    """Each source value added at the operand element its window selects (in the padded
    operand, then sliced back, as the lowering)."""
    _, chosen = _np_selected(operand, select_prim, window_dimensions=window_dimensions,
                             window_strides=window_strides, padding=padding)
    where = _np_window_positions(chosen, window_dimensions, window_strides)
    out = np.zeros(tuple(d + lo + hi for d, (lo, hi) in zip(operand.shape, padding)),
                   source.dtype)
    (np.logical_or if source.dtype == np.bool_ else np.add).at(out, where, source)
    return out[tuple(builtins.slice(lo, lo + d) for d, (lo, _) in zip(operand.shape, padding))]


numpy_rules[select_and_scatter_add_p] = _select_and_scatter_add_numpy
jvp_rules[select_and_scatter_add_p] = _jvp_linear_in_values(select_and_scatter_add_p)
transpose_rules[select_and_scatter_add_p] = _select_and_scatter_add_transpose
batching_rules[select_and_scatter_add_p] = _select_and_scatter_add_batching

# ------------------------------------------------------------------ select_and_scatter
# XLA's SelectAndScatter with any `select` (a >= b: pick the window's max) and `scatter`
# (how chosen values combine with what is there, starting from init_value) computation:
# each source value goes to the operand element its window selects. JAX's primitive for it
# has a shape rule and a lowering only (no jvp, transpose or batching rule), and so has this.
select_and_scatter_p = Primitive("select_and_scatter")


def _select_and_scatter_abstract_eval(operand, source, init_value, *, select_jaxpr,
                                      select_consts, scatter_jaxpr, scatter_consts,
                                      window_dimensions, window_strides, padding):
    if len(window_dimensions) != len(window_strides):
        raise TypeError(f"select_and_scatter got inconsistent window_strides and "
                        f"window_dimensions: got window_strides {window_strides} and "
                        f"window_dimensions {window_dimensions}.")
    return ShapedArray(operand.shape, operand.dtype, operand.weak_type)


def _select_and_scatter_lowering(ctx, operand, source, init_value, *, select_jaxpr,
                                 select_consts, scatter_jaxpr, scatter_consts,
                                 window_dimensions, window_strides, padding):
    scalar = hl.aval_type(ShapedArray((), ctx.avals_in[0].dtype))
    regions = []
    for jaxpr, consts in ((select_jaxpr, select_consts), (scatter_jaxpr, scatter_consts)):
        block = ctx.new_block([scalar, scalar])
        block.ret(ctx.lower_jaxpr(ClosedJaxpr(jaxpr, list(consts)), block.args, block=block))
        regions.append(block)
    return ctx.op1("stablehlo.select_and_scatter", [operand, source, init_value],
                   _window_attrs(window_dimensions, window_strides, padding), regions=regions)


abstract_eval_rules[select_and_scatter_p] = _select_and_scatter_abstract_eval
lowering_rules[select_and_scatter_p] = _select_and_scatter_lowering
sharding_rules[select_and_scatter_p] = sharding_types.same_as_operand_rule     # (JAX's)


def _select_and_scatter_numpy(operand, source, init_value, *, select_jaxpr, select_consts,
                              scatter_jaxpr, scatter_consts, window_dimensions, window_strides,
                              padding):
    """XLA's SelectAndScatter: in each window the element `select` keeps against every later
    one (select(kept, next) true keeps it), all windows at once; then the output, init_value
    everywhere, combines each source value into its window's element with `scatter`, in
    window order. Padding is never selected (XLA skips the positions outside the operand), and
    a window wholly in the padding scatters nothing."""
    windows = _np_windows(operand, 0, window_dimensions, window_strides, padding)
    inside = _np_windows(np.ones(operand.shape, np.bool_), False, window_dimensions,
                         window_strides, padding)
    flat = windows.reshape(windows.shape[:operand.ndim] + (-1,))
    inside = inside.reshape(flat.shape)
    kept, chosen = flat[..., 0], np.zeros(flat.shape[:-1], np.intp)
    found = inside[..., 0]
    for j in range(1, flat.shape[-1]):
        keep = eval_jaxpr_numpy(select_jaxpr, select_consts, kept, flat[..., j])[0]
        take = inside[..., j] & ~(found & keep)       # the first inside, or one select prefers
        kept, chosen = np.where(take, flat[..., j], kept), np.where(take, j, chosen)
        found = found | inside[..., j]
    where = _np_window_positions(chosen, window_dimensions, window_strides)
    where = tuple(w[found] - lo for w, (lo, _) in zip(np.broadcast_arrays(*where), padding))
    out = np.full(operand.shape, init_value, operand.dtype)
    return _apply_at(out, where, np.asarray(source)[found], scatter_jaxpr, scatter_consts)


numpy_rules[select_and_scatter_p] = _select_and_scatter_numpy


# ------------------------------------------------------------------ reduce_window (generic)
# operands then init values; params: jaxpr (the computation on scalars, a ClosedJaxpr whose
# consts print as JAX's `consts` param) and the five window params
reduce_window_p = Primitive("reduce_window", multiple_results=True)


def _reduce_window_abstract_eval(*avals, jaxpr, **params):
    operands, inits = avals[:len(avals) // 2], avals[len(avals) // 2:]
    if any(o.dtype != i.dtype for o, i in zip(operands, inits)):
        raise TypeError(f"reduce_window got inconsistent dtypes for operands and init_values: "
                        f"got operand dtypes {[o.dtype for o in operands]} and init_value "
                        f"dtypes {[i.dtype for i in inits]}.")
    if any(i.shape != () for i in inits):
        raise TypeError(f"reduce_window expected init_values to be scalars but init_values "
                        f"have shapes {[i.shape for i in inits]}.")
    if len({o.shape for o in operands}) > 1:
        raise TypeError(f"reduce_window operands must have equal shapes, got "
                        f"{', '.join(str(o.shape) for o in operands)}")
    shape = _window_shape(operands[0], **params)
    return [ShapedArray(shape, o.dtype, False) for o in operands]


def _reduce_window_lowering(ctx, *values, jaxpr, **params):
    n = len(values) // 2
    scalars = [hl.aval_type(a.update(shape=())) for a in ctx.avals_in[n:]]
    block = ctx.new_block(scalars * 2)
    block.ret(ctx.lower_jaxpr(jaxpr, block.args, block=block))
    return ctx.op("stablehlo.reduce_window", list(values), _window_attrs(**params),
                  regions=[block])


def _reduce_window_params(params):
    jaxpr = params["jaxpr"]
    shown = dict(params, jaxpr=jaxpr.jaxpr, consts=tuple(jaxpr.consts))
    return sorted(shown.items())


def _reduce_window_batching(vals, dims, *, jaxpr, **params):
    n = len(vals) // 2
    if any(d is not bu.not_mapped for d in dims[n:]):
        raise NotImplementedError("reduce_window batching is not implemented for initial "
                                  "values")
    operands = _both_to_front(vals[:n], dims[:n])
    outs = reduce_window_p.bind(*operands, *vals[n:], jaxpr=jaxpr, **_insert(params, 0))
    return outs, [0] * n


@functools.lru_cache(maxsize=256)
def _jvp_reduction_jaxpr(jaxpr, n: int):
    """The computation's jvp as a computation on (primal, tangent) pairs: its inputs are the
    left primals, left tangents, right primals, right tangents; its outputs the primals then
    the tangents (cached so eager calls hit the executable cache)."""
    avals = [a.update(shape=(), weak_type=False) for a in jaxpr.in_avals[:n]]

    def pair(*args):
        pl, tl, pr, tr = (args[i * n:(i + 1) * n] for i in range(4))
        outs, touts = jvp_flat(lambda *xs: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs),
                               [*pl, *pr], [*tl, *tr])
        return [*outs, *map(ad.instantiate, touts)]
    return trace_to_jaxpr(pair, avals * 4)


def _reduce_window_jvp(primals, tangents, *, jaxpr, **params):
    """A reduce_window over (primal, tangent) pairs with the computation's jvp: the tangent
    of a window is accumulated alongside its value."""
    n = len(primals) // 2
    if any(type(t) is not ad.Zero for t in tangents[n:]):
        raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
    t_operands = [ad.instantiate(t) for t in tangents[:n]]
    t_inits = [typed_constant(0, ad.aval_of(x).dtype) for x in primals[n:]]
    outs = reduce_window_p.bind(*primals[:n], *t_operands, *primals[n:], *t_inits,
                                jaxpr=_jvp_reduction_jaxpr(jaxpr, n), **params)
    return outs[:n], outs[n:]


abstract_eval_rules[reduce_window_p] = _reduce_window_abstract_eval
lowering_rules[reduce_window_p] = _reduce_window_lowering
# every result typed by the first operand, as JAX's abstract eval
sharding_rules[reduce_window_p] = lambda name, in_avals, params, out_avals: [
    _window_sharding(name, in_avals[:1], params, out_avals[:1])] * len(out_avals)


def _reduce_window_numpy(*values, jaxpr, **params):
    """Each window folded as XLA's CPU folds it: from the init values, the computation applied
    to each element in row-major window order, padding and dilation holes skipped (for a
    computation that is no monoid with its init, 1 + x say, filling them with init differs)."""
    n = len(values) // 2
    operands, inits = values[:n], values[n:]
    rank = operands[0].ndim
    windows = [_np_windows(x, np.zeros((), x.dtype), **params) for x in operands]
    real = _np_windows(np.ones(operands[0].shape, bool), False, **params)
    flat = lambda w: w.reshape(w.shape[:rank] + (-1,))
    windows, real = [flat(w) for w in windows], flat(real)
    accs = [np.broadcast_to(i, real.shape[:rank]).astype(i.dtype) for i in inits]
    for k in range(real.shape[-1]):
        folded = eval_jaxpr_numpy(jaxpr, (), *accs, *[w[..., k] for w in windows])
        accs = [np.where(real[..., k], f, a).astype(a.dtype) for f, a in zip(folded, accs)]
    return accs


numpy_rules[reduce_window_p] = _reduce_window_numpy
param_printers[reduce_window_p] = _reduce_window_params
batching_rules[reduce_window_p] = _reduce_window_batching
jvp_rules[reduce_window_p] = _reduce_window_jvp


# ------------------------------------------------------------------ lax.reduce_window
def _int_tuple(arg, value) -> tuple:
    try:        # (symbolic sizes too, as JAX's: jax.export lowers them as operands)
        return tuple(index_or_symbolic(v) for v in value)
    except TypeError:
        raise TypeError(f"reduce_window {arg} must be a sequence of integers, got "
                        f"{value!r}.") from None


def _pads(padding, operand_shape, window, strides) -> tuple:
    """Explicit (low, high) pairs from pairs or a padding name ('VALID', 'SAME', ...)."""
    if isinstance(padding, str):
        return tuple((index_or_symbolic(lo), index_or_symbolic(hi)) for lo, hi in
                     padtype_to_pads(operand_shape, window, strides, padding))
    try:
        pairs = tuple((index_or_symbolic(lo), index_or_symbolic(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise TypeError(f"reduce_window padding must be 'VALID', 'SAME', 'SAME_LOWER' or a "
                        f"sequence of (low, high) integer pairs, got {padding!r}.") from None
    return pairs


def _monoid_window_prim(computation, inits):
    """The reduce_window_* primitive `computation` from `inits` stands for, as JAX detects
    it: lax.add from 0, lax.max / lax.min from their identities, with a known scalar init."""
    kind = {add: "add", max: "max", min: "min"}.get(computation) if len(inits) == 1 else None
    if kind is None:
        return None
    value, aval = _concrete(inits[0]), get_aval(inits[0])
    if value is None or aval.shape != ():
        return None
    if not np.equal(value, 0 if kind == "add" else _identity(kind, aval.dtype)):
        return None
    return {"add": reduce_window_sum_p, "max": reduce_window_max_p,
            "min": reduce_window_min_p}[kind]


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding="VALID", base_dilation=None, window_dilation=None):
    """Reduce every window of `operand` (an array or pytree of arrays) with `computation`,
    starting from `init_value` (scalars, same structure); padding and base-dilation holes
    are skipped (for a monoid, the same as filling them with its identity).

    `padding` is 'VALID', 'SAME', 'SAME_LOWER' or (low, high) pairs; `base_dilation` puts
    holes between operand elements, `window_dilation` between window elements. lax.add from
    0 and lax.max/lax.min from -inf/+inf become reduce_window_{sum,max,min}.

    >>> lax.reduce_window(jnp.arange(5.), 0., lax.add, (2,), (1,), 'VALID')
    Array([1., 3., 5., 7.], dtype=float32)
    >>> lax.reduce_window(jnp.arange(1., 5.), 1., lax.mul, (2,), (2,), [(0, 0)])
    Array([ 2., 12.], dtype=float32)
    """
    flat_operands, flat_inits, tree = _flat_operands(operand, init_value)
    if not flat_operands:
        raise ValueError("reduce_window must have at least one operand.")
    window_dimensions = _int_tuple("window_dimensions", window_dimensions)
    ones = (1,) * len(window_dimensions)
    strides = ones if window_strides is None else _int_tuple("window_strides", window_strides)
    base = ones if base_dilation is None else _int_tuple("base_dilation", base_dilation)
    wdil = ones if window_dilation is None else _int_tuple("window_dilation", window_dilation)
    if isinstance(padding, str):
        for arg, value in (("window_strides", strides), ("window_dilation", wdil)):
            _check_positive(arg, value)
    pads = _pads(padding, get_aval(flat_operands[0]).shape, _dilate(window_dimensions, wdil),
                 strides)
    params = {"window_dimensions": window_dimensions, "window_strides": strides,
              "padding": pads, "base_dilation": base, "window_dilation": wdil}
    prim = _monoid_window_prim(computation, flat_inits)
    if prim is not None:
        return tree_unflatten(tree, [prim.bind(flat_operands[0], **params)])
    jaxpr, out_tree = _reduction_jaxpr(computation, tuple(map(get_aval, flat_inits)), tree,
                                       "reduce_window")
    outs = reduce_window_p.bind(*flat_operands, *flat_inits, jaxpr=jaxpr, **params)
    return tree_unflatten(out_tree, outs)


__all__ = ["reduce_window_p", "reduce_window_sum_p", "reduce_window_max_p",
           "reduce_window_min_p", "select_and_gather_add_p", "select_and_scatter_add_p",
           "select_and_scatter_p",
           "reduce_window", "reduce_window_shape_tuple"]
