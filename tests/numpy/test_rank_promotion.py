"""jax_numpy_rank_promotion ('allow', 'warn', 'raise'): jnp, scipy and nn functions warn or
raise where operands of different ranks meet, with JAX 0.10.2's messages (recorded by
reference/make_rank_promotion_reference.py), and jit traces again when the option changes."""
import re
import os
import warnings

import numpy as np
import pytest
from rank_promotion_cases import run

import jxkernel as jax
import jxkernel.numpy as jnp
import locations  # tests/support: the repository's folders


@pytest.fixture(scope="module")
def answers():
    return run(jax), locations.recorded("rank_promotion_reference.json")


def test_each_function_raises_where_jax_does_with_its_message(answers):
    mine, jaxs = answers
    assert mine["raise"].keys() == jaxs["raise"].keys()
    differ = {name: (mine["raise"][name], want) for name, want in jaxs["raise"].items()
              if mine["raise"][name] != want}
    assert differ == {}
    raised = [name for name, got in mine["raise"].items() if got]
    assert len(raised) > 40 and "jnp.where" not in raised and "scalar operand" not in raised


def test_warn_bad_values_and_the_default_are_jaxs(answers):
    mine, jaxs = answers
    for key in ("warn", "bad_value", "default", "no_argument", "allowed"):
        assert mine[key] == jaxs[key], key
    assert mine["allowed"] == [[2.0] * 3] * 2


def test_the_warning_points_at_the_users_line():
    with jax.numpy_rank_promotion("warn"), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        jnp.ones(3) * jnp.ones((2, 3))
        jax.jit(lambda a, b: a - b)(jnp.ones(3), jnp.ones((2, 3)))
    assert [os.path.basename(w.filename) for w in seen] == ["test_rank_promotion.py"] * 2
    assert seen[0].lineno + 1 == seen[1].lineno


def test_jit_traces_again_when_the_option_changes():
    traced = []

    @jax.jit
    def scaled(a, b):
        traced.append(1)
        return a * b
    np.testing.assert_array_equal(np.asarray(scaled(jnp.ones(3), jnp.full((2, 3), 2.0))),
                                  np.full((2, 3), 2.0))
    with jax.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError, match="jax_numpy_rank_promotion='raise'"):
            scaled(jnp.ones(3), jnp.full((2, 3), 2.0))
    assert scaled(jnp.ones(3), jnp.full((2, 3), 2.0)).shape == (2, 3) and len(traced) == 2
    assert jax.config.jax_numpy_rank_promotion == "allow"


def test_ranks_that_cannot_broadcast_raise_jaxs_value_error():
    # JAX's vmapped_log_probs notebook catches this ValueError (operands' own shapes named),
    # where lax's TypeError about the rank-promoted shapes used to escape
    x, beta = np.ones((100, 10), np.float32), np.ones((4, 10), np.float32)
    y = np.arange(100) % 2

    def log_joint(beta):
        return jnp.sum(-jnp.log(1 + jnp.exp(-(2 * y - 1) * jnp.dot(x, beta))))
    with pytest.raises(ValueError, match=re.escape(
            "Incompatible shapes for broadcasting: shapes=[(100,), (100, 4)]")):
        log_joint(beta.T)
    assert jax.vmap(log_joint)(beta).shape == (4,)
    with pytest.raises(ValueError, match=re.escape(
            "Incompatible shapes for broadcasting: shapes=[(3,), (2, 4), ()]")):
        jnp.where(jnp.ones(3) > 0, jnp.ones((2, 4)), 0.0)
    with pytest.raises(TypeError, match=re.escape(
            "mul got incompatible shapes for broadcasting: (3,), (4,)")):
        jnp.ones(3) * jnp.ones(4)             # equal ranks: lax's own check, as in JAX
