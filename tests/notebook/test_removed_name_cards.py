"""The removed-name card in a real kernel with `import jax` answered by jxkernel, against JAX
0.10.2: the names older tutorials use and JAX has removed (tests/data/removed_names_cases.py;
JAX's words and the values of the card's lines recorded by
reference/make_removed_names_reference.py)."""
import numpy as np
import pytest

pytest.importorskip("IPython")

import locations  # tests/support
from real_kernel import alias_kernel_cells
from removed_names_cases import ATTRIBUTES, CASES, SETUP, WORDS_ONLY  # tests/data

JAX = locations.recorded("removed_names_reference.json")
IMPORTS = "import jax, jax.numpy as jnp\n"


@pytest.fixture(scope="module")
def cells():
    """{case: its KernelCell} of each case and each case's card lines (with its check, `_y`
    printed), one kernel for all."""
    sources = {}
    for case, (cell, lines, check) in CASES.items():
        sources[case] = cell
        sources[f"{case}_fixed"] = lines + ("\n" + check if check else "") + \
            "\nimport numpy as _np\nprint(_np.asarray(_y).tolist())"
    words = {case: cell for case, (cell, _) in WORDS_ONLY.items()}
    return alias_kernel_cells(IMPORTS + SETUP, {**sources, **ATTRIBUTES, **words})


def _words(line: str) -> str:
    """An error's first line without the file an ImportError names (JAX's and jxkernel's
    differ: each its own package's path)."""
    return line.split(" (/")[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_name_jax_removed_gets_what_replaces_it(cells, case):
    """jax.tree_multimap, jax.ops.index_update, jax.random.shuffle, jnp.DeviceArray,
    jax.partial, lax.tie_in, jax.experimental's optimizers and stax (since stop 128:
    jax.random.KeyArray, jax.xla_computation, jax.abstract_arrays, jax.linear_util; the line
    of xla_computation(f)(x) is jit(f).lower(x).compiler_ir('hlo')): JAX 0.10.2's own words
    (the module has no such attribute, or cannot import the name), and no card. The
    removed-name card names what replaces each and writes it on the learner's line; pasted,
    JAX's value."""
    cell, lines, _ = CASES[case]
    ran = cells[case]
    error = ran.error_line
    assert error and (error[0], _words(error[1])) == (JAX[case]["error"],
                                                      _words(JAX[case]["first_line"])), ran
    card = ran.card
    assert card is not None and card["kind"] == "removed-name", ran
    assert [part.split("    # ")[0] for part in card["rewrite"].splitlines()] == \
        lines.splitlines(), card["rewrite"]
    fixed = cells[f"{case}_fixed"]
    assert fixed.error is None, fixed
    got, want = eval(fixed.stdout.strip()), JAX[f"{case}_fixed"]
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_an_arrays_deprecated_buffers_say_what_jax_says(cells):
    """x.device_buffer, x.device_buffers: JAX 0.10.2's AttributeError says what to use
    (addressable_data, addressable_shards); jxkernel's said the attribute was missing."""
    for case in ATTRIBUTES:
        assert cells[case].error_line == (JAX[case]["error"], JAX[case]["first_line"]), case


@pytest.mark.parametrize("case", sorted(WORDS_ONLY))
def test_a_name_replaced_by_what_takes_other_arguments_is_named_in_words(cells, case):
    """jax.experimental.host_callback (JAX's callbacks), jax.lib.xla_bridge
    (jax.default_backend()), jax.experimental.maps (shard_map): JAX 0.10.2's words, and no
    card. The card names what replaces each; no line is written for it (a drop-in would be
    wrong: host_callback's id_tap is no debug.callback, and `from jax import shard_map as maps`
    binds a function where a module was), only a comment."""
    _, named = WORDS_ONLY[case]
    ran = cells[case]
    assert ran.error_line and (ran.error_line[0], _words(ran.error_line[1])) == \
        (JAX[case]["error"], _words(JAX[case]["first_line"])), ran
    card = ran.card
    assert card is not None and card["kind"] == "removed-name", ran
    assert named in card["title"] and all(
        line.startswith("#") for line in card["rewrite"].splitlines()), card
