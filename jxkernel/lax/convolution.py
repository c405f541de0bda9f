"""conv_general_dilated: n-dimensional convolution with strides, padding, dilations,
feature/batch groups and any layout, plus the helpers JAX exports beside it.

    >>> lax.conv(jnp.ones((1, 2, 5, 5)), jnp.ones((3, 2, 3, 3)), (1, 1), 'SAME').shape
    (1, 3, 5, 5)
    >>> x, w = jnp.ones((1, 5, 5, 2)), jnp.ones((3, 3, 2, 4))
    >>> lax.conv_general_dilated(x, w, (1, 1), 'VALID',
    ...                          dimension_numbers=('NHWC', 'HWIO', 'NHWC')).shape
    (1, 3, 3, 4)

Dimension numbers say where each operand keeps its batch/feature and spatial dimensions:
`ConvDimensionNumbers(lhs_spec, rhs_spec, out_spec)` lists, for each, the index of the
batch (or output feature), feature (or input feature) and then spatial dimensions, in the
order of the kernel's spatial dimensions. The primitive is bilinear: its transposes are
convolutions too (the lhs one with the kernel reversed, the rhs one with the roles of batch
and feature swapped), and vmap folds the batch into the batch or feature dimension.
"""
from __future__ import annotations

import builtins
import enum
import math
import operator
from collections.abc import Sequence
from typing import NamedTuple, Union

import numpy as np

from ..core import dtypes, sharding_types
from ..core.symbolic import dilate_dim, index_or_symbolic, is_symbolic, max_dim, stride_dim
from ..core.avals import ShapedArray, get_aval
from ..core.mesh import NamedSharding
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules,
                              lowering_rules, numpy_rules, sharding_rules)
from ..xla import stablehlo as hlo
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from . import _lowering as hl
from . import elementwise as ew
from . import shapes, slicing
from .slicing.slice_pad import _pad_numpy
from .conversion import _convert_element_type
from .dot import Precision, canonicalize_precision, dot_general
from .sharding import resolved


class ConvDimensionNumbers(NamedTuple):
    """Where the convolution's operands keep their dimensions: each spec is
    (batch, feature, *spatial) for lhs and out, (out feature, in feature, *spatial) for rhs."""
    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


# what conv_general_dilated's `dimension_numbers` takes (JAX's annotation)
ConvGeneralDilatedDimensionNumbers = Union[None, ConvDimensionNumbers, tuple[str, str, str]]


class PaddingType(enum.Enum):
    VALID = 1
    SAME = 2
    SAME_LOWER = 3


# ------------------------------------------------------------------ shape helpers
def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list:
    """(low, high) pads per spatial dimension for 'VALID', 'SAME' (extra pad at the end) or
    'SAME_LOWER' (extra pad at the start).

    >>> lax.padtype_to_pads((5, 6), (3, 2), (2, 1), 'SAME')
    [(1, 1), (0, 1)]
    """
    if isinstance(padding, str):
        try:
            padding = PaddingType[padding.upper()]
        except KeyError as err:
            raise RuntimeError(f"Unrecognized padding type: expected 'VALID', 'SAME', or "
                               f"'SAME_LOWER', got {padding}.") from err
    if padding == PaddingType.VALID:
        return [(0, 0)] * len(in_shape)
    if padding not in (PaddingType.SAME, PaddingType.SAME_LOWER):
        raise TypeError(f"Unknown padding type: {padding}.")
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides):
        n, k, s = (_dim(d) for d in (n, k, s))
        out = -(-n // s)
        total = max_dim((out - 1) * s + k - n, 0)     # (JAX's expression, for symbolic n)
        small, large = total // 2, total - total // 2
        pads.append((small, large) if padding == PaddingType.SAME else (large, small))
    return pads


def _dilate_shape(shape, dilation) -> tuple:
    if not all(d > 0 for d in dilation):
        raise TypeError(f"All dilations must be positive, got {tuple(dilation)}.")
    dilation = (1,) * (len(shape) - len(dilation)) + tuple(dilation)
    return tuple(dilate_dim(_dim(d), r) for d, r in zip(shape, dilation))


def _dim(d):
    """A size as a Python int (a NumPy integer's too), a symbolic one as it is."""
    return index_or_symbolic(d)


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1) -> tuple:
    """The output shape of a convolution whose operands are in (batch, feature, *spatial)
    and (out feature, in feature, *spatial) order."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    padded = [_dim(n) + _dim(lo) + _dim(hi) for n, (lo, hi) in zip(lhs_shape[2:], pads)]
    if any(p < 0 for p in padded):
        raise ValueError(f"Negative padding is larger than the size of the corresponding "
                         f"dimension: got padding={pads} for lhs_shape[2:]="
                         f"{tuple(_dim(d) for d in lhs_shape[2:])}")
    space = tuple(stride_dim(p, _dim(k), _dim(s))
                  for p, k, s in zip(padded, rhs_shape[2:], strides))
    batch = _dim(lhs_shape[0]) // batch_group_count if batch_group_count > 1 else \
        _dim(lhs_shape[0])
    return (batch, _dim(rhs_shape[0])) + space


def _numpy_int(d):
    """A size as a NumPy integer, as JAX's shape helpers give (its NumPy arithmetic shows
    in printed shapes: stax's init_fun); a symbolic one as it is."""
    return d if is_symbolic(d) else np.int64(d)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                             dimension_numbers) -> tuple:
    """conv_shape_tuple for operands laid out as `dimension_numbers` says."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm),
                           window_strides, padding)
    return tuple(_numpy_int(out[i]) for i in np.argsort(out_perm))


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers) -> tuple:
    """The output shape of conv_transpose."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_t, rhs_t = np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding)
                   for k, s in zip(rhs_t[2:], window_strides)]
    space = [(_dim(i) - 1) * s - _dim(k) + 2 + _dim(p[0]) + _dim(p[1])
             for i, k, s, p in zip(lhs_t[2:], rhs_t[2:], window_strides, padding)]
    out = (_dim(lhs_t[0]), _dim(rhs_t[0])) + tuple(space)
    return tuple(_numpy_int(out[i]) for i in np.argsort(out_perm))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """`dimension_numbers` (None, three layout strings, or a ConvDimensionNumbers) as a
    ConvDimensionNumbers.

    >>> lax.conv_dimension_numbers((1, 5, 5, 2), (3, 3, 2, 4), ('NHWC', 'HWIO', 'NHWC'))
    ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        error = TypeError(f"convolution requires lhs and rhs ndim to be equal, got "
                          f"{len(lhs_shape)} and {len(rhs_shape)}.")
        error.conv_shapes = (tuple(lhs_shape), tuple(rhs_shape))    # for the error card
        raise error
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError(f"convolution dimension_numbers must be tuple/list or None, got "
                        f"{type(dimension_numbers)}.")
    if len(dimension_numbers) != 3:
        raise TypeError(f"convolution dimension_numbers list/tuple must be length 3, got "
                        f"{len(dimension_numbers)}.")
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError(f"convolution dimension_numbers elements must be strings, got "
                        f"{tuple(map(type, dimension_numbers))}.")
    for i, spec in enumerate(dimension_numbers):
        if len(spec) != len(lhs_shape):
            raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the "
                            f"ndim of lhs and rhs, got {len(spec)} for lhs and rhs shapes "
                            f"{tuple(lhs_shape)} and {tuple(rhs_shape)}.")
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def conv_general_permutations(dimension_numbers) -> tuple:
    """The (lhs, rhs, out) permutations that put layout strings such as ('NHWC', 'HWIO',
    'NHWC') into (batch, feature, *spatial) order; spatial dims follow the rhs string."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(charpairs):
        spec = dimension_numbers[i]
        if not spec.count(a) == spec.count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{a}' and '{b}' exactly once, got {spec}.")
        if len(spec) != len(set(spec)):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {spec}.")
    if not (set(lhs_spec) - {"N", "C"} == set(rhs_spec) - {"O", "I"} ==
            set(out_spec) - {"N", "C"}):
        raise TypeError(f"convolution dimension_numbers elements must each have the same "
                        f"set of spatial characters, got {tuple(dimension_numbers)}.")

    def perm(spec, pair):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        spatial.sort(key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)
    return tuple(perm(s, p) for s, p in zip(dimension_numbers, charpairs))


# ------------------------------------------------------------------ conv_general_dilated
conv_general_dilated_p = Primitive("conv_general_dilated")


def _conv_shape(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                dimension_numbers, feature_group_count, batch_group_count) -> tuple:
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if len(lhs.shape) != len(rhs.shape):
        raise ValueError(f"conv_general_dilated lhs and rhs must have the same number of "
                         f"dimensions, but got {lhs.shape} and {rhs.shape}.")
    if not feature_group_count > 0:
        raise ValueError(f"conv_general_dilated feature_group_count must be a positive "
                         f"integer, got {feature_group_count}.")
    lhs_features, rhs_in = lhs.shape[lhs_spec[1]], rhs.shape[rhs_spec[1]]
    rhs_out = rhs.shape[rhs_spec[0]]
    if lhs_features % feature_group_count:
        raise ValueError(f"conv_general_dilated feature_group_count must divide lhs feature "
                         f"dimension size, but {feature_group_count} does not divide "
                         f"{lhs_features}.")
    if lhs_features // feature_group_count != rhs_in:
        error = ValueError(f"conv_general_dilated lhs feature dimension size divided by "
                           f"feature_group_count must equal the rhs input feature dimension "
                           f"size, but {lhs_features} // {feature_group_count} != {rhs_in}.")
        # for the error card: the shapes in the default layout's reading (none under vmap,
        # whose shapes are not the learner's)
        if lhs_spec == rhs_spec == tuple(range(len(lhs.shape))):
            error.conv_shapes = (tuple(lhs.shape), tuple(rhs.shape))
        raise error
    if rhs_out % feature_group_count:
        raise ValueError(f"conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of feature_group_count, but {rhs_out} is not a multiple "
                         f"of {feature_group_count}.")
    if not batch_group_count > 0:
        raise ValueError(f"conv_general_dilated batch_group_count must be a positive "
                         f"integer, got {batch_group_count}.")
    lhs_batch = lhs.shape[lhs_spec[0]]
    if batch_group_count > 1 and lhs_batch % batch_group_count:
        raise ValueError(f"conv_general_dilated batch_group_count must divide lhs batch "
                         f"dimension size, but {batch_group_count} does not divide {lhs_batch}.")
    if rhs_out % batch_group_count:
        raise ValueError(f"conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of batch_group_count, but {rhs_out} is not a multiple "
                         f"of {batch_group_count}.")
    if batch_group_count > 1 and feature_group_count > 1:
        raise ValueError(f"At most one of batch_group_count and feature_group_count may be "
                         f"> 1, got batch_group_count={batch_group_count} and "
                         f"feature_group_count={feature_group_count}")
    if len(rhs_spec) - 2 != len(window_strides):
        raise ValueError(f"conv_general_dilated window and window_strides must have the same "
                         f"number of dimensions, but got {len(rhs_spec) - 2} and "
                         f"{len(window_strides)}")
    if not all(s > 0 for s in window_strides):
        raise ValueError(f"conv_general_dilated window_strides must be positive, got "
                         f"{window_strides}.")
    lhs_t = _dilate_shape([lhs.shape[d] for d in lhs_spec], lhs_dilation)
    rhs_t = _dilate_shape([rhs.shape[d] for d in rhs_spec], rhs_dilation)
    out_t = conv_shape_tuple(lhs_t, rhs_t, window_strides, padding, batch_group_count)
    return tuple(out_t[i] for i in np.argsort(out_spec))


def _check_preferred_element_type(input_dtype, preferred):
    """JAX's rule: same family (ints may accumulate in floats), same signedness, no
    narrower."""
    if not (dtypes.is_int(input_dtype) and dtypes.is_float(preferred)):
        for family in (dtypes.is_int, dtypes.is_float, dtypes.is_complex):
            if family(input_dtype) and not family(preferred):
                raise TypeError(
                    "Input type is incompatible with `preferred_element_type`. The compatible "
                    "combinations of (input_type, preferred_element_type) are (integral, "
                    "integral), (integral, floating), (floating, floating), (complex, complex.")
        if dtypes.is_signed(input_dtype) and not dtypes.is_signed(preferred):
            raise TypeError("`preferred_element_type` must have the same signedness as the "
                            "original type.")
    if np.dtype(preferred).itemsize < np.dtype(input_dtype).itemsize:
        raise TypeError("`preferred_element_type` must not be narrower than the original type.")


def _conv_abstract_eval(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding=None):
    if lhs.dtype != rhs.dtype:
        raise TypeError(f"lax.conv_general_dilated requires arguments to have the same "
                        f"dtypes, got {lhs.dtype.name}, {rhs.dtype.name}.")
    shape = _conv_shape(lhs, rhs, window_strides=window_strides, padding=padding,
                        lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                        dimension_numbers=dimension_numbers,
                        feature_group_count=feature_group_count,
                        batch_group_count=batch_group_count)
    dtype = lhs.dtype
    if preferred_element_type is not None:
        _check_preferred_element_type(dtype, preferred_element_type)
        dtype = np.dtype(preferred_element_type)
    return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


def _conv_dims_attr(dimension_numbers) -> str:
    """`#stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>`: each operand's
    dimensions in order, labelled batch/feature (or out/in) and spatial index."""
    def layout(spec, first, second):
        labels = [""] * len(spec)
        labels[spec[0]], labels[spec[1]] = first, second
        for i, d in enumerate(spec[2:]):
            labels[d] = str(i)
        return "[" + ", ".join(labels) + "]"
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    return (f"#stablehlo.conv<{layout(lhs_spec, 'b', 'f')}x{layout(rhs_spec, 'o', 'i')}"
            f"->{layout(out_spec, 'b', 'f')}>")


def _conv_lowering(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision,
                   preferred_element_type, out_sharding=None):
    if dtypes.is_complex(ctx.avals_in[0].dtype) and ctx.platform in ("cpu", "cuda", "rocm", "gpu"):
        # as JAX: XLA's complex convolution is a slow loop on CPU (and missing on GPU), so
        # three real convolutions (Gauss's trick) compute it instead
        return _complex_conv_lowering(
            ctx, lhs, rhs, window_strides=window_strides, padding=padding,
            lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
            dimension_numbers=dimension_numbers, feature_group_count=feature_group_count,
            batch_group_count=batch_group_count, precision=precision,
            preferred_element_type=preferred_element_type)
    return ctx.op1("stablehlo.convolution", [lhs, rhs], conv_attrs(
        window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
        feature_group_count=feature_group_count, batch_group_count=batch_group_count,
        precision=precision))


def conv_attrs(*, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
               feature_group_count, batch_group_count, precision) -> dict:
    """stablehlo.convolution's attributes; without `padding` where it is None
    (`stablehlo.dynamic_conv` takes it as an operand)."""
    n = len(window_strides)
    pair = precision or (Precision.DEFAULT, Precision.DEFAULT)
    attrs = {
        "batch_group_count": hlo.i64_attr(batch_group_count),
        "dimension_numbers": _conv_dims_attr(dimension_numbers),
        "feature_group_count": hlo.i64_attr(feature_group_count),
        "lhs_dilation": hlo.i64_array(lhs_dilation),
        "precision_config": "[" + ", ".join(hlo.enum("precision", p.name) for p in pair) + "]",
        "rhs_dilation": hlo.i64_array(rhs_dilation),
        "window_reversal": hlo.bool_array([False] * n),
        "window_strides": hlo.i64_array(window_strides),
    }
    if n and padding is not None:   # (an empty dense padding does not parse; absent: none)
        attrs["padding"] = hlo.dense_i64(padding)
    return attrs


def _complex_conv(lhs, rhs, *, preferred_element_type, **params):
    if preferred_element_type is not None:
        preferred_element_type = dtypes.finfo(preferred_element_type).dtype

    def conv(x, y):
        return _bind(x, y, preferred_element_type=preferred_element_type, **params)
    x_re, x_im, y_re, y_im = ew.real(lhs), ew.imag(lhs), ew.real(rhs), ew.imag(rhs)
    k1 = conv(ew.add(x_re, x_im), y_re)
    k2 = conv(x_re, ew.sub(y_im, y_re))
    k3 = conv(x_im, ew.add(y_re, y_im))
    return ew.complex(ew.sub(k1, k3), ew.add(k1, k2))


_complex_conv_lowering = hl.lower_fun(_complex_conv)


def _bind(lhs, rhs, **params):
    params.setdefault("out_sharding", None)
    return conv_general_dilated_p.bind(lhs, rhs, **params)


abstract_eval_rules[conv_general_dilated_p] = _conv_abstract_eval
sharding_rules[conv_general_dilated_p] = sharding_types.conv_rule
lowering_rules[conv_general_dilated_p] = _conv_lowering


def _conv_numpy(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                dimension_numbers, feature_group_count, batch_group_count, precision,
                preferred_element_type, out_sharding=None):
    """One einsum over strided windows: lhs as (batch, feature, *spatial), dilated and padded,
    its windows (rhs_dilation apart, window_strides between) against rhs as (out, in,
    *spatial); the lhs batch splits into batch_group_count groups and its features into
    feature_group_count ones, each meeting its slice of the output features. In the result's
    type (narrow floats accumulate in float32), as XLA's."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    out_dtype = lhs.dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    acc = np.dtype(np.float32) if dtypes.is_float(out_dtype) and out_dtype.itemsize < 4 \
        else out_dtype
    x, w = np.transpose(lhs, lhs_spec).astype(acc), np.transpose(rhs, rhs_spec).astype(acc)
    n, kernel = len(window_strides), w.shape[2:]
    x = _pad_numpy(x, np.zeros((), acc), padding_config=[(0, 0, 0)] * 2 + [
        (lo, hi, d - 1) for (lo, hi), d in zip(padding, lhs_dilation)])
    span = [(k - 1) * d + 1 for k, d in zip(kernel, rhs_dilation)]
    out_sizes = [builtins.max(0, (d - s) // st + 1)
                 for d, s, st in zip(x.shape[2:], span, window_strides)]
    B, G = batch_group_count, feature_group_count
    N, O = x.shape[0] // B, w.shape[0]
    if 0 in out_sizes or 0 in x.shape or 0 in w.shape:
        out = np.zeros((N, O, *out_sizes), acc)
    else:
        v = np.lib.stride_tricks.sliding_window_view(x, span, axis=tuple(range(2, 2 + n)))
        every = lambda steps: tuple(builtins.slice(None, None, k) for k in steps)  # noqa: E731
        v = v[(builtins.slice(None),) * 2 + every(window_strides) + every(rhs_dilation)]
        v = v.reshape(B, N, G, x.shape[1] // G, *v.shape[2:])
        w = w.reshape(B, G, O // (B * G), *w.shape[1:])
        spatial, window = "pqrstu"[:n], "xyzijk"[:n]
        out = np.einsum(f"bngc{spatial}{window},bgoc{window}->nbgo{spatial}", v, w,
                        optimize=True).reshape(N, O, *out_sizes)
    return out.transpose(np.argsort(out_spec)).astype(out_dtype, copy=False)


numpy_rules[conv_general_dilated_p] = _conv_numpy


def _swap01(spec) -> tuple:
    return (spec[1], spec[0]) + tuple(spec[2:])


def _reshape_axis_into(src, dst, x):
    """Merge axis `src` of `x` into axis `dst` (numbered without `src`), as its major part."""
    shape = bu.shape(x)
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new_shape = [d for i, d in enumerate(shape) if i != src]
    new_shape[dst] *= shape[src]
    return shapes.reshape(x, tuple(new_shape), tuple(perm))


def _reshape_axis_out_of(src, size1, x):
    """Split axis `src` of `x` into (size1, rest)."""
    shape = list(bu.shape(x))
    shape[src:src + 1] = [size1, shape[src] // size1]
    return shapes.reshape(x, tuple(shape))


def _dilated(shape, dilation):
    return np.asarray(_dilate_shape(shape, dilation))


def _conv_transpose_lhs(ct, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding=None):
    """The lhs cotangent: ct convolved with the spatially reversed kernel whose in/out
    features swap; strides become lhs dilation. Groups move into the kernel's out dim. Typed
    as the primal lhs (JAX's out_sharding=lhs.aval.sharding)."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape, rhs_shape, ct_shape = lhs.aval.shape, bu.shape(rhs), bu.shape(ct)
    groups = max(feature_group_count, batch_group_count)
    if groups > 1:
        rhs = _reshape_axis_out_of(rhs_spec[0], groups, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
    in_sp = [lhs_shape[d] for d in lhs_spec[2:]]
    k_sp = [rhs_shape[d] for d in rhs_spec[2:]]
    out_sp = [ct_shape[d] for d in out_spec[2:]]
    lhs_d, rhs_d = _dilated(in_sp, lhs_dilation), _dilated(k_sp, rhs_dilation)
    out_d = _dilated(out_sp, window_strides)
    before = rhs_d - np.asarray([lo for lo, _ in padding]) - 1
    after = lhs_d + rhs_d - 1 - out_d - before
    pads = tuple((int(b), int(a)) for b, a in zip(before, after))
    kernel = shapes.rev(rhs, tuple(rhs_spec[2:]))
    if get_aval(kernel).dtype != get_aval(ct).dtype:
        kernel = _convert_element_type(kernel, get_aval(ct).dtype)
    out = _bind(ct, kernel, window_strides=tuple(lhs_dilation), padding=pads,
                lhs_dilation=tuple(window_strides), rhs_dilation=tuple(rhs_dilation),
                dimension_numbers=ConvDimensionNumbers(out_spec, _swap01(rhs_spec), lhs_spec),
                feature_group_count=groups, batch_group_count=1, precision=precision,
                preferred_element_type=preferred_element_type, out_sharding=lhs.aval.split)
    if get_aval(out).dtype != lhs.aval.dtype:
        out = _convert_element_type(out, lhs.aval.dtype)
    if batch_group_count > 1:
        out = _reshape_axis_out_of(lhs_spec[1], batch_group_count, out)
        out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    return out


def _conv_transpose_rhs(ct, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding=None):
    """The rhs cotangent: lhs convolved with ct, batch and feature roles swapped (so feature
    groups become batch groups and back); strides become rhs dilation. Typed as the primal
    rhs (JAX's out_sharding=rhs.aval.sharding)."""
    if math.prod(bu.shape(ct)) == 0:
        return ad.Zero(rhs.aval)       # a kernel of spatial size 0 would make a bad conv
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape, rhs_shape, ct_shape = bu.shape(lhs), rhs.aval.shape, bu.shape(ct)
    feature_group_count, batch_group_count = batch_group_count, feature_group_count
    in_sp = [lhs_shape[d] for d in lhs_spec[2:]]
    k_sp = [rhs_shape[d] for d in rhs_spec[2:]]
    out_sp = [ct_shape[d] for d in out_spec[2:]]
    pads = ()
    if in_sp:
        lhs_d, rhs_d = _dilated(in_sp, lhs_dilation), _dilated(k_sp, rhs_dilation)
        out_d = _dilated(out_sp, window_strides)
        pads = tuple((int(lo), int(o - i + r - lo - 1))
                     for (lo, _), o, i, r in zip(padding, out_d, lhs_d, rhs_d))
    if get_aval(lhs).dtype != get_aval(ct).dtype:
        lhs = _convert_element_type(lhs, get_aval(ct).dtype)
    dnums = ConvDimensionNumbers(_swap01(lhs_spec), _swap01(out_spec), _swap01(rhs_spec))
    out = _bind(lhs, ct, window_strides=tuple(rhs_dilation), padding=pads,
                lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(window_strides),
                dimension_numbers=dnums, feature_group_count=feature_group_count,
                batch_group_count=batch_group_count, precision=precision,
                preferred_element_type=preferred_element_type, out_sharding=rhs.aval.split)
    if get_aval(out).dtype != rhs.aval.dtype:
        out = _convert_element_type(out, rhs.aval.dtype)
    return out


def _conv_batching(axis_data, vals, dims, **params):
    try:
        return _conv_batched(axis_data, vals, dims, **params)
    except ValueError as error:
        # the shapes a card would name are the whole batch's, not the one example the
        # learner's function sees: no card reads them
        if hasattr(error, "conv_shapes"):
            del error.conv_shapes
        raise


def _conv_batched(axis_data, vals, dims, **params):
    """As JAX: a batched lhs joins the batch dim (or, with batch groups, each group's part
    of it); a batched rhs joins the out-feature dim (inside each group); both batched make
    the batch a feature (or batch) group of its own. An out_sharding= splits the dim the
    batch joins over vmap's explicit mesh axes (JAX's get_out_sharding)."""
    (lhs, rhs), (lbd, rbd) = vals, dims
    if lbd is None and rbd is None:
        return _bind(lhs, rhs, **params), None
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    given, ema = params.get("out_sharding"), axis_data.explicit_mesh_axis
    if given is not None and ema:
        joined = out_spec[0] if lbd is not None and rbd is None else out_spec[1]
        parts = list(given.spec.partitions) + [None] * (joined + 1 - len(given.spec))
        if parts[joined] is not None:
            raise NotImplementedError       # (JAX's: the batch dim must not be split already)
        parts[joined] = ema[0] if len(ema) == 1 else tuple(ema)
        params = dict(params, out_sharding=NamedSharding(
            given.mesh, given.spec.update(partitions=parts), memory_kind=given.memory_kind))
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    size = bu.axis_size_of(vals, dims)
    if size == 0:          # reshapes into batch/feature dims cannot carry a size-0 batch
        un = lambda x, d: ShapedArray(tuple(s for i, s in enumerate(bu.shape(x)) if i != d),
                                      get_aval(x).dtype)
        aval = _conv_abstract_eval(un(lhs, lbd) if lbd is not None else get_aval(lhs),
                                   un(rhs, rbd) if rbd is not None else get_aval(rhs), **params)
        return shapes.broadcast_in_dim(np.zeros((), aval.dtype), (0,) + aval.shape, ()), 0
    if lbd is not None and rbd is not None:
        if bgc > 1:
            new_lhs = _reshape_axis_into(lbd, lhs_spec[0], lhs)
            params = dict(params, batch_group_count=bgc * size)
        else:
            new_lhs = _reshape_axis_into(lbd, lhs_spec[1], lhs)
            params = dict(params, feature_group_count=fgc * size)
        out = _bind(new_lhs, _reshape_axis_into(rbd, rhs_spec[0], rhs), **params)
        return _reshape_axis_out_of(out_spec[1], size, out), out_spec[1]
    if lbd is not None:
        if bgc == 1:
            new_lhs = _reshape_axis_into(lbd, lhs_spec[0], lhs)
        else:              # keep the groups outermost in the batch dim
            new_lhs = _reshape_axis_out_of(lhs_spec[0] + int(lbd <= lhs_spec[0]), bgc, lhs)
            new_lhs = _reshape_axis_into(lbd + int(lhs_spec[0] < lbd), lhs_spec[0] + 1, new_lhs)
            new_lhs = _reshape_axis_into(lhs_spec[0], lhs_spec[0], new_lhs)
        out = _bind(new_lhs, rhs, **params)
        return _reshape_axis_out_of(out_spec[0], size, out), out_spec[0]
    if fgc == 1 and bgc == 1:
        out = _bind(lhs, _reshape_axis_into(rbd, rhs_spec[0], rhs), **params)
        return _reshape_axis_out_of(out_spec[1], size, out), out_spec[1]
    if params.get("out_sharding") is not None:
        raise NotImplementedError           # (JAX's)
    groups = max(fgc, bgc)     # the groups stay outermost in the out-feature dims
    new_rhs = _reshape_axis_out_of(rhs_spec[0] + int(rbd <= rhs_spec[0]), groups, rhs)
    new_rhs = _reshape_axis_into(rbd + int(rhs_spec[0] < rbd), rhs_spec[0] + 1, new_rhs)
    new_rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[0], new_rhs)
    out = _bind(lhs, new_rhs, **params)
    out = _reshape_axis_out_of(out_spec[1], groups, out)
    out = _reshape_axis_out_of(out_spec[1] + 1, size, out)
    return _reshape_axis_into(out_spec[1], out_spec[1] + 1, out), out_spec[1]


ad.defbilinear(conv_general_dilated_p, _conv_transpose_lhs, _conv_transpose_rhs)
axis_batching_rules[conv_general_dilated_p] = _conv_batching


# ------------------------------------------------------------------ lax functions
def _spec(spec) -> tuple:
    return tuple(operator.index(d) for d in spec)


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None,
                         out_sharding=None):
    """General n-dimensional convolution with optional dilations (XLA's Conv).

    `padding` is 'SAME', 'SAME_LOWER', 'VALID' or n (low, high) pairs; `lhs_dilation` is a
    transposed convolution's fractional stride, `rhs_dilation` an atrous kernel;
    `dimension_numbers` is None (NCHW/OIHW/NCHW), three layout strings or a
    ConvDimensionNumbers.

    >>> lax.conv_general_dilated(jnp.ones((1, 5, 5, 2)), jnp.ones((3, 3, 2, 4)), (2, 2),
    ...                          'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC')).shape
    (1, 3, 3, 4)
    """
    lhs_shape, rhs_shape = np.shape(lhs), np.shape(rhs)
    dnums = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    dnums = ConvDimensionNumbers(*map(_spec, dnums))
    if lhs_dilation is None:
        lhs_dilation = (1,) * (len(lhs_shape) - 2)
    elif isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
        raise ValueError("String padding is not implemented for transposed convolution using "
                         "this op. Please either exactly specify the required padding or use "
                         "conv_transpose.")
    if rhs_dilation is None:
        rhs_dilation = (1,) * (len(rhs_shape) - 2)
    if isinstance(padding, str):
        kernel = [rhs_shape[d] for d in dnums.rhs_spec[2:]]
        effective = _dilate_shape(kernel, rhs_dilation)
        padding = padtype_to_pads([lhs_shape[d] for d in dnums.lhs_spec[2:]], effective,
                                  window_strides, padding)
    try:
        padding = tuple((index_or_symbolic(lo), index_or_symbolic(hi)) for lo, hi in padding)
    except (ValueError, TypeError) as e:
        raise ValueError(f"padding argument to conv_general_dilated should be a string or a "
                         f"sequence of (low, high) pairs, got {padding}") from e
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_user_dtype(preferred_element_type,
                                                                "conv_general_dilated")
    if out_sharding is not None:            # a PartitionSpec under set_mesh, as in JAX
        out_sharding = resolved(out_sharding)
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=_spec(window_strides), padding=padding,
        lhs_dilation=_spec(lhs_dilation), rhs_dilation=_spec(rhs_dilation),
        dimension_numbers=dnums, feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count),
        precision=canonicalize_precision(precision),
        preferred_element_type=preferred_element_type, out_sharding=out_sharding)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """conv_general_dilated in NCHW/OIHW layout with 'SAME' or 'VALID' padding.

    >>> lax.conv(jnp.ones((1, 1, 4)), jnp.ones((1, 1, 2)), (1,), 'VALID')
    Array([[[2., 2., 2.]]], dtype=float32)
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """conv_general_dilated in NCHW/OIHW layout with explicit dilations.

    >>> x, w = jnp.ones((1, 2, 5, 5)), jnp.ones((3, 2, 3, 3))
    >>> lax.conv_with_general_padding(x, w, (1, 1), [(1, 1), (0, 0)], None, (2, 2)).shape
    (1, 3, 3, 1)
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k, s, padding):
    """(before, after) padding of one dim of a transposed convolution for the forward conv's
    padding ('SAME', 'VALID' or its (low, high))."""
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else int(np.ceil(pad_len / 2))
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        pad_a, pad_len = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return int(pad_a), int(pad_len - pad_a)


_TRANSPOSE_DEFAULTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                       4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None,
                   use_consistent_padding=False):
    """A fractionally strided convolution (the "deconvolution" of Keras' Conv2DTranspose
    when `transpose_kernel=True`). Layouts default to TensorFlow's (NHWC, HWIO, NHWC).

    >>> lax.conv_transpose(jnp.ones((1, 5, 5, 2)), jnp.ones((3, 3, 2, 4)), (2, 2), 'SAME').shape
    (1, 10, 10, 4)
    """
    lhs_shape, rhs_shape = np.shape(lhs), np.shape(rhs)
    if not (len(lhs_shape) == len(rhs_shape) and len(lhs_shape) >= 2):
        raise ValueError(f"conv_transpose needs lhs and rhs of equal rank >= 2, got shapes "
                         f"{lhs_shape} and {rhs_shape}.")
    ndims = len(lhs_shape)
    if dimension_numbers is None:
        if ndims not in _TRANSPOSE_DEFAULTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_DEFAULTS[ndims]
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    k_spatial = [rhs_shape[d] for d in dn.rhs_spec[2:]]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ndims - 2)
    if use_consistent_padding or (isinstance(padding, str) and padding in {"SAME", "VALID"}):
        effective = _dilate_shape(k_spatial, rhs_dilation)
        per_dim = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = tuple(_conv_transpose_padding(k, s, p)
                     for k, s, p in zip(effective, strides, per_dim))
    else:
        pads = padding
    if transpose_kernel:       # flip the spatial dims, swap in/out features (as np.flip does)
        for d in dn.rhs_spec[2:]:
            rhs = shapes.rev(rhs, (d,))
        perm = list(range(ndims))
        o, i = dn.rhs_spec[0], dn.rhs_spec[1]
        perm[o], perm[i] = perm[i], perm[o]
        rhs = shapes.transpose(rhs, tuple(perm))
    return conv_general_dilated(lhs, rhs, (1,) * (ndims - 2), pads, strides, rhs_dilation, dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """The patches conv_general_dilated would see, flattened into the output's feature
    dim (ordered feature-major, then the kernel's spatial dims): a convolution with an
    identity kernel, one feature group per input feature.

    >>> lax.conv_general_dilated_patches(jnp.ones((1, 2, 5, 5)), (3, 3), (1, 1), 'SAME').shape
    (1, 18, 5, 5)
    """
    lhs_shape = np.shape(lhs)
    dtype = get_aval(lhs).dtype
    filter_shape = tuple(filter_shape)
    dn = conv_dimension_numbers(lhs_shape, (1, 1) + filter_shape, dimension_numbers)
    lhs_spec, rhs_spec, _ = dn
    spatial_size = math.prod(filter_shape)
    n_channels = lhs_shape[lhs_spec[1]]
    # identity: each spatial offset of the window gets its own output channel
    rows = ew.add(shapes.broadcasted_iota(np.int32, (spatial_size, spatial_size), 0),
                  np.int32(0))      # (the offset-0 diagonal, as JAX's _eye builds it)
    cols = shapes.broadcasted_iota(np.int32, (spatial_size, spatial_size), 1)
    eye = _convert_element_type(ew.eq(rows, cols), dtype)
    rhs = shapes.broadcast_in_dim(eye, (n_channels, spatial_size, spatial_size), (1, 2))
    rhs = shapes.reshape(rhs, (n_channels * spatial_size, 1) + filter_shape)
    order = [d for d in range(len(lhs_shape)) if d not in (rhs_spec[0], rhs_spec[1])]
    perm = [0] * len(lhs_shape)     # source dims 0, 1 go to rhs_spec[0], rhs_spec[1]
    perm[rhs_spec[0]], perm[rhs_spec[1]] = 0, 1
    for dst, src in zip(order, range(2, len(lhs_shape))):
        perm[dst] = src
    rhs = shapes.transpose(rhs, tuple(perm))
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dn,
        precision=None if precision is None else (precision, Precision.DEFAULT),
        feature_group_count=n_channels, preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
    """A locally connected ("unshared") convolution: as conv_general_dilated, but the kernel
    differs at each output position. `rhs` holds one kernel per output position: its input
    feature dim is the lhs features times the window (`filter_shape`), feature-major, as
    conv_general_dilated_patches orders them, and its spatial dims are the output's.

    >>> x = jnp.ones((1, 2, 5))                       # N, C, W
    >>> w = jnp.ones((3, 2 * 2, 4))                   # O, C*window, output W
    >>> lax.conv_general_dilated_local(x, w, (1,), 'VALID', (2,)).shape
    (1, 3, 4)
    """
    c_precision = canonicalize_precision(precision)
    if c_precision is not None and not (isinstance(c_precision, tuple) and len(c_precision) == 2):
        raise ValueError(f"Unsupported precision for conv_general_dilated_local: {precision}")
    patches = conv_general_dilated_patches(
        lhs, filter_shape, window_strides, padding, lhs_dilation, rhs_dilation,
        dimension_numbers, precision=None if c_precision is None else c_precision[0])
    _, rhs_spec, out_spec = conv_dimension_numbers(np.shape(lhs), (1, 1) + tuple(filter_shape),
                                                   dimension_numbers)
    # contract the patches' features with the kernel's input features; each output position
    # is a batch dim, paired with the kernel's, in the order they lie in the output
    spatial = sorted(range(len(out_spec) - 2), key=lambda i: out_spec[2 + i])
    dn = (([out_spec[1]], [rhs_spec[1]]),
          ([out_spec[2 + i] for i in spatial], [rhs_spec[2 + i] for i in spatial]))
    out = dot_general(patches, rhs, dn, precision=precision)    # spatial..., N, O
    n_spatial = len(spatial)
    perm, rest = [0] * len(out_spec), iter(range(n_spatial))
    for d in range(len(out_spec)):
        perm[d] = n_spatial if d == out_spec[0] else n_spatial + 1 if d == out_spec[1] \
            else next(rest)
    return shapes.transpose(out, tuple(perm))
