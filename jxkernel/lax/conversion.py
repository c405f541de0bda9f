"""Dtype conversions: convert_element_type (which also sets weak types) and
bitcast_convert_type (reinterpreting bits)."""
from __future__ import annotations

import numpy as np

from ..core import dtypes, sharding_types
from ..core.avals import ShapedArray, Token, abstract_token, public_type
from ..core.errors import not_a_jax_value
# declared in core so that transforms/ can bind it; its rules are here. The binder there also
# sets the weak-type flag (jnp's promotion needs it): lax's _convert_element_type.
from ..core.interpreter_primitives import convert_element_type as _convert_element_type
from ..core.interpreter_primitives import convert_element_type_p
from ..core.ir import Literal, param_printers
from ..core.mesh import NamedSharding, PartitionSpec
from ..core.physical import element_aval, physical_aval, physical_value, wrap_physical
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, const_folding_rules,
                              forwarding_rules, impl_rules, jvp_rules, lowering_rules, numpy_rules,
                              sharding_rules, transpose_rules)
from ..xla.array import Array, host_to_device
from ..xla.client import default_device
from ..xla.dispatch import run_compiled
from ..transforms import ad_util as ad
from ..transforms import batch_util as bu
from . import _lowering as hl
from ._rules import refuse_token


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


def _past_range(operand, new_dtype) -> bool:
    """Whether `operand` is a Python float (or complex) NumPy will not put in `new_dtype` (out of
    an integer's range, or NaN or an infinity to an integer): JAX converts such a number eagerly
    with XLA's conversion, which saturates (NaN as 0), where a NumPy cast's is the CPU's. (A
    Python int is cast on the host as JAX's: an int64's low bits.)"""
    if type(operand) not in (float, complex):
        return False
    if dtypes.issubdtype(new_dtype, np.integer) and not np.isfinite(operand):
        return True
    try:
        np.asarray(operand, dtype=new_dtype)
    except (OverflowError, ValueError, TypeError):
        return True
    return False


def _convert_impl(operand, *, new_dtype, weak_type, sharding=None):
    """Eagerly, host constants (Python/NumPy scalars) convert in NumPy: no XLA call."""
    if type(operand) is Literal:
        operand = operand.val
    if not isinstance(operand, Array) and not _past_range(operand, new_dtype):
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
    if dtypes.issubdtype(new_dtype, np.integer) and x.dtype != dtypes.bool_ \
            and not dtypes.issubdtype(x.dtype, np.integer):   # a float (ml_dtypes' too)
        # (issubdtype, not the NumPy kind: ml_dtypes' int2/int4/uint2/uint4 are kind 'V', and
        # their astype from an out-of-range float is the CPU's)
        info = dtypes.iinfo(new_dtype)
        wide = np.clip(np.nan_to_num(x.astype(np.float64), nan=0.0), info.min, info.max)
        # float64 rounds the 64-bit maxima up to 2**63 / 2**64: those saturate explicitly
        big = wide >= float(info.max)
        return np.where(big, info.max, np.where(big, 0, wide).astype(new_dtype)).astype(new_dtype)
    return x.astype(new_dtype)


def _convert_forwarding(in_avals, *, new_dtype, weak_type, sharding=None):
    # JAX's _convert_elt_type_fwd_rule: to its own dtype and weak type, with no sharding or
    # its type's own, the result is the operand: a staging trace makes no equation (jacfwd's
    # basis sets a sharding of another rank, as JAX's, and keeps its conversion)
    aval = in_avals[0]
    same = aval.dtype == new_dtype and aval.weak_type == weak_type and (
        sharding is None or sharding == public_type(aval).sharding)
    return [0] if same and not dtypes.is_extended(aval.dtype) else [None]


abstract_eval_rules[convert_element_type_p] = _convert_abstract_eval
forwarding_rules[convert_element_type_p] = _convert_forwarding
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


# the sharding is left out, as JAX's pp rule leaves it: the result's type says it
param_printers[convert_element_type_p] = lambda p: [
    (k, v) for k, v in sorted(p.items()) if k != "sharding"]
jvp_rules[convert_element_type_p] = _convert_jvp

transpose_rules[convert_element_type_p] = _convert_transpose
sharding_rules[convert_element_type_p] = sharding_types.same_as_operand_rule

bitcast_convert_type_p = Primitive("bitcast_convert_type")


def _bitcast_abstract_eval(operand, *, new_dtype):
    refuse_token("bitcast_convert_type", operand)
    old, new = operand.dtype, dtypes.check_supported(new_dtype)
    if (old == dtypes.bool_) != (new == dtypes.bool_):
        other = new.name if old == dtypes.bool_ else old.name
        raise TypeError(f"bitcast_convert_type between bool and {other} is not allowed")
    old_bits, new_bits = dtypes.bit_width(old), dtypes.bit_width(new)   # int4: 4, not 8
    if old_bits == new_bits:
        shape = operand.shape
    elif old_bits > new_bits:
        shape = operand.shape + (old_bits // new_bits,)
    else:
        ratio = new_bits // old_bits
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


def _bitcast_sharding_rule(name, in_avals, params, out_avals):
    """The operand's axes as split; a narrower type's new last axis unsplit, a wider type's
    consumed one dropped (JAX's)."""
    parts = sharding_types.parts_of(in_avals[0])
    return (parts + [()])[:len(out_avals[0].shape)]


abstract_eval_rules[bitcast_convert_type_p] = _bitcast_abstract_eval
sharding_rules[bitcast_convert_type_p] = _bitcast_sharding_rule
batching_rules[bitcast_convert_type_p] = _bitcast_batching
ad.defjvp_zero(bitcast_convert_type_p)
lowering_rules[bitcast_convert_type_p] = lambda ctx, x, *, new_dtype: ctx.op1(
    "stablehlo.bitcast_convert", [x])


def _bitcast_numpy(x, *, new_dtype):
    """x's bytes read as new_dtype (little-endian, as XLA's CPU): a narrower type adds a last
    dimension, a wider one consumes it."""
    new_dtype = np.dtype(new_dtype)
    x = np.array(x, order="C", copy=None)      # (not ascontiguousarray: it makes 0-d 1-d)
    if dtypes.bit_width(new_dtype) != 8 * new_dtype.itemsize or \
            dtypes.bit_width(x.dtype) != 8 * x.dtype.itemsize:
        return _bitcast_sub_byte(x, new_dtype)
    if new_dtype.itemsize >= x.dtype.itemsize:
        out = x.view(new_dtype)
        return out.reshape(out.shape[:-1]) if new_dtype.itemsize > x.dtype.itemsize else out
    return x.reshape(x.shape + (1,)).view(new_dtype)


def _bitcast_sub_byte(x, new_dtype):
    """The bitcast where a side is narrower than a byte (int4, uint2, float4_e2m1fn...), as
    XLA packs them: each element's bits little-endian, the first element in the lowest bits
    (int8 1 is int4 [1, 0]). NumPy keeps such an element alone in a byte's low bits."""
    w_in, w_out = dtypes.bit_width(x.dtype), dtypes.bit_width(new_dtype)
    if w_in < 8:                    # each element's own bits, from its byte's low ones
        bits = np.unpackbits(x.view(np.uint8)[..., None], axis=-1, bitorder="little")[..., :w_in]
    else:
        # (a last dimension first: a 0-d array's view cannot change its itemsize)
        bits = np.unpackbits(x.reshape(x.shape + (1,)).view(np.uint8), axis=-1,
                             bitorder="little")
    if w_out < w_in:                # a new last dimension of w_in // w_out elements
        bits = bits.reshape(x.shape + (w_in // w_out, w_out))
    elif w_out > w_in:              # x's last dimension (w_out // w_in elements) consumed
        bits = bits.reshape(x.shape[:-1] + (w_out,))
    if w_out < 8:
        nibbles = (bits.astype(np.uint8) << np.arange(w_out, dtype=np.uint8)).sum(
            -1, dtype=np.uint8)
        return nibbles.view(new_dtype)
    out = np.packbits(bits, axis=-1, bitorder="little").view(new_dtype)
    return out.reshape(out.shape[:-1])


numpy_rules[bitcast_convert_type_p] = _bitcast_numpy


def refuse_text(operand) -> None:
    """JAX's _convert_element_type of a str or bytes (jnp's checks pass text: `jnp.power('int8',
    2)`, `jnp.full_like(x, 'int8')`): it reads the text as a dtype's name (np.dtype('a') is
    |S0, no type of JAX's arrays), then its bind refuses the text itself."""
    if isinstance(operand, (str, bytes)):
        dtypes.dtype_of_named(operand)
        raise not_a_jax_value("convert_element_type", 0, operand)


def convert_element_type(operand, new_dtype):
    """`operand` as `new_dtype` (complex to real keeps the real part; to bool tests != 0).
    To or from an extended dtype it is to_edtype or from_edtype, as JAX's."""
    refuse_text(operand)
    if type(operand) is Token or getattr(operand, "aval", None) is abstract_token:
        raise TypeError(f"Cannot determine dtype of {operand}")    # (JAX's dtypes.dtype's)
    old_dtype = getattr(operand, "dtype", None)
    if dtypes.is_extended(new_dtype) or dtypes.is_extended(old_dtype):
        if new_dtype == old_dtype:
            return operand
        if dtypes.is_extended(new_dtype) and dtypes.is_extended(old_dtype):
            old_rep, new_rep = element_aval(old_dtype).dtype, element_aval(new_dtype).dtype
            raise ValueError(f"cannot directly convert between extended dtypes: from "
                             f"{old_dtype} to {new_dtype}. Instead, convert to and from "
                             f"their representation dtypes, e.g.:\n{old_dtype} -> {old_rep} "
                             f"-> {new_rep} -> {new_dtype}")
        if dtypes.is_extended(new_dtype):
            return to_edtype_p.bind(operand, edtype=new_dtype)
        return from_edtype_p.bind(operand, dtype=np.dtype(new_dtype))
    # the user's dtype: int64 without x64 warns and narrows (kept under ALLOW), as JAX's
    new_dtype = dtypes.canonicalize_user_dtype(new_dtype, "convert_element_type")
    if getattr(operand, "dtype", None) == new_dtype and not dtypes.is_weakly_typed(operand) \
            and hasattr(operand, "aval"):
        return operand
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=False,
                                       sharding=None)


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of `operand` as `new_dtype` (adding/removing a last dimension when
    the widths differ)."""
    new_dtype = dtypes.canonicalize_user_dtype(dtypes.check_supported(new_dtype),
                                               "bitcast_convert_type")
    return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)


# ------------------------------------------------------------------ extended dtypes
# convert_element_type to or from an extended dtype (core/dtypes.py's ExtendedDType) is one
# of these, as in JAX: to_edtype reads an array of the type's representation dtype, whose
# trailing axes are one element's data (its rules' physical_element_aval), as the type;
# from_edtype is the reverse. On the data both are the identity (their physical rule).
to_edtype_p = Primitive("to_edtype")
from_edtype_p = Primitive("from_edtype")


def _allowed(rules, hook, *args) -> bool:
    """The rules' answer to whether a conversion may happen: `convert_to`/`convert_from`
    where they have one, else their `allow_conversion` (JAX's older hook)."""
    fn = getattr(rules, hook, None)
    return bool(fn(*args)) if fn is not None else bool(getattr(rules, "allow_conversion", False))


def _prefix_sharding(aval, n):
    sharding = aval.split
    if sharding is None or not hasattr(sharding, "spec"):
        return None
    spec = sharding.spec.partitions
    return NamedSharding(sharding.mesh, PartitionSpec(*spec[:n]))


def _to_edtype_abstract_eval(x, *, edtype):
    if not _allowed(edtype._rules, "convert_to", x.dtype, edtype):
        raise ValueError(f"Cannot convert_element_type from {x.dtype} to {edtype}")
    rep = element_aval(edtype)
    if x.dtype != rep.dtype:
        raise ValueError(
            f"can only convert to extended dtype from its representation dtype, but tried to "
            f"convert from {x.dtype} to {edtype} which doesn't match the representation type "
            f"{rep.dtype}.")
    n = len(x.shape) - len(rep.shape)
    if n < 0:
        raise ValueError(
            f"can only convert to extended dtype from an array of its representation type, "
            f"but the extended dtype {edtype} has a representation shape {tuple(rep.shape)} "
            f"(rank {len(rep.shape)}) while the given representation array has shape "
            f"{tuple(x.shape)} (rank {len(x.shape)} < {len(rep.shape)}).")
    if tuple(x.shape[n:]) != tuple(rep.shape):
        raise ValueError(
            f"can only convert to extended dtype from an array of its representation type, "
            f"but the extended dtype {edtype} has a representation shape {tuple(rep.shape)} "
            f"while the given representation array has shape {tuple(x.shape)}, so the shape "
            f"suffix does not match: given {tuple(x.shape[n:])} but required "
            f"{tuple(rep.shape)}.")
    return ShapedArray(x.shape[:n], edtype, False, x.vma, _prefix_sharding(x, n))


def _from_edtype_abstract_eval(x, *, dtype):
    if not _allowed(x.dtype._rules, "convert_from", x.dtype, dtype):
        raise ValueError(f"Cannot convert_element_type from {x.dtype} to {dtype}")
    rep = element_aval(x.dtype)
    if rep.dtype != dtype:
        raise ValueError(
            f"can only convert from extended dtype to its representation dtype, but tried to "
            f"convert from {x.dtype} to {dtype} which doesn't match the representation type "
            f"{rep.dtype}.")
    sharding = x.split
    if sharding is not None and hasattr(sharding, "spec"):
        sharding = physical_aval(x).split
    return ShapedArray((*x.shape, *rep.shape), dtype, False, x.vma, sharding)


def _to_edtype_impl(x, *, edtype):
    """Eagerly an Array's data is the converted array's as it is (no program runs): the
    value is what the type's rules make over it (an EArray, or the type's own class)."""
    if type(x) is Array:
        return wrap_physical(_to_edtype_abstract_eval(x.aval, edtype=edtype), x)
    return run_compiled(to_edtype_p, (x,), {"edtype": edtype})


def _from_edtype_impl(x, *, dtype):
    _from_edtype_abstract_eval(x.aval, dtype=dtype)          # (its errors, eagerly too)
    data = physical_value(x)
    return data if type(data) is Array else run_compiled(from_edtype_p, (x,), {"dtype": dtype})


def _to_edtype_jvp(primals, tangents, *, edtype):
    (x,), (t,) = primals, tangents
    out = to_edtype_p.bind(x, edtype=edtype)
    t_dtype = dtypes.primal_dtype_to_tangent_dtype(edtype)
    if type(t) is ad.Zero or not dtypes.has_tangent(t_dtype):
        return out, ad.Zero(ad.aval_of(out).to_tangent_aval())
    return out, convert_element_type(t, t_dtype)


def _from_edtype_jvp(primals, tangents, *, dtype):
    (x,), (t,) = primals, tangents
    out = from_edtype_p.bind(x, dtype=dtype)
    t_dtype = dtypes.primal_dtype_to_tangent_dtype(dtype)
    if type(t) is ad.Zero or not dtypes.has_tangent(t_dtype):
        return out, ad.Zero(ad.aval_of(out).to_tangent_aval())
    return out, convert_element_type(t, t_dtype)


def _to_edtype_transpose(ct, x, *, edtype):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    return [from_edtype_p.bind(ct, dtype=x.aval.dtype)]


def _from_edtype_transpose(ct, x, *, dtype):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    return [to_edtype_p.bind(ct, edtype=x.aval.dtype)]


def _edtype_batcher(prim):
    # the batch axis moved to the front: to_edtype's trailing axes are one element's data,
    # which a batch axis must not be among
    def rule(vals, dims, **params):
        (x,), (d,) = vals, dims
        return prim.bind(bu.moveaxis(x, d, 0), **params), 0
    return rule


for _prim, _eval, _impl, _jvp, _tr in (
        (to_edtype_p, _to_edtype_abstract_eval, _to_edtype_impl, _to_edtype_jvp,
         _to_edtype_transpose),
        (from_edtype_p, _from_edtype_abstract_eval, _from_edtype_impl, _from_edtype_jvp,
         _from_edtype_transpose)):
    abstract_eval_rules[_prim] = _eval
    impl_rules[_prim] = _impl
    jvp_rules[_prim] = _jvp
    transpose_rules[_prim] = _tr
    batching_rules[_prim] = _edtype_batcher(_prim)
    # (no lowering or NumPy rule: core/physical.py's pass replaces both by their physical
    # rule, the identity on the data, lax/edtype_rules.py, before any backend sees a jaxpr)

# the mesh axes their results are unreduced and reduced over (JAX's ur rules)
sharding_types.ur_rules[convert_element_type_p] = sharding_types.given_or_operand_ur_rule
# their abstract evals type their results over the operand's split (the leading dimensions',
# or the physical array's), as JAX's rules: no sharding rule replaces it
sharding_types.sharding_typing_rules[to_edtype_p] = lambda in_avals, params, out_avals: out_avals
sharding_types.sharding_typing_rules[from_edtype_p] = \
    lambda in_avals, params, out_avals: out_avals
