"""Cells whose line meets a column (n, 1) and a vector (n,) in one elementwise operation, for
the note under such a cell (jxkernel/notebook/notes/broadcast_notes.py): run by
reference/make_broadcast_notes_reference.py (JAX 0.10.2, into broadcast_notes_reference.json)
and by tests/notebook/test_broadcast_notes.py.

Per case: the cell (it binds `_y`), the line the note tells (from 1), the two fixes the note
writes for that line (the column made a vector; the vector made a column), as they replace
it. The reference holds, per case, `_y` as written, the warnings JAX gave (none: NumPy's
broadcasting is silent), the error it raises with jax_numpy_rank_promotion='raise' (the knob
the note names; 'warn' warns once per jnp function, shapes and dtypes, at JAX's own line, so
Python shows it once), and `_y` after each fix. `ON_PURPOSE` cases broadcast as they mean
to: no note.

    >>> CASES["mse"][1]
    2
"""
import warnings

import numpy as np

SETUP = ("W = jnp.ones((3, 1))\nX = jnp.arange(12.0).reshape(4, 3)\ny = jnp.arange(4.0)\n"
         "pred = X @ W\n")
CASES = {
    "mse": ("_z = 1.0\n_y = ((pred - y) ** 2).mean()\n", 2,
            "_y = ((pred[:, 0] - y) ** 2).mean()", "_y = ((pred - y[:, None]) ** 2).mean()"),
    "in_a_jitted_loss": (
        "def loss_fn(W, X, y):\n    pred = X @ W\n    return jnp.mean((pred - y) ** 2)\n"
        "_y = jax.jit(loss_fn)(W, X, y)\n", 3,
        "    return jnp.mean((pred[:, 0] - y) ** 2)",
        "    return jnp.mean((pred - y[:, None]) ** 2)"),
    "accuracy": ("_y = (pred == y).mean()\n", 1, "_y = (pred[:, 0] == y).mean()",
                 "_y = (pred == y[:, None]).mean()"),
    "ufunc_call": ("_y = jnp.subtract(y, pred).sum()\n", 1,
                   "_y = jnp.subtract(y, pred[:, 0]).sum()",
                   "_y = jnp.subtract(y[:, None], pred).sum()"),
    # targets made a column on a line above (sklearn's habit), beside predictions (n,)
    "targets_as_a_column": ("_t = y.reshape(-1, 1)\n_y = ((X[:, 0] - _t) ** 2).mean()\n", 2,
                            "_y = ((X[:, 0] - _t[:, 0]) ** 2).mean()",
                            "_y = ((X[:, 0][:, None] - _t) ** 2).mean()"),
}
# the same shapes broadcast on purpose (pairwise differences): no note
ON_PURPOSE = {
    "pairwise": "_y = (X[:, 0][:, None] - X[:, 0]).sum()\n",
    "outer_reshape": "_y = (y.reshape(-1, 1) * y).sum()\n",
    "atleast_2d": "_y = (jnp.atleast_2d(y).T - y).sum()\n",
}


def _with_line(cell: str, line: int, new: str) -> str:
    lines = cell.splitlines()
    lines[line - 1] = new
    return "\n".join(lines) + "\n"


def run(jax) -> dict:
    found = {}
    for case, (cell, line, fix, columns) in {**CASES, **{k: (v, 1, v, v) for k, v in
                                                         ON_PURPOSE.items()}}.items():
        for mode, source in (("written", cell), ("fixed", _with_line(cell, line, fix)),
                             ("columns", _with_line(cell, line, columns))):
            names = {"jax": jax, "jnp": jax.numpy}
            exec(SETUP, names)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                exec(source, names)
            found[f"{case}_{mode}"] = np.asarray(names["_y"]).tolist()
            if mode == "written":
                found[f"{case}_warned"] = [str(w.message) for w in caught]
        names = {"jax": jax, "jnp": jax.numpy}
        exec(SETUP, names)
        try:
            with jax.numpy_rank_promotion("raise"):
                exec(cell, names)
            found[f"{case}_raised"] = None
        except ValueError as e:
            found[f"{case}_raised"] = str(e)
    return found
