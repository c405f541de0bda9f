"""Dtype conversions: convert_element_type (which also sets weak types) and
bitcast_convert_type (reinterpreting bits)."""
from __future__ import annotations

import numpy as np

from ..core import dtypes, sharding_types
from ..core.avals import ShapedArray
# declared in core so that transforms/ can bind it; its rules are here. The binder there also
# sets the weak-type flag (jnp's promotion needs it): lax's _convert_element_type.
from ..core.interpreter_primitives import convert_element_type as _convert_element_type
from ..core.interpreter_primitives import convert_element_type_p
from ..core.ir import Literal, param_printers
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, const_folding_rules,
                              impl_rules, jvp_rules, lowering_rules, numpy_rules,
                              sharding_rules, transpose_rules)
from ..xla.array import Array, host_to_device
from ..xla.client import default_device
from ..xla.dispatch import run_compiled
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from . import _lowering as hl


def _convert_abstract_eval(operand, *, new_dtype, weak_type, sharding=None):
    return ShapedArray(operand.shape, dtypes.check_supported(new_dtype), weak_type)


def _convert_lowering(ctx, x, *, new_dtype, weak_type, sharding=None):
    aval_in = ctx.avals_in[0]
    if aval_in.dtype == new_dtype and new_dtype != dtypes.bool_:
        # JAX writes the convert even so (a weak type made strong): XLA drops it, the reader sees it
        return ctx.op1("stablehlo.convert", [x], result_type=hl.aval_type(ctx.avals_out[0]))
    if aval_in.dtype == new_dtype:
        return x
    if dtypes.is_complex(aval_in.dtype) and not dtypes.is_complex(new_dtype):
        # complex -> real keeps the real part (stablehlo.convert would refuse)
        real = ShapedArray(aval_in.shape, dtypes.float64 if aval_in.dtype == dtypes.complex128
                           else dtypes.float32)
        x = ctx.op1("stablehlo.real", [x], result_type=hl.aval_type(real))
        aval_in = real
    if new_dtype == dtypes.bool_ and aval_in.dtype != dtypes.bool_:
        zero = hl.splat(ctx, 0, aval_in.dtype, aval_in.shape)
        return hl.compare(ctx, x, zero, "NE", aval_in)
    return hl.convert(ctx, x, aval_in, new_dtype)


def _convert_fold(operand, *, new_dtype, weak_type, sharding=None):
    """Converting a Python/NumPy scalar while staging gives a new constant, not an equation,
    so `x * 2.0` stages as `mul x 2.0:f32[]` (as in JAX)."""
    if type(operand) in (int, float, complex) and weak_type and \
            np.dtype(new_dtype) == dtypes.python_scalar_dtype(operand):
        # a Python scalar already of its weak type: keep it (printed at full precision)
        return operand, ShapedArray((), new_dtype, True)
    value = np.asarray(operand)
    if value.shape:
        return None
    if dtypes.is_complex(value.dtype) and not dtypes.is_complex(new_dtype):
        value = value.real
    return value.astype(new_dtype)[()], ShapedArray((), new_dtype, weak_type)


def _convert_impl(operand, *, new_dtype, weak_type, sharding=None):
    """Eagerly, host constants (Python/NumPy scalars) convert in NumPy: no XLA call."""
    if type(operand) is Literal:
        operand = operand.val
    if not isinstance(operand, Array):
        folded = _convert_fold(operand, new_dtype=new_dtype, weak_type=weak_type)
        if folded is not None:
            value, aval = folded
            return host_to_device(np.asarray(value, aval.dtype), aval, default_device())
    return run_compiled(convert_element_type_p, (operand,),
                        dict(new_dtype=new_dtype, weak_type=weak_type, sharding=sharding))


def _convert_numpy(x, *, new_dtype, weak_type, sharding=None):
    """As the lowering: complex to real keeps the real part, to bool tests != 0, and a float
    to an integer saturates at the integer's range with NaN as 0 (XLA's conversion; C's
    would be undefined)."""
    new_dtype = np.dtype(new_dtype)
    if x.dtype == new_dtype:
        return x
    if dtypes.is_complex(x.dtype) and not dtypes.is_complex(new_dtype):
        x = np.real(x)
    if new_dtype == dtypes.bool_:
        return x != 0
    if new_dtype.kind in "iu" and x.dtype.kind not in "iub":     # a float (ml_dtypes' too)
        info = np.iinfo(new_dtype)
        wide = np.clip(np.nan_to_num(x.astype(np.float64), nan=0.0), info.min, info.max)
        # float64 rounds the 64-bit maxima up to 2**63 / 2**64: those saturate explicitly
        big = wide >= float(info.max)
        return np.where(big, info.max, np.where(big, 0, wide).astype(new_dtype)).astype(new_dtype)
    return x.astype(new_dtype)


abstract_eval_rules[convert_element_type_p] = _convert_abstract_eval
numpy_rules[convert_element_type_p] = _convert_numpy
lowering_rules[convert_element_type_p] = _convert_lowering
const_folding_rules[convert_element_type_p] = _convert_fold
impl_rules[convert_element_type_p] = _convert_impl
bu.defvectorized(convert_element_type_p)


def _stop_gradient_impl(x):
    """Eagerly an Array is its own value, as JAX's impl returns x: no identity program
    compiled (and copied into) per shape and dtype. Host values still become Arrays."""
    if isinstance(x, Array):
        return x
    return run_compiled(ad.stop_gradient_p, (x,), {})


impl_rules[ad.stop_gradient_p] = _stop_gradient_impl


def _convert_jvp(primals, tangents, *, new_dtype, weak_type, sharding=None):
    (x,), (t,) = primals, tangents
    ans = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type,
                                      sharding=sharding)
    if type(t) is ad.Zero or not dtypes.is_inexact(new_dtype) or \
            not dtypes.is_inexact(ad.aval_of(x).dtype):
        return ans, ad.Zero(ad.aval_of(ans))
    return ans, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type,
                                            sharding=sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding=None):
    old = x.aval
    if type(ct) is ad.Zero:
        return [ad.Zero(old)]
    c = ad.aval_of(ct)
    if c.dtype == old.dtype and c.weak_type == old.weak_type and sharding is None:
        # already of the operand's type: JAX binds the conversion and its trace forwards the
        # operand (_convert_elt_type_fwd_rule), so no equation is staged; the same here (a
        # transposed scan's carry, typed by its cotangent, ends at its last `mul` as JAX's)
        return [ct]
    return [convert_element_type_p.bind(ct, new_dtype=old.dtype, weak_type=old.weak_type,
                                        sharding=sharding)]


param_printers[convert_element_type_p] = lambda p: [
    (k, v) for k, v in sorted(p.items()) if not (k == "sharding" and v is None)]
jvp_rules[convert_element_type_p] = _convert_jvp

transpose_rules[convert_element_type_p] = _convert_transpose
sharding_rules[convert_element_type_p] = sharding_types.same_as_operand_rule

bitcast_convert_type_p = Primitive("bitcast_convert_type")


def _bitcast_abstract_eval(operand, *, new_dtype):
    old, new = operand.dtype, dtypes.check_supported(new_dtype)
    if (old == dtypes.bool_) != (new == dtypes.bool_):
        raise TypeError(f"bitcast_convert_type between bool and {new.name if old == dtypes.bool_ else old.name}"
                        f" is not allowed")
    if old.itemsize == new.itemsize:
        shape = operand.shape
    elif old.itemsize > new.itemsize:
        shape = operand.shape + (old.itemsize // new.itemsize,)
    else:
        ratio = new.itemsize // old.itemsize
        if not operand.shape or operand.shape[-1] != ratio:
            raise TypeError(f"bitcast_convert_type from {old.name} to {new.name} needs an operand "
                            f"whose last dimension is {ratio}; got shape {operand.shape}")
        shape = operand.shape[:-1]
    return ShapedArray(shape, new, False)


def _bitcast_batching(vals, dims, *, new_dtype):
    (x,), (d,) = vals, dims
    if d == bu.ndim(x) - 1:        # widening may consume the last dim: keep the batch dim clear
        x, d = bu.moveaxis(x, d, 0), 0
    return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), d


abstract_eval_rules[bitcast_convert_type_p] = _bitcast_abstract_eval
batching_rules[bitcast_convert_type_p] = _bitcast_batching
ad.defjvp_zero(bitcast_convert_type_p)
lowering_rules[bitcast_convert_type_p] = lambda ctx, x, *, new_dtype: ctx.op1(
    "stablehlo.bitcast_convert", [x])


def _bitcast_numpy(x, *, new_dtype):
    """x's bytes read as new_dtype (little-endian, as XLA's CPU): a narrower type adds a last
    dimension, a wider one consumes it."""
    new_dtype = np.dtype(new_dtype)
    x = np.array(x, order="C", copy=None)      # (not ascontiguousarray: it makes 0-d 1-d)
    if new_dtype.itemsize >= x.dtype.itemsize:
        out = x.view(new_dtype)
        return out.reshape(out.shape[:-1]) if new_dtype.itemsize > x.dtype.itemsize else out
    return x.reshape(x.shape + (1,)).view(new_dtype)


numpy_rules[bitcast_convert_type_p] = _bitcast_numpy


def convert_element_type(operand, new_dtype):
    """`operand` as `new_dtype` (complex to real keeps the real part; to bool tests != 0)."""
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    if getattr(operand, "dtype", None) == new_dtype and not dtypes.is_weakly_typed(operand) \
            and hasattr(operand, "aval"):
        return operand
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=False,
                                       sharding=None)


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of `operand` as `new_dtype` (adding/removing a last dimension when
    the widths differ)."""
    return bitcast_convert_type_p.bind(operand, new_dtype=dtypes.check_supported(new_dtype))
