"""A jitted function exported with symbolic shapes (jax.export) and called: which traces miss,
and the line JAX writes for each. reference/make_symbolic_recompile_reference.py records them
from JAX 0.10.2 (tests/data/symbolic_recompile_reference.json); tests/views/
test_symbolic_recompile.py runs the same under jxkernel, its explainer comparing symbolic
dimensions without deciding an inequality (`b < a` of two symbols raised
InconclusiveDimensionOperation inside the explainer, a RuntimeWarning for the learner).

Each program runs with `jax`, `jnp` and `export` (jax.export) in its globals and defines `g`,
jitted as `f`.
"""

_HEAD = "def g(x):\n    return x * 2\nf = jax.jit(g)\n"

PROGRAMS = {
    "other_symbols": _HEAD +
        "a, b = export.symbolic_shape('a, b')\n"
        "export.export(f)(jax.ShapeDtypeStruct((a, 3), jnp.float32))\n"
        "export.export(f)(jax.ShapeDtypeStruct((b, 3), jnp.float32))\n",
    "same_symbols_twice": _HEAD +
        "a, = export.symbolic_shape('a')\n"
        "export.export(f)(jax.ShapeDtypeStruct((a, 3), jnp.float32))\n"
        "export.export(f)(jax.ShapeDtypeStruct((a, 3), jnp.float32))\n",
    "symbols_made_again": _HEAD +
        "a, = export.symbolic_shape('a')\n"
        "export.export(f)(jax.ShapeDtypeStruct((a, 3), jnp.float32))\n"
        "a, = export.symbolic_shape('a')\n"
        "export.export(f)(jax.ShapeDtypeStruct((a, 3), jnp.float32))\n",
    "export_then_call": _HEAD +
        "a, = export.symbolic_shape('a')\n"
        "export.export(f)(jax.ShapeDtypeStruct((a, 3), jnp.float32))\n"
        "f(jnp.ones((2, 3)))\n",
    "call_then_export": _HEAD +
        "f(jnp.ones((2, 3)))\n"
        "a, = export.symbolic_shape('a')\n"
        "export.export(f)(jax.ShapeDtypeStruct((a, 3), jnp.float32))\n",
    "rows_of_two_symbols": _HEAD +
        "a, b = export.symbolic_shape('a, b')\n"
        "export.export(f)(jax.ShapeDtypeStruct((a, b), jnp.float32))\n"
        "export.export(f)(jax.ShapeDtypeStruct((b, b), jnp.float32))\n",
}
