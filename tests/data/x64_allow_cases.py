"""jax_explicit_x64_dtypes='allow' with x64 off, run the same way by real JAX
(reference/make_x64_allow_reference.py writes x64_allow_reference.json) and by jxkernel
(tests/numpy/test_x64_allow.py): a 64-bit dtype asked for by name is kept, and what follows
from it (promotion of an int64 array with an int32 one, reductions, jit, grad, vmap, random
bits and samplers, jaxprs, jit's cache key). `run(jax)` is called with x64 off and the option
at its default; each case runs under 'allow' unless its name says 'warn'.

`DIFFERENT` names the cases where jxkernel differs on purpose (conformance/README.md): JAX
0.10.2 passes a host value given with a 64-bit dtype through its 32-bit type first, and what
follows from that.
"""
import warnings

import numpy as np

# jxkernel keeps the value; JAX's is the value narrowed to 32 bits and widened again
DIFFERENT = ("array_big_int64", "array_float64_precision", "array_uint64_big",
             # JAX: its int64 bound iinfo(int64).max becomes -1, so its span is one wider
             # (other samples, and maxval drawn)
             "randint_int64", "randint_int64_range",
             # JAX: a TypeError (a float32 constant meets the float64 samples)
             "normal_float64")

BIG = 2 ** 40 + 3


def observe(make):
    """[values as a list (complex: [real parts, imaginary parts]), dtype name, weak type] of an
    array, a dtype's name, a string as it is, a list of those for a tuple, or ["raised",
    class name, first line of the message]."""
    try:
        x = make()
    except Exception as e:                     # what each side raises is the observation
        return ["raised", type(e).__name__, str(e).splitlines()[0] if str(e) else ""]
    if isinstance(x, np.dtype):
        return ["dtype", x.name]
    if isinstance(x, str):
        return ["text", x]
    if isinstance(x, (list, tuple)):
        return [observe(lambda v=v: v) for v in x]
    values = np.asarray(x)
    values = [values.real.tolist(), values.imag.tolist()] if values.dtype.kind == "c" else \
        values.tolist()
    return [values, np.dtype(x.dtype).name, bool(getattr(x, "weak_type", False))]


def _creation(jax, jnp):
    return {
        "array_int64": lambda: jnp.array([1, 2, 3], dtype=jnp.int64),
        "array_scalar_int64": lambda: jnp.array(1, dtype=jnp.int64),
        "array_float64": lambda: jnp.array([0.5, 1.25], dtype=jnp.float64),
        "array_complex128": lambda: jnp.array(1j, dtype=jnp.complex128),
        "array_big_int64": lambda: jnp.array(BIG, dtype=jnp.int64),
        "array_float64_precision": lambda: jnp.array(0.1, dtype=jnp.float64),
        "array_uint64_big": lambda: jnp.array([2 ** 63 + 5], dtype=jnp.uint64),
        "asarray_numpy_no_dtype": lambda: jnp.asarray(np.arange(3)),
        "asarray_numpy_int64": lambda: jnp.asarray(np.arange(3), dtype=np.int64),
        "device_put_numpy_int64": lambda: jax.device_put(np.arange(3)),
        "zeros_float64": lambda: jnp.zeros(3, jnp.float64),
        "ones_int64": lambda: jnp.ones((2,), "int64"),
        "full_int64_big": lambda: jnp.full((2,), BIG, jnp.int64),
        "arange_int64": lambda: jnp.arange(3, dtype=jnp.int64),
        "arange_int64_big": lambda: jnp.arange(BIG, BIG + 3, dtype=jnp.int64),
        "eye_float64": lambda: jnp.eye(2, dtype=jnp.float64),
        "linspace_float64": lambda: jnp.linspace(0, 1, 5, dtype=jnp.float64),
        "zeros_like_int64": lambda: jnp.zeros_like(jnp.ones(2, jnp.int64)),
        "full_like_float64": lambda: jnp.full_like(jnp.ones(2), 2.5, dtype=jnp.float64),
        "jnp_int64_scalar": lambda: jnp.int64(5),
        "jnp_float64_scalar": lambda: jnp.float64(0.5),
        "uint64_array": lambda: jnp.array([3, 4], dtype=jnp.uint64),
        "iota_int64": lambda: jax.lax.iota(np.int64, 4),
        "lax_full_float64": lambda: jax.lax.full((2,), 1.5, np.float64),
    }


def _conversions(jax, jnp):
    f32 = jnp.array([1.5, -2.5], jnp.float32)
    return {
        "astype_int64": lambda: f32.astype(jnp.int64),
        "astype_float64": lambda: f32.astype(jnp.float64),
        "astype_complex128": lambda: f32.astype(jnp.complex128),
        "convert_element_type_float64": lambda: jax.lax.convert_element_type(f32, jnp.float64),
        "astype_big_float_to_int64": lambda: jnp.array([2.0 ** 40], jnp.float32).astype("int64"),
        "int64_to_int32": lambda: jnp.array([BIG], jnp.int64).astype(jnp.int32),
        "float64_to_float32": lambda: jnp.array([1 / 3], jnp.float64).astype(jnp.float32),
    }


def _promotion(jax, jnp):
    i64 = lambda: jnp.array([1, 2, 3], jnp.int64)
    i32 = lambda: jnp.array([4, 5, 6], jnp.int32)
    f64 = lambda: jnp.array([0.5, 1.5, 2.5], jnp.float64)
    return {
        "int64_plus_python_int": lambda: i64() + 1,
        "int64_times_python_float": lambda: i64() * 2.5,
        "int64_plus_int32_scalar": lambda: i64() + jnp.int32(1),
        "int64_plus_int32_array": lambda: i64() + i32(),
        "int32_plus_int64_array": lambda: i32() + i64(),
        "int64_plus_float32": lambda: i64() + jnp.ones(3, jnp.float32),
        "int64_plus_numpy_int64": lambda: i64() + np.arange(3),
        "int64_plus_uint32": lambda: i64() + jnp.ones(3, jnp.uint32),
        "uint64_plus_int64": lambda: jnp.ones(3, jnp.uint64) + i64(),
        "uint32_plus_int32": lambda: jnp.ones(3, jnp.uint32) + i32(),
        "float64_plus_float32": lambda: f64() + jnp.ones(3, jnp.float32),
        "float64_plus_complex64": lambda: f64() + jnp.ones(3, jnp.complex64),
        "float32_plus_numpy_float64": lambda: jnp.ones(3, jnp.float32) + np.ones(3),
        "float64_plus_python_float": lambda: f64() + 1.0,
        "int64_divide": lambda: i64() / 2,
        "int64_floor_divide": lambda: i64() // 2,
        "int64_power": lambda: i64() ** 2,
        "int64_where": lambda: jnp.where(i64() > 1, i64(), i32()),
        "int64_concatenate_int32": lambda: jnp.concatenate([i64(), i32()]),
        "int64_maximum_int32": lambda: jnp.maximum(i64(), i32()),
        "result_type_numpy_types": lambda: jnp.result_type(np.int64, np.int32),
        "result_type_jnp_types": lambda: jnp.result_type(jnp.int64, jnp.int32),
        "result_type_dtype_strings": lambda: jnp.result_type("float64", "float32"),
        "promote_types": lambda: jnp.promote_types(jnp.int64, jnp.int32),
        "canonicalize_dtype": lambda: jax.dtypes.canonicalize_dtype(jnp.int64),
        "lax_add_int64": lambda: jax.lax.add(i64(), i64()),
        "typed_int_plus_int32": lambda: i32() + _typed_int(jax, 5),
    }


def _reductions_and_math(jax, jnp):
    i64 = lambda: jnp.array([1, 2, 3, 4], jnp.int64)
    f64 = lambda: jnp.array([0.25, 1.0, 2.0, 9.0], jnp.float64)
    return {
        "sum_int64": lambda: i64().sum(),
        "sum_int32_as_int64": lambda: jnp.sum(jnp.arange(4), dtype=jnp.int64),
        "prod_int64": lambda: jnp.prod(i64()),
        "max_int64": lambda: jnp.max(i64()),
        "mean_int64": lambda: i64().mean(),
        "mean_float64": lambda: f64().mean(),
        "var_float64": lambda: jnp.var(f64()),
        "cumsum_int64": lambda: jnp.cumsum(i64()),
        "argmax_int64": lambda: jnp.argmax(i64()),
        "argmax_float32": lambda: jnp.argmax(jnp.ones(3)),
        "sort_int64": lambda: jnp.sort(jnp.array([3, 1, 2], jnp.int64)),
        "index_int64": lambda: i64()[1],
        "slice_int64": lambda: i64()[1:3],
        "scatter_int64": lambda: i64().at[0].set(7),
        "sqrt_float64": lambda: jnp.sqrt(f64()),
        "sin_float64": lambda: jnp.sin(f64()),
        "exp_float64": lambda: jnp.exp(f64()),
        "sin_int64": lambda: jnp.sin(i64()),
        "matmul_float64": lambda: f64().reshape(2, 2) @ f64().reshape(2, 2),
        "abs_int64": lambda: jnp.abs(-i64()),
        "bitwise_int64": lambda: jnp.left_shift(jnp.array([1], jnp.int64), 40),
    }


def _transforms(jax, jnp):
    i64 = jnp.array([1, 2, 3], jnp.int64)
    f64 = jnp.array([0.5, 1.5], jnp.float64)
    return {
        "jit_int64_plus_one": lambda: jax.jit(lambda x: x + 1)(i64),
        "jit_int64_plus_int32": lambda: jax.jit(lambda x, y: x + y)(i64, jnp.ones(3, jnp.int32)),
        "jit_makes_int64": lambda: jax.jit(lambda: jnp.zeros(2, jnp.int64))(),
        "jit_astype": lambda: jax.jit(lambda x: x.astype(jnp.float64) * 3)(jnp.ones(2)),
        "grad_float64": lambda: jax.grad(lambda x: (x ** 2).sum())(f64),
        "grad_float64_sin": lambda: jax.grad(lambda x: jnp.sin(x).sum())(f64),
        "vmap_int64": lambda: jax.vmap(lambda x: x * 2 + 1)(i64),
        "eval_shape_int64": lambda: jax.eval_shape(lambda x: x + 1, i64).dtype,
        "jaxpr_int64": lambda: str(jax.make_jaxpr(lambda x: x * 2 + jnp.int32(1))(i64)),
        "jaxpr_makes_float64": lambda: str(jax.make_jaxpr(
            lambda x: x.astype(jnp.float64) + 1.0)(jnp.ones(2))),
        "jaxpr_grad_float64": lambda: str(jax.make_jaxpr(jax.grad(lambda x: x ** 3))(
            jnp.float64(2.0))),
        "scan_int64_carry": lambda: jax.lax.scan(lambda c, x: (c + x, c), jnp.int64(0), i64),
        "fori_loop_int64": lambda: jax.lax.fori_loop(0, 3, lambda i, c: c * 2,
                                                     jnp.full((), BIG, jnp.int64)),
    }


def _random(jax, jnp):
    key = lambda: jax.random.key(0)
    return {
        "bits_uint64": lambda: jax.random.bits(key(), (3,), jnp.uint64),
        "bits_uint64_legacy_key": lambda: jax.random.bits(jax.random.PRNGKey(1), (2,), "uint64"),
        "bits_uint32": lambda: jax.random.bits(key(), (3,), jnp.uint32),
        "bits_uint8": lambda: jax.random.bits(key(), (3,), jnp.uint8),
        "uniform_float64": lambda: jax.random.uniform(key(), (3,), jnp.float64),
        "uniform_float64_bounds": lambda: jax.random.uniform(key(), (2,), jnp.float64, -2.0, 3.0),
        "randint_int64": lambda: jax.random.randint(key(), (3,), 0, 10, jnp.int64),
        "randint_int64_range": lambda: jnp.any(jax.random.randint(key(), (1000,), 0, 2,
                                                                  jnp.int64) == 2),
        "normal_float64": lambda: jax.random.normal(key(), (3,), jnp.float64),
        "jit_bits_uint64": lambda: jax.jit(lambda k: jax.random.bits(k, (2,), jnp.uint64))(key()),
    }


def _more(jax, jnp):
    """More jnp functions on 64-bit operands (their NumPy constants made typed constants);
    the linear algebra's dtypes only (its algorithms are not JAX's LAPACK calls)."""
    i64 = lambda: jnp.array([3, 1, 2, 5], jnp.int64)
    f64 = lambda: jnp.array([0.5, 1.5, -2.0, 4.0], jnp.float64)
    m64 = lambda: jnp.array([[2.0, 1.0], [1.0, 3.0]], jnp.float64)
    return {
        "median_float64": lambda: jnp.median(f64()),
        "quantile_int64": lambda: jnp.quantile(i64(), 0.5),
        "std_float64": lambda: jnp.std(f64()),
        "take_int64_indices": lambda: i64()[jnp.array([0, 2], jnp.int64)],
        "dynamic_index_int64": lambda: jax.jit(lambda x, k: x[k])(i64(), 1),
        "searchsorted_int64": lambda: jnp.searchsorted(jnp.sort(i64()), 2),
        "unique_int64": lambda: jnp.unique(i64()),
        "cumprod_int64": lambda: jnp.cumprod(i64()),
        "tril_float64": lambda: jnp.tril(m64()),
        "pad_float64": lambda: jnp.pad(f64(), 1, constant_values=7.0),
        "at_add_int64": lambda: i64().at[1].add(5),
        "einsum_float64": lambda: jnp.einsum("ij,jk", m64(), m64()),
        "fft_float64": lambda: jnp.fft.fft(f64()),
        "cholesky_float64": lambda: jnp.linalg.cholesky(m64()).dtype,
        "qr_float64": lambda: jnp.linalg.qr(m64())[1].dtype,
        "eigh_float64": lambda: jnp.linalg.eigh(m64())[0].dtype,
        "inv_float64": lambda: jnp.linalg.inv(m64()).dtype,
        "while_loop_int64": lambda: jax.lax.while_loop(lambda c: c < 100, lambda c: c * 3,
                                                       jnp.int64(1)),
        "cond_int64": lambda: jax.lax.cond(True, lambda x: x + 1, lambda x: x - 1, i64()),
        "jacrev_float64": lambda: jax.jacrev(jnp.sin)(f64()),
        "hessian_float64": lambda: jax.hessian(lambda x: (x ** 3).sum())(f64()),
        "checkpoint_grad_float64": lambda: jax.grad(jax.checkpoint(
            lambda x: jnp.sin(x).sum()))(f64()),
        "choice_int64": lambda: jax.random.choice(jax.random.key(0), i64(), (2,)),
        "permutation_int64": lambda: jax.random.permutation(jax.random.key(0), i64()),
        "exponential_float64": lambda: jax.random.exponential(jax.random.key(0), (2,),
                                                              jnp.float64),
    }


def _sweep(jax, jnp):
    """jnp functions a sweep over every jnp function on 64-bit operands found raising or
    narrowing under 'allow' (their NumPy constants and shift counts made typed constants)."""
    i64 = lambda: jnp.array([3, 1, 2, 5], jnp.int64)
    f64 = lambda: jnp.array([0.5, 1.5, -2.0, 4.0], jnp.float64)
    c128 = lambda: jnp.array([0.5 + 1j, 2.0], jnp.complex128)
    return {
        "i0_float64": lambda: jnp.i0(f64()),
        "i0_int64": lambda: jnp.i0(i64()),
        "signbit_float64": lambda: jnp.signbit(f64()),
        "copysign_float64": lambda: jnp.copysign(f64(), -f64()),
        "spacing_float64": lambda: jnp.spacing(f64()),
        "packbits_int64": lambda: jnp.packbits(i64()),
        "vander_int64": lambda: jnp.vander(i64()),
        "vander_complex128": lambda: jnp.vander(c128()),
        "histogram2d_float64": lambda: [e.dtype.name for e in jnp.histogram2d(f64(), f64())],
        "indices_default": lambda: jnp.indices((2, 3)),
        "array_of_float64_arrays": lambda: jnp.array([f64(), f64()]),
        "array_of_int64_scalars": lambda: jnp.array([i64()[0], 2]),
        "lax_full_like_jnp_int64": lambda: jax.lax.full_like(jnp.ones(2), 3, jnp.int64),
        "convert_element_type_int": lambda: jax.lax.convert_element_type(jnp.ones(2), int),
        "shape_dtype_struct_result_type": lambda: jnp.result_type(
            jax.ShapeDtypeStruct((), jnp.int64)),
        "shape_dtype_struct_trace": lambda: str(jax.jit(lambda x: x * 2).trace(
            jax.ShapeDtypeStruct((), jnp.int64)).jaxpr),
    }


def _extrema(jax, jnp):
    """min/max/argmin/argmax/ptp/bincount of 64-bit operands: JAX reduces from NumPy
    identities, narrowed to 32 bits, so reduce's dtype check refuses them where the narrowed
    value no longer is the identity (int64's and uint64's extremes, and argmax's pairs); float64's
    -inf and uint64's 0 still are. argmax refuses when it compiles, not when it traces."""
    i64 = lambda: jnp.array([3, 1, 2, 5], jnp.int64)
    u64 = lambda: jnp.array([3, 1], jnp.uint64)
    f64 = lambda: jnp.array([0.5, 1.5, -2.0, 4.0], jnp.float64)
    return {
        "min_int64": lambda: jnp.min(i64()),
        "max_int64_axis": lambda: jnp.max(i64().reshape(2, 2), axis=0),
        "max_int64_initial": lambda: jnp.max(i64(), initial=0),
        "max_int64_where": lambda: jnp.max(i64(), where=i64() > 1, initial=0),
        "max_int64_no_axes": lambda: jnp.max(i64(), axis=()),
        "max_int64_method": lambda: i64().max(),
        "jit_max_int64": lambda: jax.jit(jnp.max)(i64()),
        "maximum_reduce_int64": lambda: jnp.maximum.reduce(i64()),
        "nanmin_int64": lambda: jnp.nanmin(i64()),
        "lax_reduce_max_int64": lambda: jax.lax.reduce_max(i64(), (0,)),
        "argmin_int64": lambda: jnp.argmin(i64()),
        "ptp_int64": lambda: jnp.ptp(i64()),
        "ptp_int64_method": lambda: i64().ptp(),
        "bincount_int64": lambda: jnp.bincount(i64()),
        "bincount_int64_length": lambda: jnp.bincount(i64(), length=6),
        "bincount_float64_weights": lambda: jnp.bincount(jnp.array([1, 3]),
                                                         weights=jnp.array([0.5, 2.0], jnp.float64)),
        "max_uint64": lambda: jnp.max(u64()),
        "min_uint64": lambda: jnp.min(u64()),
        "argmax_uint64": lambda: jnp.argmax(u64()),
        "max_float64": lambda: jnp.max(f64()),
        "min_float64_where": lambda: jnp.min(f64(), where=f64() > 0, initial=9.0),
        "ptp_float64": lambda: jnp.ptp(f64()),
        "argmax_float64": lambda: jnp.argmax(f64()),
        "argmin_float64_method": lambda: f64().argmin(),
        "nanargmax_float64": lambda: jnp.nanargmax(f64()),
        "lax_argmax_float64": lambda: jax.lax.argmax(f64(), 0, jnp.int32),
        "lax_argmax_int64_index": lambda: jax.lax.argmax(jnp.array([1, 2], jnp.int16), 0,
                                                         jnp.int64),
        "jit_argmax_float64": lambda: jax.jit(jnp.argmax)(f64()),
        "vmap_argmax_float64": lambda: jax.vmap(jnp.argmax)(f64().reshape(2, 2)),
        "jaxpr_argmax_float64": lambda: str(jax.make_jaxpr(jnp.argmax)(f64())),
        "eval_shape_argmax_float64": lambda: jax.eval_shape(jnp.argmax, f64()).dtype,
        "grad_max_float64": lambda: jax.grad(jnp.max)(f64()),
    }


def _typed_int(jax, value):
    return jax._src.literals.TypedInt(value, np.dtype(np.int64))


def _typed_values(jax, jnp):
    """jnp.asarray of JAX's typed host values (a Python int typed int64 by tracing)."""
    return {
        "asarray_typed_int64": lambda: jnp.asarray(_typed_int(jax, BIG)),
        "array_typed_int64_small": lambda: jnp.array(_typed_int(jax, 5)),
        "asarray_typed_float64": lambda: jnp.asarray(
            jax._src.literals.TypedFloat(0.1, np.dtype(np.float64))),
    }


def cases(jax) -> dict:
    jnp = jax.numpy
    out = {}
    for group in (_creation, _conversions, _promotion, _reductions_and_math, _transforms,
                  _random, _more, _sweep, _extrema, _typed_values):
        out.update(group(jax, jnp))
    return out


def _warn_mode_cases(jax) -> dict:
    """The same typed host values in the default mode: JAX keeps their dtype there too."""
    return {f"warn_{name}": make for name, make in _typed_values(jax, jax.numpy).items()}


def _jit_cache(jax):
    """One jitted function called under 'warn', 'allow', then 'warn': the option is part of
    jit's cache key (JAX's include_in_jit_key), so each mode gets its own dtype."""
    jnp = jax.numpy
    f = jax.jit(lambda x: x + jnp.zeros(2, jnp.int64))
    out = []
    for mode in ("warn", "allow", "warn"):
        with jax._src.config.explicit_x64_dtypes(mode):
            out.append(observe(lambda: f(jnp.ones(2, jnp.int32))))
    return out


def run(jax) -> dict:
    """Every case's observation (x64 off; 'allow' unless named 'warn_...')."""
    assert not jax.config.jax_enable_x64
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # (WARN mode's truncation warnings)
        for name, make in _warn_mode_cases(jax).items():
            out[name] = observe(make)
        out["jit_cache_by_mode"] = _jit_cache(jax)
        with jax._src.config.explicit_x64_dtypes("allow"):
            for name, make in cases(jax).items():
                out[name] = observe(make)
    return out
