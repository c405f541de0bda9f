"""The card a traced size, count or axis given to a jnp function gets
(tests/data/traced_shape_args_cases.py): it reads JAX's texts, and its fix, the jitted
lambda's argument made static, computes JAX 0.10.2's value
(tests/data/traced_shape_args_reference.json)."""
import numpy as np
import pytest

pytest.importorskip("IPython")

import jxkernel
import traced_shape_args_cases as cases        # tests/data
import locations                               # tests/support
from ipython_shell import ran_failing, shell_fixture        # tests/support

FIXED = locations.recorded("traced_shape_args_reference.json")["fixed"]

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp\n"
                      "x = jnp.arange(1.0, 5.0)\nm = jnp.ones((2, 3))")

# the cases whose error no card reads yet (error_cards/ is not this branch's: explain14's
# report says so): tile's unhashable parameter, a tracer as a dict key
_NO_CARD = {"tile", "tile_tuple", "tile_rank_2", *cases.UNHASHED}


def _card(shell, source):
    """The card's JSON of a cell that fails, or None where it shows none."""
    return ran_failing(shell, source).card


@pytest.mark.parametrize("case", sorted(set(cases.CASES) - _NO_CARD))
def test_the_card_fires_on_jax_s_text_and_its_fix_computes_jax_s_value(shell, case):
    """The concretization card (integer-conversion for an __index__) still reads the new
    texts (jnp.eye's TypeError on shapes, jnp.roll's "expected a static index"), and its
    rewrite, the lambda's argument made static, gives JAX's value."""
    card = _card(shell, f"_y = {cases.CASES[case]}")
    assert card is not None and card["kind"] in ("concretization", "integer-conversion"), card
    rewrite = card["rewrite"].split("\n")[0].split("    # ")[0]
    assert rewrite == f"_y = {cases.static(cases.CASES[case])}", card["rewrite"]
    assert shell.run_cell(rewrite).success
    assert [np.asarray(v).tolist() for v in jxkernel.tree_util.tree_leaves(
        shell.user_ns["_y"])] == FIXED[case]
