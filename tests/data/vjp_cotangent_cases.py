"""What a function `jax.vjp` returns does with each kind of cotangent: the same cases under
JAX 0.10.2 (reference/make_vjp_cotangent_reference.py) and jxkernel
(tests/transforms/test_vjp_cotangents.py). `run(jax)` answers {case: [ok, text]}: the result's
leaves, or the exception's class and message (the function's file path cut to its name)."""
import re

import numpy as np


def run(jax):
    jnp = jax.numpy

    def double(x):
        return x * 2

    def to_int(x):
        return (x * 2).astype(jnp.int32)

    def a_dict(x):
        return {"a": x, "b": (x, x)}

    _, int_vjp = jax.vjp(to_int, 1.0)
    _, float_vjp = jax.vjp(double, 1.0)
    _, vec_vjp = jax.vjp(double, jnp.ones(3))
    _, dict_vjp = jax.vjp(a_dict, jnp.ones(3))
    _, const_vjp = jax.vjp(lambda x: 1, {})
    float0 = jax.dtypes.float0
    cases = {
        "int output, int cotangent": lambda: int_vjp(jnp.int32(2)),
        "int output, Python float": lambda: int_vjp(1.5),
        "int output, float0": lambda: int_vjp(np.zeros((), float0)),
        "int output, wrong shape": lambda: int_vjp(jnp.ones(3, jnp.int32)),
        "constant output, its own value": lambda: const_vjp(1),
        "float output, Python int": lambda: float_vjp(1),
        "float output, float16": lambda: float_vjp(jnp.float16(1)),
        "float output, float0": lambda: float_vjp(np.zeros((), float0)),
        "float output, wrong shape": lambda: vec_vjp(jnp.ones(2)),
        "a leaf given a tuple": lambda: vec_vjp((jnp.ones(3),)),
        "a tuple given a list": lambda: dict_vjp({"a": jnp.ones(3),
                                                  "b": [jnp.ones(3), jnp.ones(3)]}),
        "a dict missing a key": lambda: dict_vjp({"a": jnp.ones(3)}),
    }
    out = {}
    for name, call in cases.items():
        try:
            leaves = jax.tree_util.tree_leaves(call())
            out[name] = [True, [[str(np.asarray(v).dtype), np.asarray(v).tolist()]
                                for v in leaves]]
        except Exception as e:     # the class and JAX's words are the facts compared
            out[name] = [False, re.sub(r"\S*vjp_cotangent_cases\.py", "vjp_cotangent_cases.py",
                                       f"{type(e).__name__}: {e}")]
    return out
