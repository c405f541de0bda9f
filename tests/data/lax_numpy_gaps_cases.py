"""Behaviours JAX's tests/lax_numpy_test.py checks and jxkernel lacked, run the same way with
JAX and with jxkernel (reference/make_lax_numpy_gaps_reference.py records JAX 0.10.2's answers
in tests/data/lax_numpy_gaps_reference.json; tests/jax_compat/test_lax_numpy_gaps.py compares).

`cases(jax)`: name -> a thunk; `observe(thunk)` is what is recorded: its value made JSON (an
array as dtype, shape and values), the warnings it gave, or the exception it raised (class
name and first line). Run without jax_enable_x64.
"""
import copy
import importlib
import warnings

import ml_dtypes
import numpy as np


def _json(x):
    if isinstance(x, (tuple, list)):
        return [_json(v) for v in x]
    if hasattr(x, "dtype") and hasattr(x, "shape"):
        a = np.asarray(x)
        if a.dtype.kind == "c":             # JSON has no complex numbers: [real, imaginary]
            values = [a.real.tolist(), a.imag.tolist()]
        elif a.dtype.name in ("int2", "uint2", "int4", "uint4"):    # ml_dtypes' ints as ints
            values = a.astype(np.int64).tolist()
        else:
            values = a.tolist()
        return {"dtype": str(a.dtype), "shape": list(a.shape), "values": values}
    if isinstance(x, np.dtype):
        return str(x)
    return x


def observe(thunk) -> dict:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = thunk()
        except Exception as e:        # noqa: BLE001 (recording whatever is raised)
            return {"raised": [type(e).__name__, str(e).strip().splitlines()[0]]}
    said = sorted({f"{w.category.__name__}: {w.message}" for w in caught
                   if issubclass(w.category, (DeprecationWarning, UserWarning))})
    return {"value": _json(value), "warnings": said}


def _private(jax, name):
    """JAX's private module `jax._src.<name>` (jxkernel's of the same name under the alias)."""
    return importlib.import_module(f"{jax.__name__}._src.{name}")


def _explicit_x64(jax, mode, make):
    config = _private(jax, "config")

    def run():
        with config.explicit_x64_dtypes(mode):
            return [config.explicit_x64_dtypes.value == getattr(config.ExplicitX64Mode, m)
                    for m in ("WARN", "ERROR", "ALLOW")], make()
    return run


def _x64_requests(jnp):
    return lambda: [jnp.array(1, dtype=jnp.int64).dtype, jnp.zeros(2, jnp.float64).dtype,
                    jnp.arange(3, dtype=jnp.int64).dtype, jnp.ones(2, jnp.complex128).dtype]


def _device_sharding(jax):
    """Creation functions given `device=` a sharding: placed by it, committed."""
    jnp = jax.numpy
    sharding = _private(jax, "sharding_impls").make_single_device_sharding(jax.devices()[-1])
    made = [jnp.zeros(3, device=sharding), jnp.ones((2, 2), int, device=sharding),
            jnp.full(3, 2.0, device=sharding), jnp.empty(2, device=sharding),
            jnp.arange(5, device=sharding), jnp.eye(3, 4, device=sharding),
            jnp.linspace(5, 6, 7, device=sharding), jnp.array([1, 2], device=sharding),
            jnp.asarray(3.0, device=sharding), jnp.zeros_like(np.ones(2), device=sharding),
            jnp.full_like(np.ones(2), 4, device=sharding)]
    return lambda: [[a.sharding == sharding, a.committed, a.dtype, a.weak_type, a] for a in made]


def _guarded(jax, thunk):
    def run():
        with jax.transfer_guard("disallow"):
            return thunk()
    return run


def _copies(jax):
    """copy.copy and copy.deepcopy make new buffers, and stage a copy under jit."""
    jnp = jax.numpy

    def run():
        x = jnp.ones(4)
        ptr = x.unsafe_buffer_pointer()
        return [copy.copy(x).unsafe_buffer_pointer() != ptr,
                copy.deepcopy(x).unsafe_buffer_pointer() != ptr,
                jax.jit(copy.copy)(x), jax.jit(copy.deepcopy)(x),
                str(jax.make_jaxpr(copy.copy)(x)), str(jax.make_jaxpr(copy.deepcopy)(x))]
    return run


def _copy_transpose(jax):
    """jnp.array(x, copy=True)'s cotangent is a copy too: a new Array, not the one given."""
    jnp = jax.numpy

    def run():
        ybar = jnp.ones(3)
        _, pullback = jax.vjp(lambda x: jnp.array(x, copy=True), jnp.ones(3))
        xbar, = pullback(ybar)
        return [xbar is not ybar, xbar,
                str(jax.make_jaxpr(pullback)(ybar))]
    return run


def _positional(jnp, *args, **kwargs):
    def run():
        x = jnp.array([1, 2, 3])
        out = jnp.array(x, *args, **kwargs)
        return [out is x, out]
    return run


def _masked(jax):
    m = np.ma.array([1, 2], mask=[True, False])
    jnp = jax.numpy
    return {"array": lambda: jnp.array(m), "array_copy_false": lambda: jnp.array(m, copy=False),
            "asarray": lambda: jnp.asarray(m), "asarray_copy": lambda: jnp.asarray(m, copy=True),
            "jit_arg": lambda: jax.jit(jnp.asarray)(m), "sin": lambda: jnp.sin(m),
            "add": lambda: jnp.add(m, 1), "device_put": lambda: jax.device_put(m),
            "lax_add": lambda: jax.lax.add(m, m), "closure": lambda: jax.jit(lambda: m + 1)(),
            "grad": lambda: jax.grad(lambda x: x.sum())(np.ma.array([1., 2.], mask=[1, 0])),
            "vmap": lambda: jax.vmap(lambda x: x)(m)}


def _rank_strict(jax, thunk):
    def run():
        with jax.numpy_rank_promotion("raise"):
            return thunk()
    return run


def _bits(jax):
    jnp = jax.numpy
    x = np.arange(2 * 3 * 11).reshape(2, 3, 11) % 3
    packed = np.arange(2 * 3 * 2, dtype=np.uint8).reshape(2, 3, 2) * 21
    return {"packbits_3d": _rank_strict(jax, lambda: [jnp.packbits(x, axis=a) for a in (0, 1, 2)]
                                        + [jnp.packbits(x, axis=-1, bitorder="little")]),
            "unpackbits_3d": _rank_strict(jax, lambda: [jnp.unpackbits(packed, axis=a)
                                                        for a in (0, 2)]
                                          + [jnp.unpackbits(packed, axis=1, count=5,
                                                            bitorder="little")])}


def _take_along(jax):
    jnp = jax.numpy
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    i0 = np.array([[[1, 0, -1, 1]], [[0, 1, 1, -2]], [[1, 1, 0, 5]]])
    i2 = np.array([[[3, -1, 0, 9, 2]] * 3] * 2)
    return {
        "take_along_axis_one_hot": lambda: [
            jnp.take_along_axis(x, i0, axis=0, mode="one_hot"),
            jnp.take_along_axis(x, i2, axis=2, mode="one_hot"),
            jnp.take_along_axis(x[0, 0], np.array([3, 0, -1, 7]), axis=0, mode="one_hot"),
            jnp.take_along_axis(x, np.array([1, 30, -2]), axis=None, mode="one_hot"),
            jax.jit(lambda a, i: jnp.take_along_axis(a, i, axis=0, mode="one_hot"))(x, i0)],
        "take_along_axis_int8_wrapped": lambda: jnp.take_along_axis(
            jnp.arange(200.0), np.array([1, -2, 3, 127], np.int8), axis=0,
            mode="promise_in_bounds", wrap_negative_indices=True),
    }


def _tri(jax):
    jnp = jax.numpy
    return {
        "tri_traced_k": lambda: [jax.jit(lambda k: jnp.tri(3, 4, k=k))(k) for k in (-4, -1, 0, 2, 9)]
        + [jax.jit(lambda k: jnp.tri(0, k=k))(1)],
        "tri_far_k": lambda: [jnp.tri(3, 4, k=k) for k in (-2**31, -2**20, 2**20)]
        + [jax.jit(lambda: jnp.tri(2, k=-2**31))()],
        "tri_k_past_int32": lambda: jnp.tri(3, k=2**33),
        "tri_k_past_int32_negative": lambda: jnp.tri(3, k=-2**33),
    }


def _unravel(jax):
    jnp = jax.numpy
    i = np.array([-9, -7, -1, 0, 5, 6, 40], np.int32)
    return {"unravel_index_traced_shape": lambda: [
        jax.jit(jnp.unravel_index)(i, (2, 3)), jax.jit(jnp.unravel_index)(i, (7,)),
        jax.jit(jnp.unravel_index)(i.astype(np.uint8) % 9, (3, 3)),
        jax.jit(jnp.unravel_index)(i, 4), jnp.unravel_index(i, (2, 3))]}


def _shapes(jax):
    jnp = jax.numpy
    x = np.zeros((1, 2, 3, 4))
    start, stop = np.array([1.0, 2.0]), np.array([[3.0, 5.0], [-1.0, 0.0]])
    return {
        "shape_numpy_1d": lambda: [jnp.zeros(np.array((4, 5), np.int32)).shape,
                                   jnp.ones(np.array(4, np.int32)).shape,
                                   jnp.size(jnp.zeros(np.array([2, 0, 3])), (0, 2))],
        "shape_2d": lambda: jnp.zeros(np.ones((2, 2), int)),
        "shape_float": lambda: jnp.zeros((2.0,)),
        "shape_negative_ones": lambda: jnp.ones((-1, 1)),
        "shape_negative_zeros": lambda: jnp.zeros(-2),
        "shape_negative_full": lambda: jnp.full((2, -1), 2),
        "shape_negative_jit": lambda: jax.jit(lambda: jnp.empty((-1,)))(),
        "tri_negative": lambda: jnp.tri(-1),
        "tri_float": lambda: jnp.tri(2.5),
        "tri_traced_n": lambda: jax.jit(jnp.tri)(3, M=3, k=0),
        "ndim_list": lambda: jnp.ndim([1, 2]),
        "shape_tuple": lambda: jnp.shape((1, 2, 3)),
        "size_list": lambda: jnp.size([[1, 2]]),
        "rollaxis": lambda: [jnp.rollaxis(x, a, s).shape for a in (-3, 0, 2, 3)
                             for s in (-4, -1, 0, 2, 4)],
        "rollaxis_start_out_of_range": lambda: jnp.rollaxis(x, 0, -5),
        "linspace_ranks": _rank_allowed(jax, lambda: [
            jnp.linspace(start, stop, n, endpoint=e, retstep=True, axis=a)
            for n in (1, 3) for e in (True, False) for a in (0, -1)]),
        "logspace_ranks": _rank_allowed(jax, lambda: [
            jnp.logspace(start, stop, 4, endpoint=False, axis=1), jnp.logspace(stop, start, 1)]),
    }


def _rank_allowed(jax, thunk):
    def run():
        with jax.numpy_rank_promotion("allow"):
            return thunk()
    return run


def _views(jax):
    jnp = jax.numpy
    c = np.array([[1 + 2j, 3 - 4j], [np.inf + 1j, -0.0 + 0j]], np.complex64)
    f = np.arange(8, dtype=np.float32).reshape(2, 4) - 3.5
    i4 = np.arange(-8, 8, dtype=np.int8).astype(ml_dtypes.int4)
    return {
        "view_complex": lambda: [jnp.asarray(c).view(np.float32), jnp.asarray(c).view(np.int16),
                                 jnp.asarray(c).view(np.uint64), jnp.asarray(c).view(np.complex64),
                                 jax.jit(lambda x: x.view(np.int32))(c)],
        "view_to_complex": lambda: [jnp.asarray(f).view(np.complex64),
                                    jnp.asarray(f.view(np.int32)).view(np.complex64),
                                    jax.jit(lambda x: x.view(np.complex64))(f)],
        "view_int4": lambda: [jnp.asarray(i4).view(np.int16), jnp.asarray(i4).view(np.uint8),
                              jnp.asarray(np.arange(4, dtype=np.int16)).view(jnp.int4),
                              jnp.asarray(np.arange(3, dtype=np.uint32)).view(jnp.uint4),
                              jnp.asarray(i4).view(jnp.uint4)],
        "bitcast_int4": lambda: jax.lax.bitcast_convert_type(np.arange(2, dtype=np.int8),
                                                             jnp.int4),
    }


def _small(jax):
    jnp = jax.numpy
    v = np.arange(12, dtype=np.int32).reshape(3, 4)

    def strict(thunk):
        def run():
            with jax.numpy_dtype_promotion("strict"):
                return thunk()
        return run
    return {
        "tobytes": lambda: [list(jnp.asarray(v).tobytes(o)) for o in ("C", "F")],
        "tobytes_traced": lambda: jax.jit(lambda x: x.tobytes())(v),
        "iscomplexobj_traced_list": lambda: [jax.jit(jnp.iscomplexobj)([1 + 1j]),
                                             jax.jit(jnp.iscomplexobj)([1.0, 2]),
                                             jax.jit(jnp.iscomplexobj)([[1.0], [2j]])],
        "mgrid_mixed_strict": strict(lambda: [jnp.mgrid[1:6:8j, 2:4], jnp.ogrid[0:1:3j, 0:2]]),
        "split_traced": lambda: jax.jit(lambda i: jnp.split(jnp.zeros((12, 2)), i))(2.0),
        "split_traced_in_list": lambda: jax.jit(
            lambda i: jnp.split(jnp.zeros((12, 2)), [2, i]))(2.0),
        "split_known_tracers": lambda: [
            [a.shape for a in jax.jvp(lambda i: jnp.split(jnp.zeros((12, 2)), i), (2.,), (1.,))[0]],
            [a.shape for a in jax.jvp(lambda i: jnp.split(jnp.zeros((12, 2)),
                                                          (1, i.astype(np.int32))),
                                      (2.,), (1.,))[0]],
            [a.shape for a in jnp.split(jnp.zeros(6), 3.0)]],
        "issubdtype_keywords": lambda: [jnp.issubdtype(arg1=jnp.bfloat16, arg2=jnp.floating),
                                        jnp.issubdtype(arg1="int4", arg2=np.signedinteger)],
        "committed_private": lambda: [jnp.arange(3)._committed,
                                      jax.device_put(jnp.arange(3), jax.devices()[0])._committed,
                                      jax.lax.full_like(jax.device_put(jnp.arange(3),
                                                                       jax.devices()[0]),
                                                        1.1)._committed],
    }


def cases(jax) -> dict:
    jnp = jax.numpy
    bits = ["int2", "uint2", "int4", "uint4", "float4_e2m1fn", "float8_e4m3fn", "bfloat16"]
    out = {
        "itemsize_bits": lambda: [jax.dtypes.itemsize_bits(d) for d in
                                  [*(getattr(ml_dtypes, b) for b in bits), np.bool_, np.int8,
                                   np.uint16, np.float32, np.complex64, np.complex128]],
        "itemsize_bits_none": lambda: jax.dtypes.itemsize_bits(None),
        # a concrete Array of sizes as the shape (a float one refused in JAX's words)
        "zeros_of_array_shape": lambda: jnp.zeros(jnp.array([2, 3])),
        "full_of_array_shape": lambda: jnp.full(jnp.array([2]), 1.0),
        "zeros_of_float_array_shape": lambda: jnp.zeros(jnp.array([2.0, 3.0])),
        "zeros_of_float_numpy_shape": lambda: jnp.zeros(np.array([2.0, 3.0])),
        "explicit_x64_warn": _explicit_x64(jax, "warn", _x64_requests(jnp)),
        "explicit_x64_error": _explicit_x64(jax, "error", lambda: jnp.array(1, jnp.int64)),
        "explicit_x64_error_zeros": _explicit_x64(jax, "error", lambda: jnp.zeros(2, "float64")),
        "explicit_x64_allow": _explicit_x64(jax, "allow", _x64_requests(jnp)),
        "device_sharding": _device_sharding(jax),
        "arange_guarded_int": _guarded(jax, lambda: jnp.arange(5)),
        "arange_guarded_float32": _guarded(jax, lambda: jnp.arange(np.float32(4))),
        "arange_guarded_dtype": _guarded(jax, lambda: jnp.arange(3, dtype=jnp.int8)),
        "arange_guarded_start_stop": _guarded(jax, lambda: jnp.arange(1, 7, 2)),
        "zeros_guarded": _guarded(jax, lambda: jnp.zeros(3)),
        "copies": _copies(jax),
        "copy_transpose": _copy_transpose(jax),
        "array_positional_copy_false": _positional(jnp, None, False),
        "array_positional_copy_true": _positional(jnp, None, True),
        "array_positional_ndmin": _positional(jnp, None, True, "K", 2),
        "array_positional_twice": _positional(jnp, None, True, copy=False),
        "array_positional_too_many": _positional(jnp, None, True, "K", 0, 1),
        "astype_complex_to_real": lambda: jnp.array(2.0 + 1.5j, jnp.complex64).astype("float32"),
        "astype_complex_to_int": lambda: jnp.astype(jnp.array([1 + 2j]), jnp.int8),
        "one_hot_float": lambda: jax.nn.one_hot(jnp.array([0.0, 2.0]), 3),
        "eye_far_diagonals": lambda: [jnp.eye(4, 3, k=2**100), jnp.eye(3, k=-2**100),
                                      jnp.eye(0, 4, k=-2**100), jnp.eye(2, 3, k=-2**100),
                                      jax.jit(lambda: jnp.eye(3, k=2**100))()],
    }
    out.update({f"masked_{name}": thunk for name, thunk in _masked(jax).items()})
    for more in (_bits, _take_along, _tri, _unravel, _shapes, _views, _small):
        out.update(more(jax))
    return out
