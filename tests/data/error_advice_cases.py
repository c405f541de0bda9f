"""What JAX says for the mistakes the error cards advise on (tests/notebook/
test_notebook_error_cards.py compares the cards' advice with it): `run(jax)` gives, per case,
the exception's class, its first line, and whether its message suggests static arguments or
`x.astype`. The reference (error_advice_reference.json) is real JAX 0.10.2's, written by
reference/make_error_advice_reference.py."""


def _said(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        text = str(e)
        return {"error": type(e).__name__, "first_line": text.splitlines()[0],
                "suggests_static": "static_arg" in text, "suggests_astype": "x.astype(" in text}
    return None


def run(jax):
    jnp = jax.numpy

    def relu_sum(x):                    # an `if` on an array argument
        if x.sum() > 0:
            return x.sum()
        return 0.0

    def count(x):                       # int() of a value computed from an array argument
        return jnp.zeros(3) + int(x.sum())

    def zeros(x, n):                    # a size from a Python int argument
        return jnp.zeros(n) + x

    def signed(x, flag):                # an array made static, used in an `if`
        return x if flag else -x

    def sized(x, shape):                # made static, used as a shape
        return jnp.zeros(shape) + x

    flag, shape, grid = jnp.array(True), jnp.array([2, 3]), jnp.ones((2, 2))
    return {"bool_on_array": _said(lambda: jax.jit(relu_sum)(jnp.arange(3.0))),
            # the Python value an array static argument is advised to become, per rank, and
            # the other advice, traced, where the function needs a Python value
            "static_array_0d_item": _said(
                lambda: jax.jit(signed, static_argnums=1)(jnp.ones(2), flag.item())),
            "static_array_0d_tuple_of_tolist": _said(lambda: tuple(flag.tolist())),
            "static_array_0d_traced_in_if": _said(lambda: jax.jit(signed)(jnp.ones(2), flag)),
            "static_array_1d_tuple": _said(
                lambda: jax.jit(sized, static_argnums=1)(1.0, tuple(shape.tolist()))),
            "static_array_2d_tuples": _said(lambda: hash(tuple(map(tuple, grid.tolist())))),
            "int_of_array": _said(lambda: jax.jit(count)(jnp.arange(3.0))),
            "size_from_int": _said(lambda: jax.jit(zeros)(1.0, 3)),
            "strings": _said(lambda: jnp.array(["cat", "dog"]))}
