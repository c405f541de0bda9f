"""Names of older JAX that tutorials still use, each asked of JAX 0.10.2, which has removed it:
its error (JAX's words), and the value the removed-name card's line gives
(reference/make_removed_names_reference.py records `run(jax)`;
tests/notebook/test_removed_name_cards.py checks the card against it).

    >>> CASES["index_update"][1]
    '_y = x.at[0].set(5.0)'
"""
import re

import numpy as np

from learner_cells import said  # tests/data

SETUP = "x = jnp.arange(3.0)\nkey = jax.random.key(0)\n"
# case: (the learner's cell, the card's lines, what reads `_y` after them, or None: the card's
# lines bind it)
CASES = {
    "tree_multimap": ("_y = jax.tree_multimap(lambda a, b: a + b, [x], [x])",
                      "_y = jax.tree.map(lambda a, b: a + b, [x], [x])", None),
    "tree_util_tree_multimap": ("_y = jax.tree_util.tree_multimap(lambda a: a * 2, [x])",
                                "_y = jax.tree_util.tree_map(lambda a: a * 2, [x])", None),
    "index_update": ("_y = jax.ops.index_update(x, 0, 5.0)", "_y = x.at[0].set(5.0)", None),
    "index_add": ("_y = jax.ops.index_add(x, 1, 1.0)", "_y = x.at[1].add(1.0)", None),
    "shuffle": ("_y = jax.random.shuffle(key, x)", "_y = jax.random.permutation(key, x)",
                None),
    "device_array_type": ("_y = isinstance(x, jnp.DeviceArray)",
                          "_y = isinstance(x, jax.Array)", None),
    "jax_partial": ("_y = jax.partial(jnp.add, 1)(x)",
                    "from functools import partial\n_y = partial(jnp.add, 1)(x)", None),
    "tie_in": ("_y = jax.lax.tie_in(x, 1.0)", "_y = 1.0", None),
    "experimental_optimizers": ("from jax.experimental import optimizers",
                                "from jax.example_libraries import optimizers",
                                "init, update, get = optimizers.sgd(0.5)\n"
                                "_y = get(update(0, x, init(x)))"),
    "experimental_stax": ("from jax.experimental import stax",
                          "from jax.example_libraries import stax",
                          "_y = list(stax.Dense(2)[0](key, (1, 3))[0])"),
    "xla_device_array": ("from jax.interpreters.xla import DeviceArray",
                         "from jax import Array as DeviceArray", "_y = isinstance(x, DeviceArray)"),
    "key_array_type": ("_y = isinstance(key, jax.random.KeyArray)",
                       "_y = isinstance(key, jax.Array)", None),
    "xla_computation": ("_y = jax.xla_computation(lambda a: a + 1)(x).as_hlo_text()"
                        ".startswith('HloModule')",
                        "_y = jax.jit(lambda a: a + 1).lower(x).compiler_ir('hlo').as_hlo_text()"
                        ".startswith('HloModule')", None),
    "abstract_arrays": ("_y = jax.abstract_arrays.ShapedArray((2,), jnp.float32).shape",
                        "_y = jax.core.ShapedArray((2,), jnp.float32).shape", None),
    "linear_util": ("from jax import linear_util", "from jax.extend import linear_util",
                    "_y = callable(linear_util.wrap_init)"),
}
# removed names whose replacement takes other arguments: the card says it in words, a commented
# line (the cell: what the card names)
WORDS_ONLY = {
    "host_callback": ("from jax.experimental import host_callback", "jax.debug.callback"),
    "xla_bridge": ("_y = jax.lib.xla_bridge.get_backend().platform", "jax.default_backend()"),
    "experimental_maps": ("from jax.experimental import maps", "jax.shard_map"),
}
# an array's attributes JAX deprecated, whose AttributeError says what to use (no card)
ATTRIBUTES = {"device_buffer": "_y = x.device_buffer", "device_buffers": "_y = x.device_buffers"}


def _without_path(found):
    """An ImportError's words without the file it names (the recording machine's path to
    JAX's package; jxkernel names its own)."""
    if found is not None:
        found["first_line"] = re.sub(r" \(/[^)]*\)$", "", found["first_line"])
    return found


def run(jax) -> dict:
    """JAX's error for each cell, and `_y` after the card's lines (and the check)."""
    found = {}
    for case, (cell, lines, check) in CASES.items():
        names = {"jax": jax, "jnp": jax.numpy}
        exec(SETUP, names)
        found[case] = _without_path(said(lambda: exec(cell, dict(names))))
        exec(lines + ("\n" + check if check else ""), names)
        found[f"{case}_fixed"] = np.asarray(names["_y"]).tolist()
    for case, (cell, _) in WORDS_ONLY.items():
        names = {"jax": jax, "jnp": jax.numpy}
        exec(SETUP, names)
        found[case] = _without_path(said(lambda: exec(cell, dict(names))))
    for case, cell in ATTRIBUTES.items():
        names = {"jax": jax, "jnp": jax.numpy}
        exec(SETUP, names)
        found[case] = said(lambda: exec(cell, names))
    return found
