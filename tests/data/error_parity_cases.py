"""Learners' bad calls whose errors differed from JAX 0.10.2's (stop 101's sweep of about 300
mistakes, jxkernel's answer and JAX's side by side): the class and the whole message, or the
value where one of the two raised and the other did not. `cases(jax)`: name -> a thunk;
`record` (api_file_gaps_cases's) keeps a value as nested lists or an error as [class name,
message]. reference/make_error_parity_reference.py records JAX's answers in
error_parity_reference.json; tests/jax_compat/test_error_parity.py compares."""
import re

import numpy as np


def cases(jax):
    jnp, lax, linalg = jax.numpy, jax.lax, jax.lax.linalg
    x3, m23, i3 = jnp.arange(3.0), jnp.ones((2, 3)), jnp.arange(3)
    return {
        # lax.select's checks: its shape rule, then its dtype rule, in their words
        "select_shapes": lambda: lax.select(x3 > 0, x3, m23),
        "select_shapes_before_dtypes": lambda: lax.select(x3 > 0, x3, m23.astype(int)),
        "select_dtypes": lambda: lax.select(x3 > 0, x3, i3),
        "select_which_float": lambda: lax.select(x3, x3, x3),
        "select_which_shape": lambda: lax.select(m23 > 0, x3, x3),
        "select_n_bool_three_cases": lambda: lax.select_n(x3 > 0, x3, x3, x3),
        "select_n_no_case": lambda: lax.select_n(x3 > 0),
        "select_n_int_dtypes": lambda: lax.select_n(i3, x3, i3),
        "select_under_jit": lambda: jax.jit(lambda a: lax.select(a > 0, a, m23))(x3),
        # a vector where linalg wants matrices: its shape rule's TypeError
        "svd_of_a_vector": lambda: jnp.linalg.svd(x3),
        "svdvals_of_a_vector": lambda: jnp.linalg.svdvals(x3),
        "qr_of_a_vector": lambda: jnp.linalg.qr(x3),
        "lu_of_a_vector": lambda: jax.scipy.linalg.lu(x3),
        "lu_factor_of_a_vector": lambda: jax.scipy.linalg.lu_factor(x3),
        "triangular_solve_of_a_vector": lambda: linalg.triangular_solve(x3, jnp.eye(2)),
        "householder_product_of_a_vector": lambda: linalg.householder_product(x3, x3),
        "cholesky_not_square": lambda: linalg.cholesky(m23, symmetrize_input=False),
        # a dtype linalg refuses, named with its position; an int matrix that symmetrizing
        # (a true division, as JAX's Python `/`) makes float first (its dtype, its shape)
        "cholesky_of_ints_unsymmetrized": lambda: linalg.cholesky(
            np.eye(2, dtype=np.int32), symmetrize_input=False),
        "cholesky_of_ints": lambda: _typed(linalg.cholesky(np.eye(2, dtype=np.int8))),
        "eigh_of_bools": lambda: [_typed(v) for v in linalg.eigh(np.eye(2, dtype=bool))],
        "lu_of_ints": lambda: linalg.lu(np.eye(2, dtype=np.int32)),
        "qr_of_ints": lambda: linalg.qr(np.eye(2, dtype=np.int32)),
        "svd_of_ints": lambda: linalg.svd(np.eye(2, dtype=np.int32)),
        "lu_pivots_of_floats": lambda: linalg.lu_pivots_to_permutation(np.ones(2, np.float32), 2),
        # broadcasting to fewer dimensions
        "full_like_fewer_dimensions": lambda: jnp.full_like(x3, m23),
        "broadcast_to_fewer_dimensions": lambda: jnp.broadcast_to(m23, (3,)),
        # counts that are not whole numbers, sizes below zero
        "repeat_float_count": lambda: jnp.repeat(x3, 1.5),
        "repeat_whole_float_count": lambda: jnp.repeat(m23, 2.0, axis=1),
        "repeat_float_counts": lambda: jnp.repeat(x3, jnp.array([1.5, 1.0, 1.0])),
        "repeat_int_counts": lambda: jnp.repeat(x3, np.array([1, 0, 2])),
        "repeat_scalar_float_count": lambda: jnp.repeat(jnp.float32(2), 1.5),
        "triu_indices_negative": lambda: jnp.triu_indices(-1),
        "tril_indices_negative_columns": lambda: jnp.tril_indices(2, 0, -2),
        "triu_indices_empty": lambda: jnp.triu_indices(0),
        # text given a dtype: NumPy reads it as a number (jnp.array's np.asarray(x, dtype))
        "scalar_type_of_text": lambda: jnp.float32("1.5"),
        "array_of_texts_with_a_dtype": lambda: jnp.array(["1", "2"], dtype=jnp.int32),
        "scalar_type_of_a_word": lambda: jnp.int32("x"),
        "asarray_of_text_without_a_dtype": lambda: jnp.asarray("1.5"),
        # checks made where the function is called
        "named_scope_of_a_number": lambda: jax.named_scope(1),
        "remat_static_past_the_last": lambda: jax.remat(
            lambda x: x, static_argnums=(2,))(1.0),
        "remat_static_before_the_first": lambda: jax.remat(
            lambda x: x, static_argnums=(-2,))(1.0),
        "remat_static_counted_from_the_end": lambda: jax.remat(
            lambda x, n: x ** n, static_argnums=-1)(3.0, 2),
        # static_argnums that are no tuple of ints: checked when called, as JAX's (its
        # debug_info's loop first, then remat's own words)
        "remat_static_a_float_made": lambda: callable(jax.remat(_times, static_argnums=1.0)),
        "remat_static_a_float": lambda: jax.remat(_times, static_argnums=1.0)(3.0, 2),
        "remat_static_a_fractional_entry": lambda: jax.remat(
            _times, static_argnums=(0, 1.5))(3.0, 2),
        "remat_static_a_list": lambda: jax.checkpoint(_times, static_argnums=[1])(3.0, 2),
        "remat_static_a_name": lambda: jax.checkpoint(_times, static_argnums="y")(3.0, 2),
        "integer_pow_whole_float": lambda: lax.integer_pow(x3, 2.0),
        "complex_of_ints": lambda: lax.complex(x3, i3),
        # a sharding that is no sharding: prepare_axis_resources' words, as jit's
        "sharding_constraint_of_a_number": lambda: lax.with_sharding_constraint(x3, 1),
        "sharding_constraint_of_a_name": lambda: lax.with_sharding_constraint(x3, "x"),
        "sharding_constraint_of_a_tuple": lambda: lax.with_sharding_constraint(x3, (1,)),
        "jit_in_shardings_of_a_number": lambda: jax.jit(lambda a: a, in_shardings=1)(x3),
        # shardings that are no tree prefix of the value: flatten_axes' words, before None's
        "sharding_constraint_of_a_list_of_none": lambda: lax.with_sharding_constraint(
            x3, [None]),
        "sharding_constraint_too_many": lambda: lax.with_sharding_constraint(
            [x3], [None, jax.P()]),
        "sharding_constraint_of_a_list_of_a_spec": lambda: lax.with_sharding_constraint(
            x3, [jax.P()]),
        "sharding_constraint_of_a_nested_none": lambda: lax.with_sharding_constraint(
            [x3], [[None]]),
        # a negative sample shape: JAX's words where its sampler broadcasts
        "randint_negative_shape": lambda: jax.random.randint(jax.random.key(0), (-1,), 0, 3),
        "bernoulli_negative_shape": lambda: jax.random.bernoulli(jax.random.key(0), 0.5, (-1,)),
        "permutation_of_a_negative_count": lambda: jax.random.permutation(jax.random.key(0), -1),
        # argnums that are no indices: Python's words from operator.index, as JAX's
        # _ensure_index gives them (grad's and jacfwd's where written, jacrev's when called)
        "grad_argnums_a_float": lambda: jax.grad(_times, argnums=1.0),
        "grad_argnums_a_fractional_entry": lambda: jax.grad(_times, argnums=(0, 1.5)),
        "grad_argnums_a_name": lambda: jax.grad(_times, argnums="y"),
        "value_and_grad_argnums_a_name": lambda: jax.value_and_grad(_times, argnums="y"),
        "jacfwd_argnums_a_float": lambda: jax.jacfwd(_times, argnums=1.5),
        "jacrev_argnums_a_fractional_entry": lambda: jax.jacrev(
            _times, argnums=(0, 1.5))(1.0, 2.0),
        "jit_static_argnums_a_fractional_entry": lambda: jax.jit(_times, static_argnums=(0, 1.5)),
        "jit_static_argnums_a_name": lambda: jax.jit(_times, static_argnums="y"),
        "jit_donate_argnums_a_fractional_entry": lambda: jax.jit(
            _times, donate_argnums=(0, 1.5)),
        "make_jaxpr_static_argnums_a_fractional_entry": lambda: jax.make_jaxpr(
            _times, static_argnums=(0, 1.5))(1.0, 2.0),
        "pmap_static_argnums_a_fractional_entry": lambda: jax.pmap(
            _times, static_broadcasted_argnums=(0, 1.5)),
        "pmap_donate_argnums_a_name": lambda: jax.pmap(_times, donate_argnums="y"),
        **_stop_105_cases(jax),
        **_stop_106_cases(jax),
        **_stop_111_cases(jax),
    }


def _stop_105_cases(jax):
    """Stop 105's sweep: an axis given as a 0-d array (JAX's argmax takes operator.index of
    it, var its _ensure_optional_axes, before their jits), has_aux's refusal naming JAX's
    tracer classes, lax.dynamic_slice's slice_sizes of another length (JAX's safe_map's
    words), triu's k - 1 first, reshard's Auto axis with JAX's "This error occurs at source"
    (the file's folders left out), device_put's targets checked under jit too, einsum's plan
    before its operands' check, top_k's k, traced sizes' context lines, scan's non-pair
    output, an object in jnp.array, swapaxes, ravel's order='K', jvp's checks, a seed of no
    integer, a loop body returning text, clamp's shapes, closure_convert's callable; and,
    pinned, answers that already were JAX's (linspace, arange, full, pad, take, einsum)."""
    jnp, lax = jax.numpy, jax.lax
    # (NumPy's: nothing compiles when the cases are made; jnp.asarray in a case where an
    # Array takes another path, argmax's jit)
    m23, x3 = np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(3, dtype=np.float32)
    w = np.array([[0.0, 2.0], [4.0, 8.0]], np.float32)      # var [1, 4], std [1, 2]: exact
    return {
        "argmax_axis_a_0d_array": lambda: jnp.argmax(jnp.asarray(m23), axis=jnp.array(1)),
        "argmin_axis_a_numpy_0d_array": lambda: jnp.argmin(jnp.asarray(m23), axis=np.array(1)),
        "nanargmax_axis_a_0d_array": lambda: jnp.nanargmax(m23, axis=jnp.array(1)),
        "nanargmin_axis_a_0d_array": lambda: jnp.nanargmin(m23, axis=jnp.array(0)),
        "argmax_axis_a_0d_float_array": lambda: jnp.argmax(jnp.asarray(m23), axis=jnp.array(1.0)),
        "argmax_axis_a_vector": lambda: jnp.argmax(jnp.asarray(m23), axis=jnp.array([1])),
        "var_axis_a_0d_array": lambda: jnp.var(w, axis=jnp.array(1)),
        "std_axis_a_0d_array": lambda: jnp.std(w, axis=jnp.array(1)),
        "var_axis_traced": lambda: jax.jit(lambda a: jnp.var(w, axis=a))(1),
        "nanvar_axis_a_0d_array": lambda: jnp.nanvar(w, axis=jnp.array(1)),
        "sum_axis_a_0d_array": lambda: jnp.sum(m23, axis=jnp.array(1)),
        "grad_aux_one_value": lambda: jax.grad(lambda v: v.sum(), has_aux=True)(x3),
        "grad_aux_three_values": lambda: jax.grad(lambda v: (v.sum(), 1, 2), has_aux=True)(x3),
        "grad_aux_one_value_under_jit": lambda: jax.jit(
            jax.grad(lambda v: v.sum(), has_aux=True))(x3),
        "value_and_grad_aux_one_value": lambda: jax.value_and_grad(
            lambda v: v.sum(), has_aux=True)(x3),
        "jacrev_aux_one_value": lambda: jax.jacrev(lambda v: v * 2, has_aux=True)(x3),
        "hessian_aux_one_value": lambda: jax.hessian(lambda v: v.sum(), has_aux=True)(x3),
        "vjp_aux_one_value": lambda: jax.vjp(lambda v: v * 2, x3, has_aux=True),
        "linearize_aux_one_value": lambda: jax.linearize(lambda v: v * 2, x3, has_aux=True),
        "dynamic_slice_fewer_sizes": lambda: lax.dynamic_slice(m23, (0, 0), (1,)),
        "dynamic_slice_more_sizes": lambda: lax.dynamic_slice(m23, (0, 0), (1, 1, 1)),
        "dynamic_slice_fewer_sizes_under_jit": lambda: jax.jit(
            lambda a: lax.dynamic_slice(a, (0, 0), (1,)))(m23),
        "dynamic_slice_fewer_indices": lambda: lax.dynamic_slice(m23, (0,), (1, 1)),
        "dynamic_slice_larger_than_the_operand": lambda: lax.dynamic_slice(m23, (0, 0), (3, 3)),
        "triu_k_a_string": lambda: jnp.triu(m23, k="1"),
        "triu_k_none": lambda: jnp.triu(m23, k=None),
        "tril_k_a_string": lambda: jnp.tril(m23, k="1"),
        "reshard_auto_axis": lambda: _sourced(lambda: jax.sharding.reshard(
            x3, jax.sharding.NamedSharding(_auto_mesh(jax), jax.P("x")))),
        "reshard_auto_axis_under_jit": lambda: _sourced(lambda: jax.jit(
            lambda a: jax.sharding.reshard(
                a, jax.sharding.NamedSharding(_auto_mesh(jax), jax.P("x"))))(x3)),
        "device_put_to_a_name_under_jit": lambda: jax.jit(
            lambda a: jax.device_put(a, "gpu"))(x3),
        "device_put_a_list_of_devices_to_one_array": lambda: jax.device_put(
            x3, jax.devices()[:1]),
        "linspace_negative_count": lambda: jnp.linspace(0, 1, -1),
        "linspace_float_count": lambda: jnp.linspace(0, 1, 2.5),
        "arange_step_zero": lambda: jnp.arange(0, 5, 0),
        "arange_complex": lambda: jnp.arange(1j),
        "full_negative_shape": lambda: jnp.full((2, -3), 1.0),
        "full_fill_of_another_shape": lambda: jnp.full((2, 3), jnp.ones((2, 2))),
        "tri_k_a_float": lambda: jnp.tri(3, k=1.5),
        "tril_of_a_vector": lambda: jnp.tril(x3),
        "pad_unknown_mode": lambda: jnp.pad(x3, 1, mode="nope"),
        "pad_negative_width": lambda: jnp.pad(x3, (1, -1)),
        "pad_width_of_three_rows": lambda: jnp.pad(m23, ((1, 1), (1, 1), (1, 1))),
        "take_unknown_mode": lambda: jnp.take(x3, jnp.array([0]), mode="nope"),
        "take_axis_out_of_bounds": lambda: jnp.take(m23, jnp.array([0]), axis=2),
        "einsum_two_arrows": lambda: jnp.einsum("ij,jk-", m23, m23),
        "einsum_too_few_operands": lambda: jnp.einsum("ij,jk->ik", m23),
        "einsum_sizes_differ": lambda: jnp.einsum("ij,jk->ik", m23, m23),
        # an operand that is no array: JAX's plan reads its shape first (opt_einsum's way)
        "einsum_a_string_operand_of_another_rank": lambda: jnp.einsum("i,i", x3, "a"),
        "einsum_a_none_operand": lambda: jnp.einsum("i,i", x3, None),
        "einsum_a_list_of_another_length": lambda: jnp.einsum("ij,j->i", m23, [1.0, 2.0]),
        "einsum_a_list_of_the_right_length": lambda: jnp.einsum(
            "ij,j->i", m23, [1.0, 2.0, 3.0]),
        # top_k's k as JAX's takes it: an int made so, then `k < 0` (a float: its shape
        # rule's words; no whole float here: JAX's cached rule would answer k=2 with its error)
        "top_k_k_a_float": lambda: lax.top_k(x3, 2.5),
        "top_k_k_a_string": lambda: lax.top_k(x3, "2"),
        "top_k_k_traced": lambda: jax.jit(lambda k: lax.top_k(x3, k))(2),
        # a traced size: JAX's context lines, word for word
        "pad_width_traced": lambda: jax.jit(lambda p: jnp.pad(x3, p))(1),
        "one_hot_classes_traced": lambda: jax.jit(
            lambda n: jax.nn.one_hot(np.array([0]), n))(3),
        # a scan body that returns no pair: its type as JAX prints it (a weak one with `~`)
        "scan_body_returns_its_weak_carry": lambda: lax.scan(lambda c, a: c, 0.0, x3),
        "scan_body_returns_none": lambda: lax.scan(lambda c, a: None, 0.0, x3),
        "scan_body_returns_a_dict": lambda: lax.scan(lambda c, a: {"c": c}, 0.0, x3),
        # an object NumPy makes an object array of: JAX's dtype check's words
        "array_of_an_object": lambda: jnp.array([object()]),
        "array_of_a_dict": lambda: jnp.array([{"a": 1}]),
        "array_of_an_object_in_a_row": lambda: jnp.array([[1.0, object()]]),
        # swapaxes' NumPy permutation, ravel's order='K', jvp's dtype check before its shapes
        "swapaxes_axis_out_of_bounds": lambda: jnp.swapaxes(m23, 0, 2),
        "swapaxes_first_axis_out_of_bounds": lambda: jnp.swapaxes(m23, -3, 0),
        "swapaxes_axis_a_float": lambda: jnp.swapaxes(m23, 1.0, 0),
        "ravel_order_k": lambda: jnp.ravel(m23, order="K"),
        "flatten_order_k": lambda: jnp.asarray(m23).flatten(order="K"),
        "jvp_tangent_of_another_shape": lambda: jax.jvp(
            lambda a: a, (x3,), (np.ones(4, np.float32),)),
        "jvp_tangent_of_another_shape_and_dtype": lambda: jax.jvp(
            lambda a: a, (x3,), (np.ones(4, np.int32),)),
        # a seed that is no integer: np.ndim's reading, jnp.asarray's errors, then the check
        # in JAX's jitted seeding (the seed shown as its tracer)
        "key_of_a_float_seed": lambda: jax.random.key(1.5),
        "key_of_a_numpy_float_seed": lambda: jax.random.key(np.float32(1.5)),
        "prng_key_of_a_float_seed": lambda: jax.random.PRNGKey(1.5),
        "key_of_a_text_seed": lambda: jax.random.key("a"),
        "key_of_no_seed": lambda: jax.random.key(None),
        "key_of_a_list_seed": lambda: jax.random.key([1]),
        # a loop body or branch that returns text: JAX's trace names the function, what
        # traced it and the output component
        "scan_body_returns_text_as_carry": lambda: lax.scan(lambda c, a: ("s", a), 0.0, x3),
        "scan_body_returns_text": lambda: lax.scan(lambda c, a: "s", 0.0, x3),
        "while_body_returns_text": lambda: lax.while_loop(lambda c: False, lambda c: "s", 1.0),
        "while_cond_returns_text": lambda: lax.while_loop(lambda c: "s", lambda c: c, 1.0),
        "while_body_returns_text_in_a_dict": lambda: lax.while_loop(
            lambda c: False, lambda c: {"a": "s"}, {"a": 1.0}),
        "cond_branch_returns_text": lambda: lax.cond(True, lambda: 1.0, lambda: "s"),
        "switch_branch_returns_text": lambda: lax.switch(0, [lambda: "s", lambda: "s"]),
        "fori_body_returns_text": lambda: lax.fori_loop(0, 2, lambda i, c: "s", 1.0),
        "clamp_min_of_another_shape": lambda: lax.clamp(np.ones(2, np.float32), x3, 1.0),
        "clamp_max_of_another_shape": lambda: lax.clamp(0.0, x3, np.ones(2, np.float32)),
        "closure_convert_of_a_number": lambda: jax.closure_convert(3, 1.0),
    }


def _stop_106_cases(jax):
    """Stop 106's: a checkpointed function returning text (JAX's trace names the function and
    the output component), jnp.pad's static end_values and stat_length given a tracer (JAX's
    jit refuses the unhashable static argument; constant_values is traced), bytes-like leaves
    in jnp.array (a memoryview, a bytearray: NumPy's uint8 array of each, promoted with the
    rest), and device_put to jax.memory.Space.Device (committed where it is, memory 'device')."""
    jnp = jax.numpy
    x3 = np.arange(3, dtype=np.float32)
    ramp = lambda e: jnp.pad(x3, 1, mode="linear_ramp", end_values=e)     # noqa: E731
    return {
        "checkpoint_returns_text": lambda: jax.checkpoint(lambda x: "s")(1.0),
        "checkpoint_returns_text_in_a_dict": lambda: jax.checkpoint(
            lambda x: (x, {"a": "s"}))(1.0),
        "checkpoint_returns_text_under_jit": lambda: jax.jit(jax.checkpoint(
            lambda x: (x, "s")))(1.0),
        "remat_returns_text_under_grad": lambda: jax.grad(jax.remat(lambda x: "s"))(1.0),
        "pad_end_values_traced": lambda: jax.jit(ramp)(2.0),
        "pad_end_values_traced_in_a_pair": lambda: jax.jit(lambda e: ramp((e, 0.0)))(2.0),
        "pad_end_values_traced_in_a_list": lambda: jax.jit(lambda e: ramp([e, 0.0]))(2.0),
        "pad_end_values_traced_by_grad": lambda: jax.grad(lambda e: ramp(e).sum())(2.0),
        "pad_end_values_traced_by_vmap": lambda: jax.vmap(ramp)(np.ones(2, np.float32)),
        "pad_stat_length_traced": lambda: jax.jit(
            lambda n: jnp.pad(x3, 1, mode="mean", stat_length=n))(2),
        "pad_constant_values_traced": lambda: _typed_values(jax.jit(
            lambda c: jnp.pad(x3, 1, constant_values=c))(2.0)),
        "pad_end_values_a_number_under_jit": lambda: _typed_values(jax.jit(
            lambda a: jnp.pad(a, 1, mode="linear_ramp", end_values=(1.0, 5.0)))(x3)),
        "array_of_a_memoryview_in_a_list": lambda: _typed_values(
            jnp.array([memoryview(b"ab")])),
        "array_of_a_memoryview": lambda: _typed_values(jnp.array(memoryview(b"ab"))),
        "asarray_of_a_memoryview_in_a_list": lambda: _typed_values(
            jnp.asarray([memoryview(b"ab")])),
        "array_of_memoryviews_nested": lambda: _typed_values(
            jnp.array([[memoryview(b"ab")], [memoryview(b"cd")]])),
        "array_of_a_bytearray_and_a_memoryview": lambda: _typed_values(
            jnp.array([bytearray(b"ab"), memoryview(b"cd")])),
        "array_of_a_memoryview_of_floats": lambda: _typed_values(
            jnp.array([memoryview(np.ones(2, np.float32))])),
        "array_of_a_memoryview_and_ints": lambda: _typed_values(
            jnp.array([memoryview(b"ab"), [1, 2]])),
        "array_of_a_memoryview_and_floats": lambda: _typed_values(
            jnp.array([memoryview(b"ab"), [1.5, 2]])),
        "array_of_a_memoryview_and_an_int64_array": lambda: _typed_values(
            jnp.array([memoryview(b"ab"), np.array([1, 2])])),
        "array_of_a_memoryview_as_floats": lambda: _typed_values(
            jnp.array([memoryview(b"ab")], dtype=jnp.float32)),
        "array_of_a_memoryview_in_a_tuple_under_jit": lambda: _typed_values(
            jax.jit(lambda: jnp.array((memoryview(b"ab"),)))()),
        "device_put_to_device_memory": lambda: _placed(
            jax.device_put(jnp.ones(2), jax.memory.Space.Device)),
        "device_put_host_data_to_device_memory": lambda: _placed(
            jax.device_put(np.ones(2, np.float32), jax.memory.Space.Device)),
        "device_put_a_tree_to_device_memory": lambda: _placed(jax.device_put(
            {"a": np.ones(2, np.float32)}, {"a": jax.memory.Space.Device})["a"]),
        "device_put_to_device_memory_under_grad": lambda: _typed_values(jax.grad(
            lambda v: jax.device_put(v, jax.memory.Space.Device).sum())(np.ones(2, np.float32))),
    }


def _stop_111_cases(jax):
    """Stop 111's: jnp.pad's static end_values and stat_length given a list or an array, where
    NumPy's pad takes them: JAX's jit refuses the unhashable static argument (a tuple is
    taken)."""
    jnp = jax.numpy
    x3 = np.arange(3, dtype=np.float32)
    ramp = lambda e: jnp.pad(x3, 1, mode="linear_ramp", end_values=e)     # noqa: E731
    mean = lambda n: jnp.pad(x3, 1, mode="mean", stat_length=n)          # noqa: E731
    return {
        "pad_end_values_a_list": lambda: ramp([1.0, 2.0]),
        "pad_end_values_a_numpy_array": lambda: ramp(np.array(2.0)),
        "pad_end_values_an_array": lambda: ramp(jnp.array([1.0, 2.0])),
        "pad_end_values_a_list_of_pairs": lambda: ramp([(1.0, 2.0)]),
        "pad_end_values_a_tuple": lambda: _typed_values(ramp((1.0, 2.0))),
        "pad_stat_length_a_list": lambda: mean([1, 2]),
        "pad_stat_length_an_array": lambda: mean(jnp.array(1)),
        "pad_stat_length_a_numpy_int": lambda: _typed_values(mean(np.int64(1))),
    }


def _typed_values(array):
    """An array's dtype and values (weak or not is left to other cases)."""
    return [str(array.dtype), np.asarray(array).tolist()]


def _placed(array):
    """Where device_put left an array: its memory kind, whether committed, its values."""
    return [array.sharding.memory_kind, array.committed, np.asarray(array).tolist()]


def _auto_mesh(jax):
    return jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))


def _sourced(thunk):
    """`thunk`'s error with the folders of the file its text names left out ("This error
    occurs at source:  <file>:<line>:<column> (<function>)": the checkout's path)."""
    try:
        return thunk()
    except ValueError as e:
        return ["ValueError", re.sub(r"\S*/(?=\w+\.py:)", "", str(e))]


def _times(x, y):
    return x * y


def _typed(array):
    """An array's dtype and shape: the answer where its values come from LAPACK."""
    return [str(array.dtype), list(array.shape)]
