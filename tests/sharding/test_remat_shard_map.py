"""jax.checkpoint around and inside a shard_map on 8 simulated CPU devices, against JAX's
recorded answers (tests/data/remat_shard_map_cases.py, reference/make_remat_shard_map_reference.py):
a policy reaches into the shard_map body (what it saves there is saved, as JAX's), residuals
leave a body split along their first dimension, and one that is an argument of the body is
that argument.
"""
import numpy as np
import pytest
from fresh_process import cases_code, run_against_reference
from numerics import assert_allclose_ulp

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]


@pytest.fixture(scope="module")
def runs():
    return run_against_reference(cases_code("remat_shard_map_cases"),
                                 "remat_shard_map_reference.json")


def test_saved_residuals_are_jaxs_for_every_policy_and_body(runs):
    mine, jax_ = runs
    keys = sorted(jax_)
    assert len(keys) == 105
    assert {k: mine[k]["saved"] for k in keys} == {k: jax_[k]["saved"] for k in keys}


def test_a_names_policy_saves_the_named_value_inside_the_body(runs):
    mine, _ = runs
    assert mine["names_mid/named/outer"]["saved"] == [
        ["float32[4]", "from the argument a"], ["float32[4]", "output of shard_map"]]
    assert mine["dots/dots/outer"]["saved"][1] == ["float32[4,1]", "output of shard_map"]


def test_gradients_match_jax(runs):
    mine, jax_ = runs
    for key in jax_:
        # the same sin/cos/dot chain in float32 on the same CPU: a few ulps at most
        assert_allclose_ulp(np.float32(mine[key]["grad"]), np.float32(jax_[key]["grad"]), 4,
                            err_msg=key)
