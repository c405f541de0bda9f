"""Case results against JAX's recorded ones, in 32- and 64-bit mode: the layout written by
reference/recording.py ("<mode>/<case>#<leaf>" and "...#<leaf>#weak" in one .npz).

    assert_cases_match("x32", cases(jax, jnp, image, False), load("image_reference.npz"), ulps)
    test_every_case_matches_jax = cases_test(cases, (jax, jnp, image), "image_reference.npz", ulps)
"""
import functools
import os

import numpy as np
import pytest
from numerics import assert_allclose_ulp

from jxkernel.tree_util import tree_leaves
import locations  # tests/support: the repository's folders

DATA = locations.DATA


@functools.cache
def load(filename: str) -> dict:
    return dict(np.load(os.path.join(DATA, filename)))


def assert_cases_match(mode: str, got: dict, ref: dict, ulps) -> None:
    """Every recorded case computed; shapes, dtypes and weak types exactly; values within
    `ulps(case)` at the result's largest finite magnitude (the case list says why each
    bound); NaNs and infinities where JAX has them."""
    recorded = {key.split("#")[0][len(mode) + 1:] for key in ref if key.startswith(mode + "/")}
    assert set(got) == recorded
    for name, value in got.items():
        for i, leaf in enumerate(tree_leaves(value)):
            key = f"{mode}/{name}#{i}"
            want, where = ref[key], f"{name} leaf {i}"
            assert leaf.dtype == want.dtype and leaf.shape == want.shape, where
            assert leaf.weak_type == bool(ref[key + "#weak"]), where
            size = np.abs(want)
            assert_allclose_ulp(np.asarray(leaf), want, ulps(name),     # (NaN, inf: checked
                                scale=size[np.isfinite(size)].max(initial=0),   # as values)
                                err_msg=where)


def cases_test(cases, args: tuple, filename: str, ulps):
    """The test of a case list against its record, in each mode (as reference/recording.py's
    record_modes ran it): `cases(*args, x64)` with jax_enable_x64 set as the mode says, where
    args[0] is jxkernel (it gives the config)."""
    @pytest.mark.parametrize("mode", ["x32", "x64"])
    def test_every_case_matches_jax(mode):
        with args[0].config.override("jax_enable_x64", mode == "x64"):
            got = cases(*args, mode == "x64")
        assert_cases_match(mode, got, load(filename), ulps)
    return test_every_case_matches_jax
