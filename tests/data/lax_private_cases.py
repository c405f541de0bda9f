"""JAX's private lax names that JAX's tests/lax_test.py, lax_vmap_test.py and lax_vmap_op_test.py
call, and the lax behaviour those files found different: run alike by real JAX
(reference/make_lax_private_reference.py records lax_private_reference.json) and by jxkernel
(tests/_jax/_src/test_src_lax_private.py). `run(jax)` returns {case: JSON data}: dtype names,
exact values (small integers in float32), [exception class, message] of what raised.

    run(jax)["int_dtype_for_dim"]  ->  [["10", true, "int32"], ...]
"""
import functools
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


def _narrow_result(x) -> list:
    """[dtype name, values]: the values one string, space-separated (a line of the JSON, not
    one a value), floats as their str (NaN equal to NaN)."""
    a = np.asarray(x)
    values = a.ravel().tolist() if a.dtype.kind in "fcb" else a.astype(np.int64).ravel().tolist()
    return [a.dtype.name, " ".join(map(str, values))]


def _narrow_int_ops(jax, lax, jnp, dtype):
    """The ops of narrow_int_ops on every pair of `dtype`'s values: x, y each a 16- (2-bit)
    or 256-element (4-bit) vector, x the slow index."""
    info = jnp.iinfo(dtype)
    vals = np.arange(int(info.min), int(info.max) + 1)
    n = len(vals)
    x = jnp.array(np.repeat(vals, n).astype(dtype))
    y = jnp.array(np.tile(vals, n).astype(dtype))
    square = x.reshape(n, n)
    lo, hi = jnp.array(info.min + 1, dtype), jnp.array(info.max - 1, dtype)
    binary = {"add": jnp.add, "subtract": jnp.subtract, "multiply": jnp.multiply,
              "floor_divide": jnp.floor_divide, "remainder": jnp.remainder, "fmod": jnp.fmod,
              "true_divide": jnp.true_divide, "maximum": jnp.maximum, "minimum": jnp.minimum,
              "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
              "!=": lambda a, b: a != b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
              "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
              "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
              "gcd": jnp.gcd, "lcm": jnp.lcm, "lax.div": lax.div, "lax.rem": lax.rem,
              "lax.max": lax.max, "lax.min": lax.min, "lax.shift_left": lax.shift_left,
              "lax.shift_right_logical": lax.shift_right_logical,
              "lax.shift_right_arithmetic": lax.shift_right_arithmetic}
    unary = {"negative": jnp.negative, "sign": jnp.sign, "square": jnp.square,
             "invert": jnp.invert, "sqrt": jnp.sqrt, "logical_not": jnp.logical_not,
             "lax.neg": lax.neg, "lax.sign": lax.sign, "lax.population_count":
             lax.population_count, "lax.clz": lax.clz, "lax.integer_pow": lambda a:
             lax.integer_pow(a, 3), "where": lambda a: jnp.where(a > y, a, y),
             "clip": lambda a: jnp.clip(a, lo, hi), "clip_arrays": lambda a: jnp.clip(a, y, hi),
             "lax.clamp": lambda a: lax.clamp(lo, a, hi), "+ 1": lambda a: a + 1,
             "* 3": lambda a: a * 3, "< 1": lambda a: a < 1, "astype int8": lambda a:
             a.astype(np.int8), "astype float32": lambda a: a.astype(np.float32),
             "mean": jnp.mean, "mean axis 1": lambda a: jnp.mean(a.reshape(n, n), axis=1),
             "average": jnp.average, "nanmean": jnp.nanmean, "max": jnp.max, "min": jnp.min,
             "max axis 0": lambda a: jnp.max(a.reshape(n, n), axis=0), "ptp": jnp.ptp,
             "all": jnp.all, "any": jnp.any, "cumsum": jnp.cumsum, "cumprod": jnp.cumprod,
             "cumsum own dtype": lambda a: jnp.cumsum(a, dtype=dtype),
             "sum own dtype": lambda a: jnp.sum(a, dtype=dtype),
             "prod own dtype": lambda a: jnp.prod(a, dtype=dtype),
             "lax.cummax": lax.cummax, "lax.cummin": lax.cummin, "lax.cumsum": lax.cumsum,
             "lax.cumprod": lax.cumprod, "lax.reduce_max": lambda a: lax.reduce_max(a, (0,)),
             "lax.reduce_min": lambda a: lax.reduce_min(a, (0,)),
             "lax.reduce_sum": lambda a: lax.reduce_sum(a, (0,)),
             "lax.reduce_prod": lambda a: lax.reduce_prod(a, (0,)),
             "lax.reduce_and": lambda a: lax.reduce_and(a, (0,)),
             "lax.reduce_or": lambda a: lax.reduce_or(a, (0,)),
             "lax.reduce_xor": lambda a: lax.reduce_xor(a, (0,)),
             "reduce_window max": lambda a: lax.reduce_window(
                 a, jnp.array(info.min, dtype), lax.max, (3,), (1,), "VALID"),
             "reduce_window add": lambda a: lax.reduce_window(
                 a, jnp.array(0, dtype), lax.add, (3,), (1,), "VALID"),
             "jit max": jax.jit(jnp.max),
             "jit min axis 1": jax.jit(lambda a: jnp.min(a.reshape(n, n), axis=1))}
    floats = {"var": jnp.var, "std": jnp.std, "median": jnp.median}
    if info.bits == 4:      # XLA's CPU does not compile these on int2/uint2 (RET_CHECK)
        unary.update({"argmax": jnp.argmax, "argmin": jnp.argmin, "sort": jnp.sort,
                      "argsort": jnp.argsort, **floats})
    out = {}
    if info.bits == 2:      # refused: a float meets int2 (the message's order is a set's)
        out.update({k: _error(lambda f=f: f(x))[0] for k, f in floats.items()})
    for name, fn in [*((k, functools.partial(f, x, y)) for k, f in binary.items()),
                     *((k, functools.partial(f, x)) for k, f in unary.items())]:
        err = _error(fn)
        out[name] = err if err is not None else _narrow_result(fn())
    # float32 values of transcendental functions depend on the CPU: their dtype only
    out["sin dtype"] = _error(lambda: jnp.sin(square)) or jnp.sin(square).dtype.name
    out["exp dtype"] = _error(lambda: jnp.exp(square)) or jnp.exp(square).dtype.name
    return out


def narrow_int_ops(jax):
    """int2/uint2/int4/uint4 through jnp and lax on every pair of values. JAX takes int4's and
    uint4's mean, true_divide and sqrt in float32 (int2's and uint2's stay narrow or are
    refused), reduces max/min from the type's own range, refuses logical reductions (NumPy's
    issubdtype does not place these among the integers), and shifts uint2/uint4 right
    arithmetically (the same test: not unsigned). Left out: jnp.sum/prod (JAX raises by
    accident; jxkernel widens, tests/numpy/test_numpy_reductions.py), jnp.power (JAX raises
    by accident too), var/std of int2 (JAX's promotion error lists the dtypes in a set's
    order, which changes between processes: the class only), argmax/argmin/sort/argsort
    of int2 and uint2 (XLA's CPU refuses them or, sort, gives a wrong order)."""
    jnp, lax = jax.numpy, jax.lax
    return {d: _narrow_int_ops(jax, lax, jnp, np.dtype(d))
            for d in ("int2", "uint2", "int4", "uint4")}


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
         stop_gradient_integers, lax_config_options, narrow_int_abs, narrow_dtype_draws,
         narrow_int_ops]


def run(jax) -> dict:
    return {case.__name__: case(jax) for case in CASES}
