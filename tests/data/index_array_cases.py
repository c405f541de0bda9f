"""Index arrays holding indices out of bounds, for the note under a cell that reads or updates
with one (jxkernel/notebook/notes/index_notes.py): run by reference/make_index_array_reference.py
(JAX 0.10.2, into index_array_reference.json) and by tests/notebook/test_index_notes.py.

Per case (an expression of `jax`, `jnp` and `np`): its result, and what
jax_check_static_indices=True makes of it (its result again, or the error it raises).

    >>> CASES["read_numpy_array"]
    'jnp.arange(10.)[np.array([11])]'
"""
import numpy as np

# reads of arrays whose every element along the axis read is its index there plus a first
# value (0, or 4 for row 1 of a 3 x 4 arange): what was read tells which index was
READS = {
    "read_numpy_array": "jnp.arange(10.)[np.array([11])]",
    "read_jnp_array": "jnp.arange(10.)[jnp.array([3, 11, 12])]",
    "read_before_the_start": "jnp.arange(10.)[np.array([-12])]",
    "read_0d_array": "jnp.arange(10.)[np.array(11)]",
    "read_axis_1": "jnp.arange(12.).reshape(3, 4)[1, np.array([5])]",
    "read_in_jit": "jax.jit(lambda a: a[np.array([2, 11])])(jnp.arange(10.))",
}
FIRST = {"read_axis_1": 4.0}
UPDATES = {
    "set_array": "jnp.arange(10).at[np.array([3, 11])].set(-1)",
    "add_jnp_array": "jnp.arange(10).at[jnp.array([-11])].add(100)",
}
# the fixes the note names: a fill value read, dropping said to be meant
FIXES = {
    "read_fill": "jnp.arange(10.).at[np.array([3, 11])].get(mode='fill', fill_value=-1.)",
    "set_mode_drop": "jnp.arange(10).at[np.array([3, 11])].set(-1, mode='drop')",
}
# a static negative integer with wrap_negative_indices=False: out of bounds, not counted from
# the end; JAX's dynamic slice refuses it and the gather it falls back to clamps it to 0
UNWRAPPED = {
    "read_negative_int_unwrapped": "jnp.arange(6.).reshape(2, 3).at[-1].get("
                                   "wrap_negative_indices=False)",
    "read_negative_int_unwrapped_axis_1": "jnp.arange(6.).reshape(2, 3).at[1, -1].get("
                                          "wrap_negative_indices=False)",
}
# an eager vmap of a function indexing with its argument: each example's index a scalar, the
# batch's known when the line runs
VMAPPED = {
    "read_vmapped": "jax.vmap(lambda i: jnp.arange(10.)[i])(jnp.array([1, 12]))",
    "set_vmapped": "jax.vmap(lambda i: jnp.arange(10).at[i].set(-1))(jnp.array([1, 12, -11]))",
}
CASES = {**READS, **UPDATES, **FIXES, **UNWRAPPED, **VMAPPED}


def _answer(jax, expression):
    names = {"jax": jax, "jnp": jax.numpy, "np": np}
    try:
        return {"result": np.asarray(eval(expression, names)).tolist()}
    except Exception as e:  # noqa: BLE001  (what JAX raises is the answer)
        return {"error": type(e).__name__, "message": str(e)}


def run(jax) -> dict:
    out = {}
    for name, expression in CASES.items():
        out[name] = {"default": _answer(jax, expression)}
        jax.config.update("jax_check_static_indices", True)
        try:
            out[name]["checked"] = _answer(jax, expression)
        finally:
            jax.config.update("jax_check_static_indices", False)
    return out
