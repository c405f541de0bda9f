"""Learners' bad calls whose errors differed from JAX 0.10.2's (stop 101's sweep of about 300
mistakes, jxkernel's answer and JAX's side by side): the class and the whole message, or the
value where one of the two raised and the other did not. `cases(jax)`: name -> a thunk;
`record` (api_file_gaps_cases's) keeps a value as nested lists or an error as [class name,
message]. reference/make_error_parity_reference.py records JAX's answers in
error_parity_reference.json; tests/jax_compat/test_error_parity.py compares."""
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
    }


def _times(x, y):
    return x * y


def _typed(array):
    """An array's dtype and shape: the answer where its values come from LAPACK."""
    return [str(array.dtype), list(array.shape)]
