"""Values a jitted function makes from constants alone (`jnp.asarray(4)`, `jnp.int32(3)`,
`jnp.array(True)` in its body) are traced, as JAX 0.10.2's: Python's int()/bool(), a shape or
a size made of them raise JAX's errors. jxkernel knew their values while tracing and took
them (`int(jnp.array(3))` gave 3 under jit), so a learner's program ran in jxkernel and
failed in JAX. Run alike by real JAX (reference/make_staged_constants_reference.py records
staged_constants_reference.json) and by jxkernel (tests/core/test_staged_constants.py): per
case its result, or its error's class and first line.
"""
import numpy as np


def _outcome(f):
    try:
        out = f()
    except Exception as e:              # what was raised is a fact too
        return [type(e).__name__, str(e).split("\n")[0]]
    return ["ok", np.asarray(out).tolist()]


def run(jax):
    jnp = jax.numpy
    x = np.arange(4, dtype=np.float32)

    def jitted(f, *args):
        return lambda: jax.jit(f)(*args)
    cases = {
        "int_of_array": jitted(lambda: int(jnp.array(3))),
        "int_of_array_of_numpy": jitted(lambda: int(jnp.array(np.int32(3)))),
        "int_of_asarray": jitted(lambda: int(jnp.asarray(3))),
        "int_of_int32": jitted(lambda: int(jnp.int32(3))),
        "int_of_array_given_a_dtype": jitted(lambda: int(jnp.array(3, dtype=jnp.int32))),
        "int_of_a_float_array_given_a_dtype": jitted(lambda: int(jnp.array(3,
                                                                          dtype=jnp.float32))),
        "bool_of_array": jitted(lambda: bool(jnp.array(True))),
        "float_of_array": jitted(lambda: float(jnp.array(3.0))),
        "int_of_an_entry": jitted(lambda: int(jnp.array([3, 4])[0])),
        "int_of_ones": jitted(lambda: int(jnp.ones(3)[0])),
        "arange_of_asarray": jitted(lambda: jnp.arange(jnp.asarray(4))),
        "arange_of_array": jitted(lambda: jnp.arange(jnp.array(3))),
        "zeros_of_an_array_size": jitted(lambda: jnp.zeros(jnp.array(3))),
        "trim_zeros_of_a_constant": jitted(lambda: jnp.trim_zeros(jnp.array([0, 1, 0]))),
        "unique_of_a_constant": jitted(lambda: jnp.unique(jnp.array([1, 1, 2]))),
        "if_on_a_constant": jitted(lambda a: a if jnp.array(1) > 0 else -a, x),
        "index_by_a_constant_argmax": jitted(
            lambda a: a[int(jnp.argmax(jnp.array([0, 5, 1])))], x),
        "len_of_ones": jitted(lambda: len(jnp.ones(3))),
        "shape_of_an_array": jitted(lambda: jnp.zeros(jnp.array([2, 3]).shape)),
        "numpy_scalar_if": jitted(lambda a: a if np.float32(1) > 0 else -a, x),
        "eager_int_of_array": lambda: int(jnp.array(3)),
    }
    return {name: _outcome(f) for name, f in cases.items()}
