"""Learner programs that reuse a PRNG key, and ones that only look as if they did, for the note
under a cell that reuses one (jxkernel/notebook/notes/key_notes.py): run by
reference/make_key_reuse_note_reference.py (JAX 0.10.2, into key_reuse_note_reference.json)
and, cell by cell in IPython, by tests/notebook/test_key_reuse_notes.py.

Each case is a list of cells (run one after another, `jax` the library) and `note`: the two
(cell, line) the note names, the first use and the reuse (0-based cell, 1-based line), or None
where no note belongs; for a reuse inside a jitted function, `call`: the line that calls
(traces) it; for one key of an array taken twice (keys[0], a for loop's k), `taken`: how. What is recorded per case: whether `a` and `b` hold equal numbers ("same", where
the cells bind both), and, run again with jax_debug_key_reuse on, whether
JAX's checker raised ("raises": the error's class, message and (cell, line) of the user's
line that raised, or None), and the message of a KeyReuseError the cells caught themselves
("refused", where they bind it).

    CASES["raw_twice"]["cells"][0].splitlines()[2]
    'b = jax.random.normal(key, (3,))'
"""
import traceback

import numpy as np

_DRAW2 = "a = jax.random.normal(key, (3,))\nb = jax.random.normal(key, (3,))"


def _both(name, cells, note, call=None, taken=None, checked=None):
    """The case for a typed key (jax.random.key) and for a raw one (jax.random.PRNGKey);
    `call`: for a reuse inside a jitted function, the (cell, line) that calls (traces) it;
    `taken`: for one key of an array taken twice, "index" where both draws' keys were taken
    by an index (keys[0]), "loop" where a for loop or unpacking took one of them;
    `checked`: the (cell, line) where JAX's checker raises for the typed key, where it is
    another line than the reuse's or the call's (a vmapped function's second for loop)."""
    extra = {} if call is None else {"call": call}
    extra.update({} if taken is None else {"taken": taken})
    extra.update({} if checked is None else {"checked": checked})
    return {f"typed_{name}": {"cells": [c.replace("KEY", "jax.random.key") for c in cells],
                              "note": note, **extra},
            f"raw_{name}": {"cells": [c.replace("KEY", "jax.random.PRNGKey") for c in cells],
                            "note": note, **extra}}


# a jitted function of the learner's that draws (its body: {}), called at line 7
_INIT = "@jax.jit\ndef init(key):\n{}    return a, b\n"
_DRAW2_IN = "    a = jax.random.normal(key, (3, 3))\n    b = jax.random.normal(key, (3, 3))\n"

# a jitted function of the learner's that draws once (lines 2-4 of the cell)
_SAMPLE = "@jax.jit\ndef sample(key):\n    return jax.random.normal(key, (3,))\n"

# a function of the learner's drawing twice with its key (lines 3 and 4 of the cell)
_DRAW2_3 = "    a = jax.random.normal(key, (3,))\n    b = jax.random.normal(key, (3,))\n"
_PAIR = "def pair(key):\n" + _DRAW2_3 + "    return a, b\n"

# a tree of two leaves of one shape, mapped over with jax.tree.map (line 2 of the cell)
_PARAMS = "params = {'a': jax.numpy.zeros(3), 'b': jax.numpy.zeros(3)}\n"


# inside a function jit traces (line 8 calls it) or vmap runs, an array of three keys split
# there (line 4), keys[0] drawn with at line 5 and `{}` at line 6
_JIT_SPLIT = ("key = KEY(0)\n@jax.jit\ndef two(key):\n    keys = jax.random.split(key, 3)\n"
              "    a = jax.random.normal(keys[0], (2,))\n    b = jax.random.normal({}, (2,))\n"
              "    return a, b\na, b = two(key)")
_VMAP_SPLIT = ("key = KEY(0)\ndef two(key):\n    keys = jax.random.split(key, 3)\n"
               "    a = jax.random.normal(keys[0], (2,))\n    b = jax.random.normal({}, (2,))\n"
               "    return a, b\na, b = jax.vmap(two)(jax.random.split(key, 2))")
# the array given as the argument (a jitted function called at line 7: keys[0] drawn with at
# line 4, `{}` at 5; vmapped: at lines 3 and 4)
_JIT_ARG = ("key = KEY(0)\n@jax.jit\ndef two(keys):\n    a = jax.random.normal(keys[0], (2,))\n"
            "    b = jax.random.normal({}, (2,))\n    return a, b\n"
            "a, b = two(jax.random.split(key, 3))")
_VMAP_ARG = ("key = KEY(0)\ndef two(keys):\n    a = jax.random.normal(keys[0], (2,))\n"
             "    b = jax.random.normal({}, (2,))\n    return a, b\n"
             "a, b = jax.vmap(two)(jax.random.split(key, (2, 3)))")
# two for loops over the array (`keys{}` each, the array of `{}` keys), drawing at lines 7
# and 9 of a jitted function called at line 11, or at lines 5 and 7 of a vmapped one
_JIT_LOOPS = ("key = KEY(0)\n@jax.jit\ndef draws(key):\n    keys = jax.random.split(key, {})\n"
              "    xs = []\n    for k in keys{}:\n        xs.append(jax.random.normal(k, (2,)))\n"
              "    for k in keys{}:\n        xs.append(jax.random.normal(k, (2,)))\n"
              "    return xs[0], xs[3]\na, b = draws(key)")
_VMAP_LOOPS = ("key = KEY(0)\ndef draws(keys):\n    xs = []\n"
               "    for k in keys{}:\n        xs.append(jax.random.normal(k, (2,)))\n"
               "    for k in keys{}:\n        xs.append(jax.random.normal(k, (2,)))\n"
               "    return xs[0], xs[3]\na, b = jax.vmap(draws)(jax.random.split(key, (2, {})))")

# an array of three keys (lines 1 and 2 of the cell), and a draw with a key of it
_SPLIT3 = "key = KEY(0)\nkeys = jax.random.split(key, 3)\n"
_NORMAL = "jax.random.normal({}, (2,))"

CASES = {
    # the learner's bug: one key, two draws
    **_both("twice", ["key = KEY(0)\n" + _DRAW2], ((0, 2), (0, 3))),
    **_both("across_cells", ["key = KEY(0)\na = jax.random.normal(key, (3,))",
                             "b = jax.random.normal(key, (3,))"], ((0, 2), (1, 1))),
    # told after a loop of more draws than the record holds at once (it is read as it fills)
    **_both("twice_then_a_long_loop", ["key = KEY(0)\n" + _DRAW2 + "\n"
                                       "for k in jax.random.split(KEY(1), 100):\n"
                                       "    c = jax.random.normal(k, ())"], ((0, 2), (0, 3))),
    # split consumes its key too: a draw with it afterwards is a reuse
    **_both("split_then_draw", ["key = KEY(0)\nkey1, key2 = jax.random.split(key)\n"
                                "b = jax.random.normal(key, (3,))"], ((0, 2), (0, 3))),
    # another sampler: the same bits, not the same numbers
    **_both("normal_then_uniform", ["key = KEY(0)\na = jax.random.normal(key, (3,))\n"
                                    "b = jax.random.uniform(key, (3,))"], ((0, 2), (0, 3))),
    # one sampler, other arguments (a range, a loop's scale): the same bits, other numbers
    **_both("uniform_other_range", ["key = KEY(0)\na = jax.random.uniform(key, (3,))\n"
                                    "b = jax.random.uniform(key, (3,), minval=5.0, maxval=6.0)"],
            ((0, 2), (0, 3))),
    **_both("loop_other_scale", ["key = KEY(0)\nxs = []\nfor scale in [1.0, 10.0]:\n"
                                 "    xs.append(jax.random.uniform(key, (2,), maxval=scale))\n"
                                 "a, b = xs[0], xs[1]"], ((0, 4), (0, 4))),
    # the note's advice, as it writes it: the two draws differ, and nothing is reused
    **_both("advice", ["key = KEY(0)\n"
                       "key, subkey = jax.random.split(key)\n"
                       "a = jax.random.normal(subkey, (3,))\n"
                       "key, subkey = jax.random.split(key)\n"
                       "b = jax.random.normal(subkey, (3,))"], None),
    # a function drawing in a loop of its own with the key it was given, called once: its
    # passes draw alike (no call given one key each time), and the note's advice, the key
    # split at each pass before the draw, as it writes it
    **_both("loop_in_a_function", ["key = KEY(0)\ndef init(key, n):\n    ws = []\n"
                                   "    for i in range(n):\n"
                                   "        ws.append(jax.random.normal(key, (3,)))\n"
                                   "    return ws\na, b = init(key, 2)"], ((0, 5), (0, 5))),
    **_both("loop_in_a_function_advice", ["key = KEY(0)\ndef init(key, n):\n    ws = []\n"
                                          "    for i in range(n):\n"
                                          "        key, subkey = jax.random.split(key)\n"
                                          "        ws.append(jax.random.normal(subkey, (3,)))\n"
                                          "    return ws\na, b = init(key, 2)"], None),
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
    # inside a function jit traces: told at its two lines; JAX's checker raises where the
    # function is called (traced) for a typed key (`call`: that line), never for a raw one
    **_both("twice_inside_jit", ["key = KEY(0)\n"
                                 "f = jax.jit(lambda k: (jax.random.normal(k, (3,)),\n"
                                 "                       jax.random.normal(k, (3,))))\n"
                                 "a, b = f(key)"], ((0, 2), (0, 3)), call=(0, 4)),
    **_both("jit_init", ["key = KEY(0)\n" + _INIT.format(_DRAW2_IN) + "a, b = init(key)"],
            ((0, 4), (0, 5)), call=(0, 7)),
    # called again: a cache hit, no trace, no note
    **_both("jit_called_again", ["key = KEY(0)\n" + _INIT.format(_DRAW2_IN) +
                                 "a, b = init(key)", "a, b = init(KEY(1))"], ((0, 4), (0, 5)),
            call=(0, 7)),
    **_both("jit_normal_then_uniform", ["key = KEY(0)\n" + _INIT.format(
        "    a = jax.random.normal(key, (3,))\n    b = jax.random.uniform(key, (3,))\n") +
        "a, b = init(key)"], ((0, 4), (0, 5)), call=(0, 7)),
    # a scan's body drawing with a key it closes over: the same numbers at every iteration
    **_both("jit_scan_reuse", ["key = KEY(0)\n@jax.jit\ndef draws(key):\n"
                               "    body = lambda c, _: (c, jax.random.normal(key, (3,)))\n"
                               "    return jax.lax.scan(body, 0.0, None, length=2)[1]\n"
                               "ys = draws(key)\na, b = ys[0], ys[1]"], ((0, 4), (0, 4)),
            call=(0, 6)),
    # the same outside jit: a loop run eagerly (one program of one equation, its body inside);
    # fold_in in its body, a key in each branch of a cond run eagerly, reuse nothing
    **_both("eager_scan_reuse", ["key = KEY(0)\n"
                                 "body = lambda c, _: (c, jax.random.normal(key, (3,)))\n"
                                 "ys = jax.lax.scan(body, 0.0, None, length=2)[1]\n"
                                 "a, b = ys[0], ys[1]"], ((0, 2), (0, 2)), call=(0, 3)),
    **_both("eager_fori_reuse", ["key = KEY(0)\ndef body(i, xs):\n"
                                 "    return xs.at[i].set(jax.random.normal(key, (3,)))\n"
                                 "ys = jax.lax.fori_loop(0, 2, body, jax.numpy.zeros((2, 3)))\n"
                                 "a, b = ys[0], ys[1]"], ((0, 3), (0, 3)), call=(0, 4)),
    **_both("eager_map_reuse", ["key = KEY(0)\n"
                                "ys = jax.lax.map(lambda x: x + jax.random.normal(key, (3,)),\n"
                                "                 jax.numpy.zeros((2, 3)))\n"
                                "a, b = ys[0], ys[1]"], ((0, 2), (0, 2)), call=(0, 2)),
    **_both("eager_fold_in_fori", ["key = KEY(0)\ndef body(i, xs):\n"
                                   "    return xs.at[i].set(jax.random.normal("
                                   "jax.random.fold_in(key, i), (3,)))\n"
                                   "ys = jax.lax.fori_loop(0, 2, body, "
                                   "jax.numpy.zeros((2, 3)))\n"
                                   "a, b = ys[0], ys[1]"], None),
    **_both("eager_cond_branches", ["key = KEY(0)\n"
                                    "a = jax.lax.cond(True, lambda k: jax.random.normal(k, (3,)),"
                                    "\n                 lambda k: jax.random.uniform(k, (3,)), "
                                    "key)"], None),
    # a jitted function of the learner's traced in an earlier cell, called twice with one key
    # inside a jit traced now: its draws are inside, not traced again (told at the two calls)
    **_both("jit_inner_from_earlier_cell", [
        "key = KEY(0)\n" + _SAMPLE + "c = sample(KEY(1))",
        "@jax.jit\ndef pair(key):\n    a = sample(key)\n    b = sample(key)\n    return a, b\n"
        "a, b = pair(key)"], ((1, 3), (1, 4)), call=(1, 6)),
    # two calls on one line: told there, "earlier on the same line" (not the draw's line)
    **_both("jit_two_calls_one_line", [
        "key = KEY(0)\n" + _SAMPLE + "@jax.jit\ndef pair(key):\n"
        "    return sample(key), sample(key)\na, b = pair(key)"], ((0, 7), (0, 7)),
        call=(0, 8)),
    **_both("two_draws_one_line", ["key = KEY(0)\n"
                                   "a, b = jax.random.normal(key, (3,)), jax.random.normal(key, "
                                   "(3,))"], ((0, 2), (0, 2))),
    # two statements on one line: IPython compiles each apart, into equal code objects that
    # call at the same offset (told "the same line run before", as a loop, until 2026-12-04)
    **_both("two_statements_one_line", ["key = KEY(0)\n"
                                        "a = jax.random.normal(key, (3,)); "
                                        "b = jax.random.normal(key, (3,))"], ((0, 2), (0, 2))),
    # the note's advice inside the function, as it writes it: two different draws
    **_both("jit_advice", ["key = KEY(0)\n" + _INIT.format(
        "    k1, k2 = jax.random.split(key)\n    a = jax.random.normal(k1, (3, 3))\n"
        "    b = jax.random.normal(k2, (3, 3))\n") + "a, b = init(key)"], None),
    # not reuses inside jit: one key in each branch of a cond or switch (one runs), fold_in
    # in a loop's body, a scan splitting its carried key at each step
    **_both("jit_cond_branches", ["key = KEY(0)\n@jax.jit\ndef draw(key, p):\n"
                                  "    return jax.lax.cond(p, lambda k: jax.random.normal(k, "
                                  "(3,)),\n                        lambda k: jax.random."
                                  "uniform(k, (3,)), key)\n"
                                  "a = draw(key, True)"], None),
    **_both("jit_switch_branches", ["key = KEY(0)\n@jax.jit\ndef draw(key, i):\n"
                                    "    return jax.lax.switch(i, [\n"
                                    "        lambda: jax.random.normal(key, (3,)),\n"
                                    "        lambda: jax.random.uniform(key, (3,)),\n"
                                    "        lambda: jax.random.normal(key, (3,)) + 1.0])\n"
                                    "a = draw(key, 2)"], None),
    **_both("jit_fold_in_fori", ["key = KEY(0)\n@jax.jit\ndef draws(key):\n"
                                 "    def body(i, xs):\n"
                                 "        return xs.at[i].set(jax.random.normal("
                                 "jax.random.fold_in(key, i), (3,)))\n"
                                 "    return jax.lax.fori_loop(0, 2, body, "
                                 "jax.numpy.zeros((2, 3)))\n"
                                 "ys = draws(key)\na, b = ys[0], ys[1]"], None),
    **_both("jit_scan_split", ["key = KEY(0)\n@jax.jit\ndef draws(key):\n"
                               "    def body(k, _):\n"
                               "        k, sub = jax.random.split(k)\n"
                               "        return k, jax.random.normal(sub, (3,))\n"
                               "    return jax.lax.scan(body, key, None, length=2)[1]\n"
                               "ys = draws(key)\na, b = ys[0], ys[1]"], None),
    # a function of the learner's, run eagerly or by grad or vmap alone (no jit): its Python
    # runs at the call, so its two draws with one key (a concrete one; vmap's tracer of the
    # batch) are a reuse told at its two lines, and JAX's checker raises at the second
    **_both("function_eagerly", ["key = KEY(0)\n" + _PAIR + "a, b = pair(key)"],
            ((0, 3), (0, 4))),
    **_both("grad_aux", ["key = KEY(0)\ndef loss(w, key):\n" + _DRAW2_3 +
                         "    return (w * a * b).sum(), (a, b)\n"
                         "g, (a, b) = jax.grad(loss, has_aux=True)(jax.numpy.ones(3), key)"],
            ((0, 3), (0, 4))),
    **_both("vmap_pair", ["key = KEY(0)\n" + _PAIR + "a, b = jax.vmap(pair)(jax.random.split("
                          "key, 2))"], ((0, 3), (0, 4))),
    # jax.tree.map calling a function that draws with the one key it closes over, once per
    # leaf (told at the lambda's line, drawn again for the second leaf), and the note's fix
    **_both("tree_map_global_key", ["key = KEY(0)\n" + _PARAMS + "noisy = jax.tree.map("
                                    "lambda p: p + jax.random.normal(key, p.shape), params)\n"
                                    "a, b = noisy['a'], noisy['b']"], ((0, 3), (0, 3))),
    **_both("tree_map_advice", ["key = KEY(0)\n" + _PARAMS +
                                "keys = jax.tree.unflatten(jax.tree.structure(params), list("
                                "jax.random.split(key, len(jax.tree.leaves(params)))))\n"
                                "noisy = jax.tree.map(lambda p, k: p + jax.random.normal(k, "
                                "p.shape), params, keys)\n"
                                "a, b = noisy['a'], noisy['b']"], None),
    # no note under vmap: a split in the function; one key in each branch of a cond, where
    # JAX's checker raises for a typed key (a batched predicate runs both branches), but each
    # element's numbers are one branch's draw, picked by a select
    **_both("vmap_split_inside", ["key = KEY(0)\ndef pair(key):\n"
                                  "    k1, k2 = jax.random.split(key)\n"
                                  "    return jax.random.normal(k1, (3,)), "
                                  "jax.random.normal(k2, (3,))\n"
                                  "a, b = jax.vmap(pair)(jax.random.split(key, 2))"], None),
    **_both("vmap_cond_branches", ["key = KEY(0)\ndef draw(key, p):\n"
                                   "    return jax.lax.cond(p, lambda k: jax.random.normal(k, "
                                   "(3,)),\n                        lambda k: jax.random."
                                   "uniform(k, (3,)), key)\n"
                                   "a = jax.vmap(draw)(jax.random.split(key, 2), "
                                   "jax.numpy.array([True, False]))"], None),
    # the checker on in the cell: the typed key's second draw raises KeyReuseError (caught:
    # `refused`, its message) and draws nothing, so there is no reuse to tell beside JAX's
    # error; a raw PRNGKey key the checker lets through, drawn twice silently, is told
    **_both("checker_on_in_the_cell", ["jax.config.update('jax_debug_key_reuse', True)\n"
                                       "key = KEY(0)\na = jax.random.normal(key, (3,))\n"
                                       "try:\n    b = jax.random.normal(key, (3,))\n"
                                       "except jax.errors.KeyReuseError as e:\n"
                                       "    refused = str(e).splitlines()[0]\n"
                                       "finally:\n"
                                       "    jax.config.update('jax_debug_key_reuse', False)"],
            ((0, 3), (0, 5))),
    # one key of an array taken twice: keys[0] makes a new object each time, the same key
    # (JAX's checker, on, raises at the second taking by index: "passed to slice")
    **_both("index_twice", [_SPLIT3 + "a = " + _NORMAL.format("keys[0]") + "\nb = " +
                            _NORMAL.format("keys[0]")], ((0, 3), (0, 4)), taken="index"),
    **_both("index_across_cells", [_SPLIT3 + "a = " + _NORMAL.format("keys[0]"),
                                   "b = " + _NORMAL.format("keys[0]")], ((0, 3), (1, 1)),
            taken="index"),
    **_both("index_held_then_again", [_SPLIT3 + "k = keys[1]\na = " + _NORMAL.format("k") +
                                      "\nb = " + _NORMAL.format("keys[1]")], ((0, 4), (0, 5)),
            taken="index"),
    **_both("index_negative", [_SPLIT3 + "a = " + _NORMAL.format("keys[2]") + "\nb = " +
                               _NORMAL.format("keys[-1]")], ((0, 3), (0, 4)), taken="index"),
    **_both("index_two_axes", ["key = KEY(0)\nkeys = jax.random.split(key, (2, 3))\na = " +
                               _NORMAL.format("keys[0, 1]") + "\nb = " +
                               _NORMAL.format("keys[0][1]")], ((0, 3), (0, 4)), taken="index"),
    # taken by for loops or unpacking: the same keys each time (JAX's checker follows none)
    **_both("loop_twice", [_SPLIT3 + "xs = []\nfor k in keys:\n    xs.append(" +
                           _NORMAL.format("k") + ")\nfor k in keys:\n    xs.append(" +
                           _NORMAL.format("k") + ")\na, b = xs[0], xs[3]"], ((0, 5), (0, 7)),
            taken="loop"),
    **_both("loop_then_index", [_SPLIT3 + "xs = []\nfor k in keys:\n    xs.append(" +
                                _NORMAL.format("k") + ")\na, b = xs[0], " +
                                _NORMAL.format("keys[0]")], ((0, 5), (0, 6)), taken="loop"),
    **_both("unpack_then_index", [_SPLIT3 + "k0, k1, k2 = keys\na = " + _NORMAL.format("k0") +
                                  "\nb = " + _NORMAL.format("keys[0]")], ((0, 4), (0, 5)),
            taken="loop"),
    # the notes' advice, as they write it: two different draws, nothing reused
    **_both("index_advice", [_SPLIT3 + "a = " + _NORMAL.format("keys[0]") + "\nb = " +
                             _NORMAL.format("keys[1]")], None),
    **_both("index_held_advice", [_SPLIT3 + "k = keys[1]\na = " + _NORMAL.format("k") +
                                  "\nb = " + _NORMAL.format("keys[0]")], None),
    **_both("index_two_axes_advice", ["key = KEY(0)\nkeys = jax.random.split(key, (2, 3))\n"
                                      "a = " + _NORMAL.format("keys[0, 1]") + "\nb = " +
                                      _NORMAL.format("keys[0, 0]")], None),
    **_both("index_one_line", [_SPLIT3 + "a, b = " + _NORMAL.format("keys[0]") + ", " +
                               _NORMAL.format("keys[0]")], ((0, 3), (0, 3)), taken="index"),
    **_both("loop_advice", ["key = KEY(0)\nkeys = jax.random.split(key, 2 * 3)\nxs = []\n"
                            "for k in keys[:3]:\n    xs.append(" + _NORMAL.format("k") + ")\n"
                            "for k in keys[3:]:\n    xs.append(" + _NORMAL.format("k") + ")\n"
                            "a, b = xs[0], xs[3]"], None),
    # not reuses: fold_in of a taken key (it consumes none; JAX's checker, on, still raises at
    # the second taking), keys taken once each, an array split again, one seed twice, a cell
    # run again
    **_both("index_fold_in", [_SPLIT3 + "a = " +
                              _NORMAL.format("jax.random.fold_in(keys[0], 1)") + "\nb = " +
                              _NORMAL.format("jax.random.fold_in(keys[0], 2)")], None),
    **_both("index_in_a_loop", [_SPLIT3 + "xs = []\nfor i in range(3):\n    xs.append(" +
                                _NORMAL.format("keys[i]") + ")\na, b = xs[0], xs[1]"], None),
    **_both("loop_once", [_SPLIT3 + "xs = [" + _NORMAL.format("k") + " for k in keys]\n"
                          "a, b = xs[0], xs[1]"], None),
    **_both("index_split_again", [_SPLIT3 + "a = " + _NORMAL.format("keys[0]") +
                                  "\nkeys = jax.random.split(keys[1], 3)\nb = " +
                                  _NORMAL.format("keys[0]")], None),
    **_both("index_same_seed", ["keys = jax.random.split(KEY(0), 3)\na = " +
                                _NORMAL.format("keys[0]") + "\nkeys = jax.random.split(KEY(0), "
                                "3)\nb = " + _NORMAL.format("keys[0]")], None),
    **_both("index_cell_run_again", [_SPLIT3 + "a = " + _NORMAL.format("keys[0]"),
                                     _SPLIT3 + "a = " + _NORMAL.format("keys[0]")], None),
    # one key of an array taken twice inside a jitted function: keys[0] slices the array
    # anew, the same key (JAX's checker raises at the call that traces it: "In slice,
    # argument 0 is already consumed."), the array split inside or given; two for loops
    **_both("jit_index_twice", [_JIT_SPLIT.format("keys[0]")], ((0, 5), (0, 6)), call=(0, 8),
            taken="index"),
    **_both("jit_index_argument", [_JIT_ARG.format("keys[0]")], ((0, 4), (0, 5)),
            call=(0, 7), taken="index"),
    **_both("jit_loop_twice", [_JIT_LOOPS.format(3, "", "")], ((0, 7), (0, 9)), call=(0, 11),
            taken="loop"),
    # and in a function vmap runs (no jit): its Python runs at the call, on tracers (JAX's
    # checker raises at the second taking: "passed to slice", a for loop's too)
    **_both("vmap_index_twice", [_VMAP_SPLIT.format("keys[0]")], ((0, 4), (0, 5)),
            taken="index"),
    **_both("vmap_index_argument", [_VMAP_ARG.format("keys[0]")], ((0, 3), (0, 4)),
            taken="index"),
    **_both("vmap_loop_twice", [_VMAP_LOOPS.format("", "", 3)], ((0, 5), (0, 7)),
            taken="loop", checked=(0, 6)),
    # the notes' advice, as they write it: keys[1] for the second draw; the loops over halves
    **_both("jit_index_advice", [_JIT_SPLIT.format("keys[1]")], None),
    **_both("jit_index_argument_advice", [_JIT_ARG.format("keys[1]")], None),
    **_both("jit_loop_advice", [_JIT_LOOPS.format("2 * 3", "[:3]", "[3:]")], None),
    **_both("vmap_index_advice", [_VMAP_SPLIT.format("keys[1]")], None),
    **_both("vmap_index_argument_advice", [_VMAP_ARG.format("keys[1]")], None),
    **_both("vmap_loop_advice", [_VMAP_LOOPS.format("[:3]", "[3:]", "2 * 3")], None),
    # not reuses: fold_in of keys[0] twice (JAX's checker, on, still raises at the second
    # taking), keys[0] in each branch of a cond (one runs)
    **_both("jit_index_fold_in", [_JIT_ARG.format("jax.random.fold_in(keys[0], 2)").replace(
        "normal(keys[0]", "normal(jax.random.fold_in(keys[0], 1)")], None),
    **_both("vmap_index_fold_in", [_VMAP_ARG.format("jax.random.fold_in(keys[0], 2)").replace(
        "normal(keys[0]", "normal(jax.random.fold_in(keys[0], 1)")], None),
    **_both("jit_index_cond", ["key = KEY(0)\n@jax.jit\ndef draw(keys, p):\n"
                               "    return jax.lax.cond(p, lambda: jax.random.normal(keys[0], "
                               "(2,)),\n                        lambda: jax.random.uniform("
                               "keys[0], (2,)))\na = draw(jax.random.split(key, 3), True)"],
            None),
}
# the typed key's draw that the checker refused is no reuse
CASES["typed_checker_on_in_the_cell"]["note"] = None


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
        if "refused" in ns:             # a KeyReuseError the cells caught: its message
            said["refused"] = ns["refused"]
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
