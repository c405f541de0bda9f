"""64-bit dtypes without x64 under each jax_explicit_x64_dtypes mode ('warn', the default;
'error'; 'allow'), run the same way by real JAX (reference/make_x64_warn_reference.py writes
x64_warn_reference.json) and by jxkernel (tests/lax/test_lax_x64_dtypes.py): what each call
gives (values, dtype, weak type, or the error) and the words of every warning it raises.

- lax's entry points that check a dtype argument as JAX's check_and_canonicalize_user_dtype
  does (convert_element_type, full, iota, argmax, dot's preferred_element_type...), and
  full_like, whose dtype goes through JAX's dtypes.dtype (np.int64 warns "requested in dtype",
  jnp.int64 is narrowed quietly);
- jnp functions with a dtype argument (sum, mean, cumsum, dot, einsum, indices...), each
  under JAX's name for it;
- values made under enable_x64 (an int64 array) used with x64 off: a promotion whose join is
  64-bit narrows with JAX's warning ('requested in dtype'), a lone operand keeps its dtype;
- dtypes.dtype and result_type of dtypes named, and of a ShapeDtypeStruct (canonicalized
  even under 'allow', as JAX's: it is no Array).

Each case runs after jax.clear_caches(): JAX's jnp functions are jitted, and a cached trace
warns no more, so each case's warnings are those of a first call.
`DIFFERENT` names the cases where jxkernel differs on purpose (conformance/README.md): none
now ('allow'/lax_argmin's int64 index_dtype raises JAX's TypeError here too).
"""
import warnings

import numpy as np
from x64_allow_cases import observe

MODES = ("warn", "error", "allow")

DIFFERENT = ()


def _lax(jax, jnp):
    lax = jax.lax
    f32 = lambda: jnp.ones((2, 2), jnp.float32)
    return {
        "convert_element_type": lambda: lax.convert_element_type(f32(), jnp.int64),
        "convert_element_type_np": lambda: lax.convert_element_type(f32(), np.float64),
        "convert_element_type_str": lambda: lax.convert_element_type(f32(), "float64"),
        "convert_element_type_int": lambda: lax.convert_element_type(f32(), int),
        "bitcast_convert_type": lambda: lax.bitcast_convert_type(f32(), jnp.int64),
        "full": lambda: lax.full((2,), 3, jnp.int64),
        "iota": lambda: lax.iota(jnp.int64, 3),
        "broadcasted_iota": lambda: lax.broadcasted_iota(np.float64, (2, 2), 0),
        "lax_argmin": lambda: lax.argmin(f32(), 0, jnp.int64),
        "lax_argmax": lambda: lax.argmax(f32(), 0, jnp.int64),
        "dot_general": lambda: lax.dot_general(f32(), f32(), (((1,), (0,)), ((), ())),
                                               preferred_element_type=jnp.float64),
        "lax_dot": lambda: lax.dot(f32(), f32(), preferred_element_type=jnp.float64),
        "conv": lambda: lax.conv_general_dilated(f32()[None, None], f32()[None, None], (1, 1),
                                                 "SAME", preferred_element_type=jnp.float64),
        "rng_bit_generator": lambda: lax.rng_bit_generator(jnp.zeros(4, jnp.uint32), (2,),
                                                           dtype=jnp.uint64)[1],
        "full_like_jnp": lambda: lax.full_like(f32(), 3, jnp.int64),
        "full_like_np": lambda: lax.full_like(f32(), 3, np.int64),
        "full_like_str": lambda: lax.full_like(f32(), 3, "int64"),
        "full_like_npdtype": lambda: lax.full_like(f32(), 3, np.dtype("float64")),
        "int32_stays_quiet": lambda: lax.convert_element_type(f32(), jnp.int32),
    }


def _jnp(jax, jnp):
    f = lambda: jnp.array([3., 1., 2.])
    i = lambda: jnp.array([3, 1, 2])
    m = lambda: jnp.ones((2, 2))
    return {
        "sum": lambda: jnp.sum(i(), dtype=np.int64),
        "prod": lambda: jnp.prod(i(), dtype=np.int64),
        "mean": lambda: jnp.mean(f(), dtype=np.float64),
        "var": lambda: jnp.var(f(), dtype=np.float64),
        "std": lambda: jnp.std(f(), dtype=np.float64),
        "cumsum": lambda: jnp.cumsum(i(), dtype=np.int64),
        "cumprod": lambda: jnp.cumprod(i(), dtype=np.int64),
        "nansum": lambda: jnp.nansum(f(), dtype=np.float64),
        "nanmean": lambda: jnp.nanmean(f(), dtype=np.float64),
        "nanstd": lambda: jnp.nanstd(f(), dtype=np.float64),
        "trace": lambda: jnp.trace(m(), dtype=np.float64),
        "dot": lambda: jnp.dot(m(), m(), preferred_element_type=np.float64),
        "matmul": lambda: jnp.matmul(m(), m(), preferred_element_type=np.float64),
        "tensordot": lambda: jnp.tensordot(m(), m(), preferred_element_type=np.float64),
        "einsum": lambda: jnp.einsum("ij,jk", m(), m(), preferred_element_type=np.float64),
        "indices": lambda: jnp.indices((2, 3), dtype=np.int64),
        "indices_default": lambda: jnp.indices((2, 3)),
        "ravel_multi_index": lambda: jnp.ravel_multi_index((i(), i()), (4, 4), dtype=np.int64),
        "identity": lambda: jnp.identity(2, dtype=np.float64),
        "empty": lambda: jnp.empty(2, np.float64),
        "eye": lambda: jnp.eye(2, dtype=np.float64),
        "astype": lambda: f().astype(np.int64),
        "one_hot": lambda: jax.nn.one_hot(i(), 4, dtype=np.float64),
        "result_type_np": lambda: jnp.result_type(np.int64, np.int32),
        "result_type_str": lambda: jnp.result_type("float64", "float32"),
        "result_type_jnp_types": lambda: jnp.result_type(jnp.int64, jnp.int32),
        "src_dtype_np": lambda: jax._src.dtypes.dtype(np.int64),
        "src_dtype_jnp": lambda: jax._src.dtypes.dtype(jnp.int64),
        "src_dtype_shape_dtype_struct": lambda: jax._src.dtypes.dtype(
            jax.ShapeDtypeStruct((), jnp.int64)),
        "result_type_shape_dtype_struct": lambda: jnp.result_type(
            jax.ShapeDtypeStruct((), jnp.int64)),
        "eval_shape_shape_dtype_struct": lambda: jax.eval_shape(
            lambda x: x + 1, jax.ShapeDtypeStruct((), jnp.int64)).dtype,
        "safe_to_cast": lambda: str(jax._src.dtypes.safe_to_cast(np.int64, np.int32)),
    }


def _x64_made(jax, jnp):
    """Arrays made in an enable_x64 block, used outside it."""
    with jax.enable_x64(True):
        i64 = jnp.arange(3, dtype=jnp.int64)
        f64 = jnp.array([0.5, 1.5, 2.5], jnp.float64)
        u64 = jnp.ones(3, jnp.uint64)
        c128 = jnp.ones(3, jnp.complex128)
    i32 = lambda: jnp.arange(3, dtype=jnp.int32)
    f32 = lambda: jnp.ones(3, jnp.float32)
    return {
        "x64_int64_alone": lambda: i64,
        "x64_int64_plus_1": lambda: i64 + 1,
        "x64_int64_plus_int64": lambda: i64 + i64,
        "x64_int64_plus_int32": lambda: i64 + i32(),
        "x64_int32_plus_int64": lambda: i32() * i64,
        "x64_int64_times_float": lambda: i64 * 2.5,
        "x64_int64_plus_float32": lambda: i64 + f32(),
        "x64_float64_plus_float32": lambda: f64 - f32(),
        "x64_float64_plus_1": lambda: f64 + 1.0,
        "x64_uint64_plus_int64": lambda: u64 + i64,
        "x64_uint64_plus_1": lambda: u64 + 1,
        "x64_complex128_plus_float32": lambda: c128 + f32(),
        "x64_negative": lambda: -i64,
        "x64_sin_float64": lambda: jnp.sin(f64),
        "x64_sin_int64": lambda: jnp.sin(i64),
        "x64_sum": lambda: jnp.sum(i64),
        "x64_result_type_pair": lambda: jnp.result_type(i64, i32()),
        "x64_result_type_alone": lambda: jnp.result_type(i64),
        "x64_where": lambda: jnp.where(True, i64, i32()),
        "x64_concatenate": lambda: jnp.concatenate([i64, i32()]),
        "x64_divide": lambda: i64 / 2,
        "x64_maximum": lambda: jnp.maximum(i64, i32()),
        "x64_asarray": lambda: jnp.asarray(i64),
        "x64_array_of_list": lambda: jnp.array([i64[0], i64[1]]),
        "x64_jit_plus_int32": lambda: jax.jit(lambda a, b: a - b)(i64, i32()),
    }


def cases(jax) -> dict:
    jnp = jax.numpy
    return {**_lax(jax, jnp), **_jnp(jax, jnp), **_x64_made(jax, jnp)}


def _observed(jax, make):
    """[the call's observation, the words of each warning about 64-bit dtypes it raised]."""
    jax.clear_caches()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = observe(make)
    return [got, sorted({str(w.message) for w in caught if "Explicitly requested dtype"
                         in str(w.message)})]


def run(jax) -> dict:
    """Every case under every mode, as "<mode>/<case>" (x64 off)."""
    assert not jax.config.jax_enable_x64
    out = {}
    for mode in MODES:
        with jax._src.config.explicit_x64_dtypes(mode):
            for name, make in cases(jax).items():
                out[f"{mode}/{name}"] = _observed(jax, make)
    return out
