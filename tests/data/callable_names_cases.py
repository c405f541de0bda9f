"""What JAX names a jitted callable that is not a plain function (an object with __call__, a
partial, a bound method, a builtin) in each place a learner reads the name: the
jax_explain_cache_misses log, the jax_log_compiles log, the jaxpr's jit equation, the lowered
module and the jit object's __name__. Run the same way under real JAX 0.10.2
(reference/make_callable_names_reference.py, writing callable_names_reference.json) and under
jxkernel (tests/views/test_callable_names.py).

`run(jax)` returns {case: facts}; `jnp_compiles(jax)` the names the compile log gives the
jits of a few jnp functions ("jit(_argmax)": JAX's private jit, not the function's name).
"""
import functools
import logging
import operator
import re

import numpy as np


class Model:
    def __call__(self, x):
        return x * 2


class Layer:
    def apply(self, x):
        return x + 1


def scale(k, x):
    return x * k


# name -> a maker of a new callable (each case jits a callable of its own: a new object)
CASES = {
    "callable_object": lambda: Model(),
    "partial_of_an_object": lambda: functools.partial(Model()),
    "bound_method": lambda: Layer().apply,
    "partial_of_a_function": lambda: functools.partial(scale, 2.0),
    "builtin": lambda: operator.neg,
}


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _facts(jax, make) -> dict:
    x = np.ones(3, np.float32)
    # (JAX's logger: jxkernel hands its compile lines to JAX's loggers' handlers too)
    collect, loggers = _Collect(), [logging.getLogger("jax")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(collect)
        lg.setLevel(logging.DEBUG)
    try:
        with jax.log_compiles(True), jax.explain_cache_misses(True):
            jitted = jax.jit(make())
            jitted(x)
    finally:
        for lg, level in zip(loggers, levels):
            lg.removeHandler(collect)
            lg.setLevel(level)
    misses = [m for m in collect.messages if m.startswith("TRACING CACHE MISS")]
    compiled = [m[len("Compiling "):].split(" with global shapes")[0]
                for m in collect.messages if m.startswith("Compiling ")]
    eqn = jax.make_jaxpr(jax.jit(make()))(x).jaxpr.eqns[0]
    module = jax.jit(make()).lower(x).as_text().splitlines()[0]
    return {"explained": [re.sub(r" id=\d+| defined at .*", "", m.splitlines()[2].strip())
                          for m in misses],
            "compiled": compiled,
            "jaxpr_name": str(eqn.params["name"]),
            "module": module.split()[1],
            "__name__": getattr(jitted, "__name__", None)}


def run(jax) -> dict:
    return {name: _facts(jax, make) for name, make in CASES.items()}


# jnp functions JAX runs through a jit of another name (argmax's `_argmax`, sum's
# `_reduce_sum`): given an Array, what jax_log_compiles names each compile
JNP_CASES = {
    "argmax": lambda jnp, a: jnp.argmax(a, axis=1), "argmin": lambda jnp, a: jnp.argmin(a),
    "argmax_keepdims": lambda jnp, a: jnp.argmax(a, axis=0, keepdims=True),
    "nanargmax": lambda jnp, a: jnp.nanargmax(a, axis=1),
    "sum": lambda jnp, a: jnp.sum(a), "mean": lambda jnp, a: jnp.mean(a, axis=0),
    "max": lambda jnp, a: jnp.max(a), "var": lambda jnp, a: jnp.var(a),
    "cumsum": lambda jnp, a: jnp.cumsum(a), "argsort": lambda jnp, a: jnp.argsort(a)}


def jnp_compiles(jax) -> dict:
    """{case: the functions the compile log names} for each of JNP_CASES, run once on a
    2x3 Array (made before the log is read)."""
    a = jax.numpy.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    collect, logger = _Collect(), logging.getLogger("jax")
    level = logger.level
    logger.addHandler(collect)
    logger.setLevel(logging.DEBUG)
    out = {}
    try:
        with jax.log_compiles(True):
            for name, call in JNP_CASES.items():
                collect.messages.clear()
                call(jax.numpy, a)
                out[name] = [m[len("Compiling "):].split(" with global shapes")[0]
                             for m in collect.messages if m.startswith("Compiling ")]
    finally:
        logger.removeHandler(collect)
        logger.setLevel(level)
    return out
