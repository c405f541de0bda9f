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

    return {"bool_on_array": _said(lambda: jax.jit(relu_sum)(jnp.arange(3.0))),
            "int_of_array": _said(lambda: jax.jit(count)(jnp.arange(3.0))),
            "size_from_int": _said(lambda: jax.jit(zeros)(1.0, 3)),
            "strings": _said(lambda: jnp.array(["cat", "dog"]))}
