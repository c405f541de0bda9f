"""Behaviours JAX's tests/lax_numpy_test.py checks and jxkernel lacked, run the same way with
JAX and with jxkernel (reference/make_lax_numpy_gaps_reference.py records JAX 0.10.2's answers
in tests/data/lax_numpy_gaps_reference.json; tests/jax_compat/test_lax_numpy_gaps.py compares).

`cases(jax)`: name -> a thunk; `observe(thunk)` is what is recorded: its value made JSON (an
array as dtype, shape and values), the warnings it gave, or the exception it raised (class
name and first line). Run without jax_enable_x64.
"""
import copy
import functools
import importlib
import re
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


def _line(e) -> str:
    """An exception's first line, a function's address in it made the same on every run."""
    first = (str(e).strip().splitlines() or [""])[0]        # (a bare assert says nothing)
    return re.sub(r" at 0x[0-9a-f]+>", " at 0x...>", first)


def observe(thunk) -> dict:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = thunk()
        except Exception as e:        # noqa: BLE001 (recording whatever is raised)
            return {"raised": [type(e).__name__, _line(e)]}
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

    def run():      # made when the case runs, not when the cases are built (at collection)
        made = [jnp.zeros(3, device=sharding), jnp.ones((2, 2), int, device=sharding),
                jnp.full(3, 2.0, device=sharding), jnp.empty(2, device=sharding),
                jnp.arange(5, device=sharding), jnp.eye(3, 4, device=sharding),
                jnp.linspace(5, 6, 7, device=sharding), jnp.array([1, 2], device=sharding),
                jnp.asarray(3.0, device=sharding), jnp.zeros_like(np.ones(2), device=sharding),
                jnp.full_like(np.ones(2), 4, device=sharding)]
        return [[a.sharding == sharding, a.committed, a.dtype, a.weak_type, a] for a in made]
    return run


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


def _jit_arguments(jax):
    """Functions JAX jits (and jnp.add & co., whose ufunc objects call a jitted function) take
    their arguments as its jit does: a string or an object is the jit's error, naming the
    function and the argument's path (a list is the function's own check); an unhashable
    static argument (a list, an array) is refused in the jit's words."""
    jnp = jax.numpy
    # m is made on first use: its reshape compiles, and the cases are built at collection
    x, m = jnp.ones(3), functools.cache(lambda: jnp.arange(6.0).reshape(2, 3))
    return {
        "jit_arg_dot_string": lambda: jnp.dot(x, "a"),
        "jit_arg_dot_string_first": lambda: jnp.dot("a", x),
        "jit_arg_dot_object": lambda: jnp.dot(x, object()),
        "jit_arg_dot_list": lambda: jnp.dot(x, [1.0, 2.0, 3.0]),
        "jit_arg_dot_none": lambda: jnp.dot(x, None),
        "jit_arg_matmul_string": lambda: jnp.matmul(x, "a"),
        "jit_arg_kron_string": lambda: jnp.kron(x, "a"),
        "jit_arg_sin_string": lambda: jnp.sin("a"),
        "jit_arg_abs_string": lambda: jnp.abs("a"),                  # (an alias, named so)
        "jit_arg_acos_string": lambda: jnp.acos("a"),
        "jit_arg_bitwise_left_shift_string": lambda: jnp.bitwise_left_shift(1, "a"),
        "jit_arg_add_string": lambda: jnp.add(x, "a"),
        "jit_arg_maximum_string": lambda: jnp.maximum("a", x),
        "jit_arg_negative_string": lambda: jnp.negative("a"),
        "jit_arg_true_divide_string": lambda: jnp.true_divide(x, "a"),
        "jit_arg_where_string": lambda: jnp.where(x > 0, x, "a"),
        "jit_arg_take_string": lambda: jnp.take(x, "a"),
        "jit_arg_take_list": lambda: jnp.take(x, [0]),
        "jit_arg_clip_string": lambda: jnp.clip(x, "a"),
        "jit_arg_cumsum_string": lambda: jnp.cumsum("a"),
        "jit_arg_diff_string": lambda: jnp.diff("a"),
        # a function JAX does not jit: its check passes a string, its asarray refuses it
        "string_argmax": lambda: jnp.argmax("a"),
        "string_transpose": lambda: jnp.transpose("a"),
        "string_unique": lambda: jnp.unique(b"a"),
        "string_tensordot": lambda: jnp.tensordot(x, "a"),
        "static_resize_list": lambda: jnp.resize(m(), [3, 2]),
        "static_resize_numpy": lambda: jnp.resize(m(), np.array([4])),
        "static_resize_tuple": lambda: jnp.resize(m(), (3, 2)),
        "static_nanmax_axis_list": lambda: jnp.nanmax(m(), axis=[0]),
        "static_quantile_axis_numpy": lambda: jnp.quantile(m(), 0.5, axis=np.array(1)),
        "static_partition_kth_list": lambda: jnp.partition(x, [1]),
        "static_rot90_axes_list": lambda: jnp.rot90(m(), axes=[0, 1]),
        "static_swapaxes_numpy": lambda: jnp.swapaxes(m(), np.array(1), 0),
        "static_vander_numpy": lambda: jnp.vander(x, np.array(2)),
        "static_dot_precision_list": lambda: jnp.dot(x, x, precision=["highest", "highest"]),
        "static_dynamic_index_axis_numpy": lambda: jax.lax.dynamic_index_in_dim(
            m(), 1, axis=np.array(1)),
    }


def _string_arguments(jax):
    """Stop 70: strings and other bad arguments where JAX's words came from elsewhere: the
    reductions JAX runs under a private jit (`_reduce_sum`, `_mean`, `_average`: its jit's
    error, at the argument's path); flatnonzero, diagflat and extract through jnp.ravel's jit;
    power, the *_like functions, result_type, delete and arange reading a string as a dtype's
    name ('a' is |S0); a float count to tile (the shape check's words, lax's too); argmax of complex numbers (traced, refused where lowered,
    in lax.gt's words); bincount's weights (JAX's typeof, and its type text with mesh axes)."""
    jnp, lax = jax.numpy, jax.lax
    x, i, z = jnp.ones(3), jnp.array([0, 1, 1]), jnp.array([1 + 2j, 3j])
    return {
        "string_sum": lambda: jnp.sum("a"),
        "string_sum_where": lambda: jnp.sum(x, where="a"),
        "string_sum_initial": lambda: jnp.sum(x, initial="a"),
        "string_prod": lambda: jnp.prod("a"),
        "string_max": lambda: jnp.max("a"),
        "string_max_where": lambda: jnp.max(x, where="a", initial=0),
        "string_min": lambda: jnp.min("a"),
        "string_all": lambda: jnp.all("a"),
        "string_any": lambda: jnp.any("a"),
        "string_mean": lambda: jnp.mean("a"),
        "string_mean_jitted": lambda: jax.jit(lambda: jnp.mean("a"))(),
        "string_average": lambda: jnp.average("a"),
        "string_average_weights": lambda: jnp.average(x, weights="a"),
        "string_flatnonzero": lambda: jnp.flatnonzero("a"),
        "string_diagflat": lambda: jnp.diagflat("a"),
        "list_diagflat": lambda: jnp.diagflat([1, 2]),
        "string_extract": lambda: jnp.extract(x, "a"),
        "string_extract_condition": lambda: jnp.extract("a", x),
        "list_extract": lambda: jnp.extract([1, 0], x),
        "string_delete": lambda: jnp.delete(x, "a"),
        "string_delete_unique": lambda: jnp.delete(x, "a", assume_unique_indices=True),
        "list_delete": lambda: jnp.delete([1, 2], "a"),
        "string_arange": lambda: jnp.arange("a"),
        "string_arange_stop": lambda: jnp.arange(1, "a"),
        "string_arange_step": lambda: jnp.arange(0, 5, "a"),
        "string_arange_unknown": lambda: jnp.arange("cat"),
        "string_arange_array_start": lambda: jnp.arange(x, "a"),
        "string_power": lambda: jnp.power("a", 2),
        "string_power_exponent": lambda: jnp.power(2, "a"),
        "string_power_bytes": lambda: jnp.power(b"a", 2),
        "string_power_unknown": lambda: jnp.power("cat", 2),
        "string_zeros_like": lambda: jnp.zeros_like("a"),
        "string_ones_like": lambda: jnp.ones_like("a"),
        "string_empty_like": lambda: jnp.empty_like("a"),
        "string_full_like": lambda: jnp.full_like("a", 1),
        "string_full_like_fill": lambda: jnp.full_like(1, "a"),
        "string_zeros_like_bytes_unknown": lambda: jnp.zeros_like(b"cat"),
        "string_lax_full_like_dtype": lambda: lax.full_like(x, 0, "a"),
        "string_result_type": lambda: jnp.result_type("a"),
        "string_result_type_str": lambda: jnp.result_type("str"),
        "string_result_type_bytes_unknown": lambda: jnp.result_type(b"cat"),
        "string_result_type_named": lambda: jnp.result_type("float32", b"int8"),
        "tile_float_reps": lambda: jnp.tile(x, 3.0),
        "tile_float_in_reps": lambda: jnp.tile(x, (2, 3.0)),
        "tile_array_reps": lambda: jnp.tile(x, jnp.array(2)),
        "lax_tile_float_reps": lambda: lax.tile(x, (3.0,)),
        "lax_tile_float_reps_rank": lambda: lax.tile(x, (3.0, 2)),
        "argmax_complex": lambda: jnp.argmax(z),
        "argmin_complex": lambda: jnp.argmin(z),
        "nanargmax_complex": lambda: jnp.nanargmax(z),
        "lax_argmax_complex": lambda: lax.argmax(z, 0, np.int32),
        "argmax_complex_jaxpr": lambda: str(jax.make_jaxpr(jnp.argmax)(z)),
        "argmax_complex_lowered": lambda: jax.jit(jnp.argmax).lower(z).as_text(),
        "bincount_weights_shape": lambda: jnp.bincount(i, weights=jnp.ones(2)),
        "bincount_weights_rank": lambda: jnp.bincount(i, weights=jnp.ones((3, 1))),
        "bincount_weights_scalar": lambda: jnp.bincount(i, weights=1.0),
        "bincount_weights_string": lambda: jnp.bincount(i, weights="a"),
        "bincount_weights_list": lambda: jnp.bincount(i, weights=[1, 2, 3]),
        "bincount_weights_short_list": lambda: jnp.bincount(i, weights=[1, 2]),
        "bincount_weights_jitted": lambda: jax.jit(
            lambda w: jnp.bincount(i, weights=w, length=3))(jnp.ones(2)),
        "bincount_weights": lambda: jnp.bincount(i, weights=jnp.arange(3.0)),
    }


def _dtype_named_text(jax):
    """Stop 71: text that names a dtype. JAX's checks pass a string (np.isscalar's); its
    lax.full_like then reads it as that dtype (`zeros_like('int8')` is an int8 zero, text not
    read where `dtype` is given), its conversions and its jit `_power` refuse it in their own
    words, and jnp.reshape hands it to jnp.asarray. `text_as_dtype_deliberate`: what JAX's
    asarray does with a dtype's name, which jxkernel refuses as any other text."""
    jnp, lax = jax.numpy, jax.lax
    x = jnp.ones(3)
    return {
        "text_dtype_zeros_like": lambda: jnp.zeros_like("float32"),
        "text_dtype_ones_like": lambda: jnp.ones_like("int8"),
        "text_dtype_empty_like": lambda: jnp.empty_like("bool"),
        "text_dtype_full_like": lambda: jnp.full_like("int8", 3.5),
        "text_dtype_full_like_wraps": lambda: jnp.full_like("int8", 300),
        "text_dtype_zeros_like_narrowed": lambda: jnp.zeros_like("float64"),
        "text_dtype_zeros_like_bytes": lambda: jnp.zeros_like(b"complex64"),
        "text_dtype_zeros_like_shape": lambda: jnp.zeros_like("int4", shape=(2,)),
        "text_dtype_ones_like_jitted": lambda: jax.jit(lambda: jnp.ones_like("bfloat16"))(),
        "text_unread_zeros_like": lambda: jnp.zeros_like("cat", dtype="int8"),
        "text_unread_full_like": lambda: jnp.full_like("a", 1, dtype="float32"),
        "text_dtype_full_like_fill": lambda: jnp.full_like(x, "int8"),
        "text_dtype_full_like_list_first": lambda: jnp.full_like([1], "int8"),
        "text_dtype_lax_full_like": lambda: lax.full_like("int8", 0),
        "text_lax_full_like": lambda: lax.full_like("a", 0),
        "text_dtype_lax_full_like_fill": lambda: lax.full_like(x, "int8"),
        "text_dtype_convert": lambda: lax.convert_element_type("int32", np.float32),
        "text_convert": lambda: lax.convert_element_type("a", np.float32),
        "text_lax_sin": lambda: lax.sin("float32"),
        "text_lax_add": lambda: lax.add(1.0, "a"),
        "text_dtype_power": lambda: jnp.power(2, "int32"),
        "text_dtype_power_base": lambda: jnp.power("int32", 2),
        "text_dtype_power_float_exponent": lambda: jnp.power("int32", 2.5),
        "text_dtype_power_bytes": lambda: jnp.power(2.0, b"int8"),
        "text_dtype_power_jitted": lambda: jax.jit(lambda y: jnp.power(y, "int32"))(x),
        "text_reshape": lambda: jnp.reshape("a", (1,)),
        "text_reshape_bytes": lambda: jnp.reshape(b"a", -1),
        "text_reshape_number": lambda: jnp.reshape("3", ()),
        "text_reshape_jitted": lambda: jax.jit(lambda: jnp.reshape("3", (1,)))(),
        "full_like_int_wraps": lambda: jnp.full_like(jnp.ones(2, jnp.int8), 300),
        "full_like_int_wraps_numpy": lambda: jnp.full_like(np.ones(2, np.uint8), -1),
    }


def given_tokens(jax):
    """Stop 71: a token given to jnp's functions, eagerly and under jit: refused by jnp's
    argument check (a token's tracer is no array), naming the Token where JAX checks before
    its jit (a ufunc object's call, jnp.where) and jit's tracer where JAX's jit traced it
    first (jnp.sin, jnp.sum, a ufunc's methods, anything under an outer jit); lax's array ops
    refuse it in their abstract evaluation, vmap as of rank 0. Messages name JAX's classes
    (`jax._src.core.Token`): compared with the package's name made 'jax'."""
    jnp, lax = jax.numpy, jax.lax
    t = functools.cache(lax.create_token)     # on first use: making one compiles
    return {
        "given_token_jit_sin": lambda: jax.jit(jnp.sin)(t()),
        "given_token_sin": lambda: jnp.sin(t()),
        "given_token_add": lambda: jnp.add(t(), 1),
        "given_token_add_second": lambda: jnp.add(1, t()),
        "given_token_jit_add": lambda: jax.jit(jnp.add)(t(), 1),
        "given_token_jit_of_add": lambda: jax.jit(lambda a: jnp.add(a, 1))(t()),
        "given_token_made_in_jit": lambda: jax.jit(lambda: jnp.sin(lax.create_token()))(),
        "given_token_multiply": lambda: jnp.multiply(t(), 2.0),
        "given_token_logaddexp": lambda: jnp.logaddexp(t(), 1.0),
        "given_token_negative": lambda: jnp.negative(t()),
        "given_token_power": lambda: jnp.power(t(), 2),
        "given_token_sum": lambda: jnp.sum(t()),
        "given_token_exp": lambda: jnp.exp(t()),
        "given_token_abs": lambda: jnp.abs(t()),
        "given_token_where": lambda: jnp.where(True, t(), 1),
        "given_token_where_jitted": lambda: jax.jit(lambda a: jnp.where(True, a, 1))(t()),
        "where_missing_y": lambda: jnp.where(True, 1),
        "given_token_add_reduce": lambda: jnp.add.reduce(t()),
        "given_token_add_outer": lambda: jnp.add.outer(t(), 1),
        "given_token_add_reduceat": lambda: jnp.add.reduceat(t(), [0]),
        "text_add_reduce": lambda: jnp.add.reduce("a"),
        "text_add_outer": lambda: jnp.add.outer("a", 1),
        "given_token_eval_shape": lambda: jax.eval_shape(jnp.sin, t()),
        "given_token_make_jaxpr": lambda: jax.make_jaxpr(jnp.sin)(t()),
        "given_token_lower": lambda: jnp.sin.lower(t()),
        "given_token_grad": lambda: jax.grad(jnp.sin)(t()),
        "given_token_vmap": lambda: jax.vmap(jnp.sin)(t()),
        "given_token_lax_sin": lambda: lax.sin(t()),
        "given_token_lax_add": lambda: lax.add(t(), 1.0),
        "given_token_lax_eq_jitted": lambda: jax.jit(lambda a: lax.eq(a, a))(t()),
        "given_token_reduce_sum": lambda: lax.reduce_sum(t(), axes=()),
        "given_token_reduce_sum_jitted": lambda: jax.jit(lambda a: lax.reduce_sum(a, ()))(t()),
        "given_token_reduce_max": lambda: lax.reduce_max(t(), axes=()),
        "given_token_reduce_and": lambda: lax.reduce_and(t(), axes=()),
        "given_token_lax_cumsum": lambda: lax.cumsum(t()),
        "given_token_argmax": lambda: lax.argmax(t(), 0, jnp.int32),
        "given_token_bitcast": lambda: lax.bitcast_convert_type(t(), jnp.float32),
        "given_token_convert": lambda: lax.convert_element_type(t(), jnp.float32),
        "given_token_convert_jitted": lambda: jax.jit(
            lambda a: lax.convert_element_type(a, jnp.float32))(t()),
        # a ufunc's accumulate with a faster function of its own: that function's check
        "given_token_add_accumulate": lambda: jnp.add.accumulate(t()),
        "given_token_multiply_accumulate_jitted": lambda: jax.jit(jnp.multiply.accumulate)(t()),
        "given_token_maximum_accumulate": lambda: jnp.maximum.accumulate(t()),
        "object_add_accumulate": lambda: jnp.add.accumulate(object()),
        "list_add_accumulate": lambda: jnp.add.accumulate([1, 2]),
        "list_maximum_accumulate": lambda: jnp.maximum.accumulate([1, 2]),
        # a token result: no ShapeDtypeStruct in out_info (Traced's gives its type)
        "given_token_lowered_out_info": lambda: jax.jit(
            lambda x: (x, lax.create_token())).lower(1.0).out_info,
        "given_token_lowered_out_info_alone": lambda: jax.jit(
            lambda: lax.create_token()).lower().out_info,
        "given_token_traced_out_info": lambda: str(jax.jit(
            lambda x: (x, lax.create_token())).trace(1.0).out_info),
    }


def token_operator_deliberate(jax):
    """`token + 1` under jit: JAX fails inside its own code (AttributeError); jxkernel's
    tracer operator reaches jnp.add, whose check refuses the token. Compiled.out_info of a
    token result: JAX's bare AssertionError, jxkernel's of the same class says why."""
    lax = jax.lax
    t = functools.cache(lax.create_token)     # on first use: making one compiles
    return {"plus_one_of_token_jitted": lambda: jax.jit(lambda a: a + 1)(t()),
            "compiled_out_info_of_token": lambda: jax.jit(
                lambda x: (x, lax.create_token())).lower(1.0).compile().out_info}


def text_as_dtype_deliberate(jax):
    """JAX's jnp.asarray reads a string naming a dtype as that dtype and converts the string
    (NumPy's words: "could not convert string to float"; asarray('bool') is True); jxkernel
    refuses it as any other text ("Value 'float32' with dtype <U7 is not a valid JAX array
    type"): a string is no number whatever it spells."""
    jnp = jax.numpy
    return {"text_dtype_reshape": lambda: jnp.reshape("float32", (1,)),
            "text_dtype_asarray_bool": lambda: jnp.asarray("bool")}


def _api_gaps(jax):
    """matvec/vecmat check their core dimensions as JAX's vectorize does; jnp.trace's offset
    is traced (a float or an array of one element refused as JAX's eye refuses it);
    unravel_index of floats and bools; take of int8/uint8 indices into an axis past 127."""
    jnp = jax.numpy
    # m on first use: its reshape compiles, and the cases are built at collection
    v, m = jnp.arange(3.0), functools.cache(lambda: jnp.arange(6.0).reshape(2, 3))
    big = jnp.arange(300.0)
    return {
        "matvec_1d": lambda: jnp.matvec(v, v),
        "matvec_vector_first": lambda: jnp.matvec(v, m()),
        "matvec_scalar": lambda: jnp.matvec(jnp.float32(1), v),
        "matvec_batched": lambda: jnp.matvec(jnp.ones((2, 2, 3)), jnp.ones((4, 1, 3))),
        "vecmat_1d": lambda: jnp.vecmat(v, v),
        "vecmat_inconsistent": lambda: jnp.vecmat(m(), m()),
        "vecmat": lambda: jnp.vecmat(jnp.arange(2.0), m()),
        "trace_array_offset": lambda: jnp.trace(m(), jnp.array(1)),
        "trace_float_offset": lambda: jnp.trace(m(), 1.0),
        "trace_vector_offset": lambda: jnp.trace(m(), offset=jnp.array([1])),
        # (m made outside the jit, closed over by it as before)
        "trace_traced_offset": lambda: (lambda m: jax.jit(lambda o: jnp.trace(m, o))(1))(m()),
        "unravel_float": lambda: jnp.unravel_index(jnp.array([1.5, 4.0]), (2, 3)),
        "unravel_python_float": lambda: jnp.unravel_index(2.0, (2, 3)),
        "unravel_float_out_of_bounds": lambda: jnp.unravel_index(np.array([5.7, -1.2, 7.0,
                                                                             -7.0]), (2, 3)),
        "unravel_bool": lambda: jnp.unravel_index(jnp.array([True]), (2, 3)),
        "unravel_float16": lambda: jnp.unravel_index(jnp.array([1.5], jnp.float16), (2, 3)),
        "unravel_jit_float": lambda: jax.jit(lambda i: jnp.unravel_index(i, (2, 3)))(4.5),
        "take_uint8_past_127": lambda: jnp.take(big, jnp.array([200, 250], jnp.uint8)),
        "take_int8_negative_past_127": lambda: jnp.take(big, jnp.array([-100, 100], jnp.int8)),
        "take_int8_axis": lambda: jnp.take(big.reshape(1, 300), jnp.array([-100], jnp.int8),
                                           axis=1),
        "take_int8_scalar": lambda: jnp.take(big, jnp.int8(-100)),
        "take_int8_clip": lambda: jnp.take(big, jnp.array([127], jnp.int8), mode="clip"),
        "take_int8_wrap": lambda: jnp.take(big, jnp.array([-128], jnp.int8), mode="wrap"),
        "take_uint8_wrap": lambda: jnp.take(big, jnp.array([200], jnp.uint8), mode="wrap"),
    }


def _warning_count(jax, make):
    """How many times `make()` warns that a 64-bit dtype is not available (each warning
    counted, not deduplicated), after jax.clear_caches()."""
    def run():
        jax.clear_caches()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            make()
        return sum("Explicitly requested dtype" in str(w.message) for w in caught)
    return run


def _array_warnings(jax):
    """jnp.array of a list of values made under enable_x64 (x64 off): JAX's array() of each
    element checks the dtype, so it warns once per element, eagerly and under jit."""
    jnp = jax.numpy
    with jax.enable_x64(True):
        i64 = jnp.arange(3, dtype=jnp.int64)
        f64 = jnp.array([0.5, 1.5, 2.5], jnp.float64)
    return {
        "array_warns_per_element": _warning_count(jax, lambda: jnp.array([i64[0], i64[1],
                                                                          i64[2]])),
        "array_warns_per_array": _warning_count(jax, lambda: jnp.array([f64, f64, f64])),
        "array_warns_per_tracer": _warning_count(jax, lambda: jax.jit(
            lambda a: jnp.array([a[0], a[1], a[2]]))(f64)),
        "array_warns_per_row": _warning_count(jax, lambda: jax.jit(
            lambda a: jnp.array([[a[0], a[1]], [a[2], a[0]]]))(f64)),
        "asarray_warns_per_element": _warning_count(jax, lambda: jnp.asarray([f64[0], f64[1]])),
        "array_of_numpy_float64_warns_not": _warning_count(jax, lambda: jax.jit(
            lambda: jnp.array([np.float64(1.5), np.float64(2.5)]))()),
    }


def _collective_derivatives(jax):
    """pmax and pmin have no differentiation rule in JAX: grad, jvp, vjp and linearize
    through one raise its NotImplementedError; a zero tangent (stop_gradient, an integer
    operand, an undifferentiated argument) passes. (And ppermute's batching, as JAX's.)"""
    lax, x = jax.lax, jax.numpy.arange(3.0)

    def named(f):
        return jax.vmap(f, axis_name="i")
    return {
        "pmax_grad": lambda: named(jax.grad(lambda v: lax.pmax(v, "i")))(x),
        "pmax_grad_outside": lambda: jax.grad(
            lambda x: named(lambda v: lax.pmax(v, "i"))(x).sum())(x),
        "pmin_jvp": lambda: named(lambda v: jax.jvp(lambda u: lax.pmin(u, "i"), (v,),
                                                    (1.0,)))(x),
        "pmax_vjp": lambda: named(lambda v: jax.vjp(lambda u: lax.pmax(u, "i"), v)[0])(x),
        "pmax_linearize": lambda: named(lambda v: jax.linearize(lambda u: lax.pmax(u, "i"),
                                                                v)[0])(x),
        "pmax_jvp_jaxpr": lambda: str(jax.make_jaxpr(named(lambda v: jax.jvp(
            lambda u: lax.pmax(u, "i"), (v,), (1.0,))))(x)),
        "pmax_stop_gradient": lambda: named(jax.grad(
            lambda v: lax.pmax(lax.stop_gradient(v), "i") + v))(x),
        "pmax_undifferentiated": lambda: named(jax.grad(lambda v, w: lax.pmax(w, "i") + v))(
            x, x),
        "pmin_int": lambda: named(lambda v: lax.pmin(v, "i"))(jax.numpy.arange(3)),
        # ppermute under vmap is the value's take (jnp.take's jaxpr), as JAX's batcher
        "ppermute_vmap_jaxpr": lambda: str(jax.make_jaxpr(named(
            lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)])))(x)),
        "ppermute_vmap_axis_1": lambda: jax.vmap(
            lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)]), axis_name="i",
            in_axes=1, out_axes=1)(jax.numpy.arange(12.0).reshape(4, 3)),
    }


def _kind(jax, x):
    """A value's type as JAX names it (jxkernel's with 'jax' for its own package)."""
    return "Array" if isinstance(x, jax.Array) else \
        f"{type(x).__module__}.{type(x).__qualname__}".replace(jax.__name__, "jax")


def _jit_tracer_class_words(jax):
    """Python's own messages under jit name the tracer's class: JAX's DynamicJaxprTracer."""
    jnp = jax.numpy

    def jitted(f):
        return lambda: jax.jit(f)(jnp.arange(3.0))
    return {
        "tracer_plus_list": jitted(lambda x: x + [1, 2]),
        "list_plus_tracer": jitted(lambda x: [1, 2] + x),
        "tracer_less_than_list": jitted(lambda x: x < [1, 2]),
        "tracer_matmul_text": jitted(lambda x: x @ "a"),
        "tracer_power_dict": jitted(lambda x: x ** {}),
        "tracer_divmod_list": jitted(lambda x: divmod(x, [])),
        "tracer_called": jitted(lambda x: x(1)),
        "tracer_hashed": jitted(lambda x: hash(x)),
        "tracer_attribute": jitted(lambda x: x.foo),
        "tracer_len_of_scalar": jitted(lambda x: len(x.sum())),
        "tracer_class_name": lambda: _seen_class_name(jax),
    }


def _seen_class_name(jax):
    seen = []
    jax.jit(lambda x: seen.append(type(x).__name__) or x)(1.0)
    return seen


# An eager array's class in Python's own messages: JAX's ArrayImpl is a C type whose name
# Python prints as 'jaxlib._jax.ArrayImpl' (its __name__ 'ArrayImpl'); jxkernel's prints the
# same (xla/array.py's metaclass)
def _array_class_printed(jax):
    x = jax.numpy.arange(3.0)
    return {
        "array_less_than_list": lambda: x < [1, 2],
        "array_matmul_text": lambda: x @ "a",
        "array_divmod_list": lambda: divmod(x, []),
        "array_attribute": lambda: x.foo,
        "array_called": lambda: x(1),
        "array_hashed": lambda: hash(x),
    }


def _array_class_words(jax):
    """The same for messages jnp writes itself, and the class's name."""
    x = jax.numpy.arange(3.0)
    return {
        "array_plus_list": lambda: x + [1, 2],
        "list_plus_array": lambda: [1, 2] + x,
        "array_class_name": lambda: type(x).__name__,
    }


def _arguments_out_of_order(jax):
    """A number where a dtype goes, and a shape where maxval goes: jax.random's arguments in
    the wrong order (uniform(key, minval, maxval), randint(key, minval, maxval, shape))."""
    # the key is made on first use: it compiles, and the cases are built at collection
    jnp, key = jax.numpy, functools.cache(lambda: jax.random.key(0))
    return {
        "uniform_bounds_as_shape_and_dtype": lambda: jax.random.uniform(key(), 0.0, 1.0),
        "uniform_maxval_as_dtype": lambda: jax.random.uniform(key(), (2,), 0.0, 1.0),
        "normal_number_as_dtype": lambda: jax.random.normal(key(), (2,), 1.0),
        "zeros_number_as_dtype": lambda: jnp.zeros(3, 1.0),
        "astype_number": lambda: jnp.ones(2).astype(1.0),
        "randint_shape_last": lambda: jax.random.randint(key(), 0, 10, (3,)),
    }


def _no_jax_values(jax):
    """Operands of no JAX type given to lax and jnp, and jnp.reshape's removed `newshape=`."""
    jnp, lax = jax.numpy, jax.lax
    return {
        "convert_element_type_text": lambda: lax.convert_element_type("3", jnp.int32),
        "neg_object": lambda: lax.neg(object()),
        "neg_list": lambda: lax.neg([1.0]),
        "neg_none": lambda: lax.neg(None),
        "add_object_second": lambda: lax.add(1.0, object()),
        "reshape_newshape": lambda: jnp.reshape(jnp.arange(4), newshape=(2, 2)),
        "reshape_no_shape": lambda: jnp.reshape(jnp.arange(4)),
        "full_like_text_and_list": lambda: jnp.full_like("float32", [1, 2]),
        "full_like_list_fill": lambda: jnp.full_like(jnp.ones(2), [1, 2]),
        "full_like_list_prototype": lambda: jnp.full_like([1, 2], 3),
    }


def _ufunc_arguments(jax):
    """jnp's ufuncs (jnp.add, jnp.negative, ...) check their arguments before their jit: an
    object is the check's error, text the jit's; out= is refused after the check."""
    jnp = jax.numpy
    summed = jnp.frompyfunc(lambda a, b: a + b, nin=2, nout=1, identity=0)
    return {
        "ufunc_negative_object": lambda: jnp.negative(object()),
        "ufunc_add_object_first": lambda: jnp.add(object(), 1),
        "ufunc_maximum_object_second": lambda: jnp.maximum(1.0, object()),
        "ufunc_logical_xor_object": lambda: jnp.logical_xor(True, object()),
        "ufunc_subtract_text": lambda: jnp.subtract("a", 1),
        "ufunc_negative_object_out": lambda: jnp.negative(object(), out=object()),
        "ufunc_frompyfunc_object": lambda: summed(object(), 1),
        "ufunc_frompyfunc_text": lambda: summed("a", 1),
    }


def _own_attributes(jax):
    """An attribute of the user's own set on an eager Array: kept on that Array (not on a
    result or a copy); a tracer has none."""
    jnp = jax.numpy

    def set_and_read():
        x = jnp.ones(3)
        x.foo = 1
        seen = [x.foo, sorted(vars(x)), hasattr(x + 1, "foo"), hasattr(copy.copy(x), "foo"),
                hasattr(copy.deepcopy(x), "foo")]
        del x.foo
        return [*seen, hasattr(x, "foo")]

    def set_traced(t):
        t.foo = 1
        return t
    return {"array_own_attribute": set_and_read,
            "array_own_attribute_shape": lambda: setattr(jnp.ones(3), "shape", (3,)),
            "array_own_attribute_jitted": lambda: jax.jit(set_traced)(jnp.ones(3))}


def _lines(thunk):
    """The class and lines of the exception `thunk` raises but the one naming where a tracer
    was made (a path and a line of the library's own file)."""
    def run():
        try:
            thunk()
        except Exception as e:        # noqa: BLE001 (recording whatever is raised)
            return [type(e).__name__, [line for line in str(e).splitlines()
                                       if not line.startswith("The error occurred while")]]
    return run


def _random_arguments(jax):
    """jax.random.randint's refusals of its bounds (a list under its jit: NumPy's conversion
    in JAX's own code), and the samplers' shapes: an array of sizes is one, None is not."""
    jnp, random = jax.numpy, jax.random
    key = functools.cache(lambda: random.PRNGKey(0))      # on first use: it compiles
    return {
        "randint_list_minval": _lines(lambda: random.randint(key(), (3,), [0, 1, 2], 10)),
        "randint_none_maxval": lambda: random.randint(key(), (3,), 0, None),
        "randint_object_maxval_int8": lambda: random.randint(key(), (3,), 0, object(), jnp.int8),
        "randint_text_minval_int8": lambda: random.randint(key(), (3,), "a", 10, jnp.int8),
        "randint_list_minval_int8": lambda: random.randint(key(), (3,), [0, 1, 2], 10, jnp.int8),
        "normal_array_shape": lambda: random.normal(key(), jnp.array([3])).shape,
        "uniform_numpy_shape": lambda: random.uniform(key(), np.array([2, 1])).shape,
        "normal_none_shape": lambda: random.normal(key(), None),
        "bits_0d_array_shape": lambda: random.bits(key(), jnp.array(3)),
        # (the key made outside the jit, closed over by it as before)
        "randint_traced_shape": _lines(lambda: (lambda key: jax.jit(
            lambda s: random.randint(key, s, 0, 10))(jnp.array([3])))(key())),
    }


def _numpy_in_user_code(jax):
    """NumPy called by the user's code on a tracer: JAX's lines alone (the notebook's card
    says to use jnp)."""
    return {"numpy_on_tracer_in_user_code": _lines(lambda: jax.jit(
        lambda m: jax.random.randint(jax.random.PRNGKey(0), (3,), np.asarray(m), 10))(1))}


def _compiled_formats(jax):
    """Compiled.input_formats / output_formats: per argument and result its Format, the
    layout XLA compiled the program for with its sharding (one device's here)."""
    jnp = jax.numpy

    def formats(compiled):
        device = jax.sharding.SingleDeviceSharding(jax.devices()[0])

        def describe(f):
            return [type(f).__name__, repr(f.layout), f.sharding is None or f.sharding == device]
        return [jax.tree.map(describe, compiled.input_formats),
                jax.tree.map(describe, compiled.output_formats)]

    def several(x, y, z, w):
        return {"a": x + 1, "b": (y.T, z, w)}
    return {
        "compiled_formats": lambda: formats(jax.jit(several).lower(
            jnp.ones((2, 3)), np.ones((3, 4), np.int32), 1.0,
            jax.ShapeDtypeStruct((2, 2), "int4")).compile()),
        "compiled_formats_unused_argument": lambda: formats(jax.jit(
            lambda x, y: y * 2).lower(jnp.ones(3), jnp.ones((2, 1))).compile()),
        "compiled_formats_keyword_and_key": lambda: formats(jax.jit(
            lambda k, *, n: (k, n)).lower(jax.random.key(0), n=jnp.ones(2)).compile()),
        "compiled_formats_no_arguments": lambda: formats(jax.jit(lambda: 1.0).lower()
                                                         .compile()),
    }


def device_sharding_refusals(jax):
    """A device's SingleDeviceSharding given as out_sharding=: JAX's TypeError naming its
    class by its public path (the sharding's repr, which names the device, made the same
    on every backend). Compared with the package's name made 'jax'."""
    jnp, lax = jax.numpy, jax.lax
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])

    def refused(thunk):
        def run():
            try:
                thunk()
            except TypeError as e:
                return str(e).replace(repr(s), "SHARDING")
        return run
    ones = jnp.ones((2, 2))
    return {f"device_out_sharding_{name}": refused(thunk) for name, thunk in {
        "zeros_like": lambda: jnp.zeros_like(ones, out_sharding=s),
        "reshard": lambda: jax.sharding.reshard(ones, s),
        "einsum": lambda: jnp.einsum("ij,jk->ik", ones, ones, out_sharding=s),
        "dot": lambda: jnp.dot(ones, ones, out_sharding=s),
        "matmul": lambda: jnp.matmul(ones, ones, out_sharding=s),
        "dot_general": lambda: lax.dot_general(ones, ones, (((1,), (0,)), ((), ())),
                                               out_sharding=s),
        "lax_reshape": lambda: lax.reshape(ones, (4,), out_sharding=s),
        "normal": lambda: jax.random.normal(jax.random.key(0), (2,), out_sharding=s),
    }.items()}


def _token_results(jax):
    """Control flow and checkpoint giving back a token, eagerly: JAX's result handlers make
    it a Token (checkpoint, a one-branch switch, a scan's carry passed through); jit's too."""
    lax, jnp = jax.lax, jax.numpy
    # a token on first use: making one compiles, and the cases are built at collection
    tok = functools.cache(lax.create_token)
    kind = functools.partial(_kind, jax)
    return {
        "token_checkpoint_made": lambda: kind(jax.checkpoint(lambda: lax.create_token())()),
        "token_checkpoint_after_all": lambda: kind(jax.checkpoint(lax.after_all)(tok())),
        "token_switch_one_branch": lambda: kind(lax.switch(0, [lambda x: (lax.create_token(),
                                                                          x)], 1.0)[0]),
        "token_scan_carry": lambda: kind(lax.scan(lambda c, x: (c, x), tok(),
                                                  jnp.arange(3.0))[0]),
        "token_while_carry": lambda: kind(lax.while_loop(lambda c: c[1] < 3,
                                                         lambda c: (c[0], c[1] + 1),
                                                         (tok(), 0))[0]),
        "token_jit_scan_made": lambda: kind(jax.jit(lambda t: lax.scan(
            lambda c, x: (c, x), t, jnp.arange(3.0))[0])(tok())),
    }


# a token made inside an eager cond's branches or a scan's body: JAX 0.10.2 fails there with
# an AttributeError of its own internals ('AbstractToken' object has no attribute 'mat');
# jxkernel gives the Token its jit gives (tests/jax_compat/test_lax_numpy_gaps.py)
def token_made_in_bodies(jax):
    lax, jnp = jax.lax, jax.numpy
    kind = functools.partial(_kind, jax)
    return {
        "token_cond_made": lambda: kind(lax.cond(True, lambda x: (lax.create_token(), x),
                                                 lambda x: (lax.create_token(), x), 1.0)[0]),
        "token_scan_after_all": lambda: kind(lax.scan(lambda c, x: (lax.after_all(c), x),
                                                      lax.create_token(), jnp.arange(3.0))[0]),
        "token_fori_after_all": lambda: kind(lax.fori_loop(0, 3, lambda i, c: lax.after_all(c),
                                                           lax.create_token())),
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
    for more in (_bits, _take_along, _tri, _unravel, _shapes, _views, _small, _jit_arguments,
                 _api_gaps, _string_arguments, _array_warnings, _collective_derivatives,
                 _token_results, token_made_in_bodies, _dtype_named_text,
                 _jit_tracer_class_words, text_as_dtype_deliberate, given_tokens,
                 token_operator_deliberate, _array_class_words, _array_class_printed,
                 _arguments_out_of_order, _no_jax_values, _ufunc_arguments,
                 _own_attributes, _random_arguments, _numpy_in_user_code,
                 _compiled_formats, device_sharding_refusals):
        out.update(more(jax))
    return out
