"""Learner programs that reuse a PRNG key, and ones that only look as if they did, for the note
under a cell that reuses one (jxkernel/notebook/key_notes.py): run by
reference/make_key_reuse_note_reference.py (JAX 0.10.2, into key_reuse_note_reference.json)
and, cell by cell in IPython, by tests/notebook/test_key_reuse_notes.py.

Each case is a list of cells (run one after another, `jax` the library) and `note`: the two
(cell, line) the note names, the first use and the reuse (0-based cell, 1-based line), or None
where no note belongs. What is recorded per case: whether `a` and `b` hold equal numbers
("same", where the cells bind both), and, run again with jax_debug_key_reuse on, whether
JAX's checker raised ("raises": the error's class, message and (cell, line) of the user's
line that raised, or None).

    CASES["raw_twice"]["cells"][0].splitlines()[2]
    'b = jax.random.normal(key, (3,))'
"""
import traceback

import numpy as np

_DRAW2 = "a = jax.random.normal(key, (3,))\nb = jax.random.normal(key, (3,))"


def _both(name, cells, note):
    """The case for a typed key (jax.random.key) and for a raw one (jax.random.PRNGKey)."""
    return {f"typed_{name}": {"cells": [c.replace("KEY", "jax.random.key") for c in cells],
                              "note": note},
            f"raw_{name}": {"cells": [c.replace("KEY", "jax.random.PRNGKey") for c in cells],
                            "note": note}}


CASES = {
    # the learner's bug: one key, two draws
    **_both("twice", ["key = KEY(0)\n" + _DRAW2], ((0, 2), (0, 3))),
    **_both("across_cells", ["key = KEY(0)\na = jax.random.normal(key, (3,))",
                             "b = jax.random.normal(key, (3,))"], ((0, 2), (1, 1))),
    # split consumes its key too: a draw with it afterwards is a reuse
    **_both("split_then_draw", ["key = KEY(0)\nkey1, key2 = jax.random.split(key)\n"
                                "b = jax.random.normal(key, (3,))"], ((0, 2), (0, 3))),
    # another sampler: the same bits, not the same numbers
    **_both("normal_then_uniform", ["key = KEY(0)\na = jax.random.normal(key, (3,))\n"
                                    "b = jax.random.uniform(key, (3,))"], ((0, 2), (0, 3))),
    # the note's advice, as it writes it: the two draws differ, and nothing is reused
    **_both("advice", ["key = KEY(0)\n"
                       "key, subkey = jax.random.split(key)\n"
                       "a = jax.random.normal(subkey, (3,))\n"
                       "key, subkey = jax.random.split(key)\n"
                       "b = jax.random.normal(subkey, (3,))"], None),
    # not reuses
    **_both("split_both_halves", ["key = KEY(0)\nk1, k2 = jax.random.split(key)\n"
                                  "a = jax.random.normal(k1, (3,))\n"
                                  "b = jax.random.normal(k2, (3,))"], None),
    **_both("fold_in_loop", ["key = KEY(0)\nxs = []\nfor i in range(3):\n"
                             "    xs.append(jax.random.normal(jax.random.fold_in(key, i), (3,)))\n"
                             "a, b = xs[0], xs[1]"], None),
    **_both("jit_uses_once", ["key = KEY(0)\n"
                              "f = jax.jit(lambda k: jax.random.normal(k, (3,)))\n"
                              "a = f(key)"], None),
    # the same seed twice, on purpose (reproducible numbers): two keys, not one reused
    **_both("same_seed", ["a = jax.random.normal(KEY(0), (3,))\n"
                          "b = jax.random.normal(KEY(0), (3,))"], None),
    # a cell run again makes its key again
    **_both("cell_run_again", ["key = KEY(0)\na = jax.random.normal(key, (3,))",
                               "key = KEY(0)\na = jax.random.normal(key, (3,))"], None),
    # inside one jitted function (no note: the note follows eager draws; JAX's checker's
    # answer recorded for the report)
    **_both("twice_inside_jit", ["key = KEY(0)\n"
                                 "f = jax.jit(lambda k: (jax.random.normal(k, (3,)),\n"
                                 "                       jax.random.normal(k, (3,))))\n"
                                 "a, b = f(key)"], None),
}


def _cell_name(i: int) -> str:
    return f"<key_reuse_note_cell {i}>"


def _run(jax, cells) -> dict:
    ns = {"jax": jax}
    for i, source in enumerate(cells):
        exec(compile(source, _cell_name(i), "exec"), ns)
    return ns


def _where(error):
    """The (cell, line) of the innermost frame of a cell in `error`'s traceback."""
    at = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename.startswith("<key_reuse_note_cell "):
            at = [int(frame.filename.split()[1].rstrip(">")), frame.lineno]
    return at


def run(jax) -> dict:
    out = {}
    for name, case in CASES.items():
        ns = _run(jax, case["cells"])
        said = {}
        if "a" in ns and "b" in ns:
            said["same"] = bool(np.array_equal(np.asarray(ns["a"]), np.asarray(ns["b"])))
        jax.config.update("jax_debug_key_reuse", True)
        try:
            _run(jax, case["cells"])
            said["raises"] = None
        except Exception as e:  # noqa: BLE001  (whatever the checker raises is the answer)
            said["raises"] = {"error": type(e).__name__, "message": str(e).splitlines()[0],
                              "at": _where(e)}
        finally:
            jax.config.update("jax_debug_key_reuse", False)
        out[name] = said
    return out
