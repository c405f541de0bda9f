"""Dynamic slices and updates whose start XLA moves, or not, for the note under a cell that
calls one (jxkernel/notebook/notes/clamped_start_notes.py): run by
reference/make_clamped_starts_reference.py (JAX 0.10.2, into clamped_starts_reference.json) and
by tests/notebook/test_clamped_start_notes.py.

Per case: the operand `x` (each element tells where it was read from: an arange), the update
`u` (or None; -1s, which tell where they landed), and the call, as a learner's cell would
write them; run, its result. Per fix the note prints (FIXES, the same `x` and `u`): its result.
And "sweep": the start each start from -25 to 25 read from, for windows of 1, 4 and 10 of 10
elements (what lax/slicing/clamped_starts.py computes).

    >>> CASES["slice_past_the_end"]
    ('jnp.arange(10)', None, 'lax.dynamic_slice(x, (8,), (4,))')
"""
import numpy as np

X = "jnp.arange(10)"
M = "jnp.arange(20).reshape(4, 5)"

# a start known when the line runs that XLA moves: a note each
MOVED = {
    # dynamic_slice: past the end, negative counted from the end once, then clamped
    "slice_past_the_end": (X, None, "lax.dynamic_slice(x, (8,), (4,))"),
    "slice_far_past_the_end": (X, None, "lax.dynamic_slice(x, (100,), (4,))"),
    "slice_negative_wraps_past": (X, None, "lax.dynamic_slice(x, (-1,), (4,))"),
    "slice_negative_beyond_size": (X, None, "lax.dynamic_slice(x, (-20,), (4,))"),
    "slice_negative_just_beyond": (X, None, "lax.dynamic_slice(x, (-11,), (4,))"),
    "slice_2d_both_axes": (M, None, "lax.dynamic_slice(x, (3, -1), (2, 3))"),
    "slice_2d_axis_1": (M, None, "lax.dynamic_slice(x, (1, 4), (2, 3))"),
    "slice_numpy_int": (X, None, "lax.dynamic_slice(x, (np.int32(9),), (2,))"),
    "slice_concrete_array": (X, None, "lax.dynamic_slice(x, (jnp.array(8),), (4,))"),
    "slice_array_of_starts": (X, None, "lax.dynamic_slice(x, jnp.array([8]), (4,))"),
    # not counted from the end: XLA clamps -1 to 0
    "slice_not_wrapped": (X, None, "lax.dynamic_slice(x, (jnp.array(-1),), (4,), "
                                   "allow_negative_indices=False)"),
    "slice_in_dim_past": (X, None, "lax.dynamic_slice_in_dim(x, 8, 4)"),
    "slice_in_dim_axis_1_negative": (M, None, "lax.dynamic_slice_in_dim(x, -2, 3, axis=1)"),
    "index_in_dim_past": (X, None, "lax.dynamic_index_in_dim(x, 12)"),
    "index_in_dim_negative_beyond": (M, None, "lax.dynamic_index_in_dim(x, -7, 1, "
                                              "keepdims=False)"),
    # known when traced: a closure's int, a static argument
    "slice_jit_closure": (X, None, "jax.jit(lambda a: lax.dynamic_slice(a, (8,), (4,)))(x)"),
    "slice_jit_static_arg": (X, None, "jax.jit(lambda a, i: lax.dynamic_slice(a, (i,), (4,)), "
                                      "static_argnums=1)(x, 8)"),
    "slice_vmap_rows": (M, None, "jax.vmap(lambda r: lax.dynamic_slice(r, (4,), (2,)))(x)"),
    # updates: the whole update written, moved back inside
    "update_past_the_end": (X, "jnp.full(4, -1)", "lax.dynamic_update_slice(x, u, (8,))"),
    "update_negative_wraps_past": (X, "jnp.full(4, -1)", "lax.dynamic_update_slice(x, u, (-2,))"),
    "update_negative_beyond_size": (X, "jnp.full(4, -1)",
                                    "lax.dynamic_update_slice(x, u, (-15,))"),
    "update_2d": (M, "jnp.full((2, 2), -1)", "lax.dynamic_update_slice(x, u, (3, 4))"),
    "update_slice_in_dim": (X, "jnp.full(4, -1)", "lax.dynamic_update_slice_in_dim(x, u, 7, 0)"),
    "update_index_in_dim": (X, "jnp.array(-1)", "lax.dynamic_update_index_in_dim(x, u, 12, 0)"),
    "update_index_in_dim_axis_1": (M, "jnp.full(4, -1)",
                                   "lax.dynamic_update_index_in_dim(x, u, -9, 1)"),
    "update_jit_closure": (X, "jnp.full(4, -1)",
                           "jax.jit(lambda a, b: lax.dynamic_update_slice(a, b, (8,)))(x, u)"),
}
# no note: every start in bounds (a negative one counted from the end lands inside), or a
# traced start, whose value is not known when the line runs (XLA moves it all the same)
UNMOVED = {
    "slice_in_bounds": (X, None, "lax.dynamic_slice(x, (6,), (4,))"),
    "slice_negative_in_bounds": (X, None, "lax.dynamic_slice(x, (-4,), (4,))"),
    "index_in_dim_last": (X, None, "lax.dynamic_index_in_dim(x, -1)"),
    "update_2d_in_bounds": (M, "jnp.full((2, 2), -1)", "lax.dynamic_update_slice(x, u, (2, 3))"),
    "slice_traced_start": (X, None, "jax.jit(lambda a, i: lax.dynamic_slice(a, (i,), (4,)))"
                                    "(x, 8)"),
    "update_traced_start": (X, "jnp.full(4, -1)", "jax.jit(lambda a, b, i: "
                                                  "lax.dynamic_update_slice(a, b, (i,)))(x, u, 8)"),
}
CASES = {**MOVED, **UNMOVED}

# the fix each note prints, for the cases whose call slices `x` itself, run on the same x, u
FIXES = {
    "slice_past_the_end": "lax.dynamic_slice(jnp.pad(x, ((0, 2),)), (8,), (4,))",
    "slice_far_past_the_end": "lax.dynamic_slice(jnp.pad(x, ((0, 94),)), (100,), (4,))",
    "slice_negative_wraps_past": "lax.dynamic_slice(jnp.pad(x, ((0, 3),)), (9,), (4,))",
    "slice_negative_beyond_size": "lax.dynamic_slice(jnp.pad(x, ((10, 0),)), (0,), (4,))",
    "slice_negative_just_beyond": "lax.dynamic_slice(jnp.pad(x, ((1, 0),)), (0,), (4,))",
    "slice_2d_both_axes": "lax.dynamic_slice(jnp.pad(x, ((0, 1), (0, 2))), (3, 4), (2, 3))",
    "slice_2d_axis_1": "lax.dynamic_slice(jnp.pad(x, ((0, 0), (0, 2))), (1, 4), (2, 3))",
    "slice_numpy_int": "lax.dynamic_slice(jnp.pad(x, ((0, 1),)), (9,), (2,))",
    "slice_concrete_array": "lax.dynamic_slice(jnp.pad(x, ((0, 2),)), (8,), (4,))",
    "slice_array_of_starts": "lax.dynamic_slice(jnp.pad(x, ((0, 2),)), (8,), (4,))",
    "slice_not_wrapped": "lax.dynamic_slice(jnp.pad(x, ((1, 0),)), (0,), (4,))",
    "slice_in_dim_past": "lax.dynamic_slice_in_dim(jnp.pad(x, ((0, 2),)), 8, 4, axis=0)",
    "slice_in_dim_axis_1_negative": "lax.dynamic_slice_in_dim(jnp.pad(x, ((0, 0), (0, 1))), 3, "
                                    "3, axis=1)",
    "index_in_dim_past": "lax.dynamic_index_in_dim(jnp.pad(x, ((0, 3),)), 12, axis=0)",
    "index_in_dim_negative_beyond": "lax.dynamic_index_in_dim(jnp.pad(x, ((0, 0), (2, 0))), 0, "
                                    "axis=1, keepdims=False)",
    "slice_jit_closure": "lax.dynamic_slice(jnp.pad(x, ((0, 2),)), (8,), (4,))",
    "slice_jit_static_arg": "lax.dynamic_slice(jnp.pad(x, ((0, 2),)), (8,), (4,))",
    "update_past_the_end": "lax.dynamic_update_slice(jnp.pad(x, ((0, 2),)), u, (8,))[0:10]",
    "update_negative_wraps_past": "lax.dynamic_update_slice(jnp.pad(x, ((0, 2),)), u, (8,))"
                                  "[0:10]",
    "update_negative_beyond_size": "lax.dynamic_update_slice(jnp.pad(x, ((5, 0),)), u, (0,))"
                                   "[5:15]",
    "update_2d": "lax.dynamic_update_slice(jnp.pad(x, ((0, 1), (0, 1))), u, (3, 4))[0:4, 0:5]",
    "update_slice_in_dim": "lax.dynamic_update_slice_in_dim(jnp.pad(x, ((0, 1),)), u, 7, "
                           "axis=0)[0:10]",
    "update_index_in_dim": "lax.dynamic_update_index_in_dim(jnp.pad(x, ((0, 3),)), u, 12, "
                           "axis=0)[0:10]",
    "update_index_in_dim_axis_1": "lax.dynamic_update_index_in_dim(jnp.pad(x, ((0, 0), (4, 0))), "
                                  "u, 0, axis=1)[:, 4:9]",
    "update_jit_closure": "lax.dynamic_update_slice(jnp.pad(x, ((0, 2),)), u, (8,))[0:10]",
}


def names(jax, operand: str, update) -> dict:
    """The names a case's cell has: the libraries, x and u."""
    scope = {"jax": jax, "jnp": jax.numpy, "lax": jax.lax, "np": np}
    scope["x"] = eval(operand, scope)
    scope["u"] = None if update is None else eval(update, scope)
    return scope


def _answer(expression: str, scope: dict) -> dict:
    try:
        return {"result": np.asarray(eval(expression, scope)).tolist()}
    except Exception as e:  # noqa: BLE001  (what JAX raises is the answer)
        return {"error": type(e).__name__, "message": str(e)}


SWEEP_STARTS, SWEEP_SIZES = range(-25, 26), (1, 4, 10)


def sweep(jax) -> dict:
    """{size: [the start read from, for each start of SWEEP_STARTS]} on jnp.arange(10)."""
    x = jax.numpy.arange(10)
    return {str(n): [int(jax.lax.dynamic_slice(x, (s,), (n,))[0]) for s in SWEEP_STARTS]
            for n in SWEEP_SIZES}


def run(jax) -> dict:
    out = {"sweep": sweep(jax)}
    for name, (operand, update, call) in CASES.items():
        out[name] = {"call": _answer(call, names(jax, operand, update))}
        if name in FIXES:
            out[name]["fix"] = _answer(FIXES[name], names(jax, operand, update))
    return out
