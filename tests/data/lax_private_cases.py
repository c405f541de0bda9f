"""JAX's private lax names that JAX's tests/lax_test.py, lax_vmap_test.py and lax_vmap_op_test.py
call, and the lax behaviour those files found different: run alike by real JAX
(reference/make_lax_private_reference.py records lax_private_reference.json) and by jxkernel
(tests/_jax/_src/test_src_lax_private.py). `run(jax)` returns {case: JSON data}: dtype names,
exact values (small integers in float32), [exception class, message] of what raised.

    run(jax)["int_dtype_for_dim"]  ->  [["10", true, "int32"], ...]
"""
import importlib

import numpy as np


def _module(jax, name):
    return importlib.import_module(f"{jax.__name__}._src.{name}")


def _error(fn) -> list | None:
    """[exception class, message] of `fn()`, or None if it returns."""
    try:
        fn()
    except Exception as e:      # noqa: BLE001 (the class is what is recorded)
        return [type(e).__name__, str(e)]
    return None


def _values(x) -> list:
    return np.asarray(x).tolist()


_SIZES = [10, 2**31 - 1, 2**31, 2**32 - 1, 2**32]


def int_dtype_for_dim(jax):
    utils = _module(jax, "lax.utils")
    return [[str(d), signed, utils.int_dtype_for_dim(d, signed=signed).name]
            for d in _SIZES for signed in (True, False)]


def int_dtype_for_shape(jax):
    utils = _module(jax, "lax.utils")
    shapes = [[], [10, 20], [2, 2**31], [2**32 - 1, 1], [2**32, 3]]
    return [[shape, signed, utils.int_dtype_for_shape(shape, signed=signed).name]
            for shape in shapes for signed in (True, False)]


# (operand shape, window, strides, padding, base dilation): each a 1- or 2-d pooling
_WINDOWS = [((6,), (2,), (2,), [(0, 0)], (1,)),
            ((5,), (3,), (1,), [(1, 1)], (1,)),
            ((4, 5), (2, 2), (1, 2), [(0, 1), (1, 0)], (1, 1)),
            ((3, 4), (2, 2), (1, 1), [(0, 0), (0, 0)], (2, 1))]


def _operand(shape):
    """Distinct values (no ties), so every side chooses the same element of each window."""
    n = int(np.prod(shape))
    return ((np.arange(n) * 7) % n).reshape(shape).astype(np.float32)


def select_and_gather_add(jax):
    windowed = _module(jax, "lax.windowed_reductions")
    out = []
    for shape, window, strides, padding, dilation in _WINDOWS:
        x = _operand(shape)
        for select in (jax.lax.ge_p, jax.lax.le_p):
            ones = (1,) * len(shape)
            got = windowed._select_and_gather_add(10 * x + 1, x, select, window, strides,
                                                  padding, dilation, ones)
            out.append(_values(got))
    return out


def select_and_gather_add_vmap(jax):
    windowed = _module(jax, "lax.windowed_reductions")
    x = np.stack([_operand((6,)), -_operand((6,))])

    def gather(tangents, operand):
        return windowed._select_and_gather_add(tangents, operand, jax.lax.ge_p, (2,), (1,),
                                               [(0, 1)], (1,), (1,))
    return [_values(jax.vmap(gather)(10 * x, x)),
            _values(jax.vmap(gather, in_axes=(None, 0))(10 * x[0], x))]


def select_and_scatter_add(jax):
    windowed = _module(jax, "lax.windowed_reductions")
    out = []
    for shape, window, strides, padding, dilation in _WINDOWS:
        if any(d != 1 for d in dilation):
            continue                   # select_and_scatter_add has no dilations
        x = _operand(shape)
        windows = jax.eval_shape(lambda v: windowed._select_and_gather_add(
            v, v, jax.lax.ge_p, window, strides, padding, dilation, dilation), x).shape
        source = np.arange(1, 1 + int(np.prod(windows)), dtype=np.float32).reshape(windows)
        for select in (jax.lax.ge_p, jax.lax.le_p):
            out.append(_values(windowed._select_and_scatter_add(source, x, select, window,
                                                                strides, padding)))
    return out


def private_dtypes(jax):
    dtypes = _module(jax, "dtypes")
    return {"float8_dtypes": [d.name for d in dtypes._float8_dtypes],
            "scalar_types": [getattr(dtypes, n).__name__ for n in (
                "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                "float8_e5m2fnuz")]}


def canonicalize_value_handler(jax):
    dtypes = _module(jax, "dtypes")

    class Runtime:          # a runtime type of a test's own, registered as lax_test does
        pass

    value = Runtime()
    dtypes.register_canonicalize_value_handler(Runtime, None)
    kept = dtypes.canonicalize_value(value) is value
    dtypes.register_canonicalize_value_handler(Runtime, lambda x: 7)
    return {"kept_as_is": kept, "by_handler": dtypes.canonicalize_value(value)}


def private_names(jax):
    """The private modules' names are the public objects themselves."""
    lax_package, errors = _module(jax, "lax"), _module(jax, "errors")
    sharding_impls = _module(jax, "sharding_impls")
    device = jax.devices()[0]
    return {"lax_add": lax_package.add is jax.lax.add,
            "lax_reduce_max_p": lax_package.reduce_max_p is jax.lax.reduce_max_p,
            "unexpected_tracer_error": errors.UnexpectedTracerError is
            jax.errors.UnexpectedTracerError,
            "single_device_sharding": sharding_impls.make_single_device_sharding(device) ==
            jax.sharding.SingleDeviceSharding(device)}


def broadcast_shapes_errors(jax):
    return [_error(lambda: jax.lax.broadcast_shapes(*shapes))
            for shapes in [((-1,),), ("hello",), ((2,), "ab"), ((2, 1.5),)]]


def private_lax_helpers(jax):
    """jax._src.lax.lax's asarray, _const and _delta, jax._src.util.unzip3."""
    lax_internal, util = _module(jax, "lax.lax"), _module(jax, "util")
    consts = []
    for example in [2.5, 3, True, np.float16(2.5), np.int8(1), np.array([1, 2], np.uint8),
                    lax_internal._convert_element_type(0, np.dtype(np.int8), weak_type=True)]:
        const = lax_internal._const(example, 1)           # (JAX's TypedNdArray is an ndarray)
        kind = "ndarray" if isinstance(const, np.ndarray) else type(const).__name__
        consts.append([kind, str(np.asarray(const).dtype), _values(const)])
    arrays = []
    for x in [1.0, np.float32(1.0), np.array([1, 2], np.int16), True]:
        out = lax_internal.asarray(x)
        staged = len(jax.make_jaxpr(lambda: lax_internal.asarray(x))().eqns)
        arrays.append([isinstance(out, jax.Array), str(out.dtype), out.weak_type, _values(out),
                       staged if np.ndim(x) == 0 else None])   # (a NumPy array: see test)
    deltas = [[str(d.dtype), _values(d)] for d in (
        lax_internal._delta(np.float32, (2, 3), (0, 1)),
        lax_internal._delta(np.int32, (2, 3, 4), (0, 2)),
        lax_internal._delta(np.bool_, (2, 2, 2), (0, 1, 2)))]
    return {"const": consts, "asarray": arrays, "delta": deltas,
            "unzip3": util.unzip3([(1, "a", True), (2, "b", False)])}


def mul_out_dtype(jax):
    jnp, lax = jax.numpy, jax.lax
    return [[str(out.dtype), _values(out)] for out in (
        lax.mul(jnp.int8(100), jnp.int8(3), out_dtype=jnp.int32),
        lax.mul(np.array([100, -100], np.int8), np.array([3, 5], np.int8), out_dtype=np.int16),
        lax.mul(np.array([1.5, 2.5], np.float16), np.array([3, 5], np.float16),
                out_dtype=np.float32))]


def _gather_batching_error(jax):
    dnums = jax.lax.GatherDimensionNumbers(
        offset_dims=(4, 5, 6), collapsed_slice_dims=(0, 1), start_index_map=(0, 1, 2, 3, 4),
        operand_batching_dims=(0, 10))
    operand, indices = np.ones((10, 9, 8, 7, 6), np.float32), np.ones((5, 4, 3, 2, 5), np.int32)
    return jax.eval_shape(lambda o, i: jax.lax.gather(o, i, dnums, (10, 9, 8, 7, 6)),
                          operand, indices)


def _scatter_batching_error(jax):
    dnums = jax.lax.ScatterDimensionNumbers(
        update_window_dims=(4, 5, 6), inserted_window_dims=(),
        scatter_dims_to_operand_dims=(0, 1, 2, 3, 4), operand_batching_dims=(0, 10))
    operand = np.ones((50, 49, 48, 47, 46), np.float32)
    indices, updates = np.ones((10, 9, 8, 7, 5), np.int32), np.ones((10, 9, 8, 7, 3, 2, 4),
                                                                    np.float32)
    return jax.eval_shape(lambda o, i, u: jax.lax.scatter(o, i, u, dnums), operand, indices,
                          updates)


def shape_rule_errors(jax):
    """What JAX's lax tests expect these to raise: top_k past int32 indices, a reduce_window
    computation of another structure, operand_batching_dims out of range."""
    lax = jax.lax
    too_long = jax.ShapeDtypeStruct((2**31 + 1,), np.dtype(np.float32))
    return {"top_k": _error(lambda: jax.eval_shape(lambda x: lax.top_k(x, 100), too_long)),
            "top_k_at_limit": _error(lambda: jax.eval_shape(
                lambda x: lax.top_k(x, 1), jax.ShapeDtypeStruct((2**31,), np.dtype(np.float32)))),
            "reduce_window_tree": _error(lambda: lax.reduce_window(
                np.ones((1,)), 0., lambda x, y: [x + y], padding="VALID",
                window_dimensions=(1,), window_strides=(1,))),
            "gather_batching_dims": _error(lambda: _gather_batching_error(jax)),
            "scatter_batching_dims": _error(lambda: _scatter_batching_error(jax))}


def test_util_helpers(jax):
    """jax._src.test_util's rand_like (seeded draws) and iter_eqns (nested equations)."""
    jtu = _module(jax, "test_util")
    draws = [jtu.rand_like(np.random.RandomState(0), x) for x in (
        np.zeros((2, 2), np.float32), 1.0, np.zeros(2, np.complex64))]
    jaxpr = jax.make_jaxpr(lambda x: jax.lax.cond(x > 0, jax.numpy.sin, jax.numpy.cos, x))(1.)
    return {"rand_like": [[type(d).__name__, str(np.asarray(d).dtype),
                           np.asarray(d, np.complex128).ravel().view(np.float64).tolist()]
                          for d in draws],
            "iter_eqns": sorted(str(e.primitive) for e in jtu.iter_eqns(jaxpr.jaxpr))}


def composite_tracer_constant(jax):
    """A composite whose decomposition closes over a traced value: JAX refuses it."""
    jnp, lax = jax.numpy, jax.lax

    def fun(x, scale):
        decomposed = lax.composite(lambda y: jnp.round(y / scale), name="my.consts")
        return decomposed(x)
    scale, x = np.array([0.5, 0.4, 0.3], np.float32), np.array([1.0, 2.0, 3.0], np.float32)
    error = _error(lambda: jax.jit(fun)(x, scale))
    error[1] = error[1].split("\nSee https://docs.jax.dev")[0]   # (JAX's class adds its link)
    return {"closed_over_constant": _values(jax.jit(lambda v: fun(v, scale))(x)),
            "closed_over_tracer": error}


def stop_gradient_integers(jax):
    """stop_gradient lets go of an integer's tracer too (JAX's issue 33689): under grad both
    outputs of a custom_gradient come back as plain Arrays; an integer gets an equation."""
    jnp, seen = jax.numpy, {}

    @jax.custom_gradient
    def f(x):
        return (x, jnp.round(x).astype(jnp.int32)), lambda g: jnp.ones_like(x)

    def loss(x):
        y, i = f(x)
        y_stopped, i_stopped = jax.lax.stop_gradient((y, i))
        seen["same_type"] = type(y_stopped) is type(i_stopped)
        seen["is_array"] = isinstance(i_stopped, jax.Array)
        return jnp.sum(f(y)[0])
    grads = _values(jax.grad(loss)(jnp.ones((3,))))
    eqns = [str(e.primitive) for e in jax.make_jaxpr(jax.lax.stop_gradient)(1).eqns]
    return {**seen, "grads": grads, "int_eqns": eqns}


def lax_config_options(jax):
    """The options JAX's lax tests read: Shardy partitioning (jxkernel's only one) and
    ragged_dot's TPU instruction (set in a block)."""
    config = _module(jax, "config")
    with config.jax_ragged_dot_use_ragged_dot_instruction(False):
        inside = jax.config.jax_ragged_dot_use_ragged_dot_instruction
    return {"use_shardy_partitioner": config.use_shardy_partitioner.value,
            "jax_use_shardy_partitioner": jax.config.jax_use_shardy_partitioner,
            "ragged_dot_instruction": [config.jax_ragged_dot_use_ragged_dot_instruction.value,
                                       inside]}


def narrow_int_abs(jax):
    """abs refuses int2/int4 (JAX's narrow-integer message) and unsigned ones (its dtypes)."""
    lax = jax.lax
    return {d: _error(lambda: lax.abs(lax.iota(d, 3))) for d in ("int4", "uint4", "int2")}


# the first seed whose eight draws 3·|x| lie in [0, 4) and reach each of uint2's 4 values
_UINT2_SEED = 23


def narrow_dtype_draws(jax):
    """jtu's seeded inputs for ml_dtypes' narrow types, which NumPy's issubdtype does not
    place: uint4's are drawn non-negative (unsigned), bfloat16's get their infinities and NaNs."""
    jtu = _module(jax, "test_util")
    out = {}
    for name in ("rand_default", "rand_small", "rand_some_inf", "rand_some_nan",
                 "rand_some_inf_and_nan"):
        for dtype in ("uint4", "uint2", "int4", "bfloat16", "float8_e4m3fn"):
            # uint2's own seed draws 3·|x| below 4 only: ml_dtypes' cast of a float past a
            # narrow integer's range is the CPU's (seed 1's 6.9 came out 2 on one Xeon, 0 on
            # another, for JAX's jtu too), so only values in range are the same everywhere
            seed = _UINT2_SEED if dtype == "uint2" else 1
            x = getattr(jtu, name)(np.random.RandomState(seed))((8,), np.dtype(dtype))
            out[f"{name}/{dtype}"] = [str(v) for v in np.asarray(x).astype(np.float64)]
    return out


def python_numbers_past_an_integers_range(jax):
    """`lax.convert_element_type` of a Python number eagerly: one NumPy will not put in the
    integer type (past its range, NaN, an infinity) is converted by XLA, which saturates (NaN
    as 0), the same on every CPU; one in range is cast on the host."""
    lax = jax.lax
    out = {}
    for v in (300.7, 1e10, -9.5, float("nan"), float("inf"), -float("inf"), 2.5, 3, 2**40):
        for dtype in ("int4", "uint2", "int8", "uint8", "int32", "uint32"):
            x = lax.convert_element_type(v, np.dtype(dtype))
            out[f"{v}/{dtype}"] = [str(x.dtype), int(np.asarray(x).astype(np.int64))]
    return out


def bitcast_narrow(jax):
    """bitcast_convert_type counts bits, not NumPy's bytes: int4 pairs are an int8, a float32
    eight uint4s, a float16 four int4s (XLA packs them, low bits first)."""
    lax = jax.lax
    int4s = np.array([[1, -2], [7, -8], [0, 3]], dtype=np.dtype("int4"))
    uint4s = np.array([[1, 2, 3, 4], [15, 0, 9, 6]], dtype=np.dtype("uint4"))
    out = {"int4_to_int8": lax.bitcast_convert_type(int4s, np.int8),
           "uint4_to_float16": lax.bitcast_convert_type(uint4s, np.float16),
           "float32_to_uint4": lax.bitcast_convert_type(np.float32(1.5), np.dtype("uint4")),
           "int8_to_int4": lax.bitcast_convert_type(np.array([18, -1], np.int8),
                                                    np.dtype("int4"))}
    return {k: [str(v.dtype), list(v.shape), np.asarray(v).astype(np.float64).tolist()]
            for k, v in out.items()}


CASES = [python_numbers_past_an_integers_range, int_dtype_for_dim, int_dtype_for_shape, select_and_gather_add,
         select_and_gather_add_vmap, select_and_scatter_add, private_dtypes,
         canonicalize_value_handler, private_names, broadcast_shapes_errors, private_lax_helpers,
         mul_out_dtype, shape_rule_errors, test_util_helpers, composite_tracer_constant,
         stop_gradient_integers, lax_config_options, narrow_int_abs, narrow_dtype_draws]


def run(jax) -> dict:
    return {case.__name__: case(jax) for case in CASES}
