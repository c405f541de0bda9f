"""A battery of lax and jnp calls whose jaxprs' equations are compared between JAX 0.10.2 and
jxkernel: per equation (sub-jaxprs walked too) its primitive, its params' keys and a repr of each
value (addresses taken out), and the printed jaxpr (reference/make_eqn_params_reference.py
records JAX's in tests/data/eqn_params_reference.json; tests/core/test_eqn_params.py compares).

What notebook 10 has learners print (`eqn.params`) and what interpreters read
(`eqn.params[...]`, `prim.bind(*invals, **eqn.params)`).

`cases(jax)`: name -> (f, args); `run(jax)`: name -> {"eqns": [[primitive, {key: repr}]],
"text": str} (or {"error": ...})."""
import importlib
import re

import numpy as np

_ADDRESS = re.compile(r" at 0x[0-9a-fA-FX]+")


def _value_repr(v, jax):
    """A param's value as text: jaxprs and callables by kind (their contents are walked or
    differ by construction), everything else by repr with addresses taken out."""
    core = importlib.import_module(jax.__name__ + ".extend.core")
    if isinstance(v, core.ClosedJaxpr):
        return "<ClosedJaxpr>"
    if isinstance(v, core.Jaxpr):
        return "<Jaxpr>"
    if isinstance(v, (tuple, list)) and v and all(
            isinstance(e, (core.ClosedJaxpr, core.Jaxpr)) for e in v):
        return type(v).__name__ + "(" + ", ".join(_value_repr(e, jax) for e in v) + ")"
    if callable(v) and not isinstance(v, type) and not hasattr(v, "dtype"):
        return "<callable>"
    return _ADDRESS.sub("", repr(v))


def _sub_jaxprs(v, jax):
    core = importlib.import_module(jax.__name__ + ".extend.core")
    if isinstance(v, core.ClosedJaxpr):
        yield v.jaxpr
    elif isinstance(v, core.Jaxpr):
        yield v
    elif isinstance(v, (tuple, list)):
        for e in v:
            yield from _sub_jaxprs(e, jax)


def _eqns(jaxpr, jax, out):
    for eqn in jaxpr.eqns:
        out.append([eqn.primitive.name,
                    {k: _value_repr(v, jax) for k, v in sorted(eqn.params.items())}])
        for v in eqn.params.values():
            for sub in _sub_jaxprs(v, jax):
                _eqns(sub, jax, out)
    return out


def run(jax) -> dict:
    result = {}
    for name, (f, args) in cases(jax).items():
        try:
            closed = jax.make_jaxpr(f)(*args)
        except Exception as e:  # noqa: BLE001 - the difference is what is recorded
            result[name] = {"error": type(e).__name__}
            continue
        result[name] = {"eqns": _eqns(closed.jaxpr, jax, []),
                        "text": _ADDRESS.sub("", str(closed))}
    return result


def cases(jax):
    jnp, lax = jax.numpy, jax.lax
    x3 = np.array([0.5, 1.5, 2.5], np.float32)
    m23 = np.arange(6., dtype=np.float32).reshape(2, 3)
    m33 = np.arange(9., dtype=np.float32).reshape(3, 3)
    i3 = np.array([1, 2, 3], np.int32)
    u3 = np.array([1, 2, 3], np.uint32)
    b3 = np.array([True, False, True])
    c3 = np.array([1 + 2j, 3 - 1j, 0.5j], np.complex64)
    c = {}

    def reg(name, f, *args):
        assert name not in c, name
        c[name] = (f, args)

    # ------------------------------------------------------------- elementwise unary
    for op in ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "ceil", "cos",
               "cosh", "digamma", "erf", "erf_inv", "erfc", "exp", "exp2", "expm1", "floor",
               "is_finite", "lgamma", "log", "log1p", "logistic", "neg", "round", "rsqrt",
               "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "bessel_i0e",
               "bessel_i1e"]:
        reg(f"lax.{op}", getattr(lax, op), x3)
    for op in ["not", "population_count", "clz"]:
        reg(f"lax.{op}", getattr(lax, "bitwise_not" if op == "not" else op), i3)
    for op in ["real", "imag", "conj"]:
        reg(f"lax.{op}", getattr(lax, op), c3)
    reg("lax.complex", lax.complex, x3, x3)
    reg("lax.round_even", lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), x3)
    reg("lax.sin_accuracy", lambda x: lax.sin(x, accuracy=lax.Tolerance(atol=1e-3)), x3)
    reg("lax.exp_accuracy_mode", lambda x: lax.exp(x, accuracy=lax.AccuracyMode.HIGHEST), x3)
    reg("lax.tanh_accuracy_full", lambda x: lax.tanh(
        x, accuracy=lax.Tolerance(atol=1e-5, rtol=1e-4, ulps=2)), x3)
    # ------------------------------------------------------------- elementwise binary
    for op in ["add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2", "nextafter",
               "igamma", "igammac", "polygamma", "zeta", "random_gamma_grad"]:
        reg(f"lax.{op}", getattr(lax, op), x3, x3)
    for op in ["bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right_arithmetic",
               "shift_right_logical"]:
        reg(f"lax.{op}", getattr(lax, op), i3, i3)
    reg("lax.mul_out_dtype", lambda x: lax.mul(x, x, out_dtype=np.float32), x3)
    reg("lax.integer_pow", lambda x: lax.integer_pow(x, 3), x3)
    reg("lax.clamp", lambda x: lax.clamp(0.5, x, 2.0), x3)
    reg("lax.betainc", lax.betainc, x3, x3, x3)
    for op in ["eq", "ne", "lt", "le", "gt", "ge"]:
        reg(f"lax.{op}", getattr(lax, op), x3, x3)
    reg("lax.eq_to", lambda x: lax.eq_to_p.bind(x, x) if hasattr(lax, "eq_to_p") else x, x3)
    reg("lax.convert_element_type", lambda x: lax.convert_element_type(x, np.int32), x3)
    reg("lax.convert_weak", lambda x: x + 1, i3)
    reg("lax.bitcast_convert_type", lambda x: lax.bitcast_convert_type(x, np.int32), x3)
    reg("lax.reduce_precision", lambda x: lax.reduce_precision(x, 5, 10), x3)
    reg("lax.stop_gradient", lax.stop_gradient, x3)
    reg("lax.select_n", lambda p, x, y: lax.select_n(p, x, y), b3, x3, x3)
    reg("lax.copy", lambda x: lax.copy_p.bind(x), x3)
    reg("lax.optimization_barrier", lax.optimization_barrier, x3)
    # ------------------------------------------------------------- jnp elementwise
    for op in ["sin", "exp", "log", "sqrt", "abs", "negative", "floor", "sign", "tanh",
               "arctan2", "hypot", "logaddexp", "maximum", "true_divide", "floor_divide",
               "remainder", "power", "square", "reciprocal", "isnan", "isinf", "clip",
               "round", "sinc", "deg2rad", "heaviside", "copysign", "ldexp", "frexp",
               "float_power", "fmod", "divmod", "logical_and", "bitwise_and", "right_shift",
               "invert", "exp2", "log2", "log10", "expm1", "log1p", "cbrt", "fabs",
               "signbit", "trunc", "nan_to_num", "isclose", "where"]:
        fn = getattr(jnp, op)
        if op in ("logical_and", "bitwise_and", "right_shift"):
            reg(f"jnp.{op}", fn, i3, i3)
        elif op == "invert":
            reg(f"jnp.{op}", fn, i3)
        elif op == "ldexp":
            reg(f"jnp.{op}", fn, x3, i3)
        elif op == "where":
            reg(f"jnp.{op}", lambda x: jnp.where(x > 1, x, 0.), x3)
        elif op == "clip":
            reg(f"jnp.{op}", lambda x: jnp.clip(x, 1., 2.), x3)
        elif op in ("arctan2", "hypot", "logaddexp", "maximum", "true_divide", "floor_divide",
                    "remainder", "power", "heaviside", "copysign", "float_power", "fmod",
                    "divmod", "isclose"):
            reg(f"jnp.{op}", fn, x3, x3)
        else:
            reg(f"jnp.{op}", fn, x3)
    reg("jnp.astype", lambda x: x.astype(jnp.int8), x3)
    reg("jnp.uint", lambda x: x * 2 + x, u3)
    reg("jnp.complex_abs", jnp.abs, c3)
    reg("jnp.matmul", jnp.matmul, m23, m33)
    reg("jnp.dot", jnp.dot, x3, x3)
    reg("jnp.einsum", lambda a, b: jnp.einsum("ij,jk->ik", a, b), m23, m33)
    reg("jnp.outer", jnp.outer, x3, x3)
    # ------------------------------------------------------------- reductions
    for op in ["sum", "prod", "max", "min", "mean", "var", "argmax", "argmin", "all", "any",
               "cumsum", "cumprod", "logsumexp"]:
        fn = jax.nn.logsumexp if op == "logsumexp" else getattr(jnp, op)
        reg(f"jnp.{op}", (lambda fn: lambda x: fn(x, axis=1))(fn), m23)
    reg("lax.reduce_sum", lambda x: lax.reduce_sum(x, (0,)) if hasattr(lax, "reduce_sum")
        else lax.reduce(x, 0., lax.add, (0,)), m23)
    reg("lax.reduce_generic", lambda x: lax.reduce(x, 0., lambda a, b: a + 2 * b, (1,)), m23)
    reg("lax.reduce_multi", lambda x, i: lax.reduce(
        (x, i), (0., 0), lambda a, b: (a[0] + b[0], a[1] + b[1]), (0,)), x3, i3)
    reg("lax.argmax", lambda x: lax.argmax(x, 1, np.int32), m23)
    reg("lax.cumsum", lambda x: lax.cumsum(x, axis=1, reverse=True), m23)
    reg("lax.cumlogsumexp", lambda x: lax.cumlogsumexp(x, axis=0), m23)
    reg("lax.reduce_and", lambda b: jnp.all(b), b3)
    reg("lax.reduce_precision_sum", lambda x: jnp.sum(x, dtype=jnp.int32), i3)
    reg("lax.reduce_window", lambda x: lax.reduce_window(x, 0., lax.add, (1, 2), (1, 1),
                                                          "VALID"), m23)
    reg("lax.reduce_window_max", lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2),
                                                              (1, 1), "SAME"), m33)
    # ------------------------------------------------------------- linear algebra
    reg("lax.dot_general", lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
        m23, m33)
    reg("lax.dot_precision", lambda a, b: lax.dot(a, b, precision=lax.Precision.HIGHEST),
        m23, m33)
    reg("lax.dot_preferred", lambda a, b: lax.dot(a, b, preferred_element_type=np.float32),
        m23, m33)
    reg("lax.dot_algorithm", lambda a, b: lax.dot(
        a, b, precision=lax.DotAlgorithmPreset.F32_F32_F32), m23, m33)
    reg("lax.conv", lambda x, w: lax.conv(x, w, (1, 1), "SAME"),
        np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 3, 3), np.float32))
    reg("lax.conv_general_dilated", lambda x, w: lax.conv_general_dilated(
        x, w, (1,), [(1, 1)], lhs_dilation=(2,), rhs_dilation=(1,),
        dimension_numbers=("NWC", "WIO", "NWC"), feature_group_count=1),
        np.ones((1, 5, 2), np.float32), np.ones((3, 2, 4), np.float32))
    reg("jnp.convolve", jnp.convolve, x3, x3)
    reg("jnp.linalg.cholesky", lambda m: jnp.linalg.cholesky(m @ m.T + 3 * jnp.eye(3)), m33)
    reg("jnp.linalg.inv", lambda m: jnp.linalg.inv(m + 3 * jnp.eye(3)), m33)
    reg("jnp.linalg.qr", jnp.linalg.qr, m33)
    reg("jnp.linalg.eigh", jnp.linalg.eigh, m33)
    reg("jnp.linalg.svd", jnp.linalg.svd, m33)
    reg("lax.triangular_solve", lambda a, b: lax.linalg.triangular_solve(
        a, b, left_side=True, lower=True), m33, m33)
    # ------------------------------------------------------------- indexing
    reg("lax.slice", lambda x: lax.slice(x, (0, 1), (2, 3)), m23)
    reg("lax.slice_strides", lambda x: lax.slice(x, (0, 0), (2, 3), (1, 2)), m23)
    reg("lax.dynamic_slice", lambda x, i: lax.dynamic_slice(x, (0, i), (2, 2)), m23,
        np.int32(1))
    reg("lax.dynamic_update_slice", lambda x, i: lax.dynamic_update_slice(
        x, jnp.zeros((1, 2), x.dtype), (i, i)), m23, np.int32(0))
    reg("lax.gather", lambda x, i: lax.gather(
        x, i[:, None], lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                                  start_index_map=(0,)), (1, 3)),
        m33, np.array([0, 2], np.int32))
    reg("lax.scatter_add", lambda x, i, u: lax.scatter_add(
        x, i[:, None], u, lax.ScatterDimensionNumbers(
            update_window_dims=(1,), inserted_window_dims=(0,),
            scatter_dims_to_operand_dims=(0,))), m33, np.array([0, 2], np.int32),
        np.ones((2, 3), np.float32))
    reg("jnp.take", lambda x, i: jnp.take(x, i, axis=0), m33, np.array([0, 2], np.int32))
    reg("jnp.index", lambda x, i: x[i], x3, np.int32(1))
    reg("jnp.index_static", lambda x: x[1:, ::2], m33)
    reg("jnp.index_array", lambda x, i: x[i, 1:], m33, np.array([0, 2], np.int32))
    reg("jnp.at_set", lambda x, i: x.at[i].set(0.), x3, np.int32(1))
    reg("jnp.at_add", lambda x, i: x.at[i].add(1.), x3, np.array([0, 0], np.int32))
    reg("jnp.at_mul", lambda x, i: x.at[i].mul(2.), x3, np.array([0, 2], np.int32))
    reg("jnp.at_min", lambda x, i: x.at[i].min(0.), x3, np.array([0, 2], np.int32))
    reg("jnp.at_get_fill", lambda x, i: x.at[i].get(mode="fill", fill_value=-1.), x3,
        np.array([0, 5], np.int32))
    reg("jnp.take_along_axis", lambda x, i: jnp.take_along_axis(x, i, axis=1), m23,
        np.array([[0], [2]], np.int32))
    # ------------------------------------------------------------- shapes
    reg("lax.pad", lambda x: lax.pad(x, 0., ((1, 0, 1), (0, 2, 0))), m23)
    reg("jnp.pad", lambda x: jnp.pad(x, 1), m23)
    reg("jnp.pad_reflect", lambda x: jnp.pad(x, 1, mode="reflect"), m23)
    reg("lax.concatenate", lambda x: lax.concatenate([x, x], 1), m23)
    reg("jnp.stack", lambda x: jnp.stack([x, x]), x3)
    reg("lax.reshape", lambda x: lax.reshape(x, (3, 2)), m23)
    reg("lax.reshape_dims", lambda x: lax.reshape(x, (3, 2), dimensions=(1, 0)), m23)
    reg("jnp.reshape", lambda x: x.reshape(-1), m23)
    reg("lax.broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), x3)
    reg("jnp.broadcast_to", lambda x: jnp.broadcast_to(x, (4, 3)), x3)
    reg("lax.broadcast", lambda x: lax.broadcast(x, (2,)), x3)
    reg("lax.transpose", lambda x: lax.transpose(x, (1, 0)), m23)
    reg("lax.squeeze", lambda x: lax.squeeze(x[None], (0,)), x3)
    reg("lax.expand_dims", lambda x: lax.expand_dims(x, (0,)), x3)
    reg("lax.rev", lambda x: lax.rev(x, (0,)), x3)
    reg("jnp.flip", jnp.flip, m23)
    reg("jnp.split", lambda x: jnp.split(x, 3, axis=1), m23)
    reg("lax.split", lambda x: lax.split(x, (1, 2), axis=1), m23)
    reg("jnp.roll", lambda x: jnp.roll(x, 1), x3)
    reg("jnp.tile", lambda x: jnp.tile(x, 2), x3)
    reg("jnp.repeat", lambda x: jnp.repeat(x, 2), x3)
    reg("jnp.tril", jnp.tril, m33)
    reg("jnp.diagonal", jnp.diagonal, m33)
    reg("jnp.meshgrid", lambda x: jnp.meshgrid(x, x), x3)
    # ------------------------------------------------------------- creation
    reg("lax.iota", lambda: lax.iota(np.int32, 4))
    reg("lax.broadcasted_iota", lambda: lax.broadcasted_iota(np.float32, (2, 3), 1))
    reg("jnp.arange", lambda: jnp.arange(5))
    reg("jnp.linspace", lambda: jnp.linspace(0., 1., 5))
    reg("jnp.zeros", lambda: jnp.zeros((2, 3)))
    reg("jnp.full_like", lambda x: jnp.full_like(x, 2.), x3)
    reg("jnp.eye", lambda: jnp.eye(3))
    reg("lax.full", lambda: lax.full((2,), 1.5))
    # ------------------------------------------------------------- sorting
    reg("lax.sort", lambda x: lax.sort(x), x3)
    reg("lax.sort_multi", lambda x, i: lax.sort((x, i), num_keys=1), x3, i3)
    reg("lax.sort_key_val", lax.sort_key_val, x3, i3)
    reg("jnp.argsort", jnp.argsort, x3)
    reg("jnp.sort_stable", lambda x: jnp.sort(x, stable=False, descending=True), x3)
    reg("lax.top_k", lambda x: lax.top_k(x, 2), x3)
    reg("jnp.unique_size", lambda x: jnp.unique(x, size=3), x3)
    reg("jnp.searchsorted", jnp.searchsorted, x3, x3)
    reg("jnp.median", jnp.median, x3)
    # ------------------------------------------------------------- random
    reg("random.key", lambda: jax.random.key(0))
    reg("random.PRNGKey", lambda: jax.random.PRNGKey(0))
    reg("random.split", lambda k: jax.random.split(k), np.array([0, 1], np.uint32))
    reg("random.uniform", lambda k: jax.random.uniform(k, (3,)), np.array([0, 1], np.uint32))
    reg("random.normal_key", lambda: jax.random.normal(jax.random.key(1), (2,)))
    reg("random.bits", lambda k: jax.random.bits(k, (2,)), np.array([0, 1], np.uint32))
    reg("random.fold_in", lambda k: jax.random.fold_in(k, 3), np.array([0, 1], np.uint32))
    reg("lax.rng_uniform", lambda: lax.rng_uniform(0., 1., (2,)))
    reg("lax.rng_bit_generator", lambda k: lax.rng_bit_generator(k, (2,)),
        np.array([0, 1, 2, 3], np.uint32))
    # ------------------------------------------------------------- control flow
    reg("lax.scan", lambda x: lax.scan(lambda c, a: (c + a, c * a), 0., x), x3)
    reg("lax.scan_reverse_unroll", lambda x: lax.scan(
        lambda c, a: (c + a, None), 0., x, reverse=True, unroll=2), x3)
    reg("lax.scan_split_transpose", lambda x: lax.scan(lambda c, a: (c + a, c), 0., x,
                                                        _split_transpose=True), x3)
    reg("linearize_scan", lambda x: jax.linearize(
        lambda y: lax.scan(lambda c, a: (jnp.sin(c * a), c), 1., y)[0], x)[1](x), x3)
    reg("lax.scan_length", lambda: lax.scan(lambda c, _: (c + 1, c), 0, None, length=3))
    reg("lax.cond", lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x), True, x3)
    reg("lax.switch", lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tan], x),
        np.int32(1), x3)
    reg("lax.while_loop", lambda x: lax.while_loop(lambda c: c[0] < 3,
                                                   lambda c: (c[0] + 1, c[1] * 2), (0, x)), x3)
    reg("lax.fori_loop", lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x), x3)
    reg("lax.fori_loop_dyn", lambda n, x: lax.fori_loop(0, n, lambda i, c: c + i, x),
        np.int32(3), x3)
    reg("lax.map", lambda x: lax.map(jnp.sin, x), x3)
    reg("lax.associative_scan", lambda x: lax.associative_scan(lax.add, x), x3)
    reg("jit", lambda x: jax.jit(jnp.sin)(x), x3)
    reg("jit_named", lambda x: jax.jit(lambda y: y * 2, inline=False)(x), x3)
    reg("jit_donate", lambda x: jax.jit(lambda y: y + 1, donate_argnums=0)(x), x3)
    reg("jit_static", lambda x: jax.jit(lambda y, n: y * n, static_argnums=1)(x, 3), x3)
    reg("jit_nested", lambda x: jax.jit(lambda y: jax.jit(jnp.cos)(y) + 1)(x), x3)
    reg("jnp.dot_jit", lambda x: jnp.linalg.norm(x), x3)
    reg("jit_keep_unused", lambda x: jax.jit(lambda y, z: y * 2, keep_unused=True)(x, x), x3)
    reg("jit_inline", lambda x: jax.jit(lambda y: y * 2, inline=True)(x), x3)
    reg("jit_donate_two", lambda x: jax.jit(lambda y, z: y + z, donate_argnums=1)(x, x), x3)

    @jax.custom_jvp
    def cj(x):
        return jnp.sin(x)
    cj.defjvp(lambda p, t: (cj(p[0]), jnp.cos(p[0]) * t[0]))
    reg("custom_jvp", cj, x3)
    reg("custom_jvp_grad", jax.grad(lambda x: cj(x).sum()), x3)

    @jax.custom_vjp
    def cv(x):
        return jnp.sin(x)
    cv.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda r, g: (r * g,))
    reg("custom_vjp", cv, x3)
    reg("custom_vjp_grad", jax.grad(lambda x: cv(x).sum()), x3)
    reg("jax.nn.relu", jax.nn.relu, x3)
    reg("jax.nn.relu_grad", jax.grad(lambda x: jax.nn.relu(x).sum()), x3)
    reg("jax.nn.softmax", jax.nn.softmax, x3)
    reg("jax.nn.gelu", jax.nn.gelu, x3)
    reg("remat", jax.checkpoint(lambda x: jnp.sin(jnp.sin(x))), x3)
    reg("remat_policy", jax.checkpoint(lambda x: jnp.sin(x) @ x,
                                       policy=jax.checkpoint_policies.dots_saveable), x3)
    reg("remat_grad", jax.grad(lambda x: jax.checkpoint(lambda y: jnp.sin(y).sum())(x)), x3)
    # ------------------------------------------------------------- transformations
    reg("grad_sin", jax.grad(lambda x: jnp.sin(x).sum()), x3)
    reg("grad_mul", jax.grad(lambda x: (x * x * 3.).sum()), x3)
    reg("grad_div_pow", jax.grad(lambda x: (x / (x ** 2 + 1)).sum()), x3)
    reg("grad_tanh_exp_log", jax.grad(lambda x: jnp.log(jnp.exp(jnp.tanh(x))).sum()), x3)
    reg("grad_matmul", jax.grad(lambda a, b: (a @ b).sum()), m23, m33)
    reg("grad_gather", jax.grad(lambda x, i: x[i].sum()), x3, np.array([0, 2], np.int32))
    reg("grad_scan", jax.grad(lambda x: lax.scan(lambda c, a: (c * a, None), 1., x)[0]), x3)
    reg("grad_cond", jax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)), 1.5)
    reg("grad_while", jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2., x)), 1.5)
    reg("grad_conv", jax.grad(lambda x, w: lax.conv(x, w, (1, 1), "SAME").sum(), (0, 1)),
        np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 3, 3), np.float32))
    reg("grad_sort", jax.grad(lambda x: jnp.sort(x)[0]), x3)
    reg("grad_cumsum", jax.grad(lambda x: jnp.cumsum(x).sum()), x3)
    reg("grad_max", jax.grad(lambda x: jnp.max(x)), x3)
    reg("grad_softmax", jax.grad(lambda x: jax.nn.softmax(x)[0]), x3)
    reg("grad_erf_lgamma", jax.grad(lambda x: (lax.erf(x) + lax.lgamma(x)).sum()), x3)
    reg("grad_atan2_rsqrt", jax.grad(lambda x: (jnp.arctan2(x, 2.) + lax.rsqrt(x)).sum()), x3)
    reg("grad_pad_concat", jax.grad(lambda x: jnp.concatenate([jnp.pad(x, 1), x]).sum()), x3)
    reg("grad_dynamic_slice", jax.grad(lambda x, i: lax.dynamic_slice(x, (i,), (2,)).sum()),
        x3, np.int32(1))
    reg("grad_reduce_window", jax.grad(lambda x: lax.reduce_window(
        x, 0., lax.add, (1, 2), (1, 1), "VALID").sum()), m23)
    reg("grad_clamp_select", jax.grad(lambda x: jnp.clip(x, 1., 2.).sum()), x3)
    reg("grad_integer_pow", jax.grad(lambda x: (x ** 3).sum()), x3)
    reg("grad_sin_accuracy", jax.grad(lambda x: lax.sin(x, accuracy=lax.Tolerance(
        atol=1e-3)).sum()), x3)
    reg("jvp_sin", lambda x: jax.jvp(jnp.sin, (x,), (x,)), x3)
    reg("jvp_mul", lambda x: jax.jvp(lambda y: y * y, (x,), (x,)), x3)
    reg("linearize", lambda x: jax.linearize(jnp.sin, x)[1](x), x3)
    reg("vjp_exp", lambda x: jax.vjp(jnp.exp, x)[1](x), x3)
    reg("vmap_sin_mul", jax.vmap(lambda x: jnp.sin(x) * 2.), m23)
    reg("vmap_dot", jax.vmap(jnp.dot), m23, m23)
    reg("vmap_gather", jax.vmap(lambda x, i: x[i]), m23, np.array([0, 2], np.int32))
    reg("vmap_dynamic_slice", jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,))), m23,
        np.array([0, 1], np.int32))
    reg("vmap_scatter", jax.vmap(lambda x, i: x.at[i].add(1.)), m23,
        np.array([0, 2], np.int32))
    reg("vmap_scatter_same_index", jax.vmap(lambda x: x.at[1].set(0.)), m23)
    reg("vmap_gather_same_index", jax.vmap(lambda x: x[np.array([0, 2])]), m23)
    reg("vmap_gather_batched_index", jax.vmap(lambda i: jnp.asarray(x3)[i]),
        np.array([0, 2], np.int32))
    reg("vmap_cond", jax.vmap(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x)),
        np.array([True, False]), x3[:2])
    reg("vmap_scan", jax.vmap(lambda x: lax.scan(lambda c, a: (c + a, c), 0., x)), m23)
    reg("vmap_sort", jax.vmap(jnp.sort), m23)
    reg("vmap_argmax", jax.vmap(jnp.argmax), m23)
    reg("vmap_cumsum", jax.vmap(jnp.cumsum), m23)
    reg("vmap_conv", jax.vmap(lambda x: lax.conv(x, np.ones((3, 2, 3, 3), np.float32),
                                                 (1, 1), "SAME")),
        np.ones((2, 1, 2, 5, 5), np.float32))
    reg("vmap_while", jax.vmap(lambda x: lax.while_loop(lambda c: c < 3., lambda c: c + 1., x)),
        x3)
    reg("hessian", jax.hessian(lambda x: (jnp.sin(x) * x).sum()), x3)
    reg("jacfwd", jax.jacfwd(jnp.sin), x3)
    reg("jacrev", jax.jacrev(jnp.cos), x3)
    reg("grad_of_vmap", jax.grad(lambda x: jax.vmap(jnp.sin)(x).sum()), x3)
    reg("stop_gradient_grad", jax.grad(lambda x: (lax.stop_gradient(x) * x).sum()), x3)
    reg("debug_print", lambda x: (jax.debug.print("{}", x), x)[1], x3)
    reg("pure_callback", lambda x: jax.pure_callback(
        lambda y: y, jax.ShapeDtypeStruct((3,), np.float32), x), x3)
    reg("named_call", lambda x: jax.named_call(jnp.sin, name="s")(x), x3)
    reg("named_scope", lambda x: (lambda: jnp.sin(x))(), x3)
    reg("ensure_compile_time_eval_free", lambda x: x + jnp.float32(2.) * 3, x3)
    return c
