"""Updates at a static index out of bounds, for the note under a cell that makes one
(jxkernel/notebook/notes/index_notes.py): run by reference/make_dropped_updates_reference.py (JAX
0.10.2, into dropped_updates_reference.json) and by tests/notebook/test_index_notes.py.

Per case (an expression of `jax` and `jnp`, and the array it updates): its result, whether
that is the array unchanged, and what jax_check_static_indices=True makes of it (its result
again, or the error it raises).

    CASES["set_past_the_end"]
    ('jnp.arange(10).at[10].set(5)', 'jnp.arange(10)')
"""
import numpy as np

CASES = {
    "set_past_the_end": ("jnp.arange(10).at[10].set(5)", "jnp.arange(10)"),
    "add_before_the_start": ("jnp.arange(10).at[-11].add(1)", "jnp.arange(10)"),
    "multiply_past_the_end": ("jnp.ones(3).at[3].multiply(2.)", "jnp.ones(3)"),
    "set_on_axis_1": ("jnp.zeros((3, 3)).at[1, 5].set(1.)", "jnp.zeros((3, 3))"),
    "set_in_jit": ("jax.jit(lambda a: a.at[1, 5].set(1.))(jnp.zeros((3, 3)))",
                   "jnp.zeros((3, 3))"),
    # the note's way to say that dropping is meant
    "set_mode_drop": ("jnp.arange(10).at[11].set(5, mode='drop')", "jnp.arange(10)"),
}


def _answer(jax, expression, before):
    names = {"jax": jax, "jnp": jax.numpy}
    try:
        out = np.asarray(eval(expression, names))
    except Exception as e:  # noqa: BLE001  (what JAX raises is the answer)
        return {"error": type(e).__name__, "message": str(e)}
    return {"result": out.tolist(), "unchanged": bool(np.array_equal(
        out, np.asarray(eval(before, names))))}


def run(jax) -> dict:
    out = {}
    for name, (expression, before) in CASES.items():
        out[name] = {"default": _answer(jax, expression, before)}
        jax.config.update("jax_check_static_indices", True)
        try:
            out[name]["checked"] = _answer(jax, expression, before)
        finally:
            jax.config.update("jax_check_static_indices", False)
    return out
