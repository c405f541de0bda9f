"""Jitted functions indexing with a traced value out of bounds, for the note under a cell that
calls one (jxkernel/notebook/notes/index_calls.py): run by reference/make_traced_index_reference.py
(JAX 0.10.2, into traced_index_reference.json) and by tests/notebook/test_index_calls.py.

Per case: the cell defining the jitted function `f` (on `x = jnp.arange(10)`, whose every
element is its index: what was read tells where from) and the call; run, its result, and the
message of JAX's checkify with index_checks on the same call (what the note's fix gives), or
the error it failed with ("checkify_failed").

    >>> CASES["read_past_the_end"]
    ('@jax.jit\\ndef f(x, i):\\n    return x[i]', 'f(x, 12)')
"""
X = "jnp.arange(10)"


def _jit(body: str, args: str = "x, i") -> str:
    return f"@jax.jit\ndef f({args}):\n    return {body}"


# an index out of bounds a jitted call met: a note each
TOLD = {
    "read_past_the_end": (_jit("x[i]"), "f(x, 12)"),
    "read_before_the_start": (_jit("x[i]"), "f(x, -12)"),
    "read_index_array": (_jit("x[i]"), "f(x, jnp.array([1, 11, 12]))"),
    "read_take_fill": (_jit("jnp.take(x, i)"), "f(x, 12)"),
    "update_dropped": (_jit("x.at[i].set(-1)"), "f(x, 12)"),
    "update_added_dropped": (_jit("x.at[i].add(100)"), "f(x, 10)"),
    "slice_moved": (_jit("lax.dynamic_slice(x, (i,), (4,))"), "f(x, 8)"),
    "update_slice_moved": (_jit("lax.dynamic_update_slice(x, jnp.full(4, -1), (i,))"),
                           "f(x, 8)"),
    "slice_in_loop": ("@jax.jit\ndef f(x):\n    def body(i, acc):\n"
                      "        return acc + lax.dynamic_slice(x, (i * 3,), (4,)).sum()\n"
                      "    return lax.fori_loop(0, 4, body, 0)", "f(x)"),
    # under a vmap inside the jit, x as 2 rows of 5: row 1 ([5, ..., 9]) read out of bounds
    "read_vmapped": ("@jax.jit\ndef f(x, i):\n"
                     "    return jax.vmap(lambda r, j: r[j])(x.reshape(2, 5), i)",
                     "f(x, jnp.array([1, 7]))"),
    "slice_vmapped": ("@jax.jit\ndef f(x, i):\n    return jax.vmap(lambda r, j: "
                      "lax.dynamic_slice(r, (j,), (3,)))(x.reshape(2, 5), i)",
                      "f(x, jnp.array([1, 4]))"),
    "update_vmapped": ("@jax.jit\ndef f(x, i):\n    return jax.vmap(lambda r, j: "
                       "r.at[j].set(-1))(x.reshape(2, 5), i)", "f(x, jnp.array([1, 7]))"),
    "read_in_scan": ("@jax.jit\ndef f(x, idx):\n    def body(c, i):\n"
                     "        return c + x[i], None\n"
                     "    return lax.scan(body, 0, idx)[0]", "f(x, jnp.array([1, 2, 30]))"),
}
# nothing told: indices in bounds, a mode chosen (the index meant), a value known when traced
# (the eager notes' to tell), a program that prints
QUIET = {
    "in_bounds": (_jit("x[i]"), "f(x, 9)"),
    "negative_in_bounds": (_jit("x[i]"), "f(x, -10)"),
    "fill_chosen": (_jit("x.at[i].get(mode='fill', fill_value=-1)"), "f(x, 12)"),
    "drop_chosen": (_jit("x.at[i].set(-1, mode='drop')"), "f(x, 12)"),
    "take_fill_chosen": (_jit("jnp.take(x, i, mode='fill', fill_value=-1)"), "f(x, 12)"),
    "clip_chosen": (_jit("jnp.take(x, i, mode='clip')"), "f(x, 12)"),
    "slice_in_bounds": (_jit("lax.dynamic_slice(x, (i,), (4,))"), "f(x, 6)"),
    # jax.ops.segment_sum drops ids past num_segments, as documented: its own scatter's doing
    "segment_sum_drops": (_jit("jax.ops.segment_sum(x, i, num_segments=3)"),
                          "f(x, jnp.arange(10) % 4)"),
}
# loops run eagerly, outside jit: their bodies index with a traced value all the same (the
# loop's counter, the scanned element); checkify is given a function running the loop
EAGER = {
    "fori_read_past_the_end": ("", "lax.fori_loop(0, 10, lambda i, acc: acc + x[i + 1], 0)"),
    "scan_read_past_the_end": ("def body(c, i):\n    return c + x[i + 1], None",
                               "lax.scan(body, 0, jnp.arange(10))[0]"),
    "while_update_dropped": ("def body(c):\n    i, y = c\n    return i + 1, y.at[i + 8].set(-1)",
                             "lax.while_loop(lambda c: c[0] < 4, body, (0, x))[1]"),
}
EAGER_QUIET = {
    "fori_in_bounds": ("", "lax.fori_loop(0, 9, lambda i, acc: acc + x[i + 1], 0)"),
}
# a jitted function that a transformation runs eagerly: vmap gives its batched program the
# indices, x not mapped
TRANSFORMED = {
    "vmap_of_jit_read": (_jit("x[i]"), "jax.vmap(f, in_axes=(None, 0))(x, jnp.array([1, 12]))"),
    "vmap_of_jit_update": (_jit("x.at[i].set(-1)"),
                           "jax.vmap(f, in_axes=(None, 0))(x, jnp.array([1, 12]))"),
}
CASES = {**TOLD, **QUIET, **EAGER, **EAGER_QUIET, **TRANSFORMED}


def checkified(name: str) -> str:
    """The case's call with checkify's index checks, as the note's fix writes it: the jitted
    function wrapped, or for a loop run eagerly a function running it."""
    call = CASES[name][1]
    if name in TRANSFORMED:         # (the transformed function wrapped: `jax.vmap(f, ...)`)
        head, args = call.split(")(", 1)
        return f"checkify.checkify({head}), errors=checkify.index_checks)({args}"
    if name not in EAGER and name not in EAGER_QUIET:
        return call.replace("f(", "checkify.checkify(f, errors=checkify.index_checks)(", 1)
    loop = call[:call.rindex(")") + 1]          # (the loop's call, its [0] or [1] apart)
    return f"checkify.checkify(lambda: {loop}, errors=checkify.index_checks)()"


def run(jax) -> dict:
    """Each case's result under `jax`, and checkify's message for the same call (None: no
    error), with whether its err.throw() raised JaxRuntimeError."""
    import importlib

    import numpy as np
    # (the module given, real JAX's or jxkernel's: no import of jax by name)
    checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")
    lax, jnp = jax.lax, jax.numpy
    out = {}
    for name, (definition, call) in CASES.items():
        names = {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "x": jnp.arange(10)}
        exec(definition, names)
        result = eval(call, names)
        try:
            err, _ = eval(checkified(name), {**names, "checkify": checkify})
        except Exception as e:      # (JAX 0.10.2's check of a vmapped update fails)
            out[name] = {"result": np.asarray(result).tolist(), "checkify_failed":
                         f"{type(e).__name__}: {str(e).splitlines()[0]}"}
            continue
        try:
            err.throw()
            raised = None
        except checkify.JaxRuntimeError as e:
            raised = str(e).splitlines()[0]
        out[name] = {"result": np.asarray(result).tolist(), "checkify": err.get(),
                     "raised": raised}
    return out
