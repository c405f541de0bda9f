"""Errors whose text is JAX 0.10.2's, byte for byte (stop 78, explain15): a traced `if` under
jit (TracerBoolConversionError, no advice of ours: the card gives it), NumPy on a tracer
(TracerArrayConversionError, no "use jnp" line), an array or a tracer
passed as a static argument (JAX's sentence, no argument named), Python's own TypeErrors on an
array (its class printed 'jaxlib._jax.ArrayImpl'), multigammaln's traced d, and jax.ffi's call
of a target no handler is registered for. `run(jax)` gives, per case, the exception's class
and whole message (None where the call works); each program is one line, so "tracing the
function <lambda> at <string>:1" reads the same under both. Recorded from JAX 0.10.2 by
reference/make_jax_error_texts_reference.py into tests/data/jax_error_texts_reference.json;
tests/core/test_jax_error_texts.py compares."""
import re

import numpy as np

# x = ones(2), s = a 0-d array, S = ShapeDtypeStruct((2,), float32)
CASES = {
    # a traced value where Python needs True or False
    "bool_if": "jax.jit(lambda v: 1 if v > 0 else 2)(1.0)",
    "bool_call": "jax.jit(lambda v: bool(v))(1.0)",
    "bool_array_argument": "jax.jit(lambda v: 1 if v > 0 else 2)(s)",
    "bool_vmap": "jax.vmap(lambda v: 1 if v > 0 else 2)(x)",
    "bool_fori_body": "jax.lax.fori_loop(0, 2, lambda i, c: c + 1 if i > 0 else c, 0)",
    # a static argument jit cannot hash
    "static_array": "jax.jit(lambda a: a, static_argnums=0)(x)",
    "static_array_by_name": "jax.jit(lambda a: a, static_argnames='a')(a=x)",
    "static_tracer": "jax.jit(lambda v: jax.jit(lambda a: a + 1, static_argnums=0)(v))(1.0)",
    "static_list": "jax.jit(lambda a: a[0], static_argnums=0)([1, 2])",
    "static_dict": "jax.jit(lambda a: a, static_argnums=0)({'k': 1})",
    "static_grad_tracer": "jax.grad(lambda v: jax.jit(lambda a: a, static_argnums=0)(v))(1.0)",
    "static_jvp_tracer": ("jax.jvp(lambda v: jax.jit(lambda a: a, static_argnums=0)(v), (1.0,), "
                          "(1.0,))"),
    "static_vmap_tracer": "jax.vmap(lambda v: jax.jit(lambda a: a, static_argnums=0)(v))(x)",
    "static_key": "jax.jit(lambda a: a, static_argnums=0)(jax.random.key(0))",
    "static_make_jaxpr_tracer": ("jax.jit(lambda v: jax.make_jaxpr(lambda a: a, "
                                 "static_argnums=0)(v))(1.0)"),
    "static_checkpoint_tracer": ("jax.jit(lambda v: jax.checkpoint(lambda a: a, "
                                 "static_argnums=0)(v))(1.0)"),
    "static_of_jnp_digitize": ("jax.jit(lambda v: jnp.digitize(x, jnp.ones(2), right=v))"
                               "(True)"),
    # NumPy called on a tracer (no "use jnp" of ours: the card says it)
    "numpy_on_tracer": "jax.jit(lambda v: np.sin(v))(1.0)",
    "numpy_asarray_under_grad": "jax.grad(lambda v: np.asarray(v).sum())(1.0)",
    # Python's own TypeErrors on an array
    "hash_array": "hash(x)",
    "dict_key_array": "{x: 1}",
    "array_called": "x(1)",
    "array_attribute": "x.foo",
    "array_plus_text": "x + 'a'",
    "text_plus_array": "'a' + x",
    "len_0d": "len(s)",
    "iter_0d": "iter(s)",
    "for_0d": "[v for v in s]",
    "float_vector": "float(x)",
    "int_vector": "int(x)",
    "bool_empty": "bool(jnp.ones(0))",
    "bool_vector": "bool(x)",
    "reshape_two_unknown": "x.reshape(-1, -1)",
    "len_0d_jit": "jax.jit(lambda v: len(v))(1.0)",
    "float_vector_jit": "jax.jit(lambda v: float(v))(x)",
    "hash_key": "hash(jax.random.key(0))",
    # a traced array's tolist/tobytes (JAX prints the origin line twice) and item (once)
    "tolist_jit": "jax.jit(lambda v: v.tolist())(x)",
    "tolist_jit_scalar": "jax.jit(lambda v: v.tolist())(1.0)",
    "tolist_vmap": "jax.vmap(lambda v: v.tolist())(x)",
    "tolist_grad": "jax.grad(lambda v: sum(v.tolist()))(1.0)",
    "tobytes_jit": "jax.jit(lambda v: v.tobytes())(x)",
    "tobytes_grad": "jax.grad(lambda v: len(v.tobytes()) * v)(1.0)",
    "item_jit": "jax.jit(lambda v: v.item())(s)",
    "item_vmap": "jax.vmap(lambda v: v.item())(x)",
    "item_grad": "jax.grad(lambda v: v.item() * v)(1.0)",
    # multigammaln's d: a Python int while tracing
    "multigammaln_traced_d": "jax.jit(lambda d: jax.scipy.special.multigammaln(2.5, d))(2)",
    "multigammaln_vmapped_d": "jax.vmap(lambda d: jax.scipy.special.multigammaln(2.5, d))(s[None])",
    "multigammaln_vector_d": "jax.scipy.special.multigammaln(2.5, jnp.array([2, 3]))",
    "multigammaln_grad": "jax.grad(lambda d: jax.scipy.special.multigammaln(2.5, d))(2.0)",
    "bernoulli_traced_n": "jax.jit(lambda n: jax.scipy.special.bernoulli(n))(3)",
    "bernoulli_float_n": "jax.scipy.special.bernoulli(2.5)",
    # a jitted function where an array goes (its class printed 'jaxlib._jax.PjitFunction', a
    # C type of jaxlib's, where jxkernel's module path showed)
    "jitted_plus_array": "x + jax.jit(abs)",
    "float_of_jitted": "float(jax.jit(abs))",
    "jitted_as_jit_argument": "jax.jit(lambda v: v)(jax.jit(abs))",
    "jitted_into_concatenate": "jnp.concatenate([x, jax.jit(abs)])",
    "jitted_into_grad": "jax.grad(lambda v: v)(jax.jit(abs))",
    "jitted_into_vmap": "jax.vmap(lambda v: v)(jax.jit(abs))",
    "jitted_into_lax_add": "jax.lax.add(x, jax.jit(abs))",
    # NumPy data of no JAX type given to a jnp function: JAX's jit refuses it (the promotion's
    # "dtype object is not supported by jxkernel; supported dtypes are ..." showed)
    "sin_of_object_data": "jnp.sin(np.array([None, 1.0]))",
    "add_of_text_data": "jnp.add(x, np.array(['a']))",
    "sum_of_object_data": "jnp.sum(np.array([None]))",
    # the same through an operator, either side (the promotion's "dtype <U1 is not supported
    # by jxkernel" showed)
    "plus_text_data": "x + np.array(['a'])",
    "text_data_plus": "np.array(['a']) + x",
    "times_object_data": "x * np.array([None])",
    "minus_object_data_jit": "jax.jit(lambda v: v - np.array([None]))(x)",
    # a float index: lax.gather's words (jnp.take has no check of its own; a TypeError of ours
    # showed)
    "take_float_index": "jnp.take(x, 1.5)",
    "take_float_index_clip": "jnp.take(x, jnp.array([0.5]), mode='clip')",
    # dates, durations and records: no JAX type, as text ("dtype datetime64[D] is not
    # supported by jxkernel; supported dtypes are ..." showed, as if JAX had them)
    "plus_record_data": "x + np.zeros(2, dtype='V4')",
    "sin_of_dates": "jnp.sin(np.array(['2020-01-01'], dtype='datetime64[D]'))",
    "result_type_of_a_date_dtype": "jnp.result_type(np.dtype('datetime64[D]'))",
    "result_type_of_a_text_dtype": "jnp.result_type(np.dtype('U1'))",
    "result_type_of_text_data": "jnp.result_type(np.array(['a']), 1.0)",
    "result_type_of_records": "jnp.result_type(np.zeros(2, dtype='V4'))",
    "result_type_of_a_date": "jnp.result_type(np.datetime64(1, 'D'))",
    "promote_types_of_dates": "jnp.promote_types(np.dtype('datetime64[D]'), 'float32')",
    # a list where jnp wants an array, a boolean mask under jit: JAX's words alone (a sentence
    # of advice of ours followed them; the notebook's card gives it)
    "sum_of_a_list": "jnp.sum([1, 2, 3])",
    "mean_of_a_tuple": "jnp.mean((1.0, 2.0))",
    "add_of_a_list": "jnp.add([1], 2)",
    "boolean_mask_jit": "jax.jit(lambda v: v[v > 0])(x)",
    "boolean_mask_set_jit": "jax.jit(lambda v: v.at[v > 0].set(0.0))(x)",
}

# texts that name a class JAX keeps under its public name (`<class 'jax.ShapeDtypeStruct'>`):
# compared with jxkernel's names for JAX's modules (surface_gaps_cases.as_jxkernel)
NAMED = {
    "shape_dtype_struct_into_concatenate": "jnp.concatenate([x, S])",
    "shape_dtype_struct_into_where": "jnp.where(x > 0, x, S)",
    # given where data is needed: traced (it has a type), then refused naming the argument
    # (jxkernel said "Cannot convert ShapeDtypeStruct to an array", or jnp's check)
    "shape_dtype_struct_into_jit": "jax.jit(lambda v: v * 2)(S)",
    "shape_dtype_struct_into_jit_second": "jax.jit(lambda a, b: a + b)(x, S)",
    "shape_dtype_struct_into_sin": "jnp.sin(S)",
    "shape_dtype_struct_into_sum": "jnp.sum(S)",
    "shape_dtype_struct_into_lax_sin": "jax.lax.sin(S)",
}

# NumPy data of no JAX type made into an array: JAX's TypeError names its internal function
# ("Error interpreting argument to stage as a JAX value"); jxkernel's gives JAX's words for the
# value and its dtype, as JAX's result_type does ("dtype datetime64[D] is not supported by
# jxkernel; supported dtypes are ..." showed, as if JAX had such arrays)
MADE_INTO_ARRAYS = {
    "asarray_of_dates": "jnp.asarray(np.array(['2020-01-01'], dtype='datetime64[D]'))",
    "array_of_records": "jnp.array(np.zeros(2, dtype='V4'))",
    "asarray_of_a_duration": "jnp.asarray(np.timedelta64(1, 'D'))",
    "asarray_of_text": "jnp.asarray(np.array(['a']))",
}

# XLA's custom calls (no such thing on the NumPy backend)
FFI = {
    "ffi_unknown_target": "jax.ffi.ffi_call('no_such_target', S)(x)",
    "ffi_unknown_target_jit": "jax.jit(jax.ffi.ffi_call('no_such_target', S))(x)",
}


def run(jax, cases=None) -> dict:
    """{case: {"error": the exception's class name, "message": its whole text} or None}:
    object ids and addresses masked, JAX's note on its filtered traceback cut."""
    jnp = jax.numpy
    names = {"jax": jax, "jnp": jnp, "np": np, "x": jnp.ones(2), "s": jnp.array(2),
             "S": jax.ShapeDtypeStruct((2,), jnp.float32)}
    found = {}
    for case, line in (cases or {**CASES, **NAMED, **MADE_INTO_ARRAYS, **FFI}).items():
        try:
            jax.block_until_ready(eval(line, dict(names)))
        except Exception as e:  # noqa: BLE001  the error is the answer
            text = str(e).split("\n--------------------")[0]
            found[case] = {"error": type(e).__name__,
                           "message": re.sub(r"object id \d+", "object id N",
                                             re.sub(r" at 0x[0-9a-f]+", "", text))}
        else:
            found[case] = None
    return found
