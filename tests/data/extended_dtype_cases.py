"""Cases for extended dtypes defined as a user (or Flax's fp8_meta32) defines them, run alike by
JAX 0.10.2 (reference/make_extended_dtype_reference.py, into extended_dtype_reference.json)
and by jxkernel (tests/core/test_extended_dtypes.py): each returns text, compared exactly.

`jax` is the library (jax, or jxkernel under JAX's names); `src` a namespace of its private
modules: `core` (jax._src.core), `dtypes` (jax._src.dtypes), `earray` (jax._src.earray) and
`pxla` (jax._src.interpreters.pxla).

Two types: `maxf32`, one float32 per element whose contributions accumulate by max (as Flax's
fp8_meta32), with a result handler making EArrays; `pair`, two float32 per element (a trailing
data axis, as a typed key's), with no result handler of its own, used inside jit only.
"""
import dataclasses

import numpy as np


def make_types(jax, src):
    lax = jax.lax
    core, dtypes, earray, pxla = src.core, src.dtypes, src.earray, src.pxla

    class MaxRules:
        @staticmethod
        def physical_element_aval(dtype):
            return core.ShapedArray((), np.dtype("float32"))

        @staticmethod
        def convert_from(edtype, other):
            return other == np.dtype("float32")

        @staticmethod
        def convert_to(other, edtype):
            return other == np.dtype("float32")

        @staticmethod
        def add(dt, x, y):
            return lax.convert_element_type(
                lax.max(lax.convert_element_type(x, np.float32),
                        lax.convert_element_type(y, np.float32)), dt)

        @staticmethod
        def zero(dt):
            return lax.convert_element_type(np.array(-np.inf, np.float32), dt)

        @staticmethod
        def tangent_dtype(dtype):
            return dtype

        @staticmethod
        def full(shape, fill_value, dtype):
            raw = lax.full(shape, lax.convert_element_type(fill_value, np.float32), np.float32)
            return lax.convert_element_type(raw, dtype)

        @staticmethod
        def global_sharded_result_handler(aval, out_sharding, committed):
            phys_aval = core.physical_aval(aval)
            phys = pxla.global_result_handlers[core.ShapedArray](phys_aval, out_sharding,
                                                                 committed)
            return lambda bufs: earray.EArray(aval, phys(bufs))

    class maxf32_scalar(dtypes.extended):
        pass

    @dataclasses.dataclass(frozen=True)
    class MaxF32(dtypes.ExtendedDType):
        _rules: type = MaxRules
        type: type = maxf32_scalar
        name: str = "maxf32"

        def __repr__(self):
            return "maxf32"

    class PairRules:
        @staticmethod
        def physical_element_aval(dtype):
            return core.ShapedArray((2,), np.dtype("float32"))

        allow_conversion = True

        @staticmethod
        def tangent_dtype(dtype):
            return dtypes.float0 if hasattr(dtypes, "float0") else jax.dtypes.float0

    class pair_scalar(dtypes.extended):
        pass

    @dataclasses.dataclass(frozen=True)
    class Pair(dtypes.ExtendedDType):
        _rules: type = PairRules
        type: type = pair_scalar
        name: str = "pair"

        def __repr__(self):
            return "pair"

    return MaxF32(), Pair()


def _err(fn):
    try:
        fn()
    except Exception as e:       # the type and text of the library's refusal
        return f"{type(e).__name__}: {e}"
    return "no error"


def run_cases(jax, src) -> dict:
    jnp, lax = jax.numpy, jax.lax
    maxf32, pair = make_types(jax, src)
    f32 = np.float32
    to_m = lambda x: lax.convert_element_type(x, maxf32)
    from_m = lambda e: lax.convert_element_type(e, f32)
    out = {}
    x = jnp.array([1.0, -2.0, 3.0], f32)

    out["issubdtype"] = repr((jnp.issubdtype(maxf32, jax.dtypes.extended),
                              jnp.issubdtype(maxf32, np.floating), maxf32.name))
    # eagerly: the rules' result handler makes the value (an EArray), read back as float32
    e = to_m(x)
    out["eager_to"] = repr((type(e).__name__, e.shape, str(e.dtype), str(jax.typeof(e))))
    out["eager_back"] = repr(np.asarray(from_m(e)).tolist())
    out["eager_repr"] = repr(e)
    out["round_trip_jaxpr"] = str(jax.make_jaxpr(lambda x: from_m(to_m(x)))(x))

    # jit: in and out of the type, and a value of the type as argument and result
    out["jit_round_trip"] = repr(np.asarray(jax.jit(lambda x: from_m(to_m(x)) * 2)(x)).tolist())
    je = jax.jit(to_m)(x)
    out["jit_result"] = repr((type(je).__name__, str(jax.typeof(je)),
                              np.asarray(from_m(je)).tolist()))
    out["jit_argument"] = repr(np.asarray(jax.jit(lambda e: from_m(e) + 1)(e)).tolist())
    out["jit_argument_jaxpr"] = str(jax.make_jaxpr(jax.jit(lambda e: from_m(e) + 1))(e))

    # vmap: the batch axis is the type's axis
    out["vmap"] = repr(np.asarray(jax.vmap(lambda r: from_m(to_m(r)) * 3)(
        jnp.arange(6.0, dtype=f32).reshape(2, 3))).tolist())
    out["vmap_of_value"] = repr(np.asarray(jax.vmap(lambda e: from_m(e) - 1)(e)).tolist())

    # grad: the type is its own tangent type, and its rules' add (max) accumulates the
    # contributions to a value's cotangent where float32 would sum them. The cotangents of
    # the type come from a custom_vjp's bwd, as in Flax's fp8 ops (JAX 0.10.2's transpose of
    # from_edtype fails on its own, reading `.dtype` of an undefined primal)
    @jax.custom_vjp
    def scaled(x, m):
        return x * from_m(m)

    def scaled_fwd(x, m):
        return scaled(x, m), (x, m)

    def scaled_bwd(res, g):
        x, m = res
        return g * from_m(m), to_m(g * x)
    scaled.defvjp(scaled_fwd, scaled_bwd)

    def two_uses(x, s):
        m = to_m(s)
        return jnp.sum(scaled(x, m) + scaled(x * 3.0, m))
    s0 = jnp.array([2.0, 2.0, 2.0], f32)
    # (under jit: JAX 0.10.2's eager grad adds the two EArray cotangents with an adder it
    # has not registered for EArray, a KeyError; tests/core/test_extended_dtypes.py checks
    # that jxkernel's eager grad gives the jit's answer)
    grads = jax.jit(jax.grad(two_uses, (0, 1)))(x, s0)
    out["grad_max_accumulates_jit"] = repr([np.asarray(g).tolist() for g in grads])
    out["grad_jaxpr"] = str(jax.make_jaxpr(jax.grad(two_uses, (0, 1)))(x, s0))
    out["jvp"] = repr(tuple(np.asarray(v).tolist() for v in jax.jvp(
        lambda x: from_m(to_m(x)) * 2.0, (x,), (jnp.ones(3, f32),))))

    # scan: a value of the type carried, and used as a captured constant
    def body(c, xi):
        return to_m(jnp.maximum(from_m(c), xi)), from_m(c)
    c, ys = lax.scan(body, to_m(jnp.zeros((), f32)), x)
    out["scan_carry"] = repr((type(c).__name__, float(from_m(c)), np.asarray(ys).tolist()))
    c, ys = jax.jit(lambda e0: lax.scan(body, e0, x))(to_m(jnp.zeros((), f32)))
    out["scan_carry_jit"] = repr((float(from_m(c)), np.asarray(ys).tolist()))
    out["scan_jaxpr"] = str(jax.make_jaxpr(lambda e0, xs: lax.scan(body, e0, xs))(
        to_m(jnp.zeros((), f32)), x))
    # grad through a scan that reuses a value of the type: its cotangent accumulates by max
    # over the iterations (Flax's fp8 meta-parameters' amax history)
    def reused(x, s):
        m = to_m(s)

        def step(c, _):
            return scaled(c, m), None
        return lax.scan(step, x, None, length=3)[0]
    out["grad_scan_reuse"] = repr(tuple(float(g) for g in jax.grad(reused, (0, 1))(
        f32(2.0), f32(3.0))))
    out["grad_scan_reuse_jit"] = repr(tuple(float(g) for g in jax.jit(jax.grad(
        reused, (0, 1)))(f32(2.0), f32(3.0))))

    # device_put: the value stays of its type
    d = jax.device_put(e)
    out["device_put"] = repr((type(d).__name__, str(jax.typeof(d)),
                              np.asarray(from_m(d)).tolist()))

    # lax.full and full_like of the type: its rules' full
    full = lax.full((2,), 4.0, maxf32)
    out["full"] = repr((str(jax.typeof(full)), np.asarray(from_m(full)).tolist()))
    out["full_like"] = repr(np.asarray(from_m(lax.full_like(e, 7.0))).tolist())
    # jnp's conversions and fills: lax's conversion, and the rules' full
    z = jnp.zeros_like(e)
    out["jnp_zeros_like"] = repr((type(z).__name__, str(jax.typeof(z)),
                                  np.asarray(from_m(z)).tolist()))
    out["jnp_astype"] = repr((str(jax.typeof(x.astype(maxf32))), str(jax.typeof(
        jnp.astype(e, f32)))))
    out["err_jnp_astype_int"] = _err(lambda: jnp.astype(e, np.int32))

    # shape primitives on a type of two floats per element, inside a jit: the data's
    # trailing axis follows each of them
    data = jnp.arange(12.0, dtype=f32).reshape(6, 2)
    to_p = lambda d: lax.convert_element_type(d, pair)
    from_p = lambda p: lax.convert_element_type(p, f32)

    def shapes(d):
        p = to_p(d)                                     # pair[6]
        r = lax.reshape(p, (2, 3))                      # pair[2,3]
        t = lax.transpose(r, (1, 0))                    # pair[3,2]
        b = lax.broadcast_in_dim(t[0], (2, 2), (1,))    # pair[2,2]
        s = lax.slice(p, (1,), (5,), (2,))              # pair[2]
        c = lax.concatenate([s, p[:1]], 0)              # pair[3]
        w = lax.select(jnp.array([True, False, True]), c, c[::-1])
        return from_p(t), from_p(b), from_p(w)
    out["pair_shapes"] = repr([np.asarray(v).tolist() for v in jax.jit(shapes)(data)])
    out["pair_shapes_jaxpr"] = str(jax.make_jaxpr(shapes)(data))
    out["pair_vmap"] = repr(np.asarray(jax.jit(jax.vmap(
        lambda d: from_p(lax.rev(to_p(d), (0,)))))(data.reshape(2, 3, 2))).tolist())
    out["pair_aval"] = str(jax.eval_shape(to_p, data))

    # refusals: the wrong representation dtype or shape, and a dtype the rules refuse
    out["err_from_int"] = _err(lambda: to_m(jnp.arange(3)))
    out["err_pair_shape"] = _err(lambda: to_p(jnp.zeros((3,), f32)))
    out["err_to_int"] = _err(lambda: lax.convert_element_type(e, np.int32))
    out["err_between"] = _err(lambda: lax.convert_element_type(e, pair))
    return out
