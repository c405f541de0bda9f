"""dot_general: contractions with batch dimensions, precision and mixed precision.

    >>> x, y = jnp.ones((2, 3)), jnp.ones((3, 4))
    >>> lax.dot_general(x, y, (([1], [0]), ([], []))).shape        # matrix product
    (2, 4)
    >>> a, b = jnp.ones((5, 2, 3)), jnp.ones((5, 3, 4))
    >>> lax.dot_general(a, b, (([2], [1]), ([0], [0]))).shape      # batched: [b,m,k] x [b,k,n]
    (5, 2, 4)

The result's dimensions are the batch dimensions, then the free dimensions of
lhs, then those of rhs. `preferred_element_type` picks the result (and
accumulation) type, e.g. bf16 x bf16 -> f32 or int8 x int8 -> int32.
"""
from __future__ import annotations

import enum
import math
import operator
from collections.abc import Sequence
from typing import NamedTuple, Union

import numpy as np

from ..core.config import config
from ..core import dtypes, sharding_types
from ..core.avals import ShapedArray, get_aval
from ..core.ir import param_printers
from ..core.primitive import (
    Primitive,
    abstract_eval_rules,
    axis_batching_rules,
    lowering_rules,
    numpy_rules,
    sharding_rules,
)
from ..xla import stablehlo as hlo
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from . import _lowering as hl
from . import shapes
from .conversion import _convert_element_type
from .sharding import check_explicit_only, check_out_sharding_type, resolved


class Precision(enum.Enum):
    """How precisely a matmul computes with float32 inputs on accelerators (CPU ignores it).
    Also accepted as strings: 'default'/'bfloat16'/'fastest', 'high'/'bfloat16_3x'/
    'tensorfloat32', 'highest'/'float32'."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        return _PRECISION_STRINGS.get(value)

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"

    def __str__(self):
        return self.name


class DotAlgorithm(NamedTuple):
    """The algorithm of a dot product, as `precision=`: the types the operands are rounded
    to, the accumulation type (the result's, unless preferred_element_type says otherwise),
    and how many components and operations emulate a higher precision. Which ones a backend
    runs is its own: on CPU, JAX and jxkernel take only DotAlgorithmPreset's CPU presets.

    >>> DotAlgorithm(jnp.float16, jnp.float16, jnp.float32).num_primitive_operations
    1
    """
    lhs_precision_type: object
    rhs_precision_type: object
    accumulation_type: object
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False

    def _compute_types(self, lhs_dtype, rhs_dtype, out_dtype):
        return self.lhs_precision_type, self.rhs_precision_type, self.accumulation_type

    def _attr_fields(self, lhs_dtype, rhs_dtype):
        return (self.lhs_precision_type, self.rhs_precision_type, self.accumulation_type,
                self.lhs_component_count, self.rhs_component_count,
                self.num_primitive_operations, self.allow_imprecise_accumulation)


class DotAlgorithmPreset(enum.Enum):
    """The dot algorithms known to run on some backend, by name `LHS_RHS_ACCUM` (also
    accepted as strings: `precision="F16_F16_F32"`); `_X3`/`_X6`/`_X9` emulate a higher
    precision with that many products. On CPU: DEFAULT, F16_F16_F16, F32_F32_F32,
    F64_F64_F64, BF16_BF16_F32 and its _X3 and _X6 forms; others raise when lowered."""
    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"

    def __str__(self):
        return self.name

    @property
    def supported_lhs_types(self):
        """The operand types it takes (others are converted to the first), or None: any."""
        name = self.name
        if name == "DEFAULT" or name.startswith("ANY_F8"):
            return None
        if name.startswith("F16"):
            return (np.dtype(np.float16),)
        if name in ("BF16_BF16_BF16", "BF16_BF16_F32"):
            return (dtypes.bfloat16, dtypes.float32)    # f32 storage stays, others -> bf16
        if name == "F64_F64_F64":
            return (dtypes.float64,)
        return (dtypes.float32,)

    @property
    def supported_rhs_types(self):
        return self.supported_lhs_types

    @property
    def accumulation_type(self):
        name = self.name
        if name in ("DEFAULT", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM"):
            return None
        return {"F16_F16_F16": np.dtype(np.float16), "BF16_BF16_BF16": dtypes.bfloat16,
                "F64_F64_F64": dtypes.float64}.get(name, dtypes.float32)

    def supported_output_types(self, lhs_dtype, rhs_dtype):
        name = self.name
        if name in ("ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM"):
            return (dtypes.float32, dtypes.float16, dtypes.bfloat16, *dtypes.FLOAT8_DTYPES[:5])
        if name in ("F16_F16_F32", "BF16_BF16_F32"):
            narrow = dtypes.float16 if name.startswith("F16") else dtypes.bfloat16
            both = dtypes.promote_types(lhs_dtype, rhs_dtype) == narrow
            return (dtypes.float32, narrow) if both else (dtypes.float32,)
        acc = self.accumulation_type
        return None if acc is None else (acc,)

    def _compute_types(self, lhs_dtype, rhs_dtype, out_dtype):
        def pick(dtype, supported):
            return dtype if supported is None or np.dtype(dtype) in supported else supported[0]
        lhs_dtype = pick(lhs_dtype, self.supported_lhs_types)
        rhs_dtype = pick(rhs_dtype, self.supported_rhs_types)
        return lhs_dtype, rhs_dtype, pick(out_dtype, self.supported_output_types(lhs_dtype,
                                                                                  rhs_dtype))

    def _attr_fields(self, lhs_dtype, rhs_dtype):
        name = self.name
        if name.startswith("ANY_F8"):
            if lhs_dtype not in dtypes.FLOAT8_DTYPES or rhs_dtype not in dtypes.FLOAT8_DTYPES:
                raise ValueError(f"The dot algorithm '{self}' requires both inputs to have "
                                 f"float8 dtypes. Got {lhs_dtype} and {rhs_dtype} instead.")
            return lhs_dtype, rhs_dtype, dtypes.float32, 1, 1, 1, name.endswith("FAST_ACCUM")
        parts = name.split("_")
        ops = int(parts[3][1:]) if len(parts) == 4 else 1
        types = {"F16": "f16", "BF16": "bf16", "TF32": "tf32", "F32": "f32", "F64": "f64"}
        return types[parts[0]], types[parts[1]], types[parts[2]], 1, 1, ops, False


# what XLA's CPU backend runs (it ignores an algorithm silently: JAX checks, and so do we)
_CPU_PRESETS = frozenset(DotAlgorithmPreset[n] for n in (
    "DEFAULT", "F16_F16_F16", "F32_F32_F32", "F64_F64_F64", "BF16_BF16_F32",
    "BF16_BF16_F32_X3", "BF16_BF16_F32_X6"))


def _check_cpu_algorithm(algorithm) -> None:
    """XLA's CPU runs the presets of _CPU_PRESETS only; JAX raises for the others (TF32, F8,
    a DotAlgorithm). So does the NumPy backend, which computes what XLA's CPU does: it has no
    TF32 or F8 arithmetic to run them with either."""
    if algorithm not in _CPU_PRESETS:
        raise ValueError(f"The precision '{algorithm}' is not supported by dot_general on CPU")


def _algorithm_attr(fields) -> str:
    """#stablehlo.dot_algorithm<...> of (lhs type, rhs type, accumulation type, lhs
    components, rhs components, operations, imprecise accumulation)."""
    lhs, rhs, acc, lc, rc, ops, imprecise = fields
    name = lambda t: t if isinstance(t, str) else hlo.element_type(np.dtype(t))
    return (f"#stablehlo.dot_algorithm<lhs_precision_type = {name(lhs)}, rhs_precision_type = "
            f"{name(rhs)}, accumulation_type = {name(acc)}, lhs_component_count = {lc}, "
            f"rhs_component_count = {rc}, num_primitive_operations = {ops}, "
            f"allow_imprecise_accumulation = {str(bool(imprecise)).lower()}>")


# The annotations of dot_general's arguments, as JAX names them: ((lhs_contracting,
# rhs_contracting), (lhs_batch, rhs_batch)), and what `precision=` takes
DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]
PrecisionLike = Union[None, str, Precision, tuple[str, str], tuple[Precision, Precision],
                      DotAlgorithm, DotAlgorithmPreset]

_PRECISION_STRINGS = {"highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
                      "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH,
                      "tensorfloat32": Precision.HIGH, "default": Precision.DEFAULT,
                      "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
                      None: Precision.DEFAULT}


def canonicalize_precision(precision):
    """None (use `jax_default_matmul_precision`) or a pair of Precision, as JAX stores it."""
    if precision is None:
        default = config.jax_default_matmul_precision
        if default is None:
            return None
        try:
            return canonicalize_precision(default)
        except ValueError:
            raise ValueError(
                f"jax_default_matmul_precision flag must be set to None, a value in "
                f"{list(_PRECISION_STRINGS)}, or the name of a lax.DotAlgorithmPreset, but got "
                f"{default}") from None
    if isinstance(precision, str) and precision in _PRECISION_STRINGS:
        return Precision(precision), Precision(precision)
    if isinstance(precision, str) and precision in DotAlgorithmPreset.__members__:
        return DotAlgorithmPreset[precision]
    if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return precision            # (an algorithm is one value, not a pair)
    if isinstance(precision, Precision):
        return precision, precision
    if isinstance(precision, (list, tuple)) and len(precision) == 2:
        if all(isinstance(p, Precision) for p in precision):
            return tuple(precision)
        if all(isinstance(p, str) for p in precision):
            return canonicalize_precision(precision[0])[0], canonicalize_precision(precision[1])[0]
    raise ValueError(
        "Precision argument must be one of:\n- None,\n"
        f"- a string in {list(_PRECISION_STRINGS)},\n"
        "- a lax.Precision value,\n- a tuple of two lax.Precision values or strings,\n"
        "- a lax.DotAlgorithmPreset or the name of one of these presets, or\n"
        f"- a lax.DotAlgorithm value;\nbut got {precision}.")


# ------------------------------------------------------------------ dot_general
dot_general_p = Primitive("dot_general")


def _dot_general_shape(lhs, rhs, dimension_numbers) -> tuple:
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    for side, aval, contract, batch in (("lhs", lhs, lhs_contract, lhs_batch),
                                        ("rhs", rhs, rhs_contract, rhs_batch)):
        if not all(0 <= d < aval.ndim for d in contract + batch):
            raise TypeError(
                f"dot_general requires {side} dimension numbers to be nonnegative and less than "
                f"the number of axes of the {side} value, got {side}_batch of {batch} and "
                f"{side}_contracting of {contract} for {side} of rank {aval.ndim}")
    if len(lhs_batch) != len(rhs_batch):
        raise TypeError(f"dot_general requires equal numbers of lhs_batch and rhs_batch "
                        f"dimensions, got lhs_batch {lhs_batch} and rhs_batch {rhs_batch}.")
    sides = (("lhs", lhs_contract, lhs_batch), ("rhs", rhs_contract, rhs_batch))
    for side, contract, batch in sides:
        if len(set(batch)) != len(batch):
            raise TypeError(f"dot_general requires {side} batch dimensions to be distinct, got "
                            f"{side}_batch {batch}.")
    for side, contract, batch in sides:
        if len(set(contract)) != len(contract):
            raise TypeError(f"dot_general requires {side} contracting dimensions to be distinct, "
                            f"got {side}_contracting {contract}.")
    for side, contract, batch in sides:
        if set(contract) & set(batch):
            raise TypeError(f"dot_general requires {side} batch dimensions to be disjoint from "
                            f"contracting dimensions, got {side}_batch {batch} and "
                            f"{side}_contracting {contract}.")
    lhs_batch_shape = tuple(lhs.shape[d] for d in lhs_batch)
    rhs_batch_shape = tuple(rhs.shape[d] for d in rhs_batch)
    if lhs_batch_shape != rhs_batch_shape:
        raise TypeError(f"dot_general requires lhs batch dimensions and rhs batch dimensions to "
                        f"have the same shape, got {lhs_batch_shape} and {rhs_batch_shape}.")
    lhs_contract_shape = tuple(lhs.shape[d] for d in lhs_contract)
    rhs_contract_shape = tuple(rhs.shape[d] for d in rhs_contract)
    if lhs_contract_shape != rhs_contract_shape:
        error = TypeError(f"dot_general requires contracting dimensions to have the same shape, "
                          f"got {lhs_contract_shape} and {rhs_contract_shape}.")
        error.operand_shapes = (tuple(lhs.shape), tuple(rhs.shape))   # for the error card
        raise error
    lhs_free = tuple(d for i, d in enumerate(lhs.shape) if i not in lhs_contract + lhs_batch)
    rhs_free = tuple(d for i, d in enumerate(rhs.shape) if i not in rhs_contract + rhs_batch)
    return lhs_batch_shape + lhs_free + rhs_free


def _type_rank(dtype):
    """XLA's order of 'higher precision' types (shape_inference.cc's HigherPrecisionType):
    complex > more exponent bits > more mantissa bits > wider > signed."""
    real = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(dtype, dtype)
    info = dtypes.finfo(real) if dtypes.is_float(real) else None
    bits = 1 if real == dtypes.bool_ else real.itemsize * 8
    return (dtypes.is_complex(dtype), info.maxexp if info else -1, info.nmant if info else -1,
            bits, not dtypes.is_unsigned(real))


def _dot_general_dtype(lhs, rhs, preferred_element_type, algorithm=False):
    lhs_rank, rhs_rank = _type_rank(lhs.dtype), _type_rank(rhs.dtype)
    if lhs_rank == rhs_rank and lhs.dtype != rhs.dtype:
        raise TypeError(f"lax.dot_general argument type error: {lhs.dtype}, {rhs.dtype}")
    result = lhs.dtype if lhs_rank >= rhs_rank else rhs.dtype
    if preferred_element_type is None or preferred_element_type == result:
        return result
    preferred = np.dtype(preferred_element_type)
    width = lambda d: 1 if d == dtypes.bool_ else d.itemsize * 8
    if not algorithm and not dtypes.is_float(result) and width(preferred) < width(result):
        raise TypeError(f"`preferred_element_type` must not be narrower than the original type, "
                        f"got preferred_element_type of {preferred} for result type of {result}.")
    return preferred


def _dot_general_abstract_eval(lhs, rhs, *, dimension_numbers, precision,
                               preferred_element_type, out_sharding=None):
    shape = _dot_general_shape(lhs, rhs, dimension_numbers)
    dtype = _dot_general_dtype(lhs, rhs, preferred_element_type,
                               isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)))
    return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


def _dot_general_lowering(ctx, lhs, rhs, *, dimension_numbers, precision,
                          preferred_element_type, out_sharding=None):
    lhs_aval, rhs_aval = ctx.avals_in
    out = ctx.avals_out[0]
    attrs, acc_dtype = {}, out.dtype
    if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        # operands converted to the algorithm's types, the product accumulated in its type
        # and converted to the result's, as JAX lowers it
        if ctx.platform == "cpu":
            _check_cpu_algorithm(precision)
        lhs_t, rhs_t, acc_t = precision._compute_types(lhs_aval.dtype, rhs_aval.dtype, out.dtype)
        if lhs_t is not None:
            lhs, lhs_aval = (hl.convert(ctx, lhs, lhs_aval, lhs_t),
                             lhs_aval.update(dtype=np.dtype(lhs_t)))
        if rhs_t is not None:
            rhs, rhs_aval = (hl.convert(ctx, rhs, rhs_aval, rhs_t),
                             rhs_aval.update(dtype=np.dtype(rhs_t)))
        acc_dtype = out.dtype if acc_t is None else np.dtype(acc_t)
        if precision != DotAlgorithmPreset.DEFAULT:
            attrs["algorithm"] = _algorithm_attr(precision._attr_fields(lhs_aval.dtype,
                                                                        rhs_aval.dtype))
        precision = None
    elif lhs_aval.dtype != rhs_aval.dtype:
        # CPU and GPU fail to generate code for some mixed-type dots: JAX converts both
        # operands to the result type first, and so do we
        lhs = hl.convert(ctx, lhs, lhs_aval, out.dtype)
        rhs = hl.convert(ctx, rhs, rhs_aval, out.dtype)
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    dims = (f"#stablehlo.dot<lhs_batching_dimensions = {hlo.dims_list(lhs_batch)}, "
            f"rhs_batching_dimensions = {hlo.dims_list(rhs_batch)}, "
            f"lhs_contracting_dimensions = {hlo.dims_list(lhs_contract)}, "
            f"rhs_contracting_dimensions = {hlo.dims_list(rhs_contract)}>")
    pair = precision or (Precision.DEFAULT, Precision.DEFAULT)
    config_attr = "[" + ", ".join(hlo.enum("precision", p.name) for p in pair) + "]"
    result = ctx.op1("stablehlo.dot_general", [lhs, rhs],
                     {"dot_dimension_numbers": dims, "precision_config": config_attr, **attrs},
                     result_type=hlo.tensor_type(out.shape, acc_dtype))
    return hl.convert(ctx, result, out.update(dtype=acc_dtype), out.dtype)


def _dot_general_printer(params):
    """As JAX prints it: dimension numbers as lists, no None-valued params, no out_sharding
    (the result type implies it)."""
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    shown = {k: v for k, v in params.items() if v is not None and k != "out_sharding"}
    shown["dimension_numbers"] = f"(({list(lc)}, {list(rc)}), ({list(lb)}, {list(rb)}))"
    return sorted(shown.items())




def _dot_general_numpy(lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                       out_sharding=None):
    """One batched matmul: each operand transposed to (batch, free, contracting) order and
    flattened to 3-d, both in the accumulation type (the result's, or an algorithm's; narrow
    floats accumulate in float32), as the lowering converts them."""
    algorithm = isinstance(precision, (DotAlgorithm, DotAlgorithmPreset))
    out_dtype = _dot_general_dtype(lhs, rhs, preferred_element_type, algorithm)
    acc = out_dtype
    if algorithm:
        _check_cpu_algorithm(precision)
        lhs_t, rhs_t, acc_t = precision._compute_types(lhs.dtype, rhs.dtype, out_dtype)
        lhs = lhs if lhs_t is None else lhs.astype(lhs_t)
        rhs = rhs if rhs_t is None else rhs.astype(rhs_t)
        acc = out_dtype if acc_t is None else np.dtype(acc_t)
    if dtypes.is_float(acc) and np.dtype(acc).itemsize < 4:
        acc = np.dtype(np.float32)
    if dtypes.is_int(acc) and (dtypes.is_inexact(lhs.dtype) or dtypes.is_inexact(rhs.dtype)):
        acc = np.result_type(lhs, rhs)    # floats asked for ints: summed as floats, then cast
        if np.dtype(acc).itemsize < 4:
            acc = np.dtype(np.float32)    # (narrow floats in float32, as above)
    (lc, rc), (lb, rb) = dimension_numbers
    lf = [d for d in range(lhs.ndim) if d not in lc and d not in lb]
    rf = [d for d in range(rhs.ndim) if d not in rc and d not in rb]
    size = lambda x, ds: math.prod(x.shape[d] for d in ds)
    a = lhs.transpose([*lb, *lf, *lc]).reshape(size(lhs, lb), size(lhs, lf), size(lhs, lc))
    b = rhs.transpose([*rb, *rc, *rf]).reshape(size(rhs, rb), size(rhs, rc), size(rhs, rf))
    out = np.matmul(a.astype(acc), b.astype(acc))
    shape = [lhs.shape[d] for d in (*lb, *lf)] + [rhs.shape[d] for d in rf]
    return out.reshape(shape).astype(out_dtype, copy=False)


abstract_eval_rules[dot_general_p] = _dot_general_abstract_eval
lowering_rules[dot_general_p] = _dot_general_lowering
numpy_rules[dot_general_p] = _dot_general_numpy
param_printers[dot_general_p] = _dot_general_printer


def _ranges_like(*xs):
    """Consecutive index ranges as long as each of `xs`: (0..len(x0)), (len(x0)..), ..."""
    start = 0
    for x in xs:
        yield tuple(range(start, start + len(x)))
        start += len(x)


def _remaining(dims, *removed):
    gone = set().union(*removed)
    return tuple(d for d in dims if d not in gone)


def _dot_general_transpose_lhs(ct, x, y, *, dimension_numbers, precision,
                               preferred_element_type, out_sharding=None, swap_ans=False):
    """JAX's rule: contract the cotangent with y over y's free dims (batch dims stay batch),
    giving x's batch, free, contracting dims in that order; a transpose puts them back."""
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_kept = _remaining(range(x.aval.ndim), x_contract, x_batch)
    y_kept = _remaining(range(bu.ndim(y)), y_contract, y_batch)
    if swap_ans:        # ct's dims are (batch, y free, x free)
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:               # (batch, x free, y free)
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((ans_y, y_kept), (ans_batch, tuple(y_batch)))
    x_contract_sorted_by_y = [x_contract[i] for i in np.argsort(y_contract)]
    out_axes = tuple(int(i) for i in np.argsort(list(x_batch) + list(x_kept) +
                                                x_contract_sorted_by_y))
    out = dot_general_p.bind(ct, y, dimension_numbers=dims, precision=precision,
                             preferred_element_type=preferred_element_type,
                             out_sharding=_cotangent_sharding(x.aval, np.argsort(out_axes),
                                                              get_aval(ct), get_aval(y)))
    x_bar = shapes.transpose(out, out_axes)
    if get_aval(x_bar).dtype != x.aval.dtype:      # e.g. bf16 inputs, f32 preferred
        x_bar = _convert_element_type(x_bar, x.aval.dtype, x.aval.weak_type)
    return x_bar


def _cotangent_sharding(aval, order, *operands):
    """The sharding (Explicit axes) of the product a transpose by argsort(`order`) makes into
    `aval`'s cotangent, so its split contracted axes need no out_sharding=: the primal's, or
    replicated for an untyped primal (a one-device array) with typed `operands`; else None."""
    if aval.split is None:
        mesh = next((a.split.mesh for a in operands if a.split is not None), None)
        return None if mesh is None else sharding_types.make(mesh, [()] * len(aval.shape))
    parts = sharding_types.parts_of(aval)
    # (the cotangent's sets: unreduced where the primal is reduced, JAX's to_ct_aval)
    unreduced, reduced = sharding_types.summed_axes(aval.to_ct_aval())
    return sharding_types.make(aval.split.mesh, [parts[i] for i in order], unreduced, reduced)


def _dot_general_transpose_rhs(ct, x, y, *, dimension_numbers, **params):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    swapped = ((y_contract, x_contract), (y_batch, x_batch))
    return _dot_general_transpose_lhs(ct, y, x, dimension_numbers=swapped, swap_ans=True,
                                      **params)


def _dot_general_batch_dim_nums(ndims, bdims, dimension_numbers):
    """(dimension numbers of the batched dot, the result's batch dim), as JAX: two batch
    dims become one more dot batch dim (first); a single one becomes a free dim of its
    operand, so unbatched weights are never broadcast and the batch folds into the matmul."""
    lhs_ndim, _ = ndims
    lbd, rbd = bdims
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    bump = lambda dims, b: tuple(d + (d >= b) for d in dims)
    if lbd is not None and rbd is not None:
        lhs_batch, rhs_batch = (lbd,) + bump(lhs_batch, lbd), (rbd,) + bump(rhs_batch, rbd)
        lhs_contract, rhs_contract = bump(lhs_contract, lbd), bump(rhs_contract, rbd)
        out_dim = 0
    elif lbd is not None:       # lhs free dims come right after the batch dims
        lhs_free = _remaining(range(lhs_ndim), lhs_batch, lhs_contract)
        out_dim = len(lhs_batch) + sum(d < lbd for d in lhs_free)
        lhs_batch, lhs_contract = bump(lhs_batch, lbd), bump(lhs_contract, lbd)
    else:                       # rhs free dims come after the batch and lhs free dims
        rhs_free = _remaining(range(ndims[1]), rhs_batch, rhs_contract)
        out_dim = lhs_ndim - len(lhs_contract) + sum(d < rbd for d in rhs_free)
        rhs_batch, rhs_contract = bump(rhs_batch, rbd), bump(rhs_contract, rbd)
    return ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)), out_dim


def _dot_general_batching(axis_data, vals, dims, *, dimension_numbers, out_sharding=None,
                          **params):
    (lhs, rhs), (lbd, rbd) = vals, dims
    if lbd is bu.not_mapped and rbd is bu.not_mapped:
        return dot_general_p.bind(lhs, rhs, dimension_numbers=dimension_numbers,
                                  out_sharding=out_sharding, **params), bu.not_mapped
    new_dims, out_dim = _dot_general_batch_dim_nums((bu.ndim(lhs), bu.ndim(rhs)), (lbd, rbd),
                                                    dimension_numbers)
    if out_sharding is not None:        # (JAX's: the batch axis split over vmap's mesh axes)
        (lc, _), (lb, _) = dimension_numbers
        rank = bu.ndim(lhs) + bu.ndim(rhs) - 2 * len(lc) - len(lb) - (lbd is not bu.not_mapped) \
            - (rbd is not bu.not_mapped) + 1
        out_sharding = bu.sharding_for_vmap(axis_data, out_sharding, out_dim, rank)
    try:
        return dot_general_p.bind(lhs, rhs, dimension_numbers=new_dims,
                                  out_sharding=out_sharding, **params), out_dim
    except TypeError as error:
        # the card names the shapes the user's function sees, one example's: `x @ w` of x
        # mapped along axis 1 of an (8, 3) array is (8,) @ w, not (8, 3) @ w
        if hasattr(error, "operand_shapes"):
            error.operand_shapes = tuple(_unbatched(np.shape(v), d)
                                         for v, d in ((lhs, lbd), (rhs, rbd)))
            error.under_vmap = True
        raise


def _unbatched(shape, bdim) -> tuple:
    """`shape` without its batch dimension `bdim` (none where not mapped)."""
    return tuple(shape) if bdim is bu.not_mapped else tuple(shape[:bdim] + shape[bdim + 1:])


ad.defbilinear(dot_general_p, _dot_general_transpose_lhs, _dot_general_transpose_rhs)
axis_batching_rules[dot_general_p] = _dot_general_batching
sharding_rules[dot_general_p] = sharding_types.dot_general_rule
sharding_types.ur_rules[dot_general_p] = sharding_types.dot_general_ur_rule


# ------------------------------------------------------------------ lax functions
def _index_tuple(dims) -> tuple:
    return tuple(operator.index(d) for d in dims)


def _result_rank(lhs, rhs, dimension_numbers) -> int:
    (contract, _), (batch, _) = dimension_numbers
    return np.ndim(lhs) + np.ndim(rhs) - 2 * len(contract) - len(batch)


def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None,
        out_sharding=None):
    """General dot product; without `dimension_numbers`, a vector/matrix product of 1-D or
    2-D operands (contracting lhs's last dimension with rhs's first).

    >>> lax.dot(jnp.ones((2, 3)), jnp.ones(3))
    Array([3., 3.], dtype=float32)
    """
    if dimension_numbers is None:
        lhs_shape, rhs_shape = np.shape(lhs), np.shape(rhs)
        if 1 <= len(lhs_shape) <= 2 and 1 <= len(rhs_shape) <= 2 and lhs_shape[-1] == rhs_shape[0]:
            dimension_numbers = (((len(lhs_shape) - 1,), (0,)), ((), ()))
        else:
            raise ValueError(
                f"jax.lax.dot: dimension_numbers must be specified when not performing simple "
                f"un-batched matrix-matrix, matrix-vector, or vector-vector products; got "
                f"lhs_shape={lhs_shape} rhs_shape={rhs_shape}")
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    dnums = ((_index_tuple(lhs_contract), _index_tuple(rhs_contract)),
             (_index_tuple(lhs_batch), _index_tuple(rhs_batch)))
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_user_dtype(preferred_element_type, "dot")
    if out_sharding is not None:
        check_out_sharding_type(out_sharding, "dot_general")
    else:                                   # jnp.matmul/einsum(..., out_sharding=)'s
        out_sharding = sharding_types.override_for(dot_general_p, _result_rank(lhs, rhs, dnums))
    if out_sharding is not None:            # a PartitionSpec under set_mesh, as in JAX
        out_sharding = resolved(out_sharding)
        check_explicit_only(out_sharding, "dot_general")
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dnums,
                              precision=canonicalize_precision(precision),
                              preferred_element_type=preferred_element_type,
                              out_sharding=out_sharding)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None, *,
                out_sharding=None):
    """Contract `lhs` and `rhs` over `dimension_numbers = ((lhs_contracting,
    rhs_contracting), (lhs_batch, rhs_batch))`.

    >>> lax.dot_general(jnp.ones((4, 2, 3)), jnp.ones((4, 3, 5)), (([2], [1]), ([0], [0]))).shape
    (4, 2, 5)
    """
    return dot(lhs, rhs, dimension_numbers=dimension_numbers, precision=precision,
               preferred_element_type=preferred_element_type, out_sharding=out_sharding)


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over all leading (batch) dimensions: [..., m, k] x [..., k, n]."""
    if min(lhs.ndim, rhs.ndim) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {lhs.ndim}, "
                         f"{rhs.ndim}")
    if lhs.ndim != rhs.ndim:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {lhs.ndim}, "
                         f"{rhs.ndim}")
    batch = tuple(range(lhs.ndim - 2))
    return dot_general(lhs, rhs, (((lhs.ndim - 1,), (rhs.ndim - 2,)), (batch, batch)),
                       precision=precision)

