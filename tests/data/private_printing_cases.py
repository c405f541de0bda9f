"""JAX's private printing that libraries and JAX's own tests read, run alike by real JAX
(reference/make_private_printing_reference.py records private_printing_reference.json) and
by jxkernel (tests/core/test_private_printing.py): `run(jax)` returns plain JSON data.

- "tracers": `tracer._pretty_print(verbose=...).format()` of an argument under jit, vmap and
  grad (`Traced<float32[3]>with<DynamicJaxprTrace>`, then what the tracer holds).
- "kv_pairs": `core.pp_kv_pair(key, value, JaxprPpContext(), JaxprPpSettings())` of a tuple,
  a jaxpr, frozensets and a function (its address masked).

    run(jax)["tracers"][0]  ->  'Traced<float32[3]>with<DynamicJaxprTrace>'
"""
import importlib


def _tracers(jax) -> list:
    jnp = jax.numpy
    out = []

    def f(x):
        out.append(x._pretty_print(verbose=True).format())
        out.append(x._pretty_print().format())
        return x.sum()
    jax.jit(f)(jnp.arange(3.0, dtype="float32"))
    jax.vmap(f)(jnp.arange(2, dtype="int32"))
    jax.grad(f)(jnp.float16(1.0))
    return out


def _kv_pairs(jax) -> list:
    core = importlib.import_module(jax.__name__ + "._src.core")
    context, settings = core.JaxprPpContext(), core.JaxprPpSettings()

    def my_function():
        pass
    jaxpr = jax.make_jaxpr(lambda x: x + 1)(1.0)
    values = [("k", (1, 2)), ("jaxpr", jaxpr), ("open", jaxpr.jaxpr),
              ("test", frozenset({"b", "a", "c"})), ("empty", frozenset()),
              ("policy", my_function)]
    return [str(core.pp_kv_pair(k, v, context, settings)) for k, v in values]


def run(jax) -> dict:
    return {"tracers": _tracers(jax), "kv_pairs": _kv_pairs(jax)}
