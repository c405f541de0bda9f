"""Python ints past int32, JAX's default integer: each cell, JAX 0.10.2's error, and the value
the cell gives once the int-overflow card's line (64-bit types turned on) has run
(reference/make_int_overflow_reference.py records `run(jax)`;
tests/notebook/test_int_overflow_cards.py checks the card against it).

    >>> sorted(CASES)[0]
    'in_a_jitted_function'
"""
import numpy as np

from learner_cells import said  # tests/data

# case: (the cell, the line whose value `_y` is read after the card's line ran, or None: the
# cell's last line itself)
CASES = {
    "array_of_a_big_int": ("_y = jnp.array(2**40)", None),
    "a_list_with_one": ("_y = jnp.array([2**31, 5])", None),
    "times_an_array": ("_y = jnp.arange(3) * 2**33", None),
    # inside jit, JAX names the operand `y` (its own name for add's second argument)
    "in_a_jitted_function": ("@jax.jit\ndef shift(v):\n    return v + 2**40\n"
                             "_y = shift(jnp.arange(3))", "_y = shift(jnp.arange(3))"),
}
# past int64 too: no integer of JAX's holds it, with 64-bit types on
PAST_INT64 = "_y = jnp.array(2**70)"


def run(jax) -> dict:
    """JAX's error for each cell at 32 bits, and `_y` (its values and dtype) with 64-bit
    types turned on, as the card's line does; then 64-bit types off again."""
    found = {}
    for case, (cell, again) in CASES.items():
        names = {"jax": jax, "jnp": jax.numpy}
        found[case] = said(lambda: exec(cell, names))
        jax.config.update("jax_enable_x64", True)
        try:
            exec(again or cell, names)
            found[f"{case}_fixed"] = [np.asarray(names["_y"]).tolist(), str(names["_y"].dtype)]
            found["past_int64"] = said(lambda: exec(PAST_INT64, dict(names)))
        finally:
            jax.config.update("jax_enable_x64", False)
    return found
