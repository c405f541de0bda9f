"""lax.full and full_like: arrays made from a scalar, as JAX's lax makes them (a
converted scalar broadcast with broadcast_in_dim).

    >>> lax.full((2, 3), 1.5)
    Array([[1.5, 1.5, 1.5],
           [1.5, 1.5, 1.5]], dtype=float32, weak_type=True)
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes, sharding_types, vma
from ..core.avals import MemorySpace, ShapedArray, get_aval  # noqa: F401 (empty2's, lax's name)
from ..core.basearray import Array
from ..core.mesh import AbstractMesh, concrete_mesh, get_mesh, legacy_mesh
from ..core.primitive import (Primitive, abstract_eval_rules, axis_batching_rules, impl_rules,
                              lowering_rules, numpy_rules, sharding_typing_rules, staging_rules)
from ..core.staging import JaxprTracer
from ..core.trace import Tracer
from ..transforms import ad_util as ad
from ..transforms.batch_util import defvectorized
from . import _lowering as hl
from .conversion import _convert_element_type, convert_element_type_p, refuse_text
from .shapes import broadcast, canonicalize_shape
from .sharding import canonicalize_sharding, laid_out
from ..xla.put import device_put


def full(shape, fill_value, dtype=None, *, sharding=None):
    """An array of `shape` filled with the scalar `fill_value` (cast to `dtype` if given).

    >>> lax.full((2,), 7, jnp.int8)
    Array([7, 7], dtype=int8)
    """
    shape = canonicalize_shape(shape)
    if np.shape(fill_value):
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{np.shape(fill_value)}.")
    if dtype is None:
        weak_type = dtypes.is_weakly_typed(fill_value)
        dtype = dtypes.dtype(fill_value)
    elif dtypes.is_extended(dtype):       # an extended dtype's rules fill it (JAX's)
        return dtype._rules.full(shape, fill_value, dtype)
    else:
        weak_type = False
        dtype = dtypes.canonicalize_user_dtype(dtypes.check_supported(dtype, "full dtype"),
                                               "full")
        if type(fill_value) is int and dtypes.is_int(dtype):
            # a Python int wraps to the requested integer width, as in JAX
            fill_value = np.asarray(fill_value).astype(dtype)
    return filled(_as_scalar(fill_value, dtype, weak_type), shape, sharding)


def filled(scalar, shape, sharding=None):
    """JAX's lax.full once its scalar is converted: `scalar` broadcast to `shape`. A sharding
    over an AbstractMesh (a traced value's type) types the result; a concrete one lays out an
    eager result and, as in JAX, is left out while tracing."""
    if sharding is None:
        return broadcast(scalar, shape)
    if isinstance(getattr(sharding, "mesh", None), AbstractMesh):
        return broadcast(scalar, shape, out_sharding=sharding)
    out = broadcast(scalar, shape)
    return out if isinstance(out, Tracer) else laid_out(out, sharding)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """An array like `x` (its shape and dtype unless given) filled with `fill_value`.

    >>> lax.full_like(jnp.zeros(3, jnp.int8), 2)
    Array([2, 2, 2], dtype=int8)
    """
    fill_shape = np.shape(x) if shape is None else canonicalize_shape(shape)
    weak_type = dtype is None and dtypes.is_weakly_typed(x)
    # JAX's dtypes.dtype of the dtype: np.int64 warns as requested in 'dtype', jnp.int64 is
    # narrowed quietly (even under ALLOW)
    # (text as a dtype's name: lax.full_like('int8', 0) is an int8 zero, 'a' is |S0, refused)
    dtype = dtypes.dtype_of_named(x) if dtype is None else \
        dtypes.check_supported(dtypes.dtype_of_named(dtype), "full_like dtype")
    refuse_text(fill_value)
    if dtypes.is_extended(dtype):         # an extended dtype's rules fill it (JAX's)
        return dtype._rules.full(fill_shape, fill_value, dtype)
    if type(fill_value) is int and dtypes.is_int(dtype):
        fill_value = np.asarray(fill_value).astype(dtype)
    if sharding is None and shape is None:
        sharding = sharding_types.traced_sharding(x)
    out = filled(_as_scalar(fill_value, dtype, weak_type), fill_shape, sharding)
    if sharding is None:
        out = laid_out_like(x, out)
    return vma.vary_like(out, x)


def laid_out_like(a, out):
    """`out` laid out as `a`, split over a mesh, as JAX's lax.full_like does (jnp.zeros_like
    too: optax's zeros_like of sharded parameters gives their optimizer state): `a`'s sharding
    (anything with a NamedSharding over devices, committed: Flax's hijax Variables too),
    unless the result is weakly typed or traced, or its shape differs (then on `a`'s device, or
    replicated over the mesh if `a` was fully replicated; else as it is)."""
    if isinstance(a, (Tracer, np.ndarray)) or isinstance(out, Tracer) or out.aval.weak_type or \
            not hasattr(a, "sharding"):
        return out
    sharding = a.sharding
    committed = getattr(a, "committed", getattr(a, "_committed", True))
    if type(sharding).__name__ == "SingleDeviceSharding" and committed:
        # committed to `a`'s device, as JAX's, whatever the shape (one device holds it all)
        return device_put(out, sharding)
    if isinstance(getattr(sharding, "mesh", None), AbstractMesh):
        # (a ShapeDtypeStruct's over an AbstractMesh: over set_mesh's devices where one of its
        # size is set, as JAX's full_like, which takes it while a concrete mesh is in context)
        mesh = get_mesh()
        if mesh is None or mesh.empty or mesh is legacy_mesh() or \
                mesh.size != sharding.mesh.size:
            return out
        sharding = type(sharding)(concrete_mesh(sharding.mesh, mesh), sharding.spec,
                                  memory_kind=sharding.memory_kind)
    if type(sharding).__name__ != "NamedSharding" or not hasattr(sharding.mesh, "devices") or \
            not committed:
        return out                          # (an AbstractMesh has no devices)
    if out.shape != a.shape:
        if not sharding.is_fully_replicated:
            return out
        sharding = type(sharding)(sharding.mesh, type(sharding.spec)(),
                                  memory_kind=sharding.memory_kind)
    return device_put(out, sharding)



def _as_scalar(value, dtype, weak_type):
    aval = getattr(value, "aval", None)
    if aval is not None and aval.dtype == dtype and aval.weak_type == weak_type:
        return value                        # already right: no conversion in the jaxpr
    return _convert_element_type(value, dtype, weak_type)


# ------------------------------------------------------------------ empty
# An array whose values the program may leave unset (JAX: zeros on CPU; an uninitialized
# buffer on GPU and TPU): what scan's carries and loops' outputs start from.
empty_p = Primitive("empty")


def _empty_abstract_eval(*, shape, dtype, out_sharding=None):
    return ShapedArray(shape, dtypes.check_supported(dtype))


def _empty_lowering(ctx, *, shape, dtype, out_sharding=None):
    # as JAX on CPU: a zero broadcast to the shape
    return hl.splat(ctx, 0, np.dtype(dtype), shape)


def _empty_batching(axis_data, vals, dims, *, shape, dtype, out_sharding=None):
    return empty_p.bind(shape=(axis_data.size,) + shape, dtype=dtype, out_sharding=None), 0


abstract_eval_rules[empty_p] = _empty_abstract_eval
lowering_rules[empty_p] = _empty_lowering
numpy_rules[empty_p] = lambda *, shape, dtype, out_sharding=None: np.zeros(shape, dtype)  # as CPU
ad.defjvp_zero(empty_p)
axis_batching_rules[empty_p] = _empty_batching
sharding_typing_rules[empty_p] = sharding_types.given_or_rule(empty_p, "out_sharding")


# ------------------------------------------------------------------ empty2
# JAX's scalar placeholder (lax.empty2) that a cond's known branches return for the residual
# slots another branch fills, broadcast to the residual's shape (ad_util.empty_like_aval):
# a learner's grad-of-cond jaxpr shows `empty2[dtype=float32 memory_space=MemorySpace.Device]`.
# (MemorySpace: core/avals.py)
empty2_p = Primitive("empty2")
abstract_eval_rules[empty2_p] = lambda *, dtype, memory_space: ShapedArray(
    (), dtype, memory_space=memory_space)
lowering_rules[empty2_p] = lambda ctx, *, dtype, memory_space: hl.splat(ctx, 0, np.dtype(dtype),
                                                                        ())
numpy_rules[empty2_p] = lambda *, dtype, memory_space: np.zeros((), dtype)    # zeros, as CPU
ad.defjvp_zero(empty2_p)
sharding_types.own_memory_space_rules.add(empty2_p)     # (its memory_space's)


def empty_like_aval(aval):
    """JAX's ad_util.empty_like_aval: empty2 broadcast to `aval`'s shape, in its memory
    (a host residual's placeholder is host-typed)."""
    dtype = aval.dtype if dtypes.is_extended(aval.dtype) else np.dtype(aval.dtype)
    space = getattr(aval, "memory_space", MemorySpace.Device)
    return broadcast(empty2_p.bind(dtype=dtype, memory_space=space), tuple(aval.shape))


def empty(shape, dtype, *, out_sharding=None):
    """An array of `shape` and `dtype` whose values are unspecified (zeros on CPU).

    >>> lax.empty((2,), jnp.float32).shape
    (2,)
    """
    # (typed as out_sharding says: given_or_rule below)
    return empty_p.bind(shape=canonicalize_shape(shape), dtype=dtypes.canonicalize_named(dtype),
                        out_sharding=canonicalize_sharding(out_sharding, "lax.empty"))


# ------------------------------------------------------------------ stage
# The identity that lifts a value (a Python scalar, NumPy data) into the current trace: an
# Array eagerly, the trace's value while tracing. Staged it records no equation, as JAX's
# stage_value: a constant stays a constant (a literal in the jaxpr, foldable).
stage_p = Primitive("stage")


def _stage_impl(x):
    if isinstance(x, Array):
        return x
    aval = get_aval(x)
    return convert_element_type_p.bind(x, new_dtype=aval.dtype, weak_type=aval.weak_type,
                                       sharding=None)


def _stage_staging(trace, args, params):
    x, = args
    if isinstance(x, JaxprTracer) and x._trace is trace:
        return x
    if isinstance(x, Tracer):                   # a value of an outer trace: an input here
        return trace.tracer_type(trace, x.aval, trace.to_atom(x))
    return trace.tracer_type(trace, get_aval(x), None, x)


abstract_eval_rules[stage_p] = lambda aval: aval
impl_rules[stage_p] = _stage_impl
staging_rules[stage_p] = _stage_staging
lowering_rules[stage_p] = lambda ctx, x: x
numpy_rules[stage_p] = lambda x: x
ad.deflinear(stage_p, lambda ct: [ct])
defvectorized(stage_p)


def stage(x, /):
    """`x` lifted into the active trace (an Array outside any): logically the identity.

    >>> lax.stage(3)
    Array(3, dtype=int32, weak_type=True)
    """
    return stage_p.bind(x)
