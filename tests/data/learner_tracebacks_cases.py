"""A learner's mistakes, one small program each (run with `jax`, `jnp` and `lax` bound to
JAX's or jxkernel's): what the traceback of the error each raises shows, in a script, under
JAX_TRACEBACK_FILTERING=remove_frames and in IPython, recorded from JAX 0.10.2 by
reference/make_learner_tracebacks_reference.py and compared by
tests/core/test_learner_tracebacks.py. Each program's last line raises; `learner_tracebacks_run`
runs them."""

PROGRAMS = {
    "dot_shapes": "jnp.dot(jnp.ones((3, 4)), jnp.ones((5, 2)))",
    "dot_in_a_function": ("def predict(w, x):\n    return jnp.dot(x, w)\n"
                          "predict(jnp.ones((5, 2)), jnp.ones((3, 4)))"),
    "matmul_operator": "jnp.ones((3, 4)) @ jnp.ones((5, 2))",
    "matmul_function": "jnp.matmul(jnp.ones((3, 4)), jnp.ones((5, 2)))",
    "add_operator": "jnp.ones(3) + jnp.ones(4)",
    "add_ufunc": "jnp.add(jnp.ones(3), jnp.ones(4))",
    "multiply_ufunc": "jnp.multiply(jnp.ones((2, 3)), jnp.ones((3, 2)))",
    "subtract_in_a_function": ("def residual(y, t):\n    return y - t\n"
                               "residual(jnp.ones(3), jnp.ones(4))"),
    "sin_of_a_string": "jnp.sin('a')",
    "exp_of_a_list": "jnp.exp([1.0, 2.0])",
    "less_shapes": "jnp.less(jnp.ones(3), jnp.ones(4))",
    "equal_operator": "jnp.ones(3) == jnp.ones(4)",
    "maximum_shapes": "jnp.maximum(jnp.ones(3), jnp.ones(2))",
    "reshape_wrong_size": "jnp.reshape(jnp.arange(6), (4, 2))",
    "array_reshape_wrong_size": "jnp.arange(6).reshape(4, 2)",
    "array_of_ragged_lists": "jnp.array([[1, 2], [3]])",
    "random_normal_int_dtype": "jax.random.normal(jax.random.key(0), (3,), dtype=jnp.int32)",
    "jit_static_array": ("f = jax.jit(lambda x, n: x * n, static_argnums=1)\n"
                         "f(jnp.ones(3), jnp.ones(2))"),
    "jit_static_reshape": ("f = jax.jit(lambda x, n: x.reshape(n), static_argnums=1)\n"
                           "f(jnp.ones(6), 4)"),
    "jit_shapes": ("@jax.jit\ndef layer(x):\n    return x @ jnp.ones((2, 2))\n"
                   "layer(jnp.ones((3, 3)))"),
    "sum_bad_axis": "jnp.sum(jnp.ones((2, 3)), axis=2)",
    "mean_bad_axis": "jnp.mean(jnp.ones(3), axis=1)",
    "array_sum_bad_axis": "jnp.ones(3).sum(axis=1)",
    "max_bad_axis": "jnp.max(jnp.ones(3), axis=-2)",
    "einsum_shapes": "jnp.einsum('ij,jk->ik', jnp.ones((2, 3)), jnp.ones((4, 5)))",
    "concatenate_shapes": "jnp.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))])",
    "stack_shapes": "jnp.stack([jnp.ones(2), jnp.ones(3)])",
    "where_shapes": "jnp.where(jnp.ones(3) > 0, jnp.ones(3), jnp.ones(4))",
    "too_many_indices": "jnp.ones(3)[0, 1]",
    "transpose_bad_axes": "jnp.transpose(jnp.ones((2, 3)), (0, 2))",
    "grad_of_an_int": "jax.grad(lambda x: x ** 2)(3)",
    "grad_of_a_vector_output": "jax.grad(lambda x: x * 2)(jnp.ones(3))",
    "vmap_axis_sizes": "jax.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))",
    "lax_add_dtypes": "lax.add(jnp.ones(3), jnp.ones(3, jnp.int32))",
    # arguments JAX's jit refuses before its function runs (a string), and checks of
    # JAX's jitted functions raising before any of jxkernel's boundaries
    "square_of_a_string": "jnp.square('a')",
    "clip_of_a_string": "jnp.clip('a', 0, 1)",
    "add_outer_of_a_string": "jnp.add.outer(jnp.ones(3), 'a')",
    "add_of_a_string": "jnp.add(jnp.ones(3), 'a')",
    "sum_of_a_string": "jnp.sum('a')",
    "mean_of_a_string": "jnp.mean('a')",
    "outer_of_a_string": "jnp.outer(jnp.ones(3), 'a')",
    "cumsum_bad_axis": "jnp.cumsum(jnp.ones(3), axis=2)",
    "squeeze_bad_axis": "jnp.squeeze(jnp.ones((2, 3)), axis=0)",
    "zeros_of_a_negative_size": "jnp.zeros((2, -1))",
    # errors inside the learner's own functions under JAX's transformations (vmap, grad,
    # scan, custom_jvp, checkpoint, nested jits, cond), and in linalg, take, tree_map and
    # random.split's arguments
    "vmap_inner_dot": ("def score(x):\n    return jnp.dot(x, jnp.ones(3))\n"
                       "jax.vmap(score)(jnp.ones((2, 4)))"),
    "grad_inner_dot": ("def loss(w):\n    return jnp.sum(jnp.dot(w, jnp.ones(3)))\n"
                       "jax.grad(loss)(jnp.ones(4))"),
    "scan_body_dot": ("def step(carry, x):\n"
                      "    return carry + x, jnp.dot(jnp.ones(3), jnp.ones(2))\n"
                      "lax.scan(step, 0.0, jnp.ones(3))"),
    "custom_jvp_rule_dot": ("@jax.custom_jvp\ndef f(x):\n    return jnp.sin(x)\n"
                            "@f.defjvp\ndef f_jvp(primals, tangents):\n"
                            "    (x,), (t,) = primals, tangents\n"
                            "    return f(x), jnp.dot(jnp.ones(2), jnp.ones(3)) * t\n"
                            "jax.jvp(f, (1.0,), (1.0,))"),
    "checkpoint_inner_dot": ("def block(x):\n    return jnp.dot(x, jnp.ones(3))\n"
                             "jax.checkpoint(block)(jnp.ones(4))"),
    "nested_jit_shapes": ("@jax.jit\ndef inner(x):\n    return x @ jnp.ones((2, 2))\n"
                          "@jax.jit\ndef outer(x):\n    return inner(x) + 1\n"
                          "outer(jnp.ones((3, 3)))"),
    "cond_branches_differ": ("lax.cond(True, lambda x: x, lambda x: x[:2], jnp.ones(3))"),
    "jit_static_under_grad": ("f = jax.jit(lambda x, n: x * n, static_argnums=1)\n"
                              "def loss(x):\n    return f(x, jnp.ones(2)).sum()\n"
                              "jax.grad(loss)(jnp.ones(3))"),
    "jit_static_trace": ("f = jax.jit(lambda x, n: x * n, static_argnums=1)\n"
                         "f.trace(jnp.ones(3), jnp.ones(2))"),
    "linalg_solve_shapes": "jnp.linalg.solve(jnp.eye(3), jnp.ones(4))",
    "take_bad_axis": "jnp.take(jnp.ones((2, 3)), 0, axis=2)",
    "tree_map_mismatched": "jax.tree_util.tree_map(lambda a, b: a + b, [1, 2], [1, 2, 3])",
    "random_split_bad_key": "jax.random.split(jnp.ones(3))",
    # a jnp function's unhashable static argument, which JAX's C++ jit call of it refuses (no
    # frame, no note), and the same in the learner's jit (its Python boundary's note)
    "resize_to_a_list": "jnp.resize(jnp.ones(3), [3, 2])",
    "nanmax_axis_list": "jnp.nanmax(jnp.ones(3), axis=[0])",
    "argsort_axis_array": "jnp.argsort(jnp.ones(3), axis=jnp.ones(2))",
    "argsort_axis_array_in_jit": "jax.jit(lambda x: jnp.argsort(x, axis=jnp.ones(2)))(jnp.ones(3))",
    # jacfwd's and jacrev's checks, which JAX's jacfun (no boundary) raises with its frames
    # and no note, and an error in the learner's function under jacfwd (vmap's boundary)
    "jacfwd_of_an_int": "jax.jacfwd(lambda x: x ** 2)(3)",
    "jacrev_argnums_out_of_range": "jax.jacrev(lambda x: x, argnums=2)(1.0)",
    "jacfwd_inner_dot": ("def predict(x):\n    return jnp.dot(x, jnp.ones(3))\n"
                         "jax.jacfwd(predict)(jnp.ones(4))"),
    "broadcast_arrays_shapes": "jnp.broadcast_arrays(jnp.ones(3), jnp.ones(4))",
    "lax_broadcast_shapes": "lax.broadcast_shapes((3, 1), (2, 4))",
    "moveaxis_bad_axis": "jnp.moveaxis(jnp.ones(3), 0, 2)",
    "tile_float_reps": "jnp.tile(jnp.ones(3), (2.0,))",
    "random_key_float_seed": "jax.random.key(1.5)",
    "map_over_a_number": "lax.map(lambda x: x, 3)",
    # a platform's name where a device goes: JAX's device_put checks its targets first (its
    # frame and _check_sharding's), not where the value moves
    "device_put_to_a_name": "jax.device_put(jnp.ones(2), 'gpu')",
    "device_put_tree_to_a_name": "jax.device_put({'w': jnp.ones(2)}, {'w': 'gpu'})",
}
