"""Programs a learner writes, whose `jax.make_jaxpr(f)(*args)` text is compared between JAX
0.10.2 and jxkernel (reference/make_jaxpr_text_reference.py records JAX's texts in
tests/data/jaxpr_text_reference.json; tests/transforms/test_jaxpr_text.py compares).

`cases(jax)`: name -> (f, args). The same code builds both sides' programs, so `jax` is
whichever module is passed in (real JAX when recording, jxkernel in the tests)."""
from functools import partial

import numpy as np


def cases(jax):
    jnp, lax, nn = jax.numpy, jax.lax, jax.nn
    x3 = np.arange(1., 4., dtype=np.float32)
    x4 = np.arange(1., 5., dtype=np.float32)
    m23 = np.arange(6., dtype=np.float32).reshape(2, 3)
    m32 = np.arange(6., dtype=np.float32).reshape(3, 2)
    m33 = np.arange(9., dtype=np.float32).reshape(3, 3)
    i3 = np.arange(3, dtype=np.int32)
    c = {}

    def reg(name, f, *args):
        assert name not in c, name
        c[name] = (f, args)

    # ---------------------------------------------------------------- reductions
    reg("sum", jnp.sum, x3)
    reg("sum_axis", lambda x: jnp.sum(x, axis=1), m23)
    reg("sum_keepdims", lambda x: jnp.sum(x, axis=0, keepdims=True), m23)
    reg("prod", jnp.prod, x3)
    reg("max", jnp.max, x3)
    reg("min_axis", lambda x: jnp.min(x, axis=1), m23)
    reg("mean", jnp.mean, x4)
    reg("mean_axis", lambda x: jnp.mean(x, axis=0), m23)
    reg("mean_keepdims", lambda x: jnp.mean(x, axis=1, keepdims=True), m23)
    reg("var", jnp.var, x4)
    reg("var_axis", lambda x: jnp.var(x, axis=1), m23)
    reg("var_ddof", lambda x: jnp.var(x, ddof=1), x4)
    reg("std", jnp.std, x4)
    reg("std_axis_keepdims", lambda x: jnp.std(x, axis=0, keepdims=True), m23)
    reg("std_ddof", lambda x: jnp.std(x, ddof=1), x4)
    reg("mean_var", lambda x: (jnp.mean(x), jnp.var(x)), x4)
    reg("argmax", jnp.argmax, x3)
    reg("argmax_axis", lambda x: jnp.argmax(x, axis=1), m23)
    reg("argmin", jnp.argmin, x3)
    reg("argsort", jnp.argsort, x3)
    reg("sort", jnp.sort, x3)
    reg("sort_axis0", lambda x: jnp.sort(x, axis=0), m23)
    reg("cumsum", jnp.cumsum, x3)
    reg("cumsum_axis", lambda x: jnp.cumsum(x, axis=1), m23)
    reg("cumprod", jnp.cumprod, x3)
    reg("all_any", lambda x: (jnp.all(x > 0), jnp.any(x > 2)), x3)
    reg("norm", jnp.linalg.norm, x3)
    reg("median", jnp.median, x4)
    reg("count_nonzero", jnp.count_nonzero, x3)

    # ---------------------------------------------------------------- elementwise, where
    reg("where", lambda x: jnp.where(x > 0, x, 0.), x3)
    reg("where_two", lambda x, y: jnp.where(x > y, x, y), x3, x3)
    reg("select", lambda p, x, y: lax.select(p, x, y), np.array([True, False, True]), x3, x3)
    reg("clip", lambda x: jnp.clip(x, 0, 1), x3)
    reg("clip_max", lambda x: jnp.clip(x, max=2.), x3)
    reg("abs_sign", lambda x: (jnp.abs(x), jnp.sign(x)), x3)
    reg("exp_log", lambda x: jnp.log(jnp.exp(x)), x3)
    reg("sqrt_square", lambda x: jnp.sqrt(jnp.square(x)), x3)
    reg("power", lambda x: x ** 3, x3)
    reg("power_float", lambda x: x ** 2.5, x3)
    reg("maximum", jnp.maximum, x3, x3)
    reg("floor_divide", lambda x: x // 2, x3)
    reg("mod", lambda x: x % 2, x3)
    reg("int_ops", lambda i: i * 2 + 1, i3)
    reg("astype", lambda x: x.astype(jnp.int32), x3)
    reg("isnan", jnp.isnan, x3)
    reg("round", jnp.round, x3)
    reg("allclose_like", lambda x, y: jnp.abs(x - y) < 1e-3, x3, x3)
    reg("tanh_sin_cos", lambda x: jnp.tanh(x) + jnp.sin(x) * jnp.cos(x), x3)
    reg("arctan2", jnp.arctan2, x3, x3)
    reg("logaddexp", jnp.logaddexp, x3, x3)

    # ---------------------------------------------------------------- creation
    reg("linspace", lambda: jnp.linspace(0, 1, 5))
    reg("arange", lambda: jnp.arange(5))
    reg("arange_float", lambda: jnp.arange(0., 1., 0.25))
    reg("zeros_ones", lambda: (jnp.zeros(3), jnp.ones((2, 2))))
    reg("zeros_like", jnp.zeros_like, x3)
    reg("full", lambda x: jnp.full((2,), x), 1.)
    reg("eye", lambda: jnp.eye(3))
    reg("array_of_list", lambda x: jnp.array([x, x * 2]), 1.)

    # ---------------------------------------------------------------- shapes
    reg("reshape", lambda x: x.reshape(3, 2), m23)
    reg("reshape_minus1", lambda x: jnp.reshape(x, (-1,)), m23)
    reg("transpose", jnp.transpose, m23)
    reg("T", lambda x: x.T, m23)
    reg("swapaxes", lambda x: jnp.swapaxes(x, 0, 1), m23)
    reg("concatenate", lambda x: jnp.concatenate([x, x]), x3)
    reg("concatenate_axis1", lambda x: jnp.concatenate([x, x], axis=1), m23)
    reg("stack", lambda x: jnp.stack([x, x]), x3)
    reg("hstack_vstack", lambda x: (jnp.hstack([x, x]), jnp.vstack([x, x])), x3)
    reg("expand_squeeze", lambda x: jnp.squeeze(jnp.expand_dims(x, 0)), x3)
    reg("newaxis", lambda x: x[:, None], x3)
    reg("broadcast_to", lambda x: jnp.broadcast_to(x, (2, 3)), x3)
    reg("tile", lambda x: jnp.tile(x, 2), x3)
    reg("repeat", lambda x: jnp.repeat(x, 2), x3)
    reg("flip", jnp.flip, x3)
    reg("roll", lambda x: jnp.roll(x, 1), x3)
    reg("ravel", jnp.ravel, m23)
    reg("split", lambda x: jnp.split(x, 2), x4)
    reg("pad", lambda x: jnp.pad(x, 1), x3)
    reg("triu", jnp.triu, m33)
    reg("diag", jnp.diag, m33)
    reg("trace", jnp.trace, m33)
    reg("outer", jnp.outer, x3, x3)

    # ---------------------------------------------------------------- indexing
    reg("index_int", lambda x: x[1], x3)
    reg("index_neg", lambda x: x[-1], x3)
    reg("index_slice", lambda x: x[1:], x3)
    reg("index_step", lambda x: x[::2], x4)
    reg("index_2d", lambda x: x[1, 2], m23)
    reg("index_row", lambda x: x[0], m23)
    reg("index_col", lambda x: x[:, 1], m23)
    reg("index_traced", lambda x, i: x[i], x3, 1)
    reg("index_array", lambda x, i: x[i], x3, i3)
    reg("index_bool_where", lambda x: jnp.where(x > 1, x, 0).sum(), x3)
    reg("at_set", lambda x: x.at[1].set(5.), x3)
    reg("at_add", lambda x: x.at[1].add(5.), x3)
    reg("at_set_slice", lambda x: x.at[1:].set(0.), x3)
    reg("at_mul_traced", lambda x, i: x.at[i].multiply(2.), x3, 1)
    reg("at_get", lambda x: x.at[2].get(), x3)
    reg("take", lambda x, i: jnp.take(x, i), x3, i3)
    reg("dynamic_slice", lambda x, i: lax.dynamic_slice(x, (i,), (2,)), x4, 1)

    # ---------------------------------------------------------------- linear algebra
    reg("matmul", jnp.matmul, m23, m32)
    reg("matmul_op", lambda a, b: a @ b, m23, x3)
    reg("dot_vec", jnp.dot, x3, x3)
    reg("einsum_mm", lambda a, b: jnp.einsum("ij,jk->ik", a, b), m23, m32)
    reg("einsum_trace", lambda a: jnp.einsum("ii", a), m33)
    reg("inner_vdot", lambda a, b: (jnp.inner(a, b), jnp.vdot(a, b)), x3, x3)
    reg("linear_layer", lambda w, b, x: jnp.tanh(w @ x + b), m23, np.ones(2, np.float32), x3)
    reg("solve", jnp.linalg.solve, m33 + np.eye(3, dtype=np.float32) * 9, x3)

    # ---------------------------------------------------------------- nn
    reg("softmax", nn.softmax, x3)
    reg("log_softmax", nn.log_softmax, x3)
    reg("logsumexp", nn.logsumexp, x3)
    reg("relu", nn.relu, x3)
    reg("gelu", nn.gelu, x3)
    reg("gelu_exact", lambda x: nn.gelu(x, approximate=False), x3)
    reg("sigmoid", nn.sigmoid, x3)
    reg("softplus", nn.softplus, x3)
    reg("silu", nn.silu, x3)
    reg("one_hot", lambda i: nn.one_hot(i, 3), i3)
    reg("mse_loss", lambda p, y: jnp.mean((p - y) ** 2), x3, x3)
    reg("cross_entropy", lambda logits, y: -jnp.sum(nn.one_hot(y, 3) * nn.log_softmax(logits)),
        x3, np.int32(1))

    # ---------------------------------------------------------------- control flow
    def cond1(x):
        return lax.cond(x > 0, jnp.sin, jnp.cos, x)

    def scan1(x):
        return lax.scan(lambda c, y: (c * y, c), x, jnp.arange(3.))[0]

    def fori1(x):
        return lax.fori_loop(0, 3, lambda i, c: c * 2., x)

    reg("cond", cond1, 1.)
    reg("cond_operands", lambda p, x, y: lax.cond(p, lambda a, b: a + b, lambda a, b: a - b,
                                                  x, y), True, 1., 2.)
    reg("cond_closure", lambda x, y: lax.cond(x > 0, lambda: x * y, lambda: y), 1., 2.)
    reg("switch", lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tan], x), 1, 1.)
    reg("scan", scan1, 1.)
    reg("scan_cumsum", lambda xs: lax.scan(lambda c, y: (c + y, c + y), 0., xs), x3)
    reg("scan_none_xs", lambda x: lax.scan(lambda c, _: (c * 2, c), x, None, length=3), 1.)
    reg("fori_loop", fori1, 1.)
    reg("fori_loop_traced_bound", lambda n, x: lax.fori_loop(0, n, lambda i, c: c + i, x),
        3, 0)
    reg("while_loop", lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * 2, x), 1.)
    reg("while_tuple", lambda x: lax.while_loop(lambda c: c[0] < 3,
                                                lambda c: (c[0] + 1, c[1] * 2), (0, x)), 1.)
    reg("map", lambda xs: lax.map(jnp.sin, xs), x3)
    reg("grad_cond", jax.grad(cond1), 1.)
    reg("grad_switch", jax.grad(lambda x: lax.switch(1, [jnp.sin, jnp.cos], x)), 1.)
    reg("grad_scan", jax.grad(scan1), 1.)
    reg("grad_fori", jax.grad(fori1), 1.)
    reg("grad_map", jax.grad(lambda xs: lax.map(jnp.sin, xs).sum()), x3)
    reg("vmap_cond", jax.vmap(cond1), x3)
    reg("vmap_cond_unbatched_pred", jax.vmap(lambda x: lax.cond(True, jnp.sin, jnp.cos, x)),
        x3)
    reg("vmap_scan", jax.vmap(scan1), x3)
    reg("vmap_while", jax.vmap(lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * 2, x)),
        x3)
    reg("jvp_cond", lambda x: jax.jvp(cond1, (x,), (1.,)), 1.)

    # ---------------------------------------------------------------- transformations
    def f2(x):
        return jnp.sum(jnp.sin(x) ** 2)

    reg("grad", jax.grad(f2), x3)
    reg("grad_scalar", jax.grad(lambda x: x ** 2 + 3 * x), 1.)
    reg("grad_argnums", jax.grad(lambda x, y: x * y, argnums=(0, 1)), 1., 2.)
    reg("value_and_grad", jax.value_and_grad(f2), x3)
    reg("value_and_grad_aux", jax.value_and_grad(lambda x: (x ** 2, x), has_aux=True), 1.)
    reg("grad_grad", jax.grad(jax.grad(jnp.sin)), 1.)
    reg("jvp", lambda x, t: jax.jvp(jnp.sin, (x,), (t,)), x3, x3)
    reg("vjp", lambda x: jax.vjp(jnp.sin, x)[1](x), x3)
    reg("vmap", jax.vmap(lambda x: x * 2 + 1), x3)
    reg("vmap_matmul", jax.vmap(jnp.dot, (0, None)), m23, x3)
    reg("vmap_in_axes_1", jax.vmap(jnp.sum, in_axes=1), m23)
    reg("vmap_out_axes_1", jax.vmap(lambda x: x * 2, out_axes=1), m23)
    reg("vmap_vmap", jax.vmap(jax.vmap(lambda a, b: a * b)), m23, m23)
    reg("vmap_grad", jax.vmap(jax.grad(jnp.sin)), x3)
    reg("jit", jax.jit(lambda x: x * 2), x3)
    reg("jit_nested", lambda x: jax.jit(jnp.sin)(x) + 1, x3)
    reg("jit_static", lambda x: jax.jit(lambda x, n: x ** n, static_argnums=1)(x, 3), 2.)
    reg("jit_static_argnames", partial(jax.jit(lambda x, n: x * n, static_argnames="n"), n=2),
        x3)
    reg("grad_jit", jax.grad(jax.jit(f2)), x3)
    reg("jacfwd", jax.jacfwd(lambda x: jnp.sin(x) * 2), x3)
    reg("jacrev", jax.jacrev(lambda x: jnp.sin(x) * 2), x3)
    reg("jacrev_scalar_out", jax.jacrev(f2), x3)
    reg("hessian", jax.hessian(lambda x: jnp.sum(x ** 3)), x3)
    reg("checkpoint", jax.grad(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))), 1.)
    reg("checkpoint_plain", jax.checkpoint(lambda x: jnp.sin(jnp.sin(x))), 1.)
    reg("stop_gradient", jax.grad(lambda x: x * lax.stop_gradient(x)), 1.)

    @jax.custom_jvp
    def cj(x):
        return jnp.sin(x)

    cj.defjvp(lambda p, t: (cj(p[0]), jnp.cos(p[0]) * t[0]))

    @jax.custom_vjp
    def cv(x):
        return jnp.sin(x)

    cv.defvjp(lambda x: (cv(x), jnp.cos(x)), lambda r, g: (r * g,))

    reg("custom_jvp", cj, 1.)
    reg("custom_jvp_grad", jax.grad(cj), 1.)
    reg("custom_vjp", cv, 1.)
    reg("custom_vjp_grad", jax.grad(cv), 1.)
    reg("grad_relu", jax.grad(nn.relu), 1.)

    # ---------------------------------------------------------------- pytrees
    params = {"w": m23, "b": np.ones(2, np.float32)}

    def loss(p, x):
        return jnp.sum((p["w"] @ x + p["b"]) ** 2)

    reg("pytree_dict", loss, params, x3)
    reg("pytree_grad", jax.grad(loss), params, x3)
    reg("pytree_tuple_out", lambda x: (x, {"a": x * 2, "b": [x + 1]}), 1.)
    reg("tree_map", lambda t: jax.tree_util.tree_map(lambda a: a * 2, t), {"a": 1., "b": x3})
    reg("sgd_step", lambda p, x: jax.tree_util.tree_map(
        lambda a, g: a - 0.1 * g, p, jax.grad(loss)(p, x)), params, x3)

    # ---------------------------------------------------------------- parameters JAX computes
    # with NumPy (np.int64 in the text), and the jnp functions that are jits of their own
    reg("grad_sum_axis", jax.grad(lambda x: jnp.sum(jnp.sum(x, axis=0) ** 2)), m23)
    reg("vmap_max_in_axes_1", jax.vmap(jnp.max, in_axes=1), m23)
    reg("vmap_unbatched_out_axes_1", jax.vmap(lambda x: x3, out_axes=1), m23)
    reg("vmap_broadcast_operand", jax.vmap(lambda a: a * x3), m23[:, :1])
    # a collective over vmap's own axis stays one, over the batch dimension (axes=(0,))
    for name, op in (("psum", lax.psum), ("pmean", lax.pmean), ("pmax", lax.pmax),
                     ("pmin", lax.pmin), ("all_gather", lax.all_gather)):
        reg(f"vmap_{name}", jax.vmap(lambda v, op=op: op(v, "i"), axis_name="i"), x3)
        reg(f"vmap_{name}_in_axes_1", jax.vmap(lambda v, op=op: op(v, "i"), axis_name="i",
                                               in_axes=1), m23)
    reg("vmap_psum_pair", jax.vmap(lambda v: lax.psum((v, 2 * v), "i"), axis_name="i"), m23)
    reg("vmap_psum_unbatched", jax.vmap(lambda v, w: lax.psum(w, "i"), axis_name="i",
                                        in_axes=(0, None)), m23, x3)
    reg("vmap_vmap_psum_both", jax.vmap(jax.vmap(lambda v: lax.psum(v, ("i", "j")),
                                                 axis_name="j"), axis_name="i"), m23)
    reg("vmap_vmap_psum_outer", jax.vmap(jax.vmap(lambda v: lax.psum(v, "i"), axis_name="j"),
                                         axis_name="i"), m23)
    reg("psum_positional_axis", lambda v: lax.psum(v, 0), m23)
    reg("pmax_positional_axes", lambda v: lax.pmax(v, (0, 1)), m23)
    reg("grad_vmap_psum", jax.grad(lambda v: jax.vmap(lambda u: lax.psum(u * u, "i"),
                                                      axis_name="i")(v).sum()), x3)
    reg("jacfwd_two_args", jax.jacfwd(lambda x, y: x * y[0], argnums=(0, 1)), x3, m23)
    reg("jacrev_dict", jax.jacrev(lambda p: p["a"] * p["b"]), {"a": x3, "b": 2.})
    reg("split_indices", lambda x: jnp.split(x, [1, 3]), x4)
    # take_along_axis is a jit of its own (lax_numpy_test's TakeAlongAxisPromiseInBounds:
    # the gather inside keeps int8 indices unless negative ones are wrapped)
    f200, i8 = np.arange(200, dtype=np.float32), np.array([1, 2, 3], np.int8)
    for wrap in (False, True):
        reg(f"take_along_axis_promise_in_bounds_wrap_{wrap}", lambda i, wrap=wrap:
            jnp.take_along_axis(f200, i, axis=0, mode="promise_in_bounds",
                                wrap_negative_indices=wrap), i8)
    reg("take_along_axis_argsort", lambda a: jnp.take_along_axis(a, jnp.argsort(a, axis=1),
                                                                  axis=1), m23)
    reg("array_split", lambda x: jnp.array_split(x, 3), x4)
    reg("pad_pairs", lambda x: jnp.pad(x, ((1, 0), (0, 2)), constant_values=2.5), m23)
    reg("pad_edge", lambda x: jnp.pad(x, 1, mode="edge"), x3)
    reg("pad_wrap", lambda x: jnp.pad(x, 2, mode="wrap"), m23)
    reg("pad_reflect", lambda x: jnp.pad(x, 1, mode="reflect"), m33)
    reg("pad_mean", lambda x: jnp.pad(x, 1, mode="mean"), m23)
    reg("tile_2d", lambda x: jnp.tile(x, (2, 2)), m23)
    reg("tile_rank_up", lambda x: jnp.tile(x, (2, 1, 1)), m23)
    reg("quantile", lambda x: jnp.quantile(x, 0.25), x4)
    reg("percentile_axis", lambda x: jnp.percentile(x, 50., axis=1), m23)
    reg("nanmedian", jnp.nanmedian, x4)
    reg("nanquantile_q_vector", lambda x: jnp.nanquantile(x, jnp.array([.2, .7]), axis=1), m23)
    reg("broadcast_to_stretch", lambda x: jnp.broadcast_to(x, (3, 3)), x3[:1].reshape(1, 1))
    # ---------------------------------------------------------------- PRNG keys
    r = jax.random
    key, keys = r.key(0), r.split(r.key(0), 3)
    reg("random_normal", lambda k: r.normal(k, (3,)), key)
    reg("random_uniform_minmax", lambda k: r.uniform(k, (2,), minval=-1., maxval=1.), key)
    reg("random_split", lambda k: r.split(k, 3), key)
    reg("random_fold_in", lambda k, i: r.fold_in(k, i), key, np.int32(5))
    reg("random_bits", lambda k: r.bits(k, (2,)), key)
    reg("random_key_data", r.key_data, keys)
    reg("random_key_from_seed", lambda s: r.key(s), np.int32(1))
    reg("random_legacy_split", lambda k: r.split(k), r.PRNGKey(0))
    reg("random_vmap_normal", jax.vmap(lambda k: r.normal(k)), keys)
    reg("random_scan_keys", lambda k: lax.scan(
        lambda c, _: (r.split(c)[0], r.bernoulli(c)), k, None, length=2), key)
    reg("random_dropout", lambda k, x: jnp.where(r.bernoulli(k, 0.5, x.shape), x / 0.5, 0.),
        key, x3)
    # ---------------------------------------------------------------- more learner programs
    reg("nn_leaky_relu_elu", lambda x: (nn.leaky_relu(x), nn.elu(x)), x3)
    reg("nn_relu6_hard_tanh", lambda x: (nn.relu6(x), nn.hard_tanh(x)), x3)
    reg("softmax_axis0", lambda x: nn.softmax(x, axis=0), m23)
    reg("log_softmax_grad", jax.grad(lambda x: nn.log_softmax(x)[0]), x3)
    reg("einsum_batch", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), m23[None], m32[None])
    reg("einsum_outer", lambda a, b: jnp.einsum("i,j->ij", a, b), x3, x3)
    reg("associative_scan", lambda x: lax.associative_scan(jnp.add, x), x4)
    reg("checkpoint_policy", jax.grad(jax.checkpoint(
        lambda x: jnp.sin(jnp.sin(x)),
        policy=jax.checkpoint_policies.nothing_saveable)), 1.)
    reg("custom_vjp_vmap", jax.vmap(cv), x3)
    reg("map_two_outputs", lambda xs: lax.map(lambda x: (x * 2, x + 1), xs), x3)
    reg("norm_matrix_fro", jnp.linalg.norm, m23)
    reg("norm_ord1", lambda x: jnp.linalg.norm(x, ord=1), x3)
    reg("qr", jnp.linalg.qr, m33)
    reg("eigh", jnp.linalg.eigh, m33 + m33.T)
    reg("random_vmap_uniform_split", jax.vmap(lambda k: r.uniform(r.split(k)[1], (2,))), keys)
    reg("fori_loop_static_scan", lambda x: lax.fori_loop(0, 4, lambda i, c: c + i * x, 0. * x),
        x3)
    reg("where_one_arg", lambda x: jnp.where(x > 1, size=3), x3)
    reg("unique_size", lambda x: jnp.unique(x, size=3), x3)
    reg("one_hot_float", lambda i: nn.one_hot(i, 4, dtype=jnp.float32), i3)
    reg("argsort_stable", lambda x: jnp.argsort(x, stable=True, descending=True), x3)
    reg("int_pow", lambda i: i ** 3, i3)
    reg("round_decimals", lambda x: jnp.round(x, 1), x3)
    # aliases JAX writes as functions of their own, calling the original (around's a jit)
    reg("around", jnp.around, x3)
    reg("acosh_alias", jnp.acosh, x3)
    reg("atan2_alias", jnp.atan2, x3, x3)
    reg("pow_alias", jnp.pow, x3, x3)
    reg("amax_alias", jnp.amax, x3)
    reg("clip_arrays", lambda x, lo: jnp.clip(x, lo, 2.), x3, x3)
    # ---------------------------------------------------------------- lines past 80 columns
    # the gotchas page's permissive_sum of a list: its ten inputs fill two lines, as JAX's
    reg("list_inputs_wrap", lambda x: jnp.sum(jnp.array(x)), list(range(10)))
    reg("many_results_wrap", lambda *x: x[::-1], *range(30))
    reg("no_equations_wrap", lambda *x: x[0], *range(12))
    reg("nested_jit_wrap", lambda *x: jax.jit(lambda *y: y[0] * 2)(*x), *range(12))
    w3 = jnp.asarray(x3)                # one const, closed over by each product
    reg("consts_wrap", lambda *x: [v * w3 for v in x], *[x3] * 12)
    _closed_over_constants(jax, reg, x3)

    # an equation with no results (debug_print) prints without " = ", in a jit's body too
    def printing(x):
        jax.debug.print("x = {}", x)
        return x * 2
    reg("debug_print_in_jit", jax.jit(printing), np.float32(1.0))
    return c


def _closed_over_constants(jax, reg, x3):
    """A closed-over array is one constvar however often it is used (JAX keys constants by
    id); equal but distinct arrays are two; scalars and 0-d NumPy arrays are literals, a 0-d
    Array a constvar."""
    jnp, lax = jax.numpy, jax.lax
    n32, n64, ni = np.arange(3., dtype=np.float32), np.arange(3.), np.arange(3)
    twin = np.arange(3., dtype=np.float32)
    big = np.arange(1000., dtype=np.float32)
    a, a_twin, a0 = jnp.asarray(n32), jnp.asarray(n32), jnp.asarray(2.)
    alias = a
    reg("const_np_two_uses", lambda x: (x + n32, x * n32), x3)
    reg("const_np_f64_two_uses", lambda x: (x + n64, x * n64), x3)
    reg("const_np_int_two_uses", lambda x: (x + ni, x * ni), x3)
    reg("const_np_equal_distinct", lambda x: (x + n32, x * twin), x3)
    reg("const_np_big", lambda x: (jnp.sum(x) + big, jnp.sum(x) * big), x3)
    reg("const_np_0d", lambda x: (x + np.array(2., np.float32), x * np.float32(3.)), x3)
    reg("const_np_lax_and_jnp", lambda x: (lax.add(x, n32), x * n32, lax.sub(x, n32)), x3)
    reg("const_np_where", lambda x: jnp.where(x > n32, n32, x), x3)
    reg("const_np_jnp_array", lambda x: x + jnp.array(n32) + jnp.asarray(n32), x3)
    reg("const_np_grad", jax.grad(lambda x: jnp.sum(x * n32) + jnp.sum(x + n32)), x3)
    reg("const_np_vmap", jax.vmap(lambda x: (x * n32, x + n32)), np.ones((2, 3), np.float32))
    reg("const_np_cond", lambda x: lax.cond(x[0] > 0, lambda y: y * n32, lambda y: y + n32, x),
        x3)
    reg("const_np_scan_body_and_outside", lambda x: lax.scan(
        lambda c, _: (c * n32, None), x * n32, None, length=2)[0], x3)
    reg("const_array_two_uses", lambda x: (x + a, x * alias, jnp.sin(a)), x3)
    reg("const_array_equal_distinct", lambda x: (x + a, x * a_twin), x3)
    reg("const_array_0d", lambda x: (x + a0, x * a0), x3)
    reg("const_array_while", lambda x: lax.while_loop(
        lambda v: v[0] < 10, lambda v: v + a + 1., x) * a, x3)
    reg("const_array_jit_inside", lambda x: jax.jit(lambda y: y * a)(x) + a, x3)
    # a jit's concrete consts stay in its jaxpr through jvp and vmap; a residual of
    # linearization that is one of them is that constant in the unknown part's call
    inner = jax.jit(lambda y: jnp.sum(y * a * a))
    reg("const_jit_grad", jax.grad(inner), x3)
    reg("const_jit_vmap", jax.vmap(inner), np.ones((2, 3), np.float32))
    reg("const_jit_jvp", lambda x: jax.jvp(inner, (x,), (x,)), x3)
    reg("const_jit_grad_inside_jit", jax.jit(jax.grad(lambda x: inner(x) * 2)), x3)
