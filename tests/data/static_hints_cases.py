"""Programs whose errors name a static argument or advise one: an unhashable static argument
(JAX's ValueError), and a traced value used as a Python one (TracerBoolConversionError,
ConcretizationTypeError), where jxkernel adds a hint after JAX's words. Recorded by
reference/make_static_hints_reference.py into tests/data/static_hints_reference.json and
compared by tests/transforms/test_static_hints.py.

Each tracer case is `(function, argument, wrap)`: `wrap(jax, jit(function))` is what runs, and
"static_works" records whether the same run with the argument static
(`jit(function, static_argnums=0)`) runs without error, which is whether advising it can work.
"""
import numpy as np

jnp = None      # the jax.numpy of the run (run() sets it)


def _unhashable(jax):
    jnp = jax.numpy

    def f(x, n):
        return x * n

    def g(x, n):
        return x

    return {
        "array": lambda: jax.jit(f, static_argnums=1)(jnp.ones(2), jnp.ones(2)),
        "numpy_array": lambda: jax.jit(f, static_argnums=1)(jnp.ones(2), np.ones(2)),
        "list": lambda: jax.jit(f, static_argnums=1)(jnp.ones(2), [1, 2]),
        "dict": lambda: jax.jit(g, static_argnums=1)(jnp.ones(2), {"a": 1}),
        "array_by_name": lambda: jax.jit(f, static_argnames="n")(jnp.ones(2), n=jnp.ones(2)),
        "make_jaxpr_array": lambda: jax.make_jaxpr(g, static_argnums=1)(1.0, jnp.ones(2)),
        "make_jaxpr_list": lambda: jax.make_jaxpr(g, static_argnums=1)(1.0, [1]),
    }


def branch(x):
    if x > 0:
        return x
    return -x


def to_float(x):
    return float(x) * 2


def _arange(n):
    return jnp.arange(n)


def _plain(jax, jitted):
    return jitted


def _grad(jax, jitted):
    return jax.grad(jitted)


def _in_jit(jax, jitted):
    return jax.jit(lambda y: jitted(y * 2))


TRACED = {
    "bool_python_float": (branch, 1.0, _plain),
    "bool_python_int": (branch, 1, _plain),
    "bool_0d_array": (branch, np.float32(1.0), _plain),
    "bool_grad_of_jit": (branch, 1.0, _grad),
    "bool_jit_in_jit": (branch, 1.0, _in_jit),
    "float_python_float": (to_float, 2.0, _plain),
    "float_0d_array": (to_float, "array", _plain),
    "float_numpy_scalar": (to_float, np.float32(2.0), _plain),
    "float_grad_of_jit": (to_float, 1.0, _grad),
    "arange_python_int": (_arange, 3, _plain),
    "arange_0d_array": (_arange, "int_array", _plain),
}


def _argument(jax, value):
    if isinstance(value, str):      # an Array, made by the run's jax
        return jax.numpy.float32(1.0) if value == "array" else jax.numpy.int32(3)
    return value


def run(jax) -> dict:
    """{case: {"error": its class's name, "text": str(error)[, "static_works": bool]}}."""
    global jnp
    jnp, out = jax.numpy, {}
    for name, call in _unhashable(jax).items():
        try:
            call()
            out[name] = {"error": None, "text": ""}
        except Exception as e:       # noqa: BLE001  (what it raises is the fact)
            out[name] = {"error": type(e).__name__, "text": str(e)}
    for name, (fun, value, wrap) in TRACED.items():
        arg = _argument(jax, value)
        try:
            wrap(jax, jax.jit(fun))(arg)
            out[name] = {"error": None, "text": ""}
        except Exception as e:       # noqa: BLE001
            out[name] = {"error": type(e).__name__, "text": str(e)}
        try:
            wrap(jax, jax.jit(fun, static_argnums=0))(arg)
            out[name]["static_works"] = True
        except Exception:            # noqa: BLE001
            out[name]["static_works"] = False
    return out
