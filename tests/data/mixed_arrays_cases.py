"""What the real JAX does when given jxkernel's arrays in one process: a learner's `import
jxkernel as jax` in a notebook where a library (optax, flax) imported the real JAX, whose
functions then meet jxkernel's arrays. Run by reference/make_mixed_arrays_reference.py (JAX
0.10.2 beside this checkout's jxkernel, into mixed_arrays_reference.json); read by
tests/notebook/test_real_jax_beside_jxkernel.py, which holds the real-JAX note's and the
real-jax-array card's words to them.

Per case: JAX's function given `x = jxkernel.numpy.arange(3.0)`, and what came of it: the
error's class and first line, or the module and class of the result.

    >>> sorted(CASES)[:2]
    ['device_put', 'grad']
"""

CASES = {
    "jnp_sum": lambda jax, x: jax.numpy.sum(x),
    "jnp_add": lambda jax, x: jax.numpy.add(x, 1.0),
    "jnp_zeros_like": lambda jax, x: jax.numpy.zeros_like(x),
    "jit": lambda jax, x: jax.jit(lambda a: a * 2)(x),
    "grad": lambda jax, x: jax.grad(lambda a: (a ** 2).sum())(x),
    "vmap": lambda jax, x: jax.vmap(lambda a: a * 2)(x),
    "device_put": lambda jax, x: jax.device_put(x),
    "tree_map": lambda jax, x: jax.tree.map(lambda a: a * 2, x),
}


def run(jax) -> dict:
    import jxkernel             # (beside `jax`, the real JAX: the reference's process)
    x = jxkernel.numpy.arange(3.0)
    found = {}
    for name, case in CASES.items():
        try:
            out = case(jax, x)
        except Exception as e:      # noqa: BLE001  (what JAX raised is the fact recorded)
            found[name] = {"error": [type(e).__name__, str(e).splitlines()[0]]}
        else:
            found[name] = {"result": f"{type(out).__module__}.{type(out).__name__}"}
    return found
