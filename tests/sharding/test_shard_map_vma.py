"""shard_map's varying-manual-axes types (check_vma=True), bodies manual over some mesh axes
only (axis_names) and nested shard_maps, against JAX 0.10.2's recorded answers.

One subprocess (JXKERNEL_CPU_DEVICES=8) runs tests/data/shard_map_vma_cases.py, the cases
reference/make_shard_map_reference.py ran with JAX, and prints one JSON object that the tests
below take apart: the types inside a body, jaxprs with pvary and psum_invariant, gradients
with respect to replicated inputs inside and outside a body, pcast and the errors.
"""
import re

import numpy as np
import pytest
from numerics import assert_allclose_ulp
from fresh_process import cases_code, run_against_reference

from jxkernel.core.avals import ShapedArray

pytestmark = pytest.mark.cpu_only("simulated CPU devices")     # the GPU tier skips this file (docs/gpu.md)
# the tests reading the module fixture's process of several CPU devices; the NumPy backend has one
SEVERAL_DEVICES = pytest.mark.xla_only("several devices")

_SET = re.compile(r"\{('[a-z]+'(?:, '[a-z]+')+)\}")


def _sorted_sets(text: str) -> str:
    """`text` with each printed set of names in sorted order (a set's order varies per process)."""
    return _SET.sub(lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", text)


@pytest.fixture(scope="module")
def runs():
    return run_against_reference(cases_code("shard_map_vma_cases"), "shard_map_vma_reference.json")


@SEVERAL_DEVICES
def test_types_inside_a_body_vary_over_jaxs_axes(runs):
    mine, ref = runs
    assert mine["types"] == ref["types"]
    types = mine["types"]
    assert types["in_x"] == {"varying": ["x"], "text": "float32[2]{V:x}"}
    assert types["in_replicated"] == {"varying": [], "text": "float32[]"}
    assert types["in_xy"]["text"] == "float32[1]{V:(x,y)}"
    assert types["psum_x"]["varying"] == [] and types["all_gather_x"]["varying"] == ["x"]
    assert types["mul_varying_invariant"]["varying"] == ["x"]
    assert types["grad_replicated"] == {"varying": [], "text": "float32[]"}


@SEVERAL_DEVICES
def test_jaxprs_print_pvary_and_psum_invariant_as_jax(runs):
    mine, ref = runs
    assert set(mine["jaxprs"]) == set(ref["jaxprs"])
    for name, text in ref["jaxprs"].items():
        assert _sorted_sets(mine["jaxprs"][name]) == _sorted_sets(text), name
    assert "pvary[axes=('x',)]" in mine["jaxprs"]["mul"]
    assert "psum_invariant[axes=('x',)]" in mine["jaxprs"]["psum_loss"]
    assert "pvary[axes=('x', 'y')]" in mine["jaxprs"]["pcast"]


@SEVERAL_DEVICES
def test_gradients_of_replicated_inputs_sum_over_the_devices_as_jax(runs):
    mine, ref = runs
    assert set(mine["grads"]) == set(ref["grads"])
    # halves and small integers: every product and sum here is exact in float32
    for name, want in ref["grads"].items():
        assert mine["grads"][name] == want, name
    a, w = np.arange(16) / 2, 1.5
    assert mine["grads"]["inside"][1] == 2 * w * a.sum()            # summed over 'x'
    assert mine["grads"]["inside_local_loss"] == [2 * w * a.sum()]
    local = [2 * w * a[4 * i:4 * i + 4].sum() for i in range(4)]   # per device, unchecked
    assert mine["grads"]["unchecked_inside"] == [[v for v in local for _ in range(2)]]
    assert mine["grads"]["outside"] == mine["grads"]["inside"] == mine["grads"]["outside_jit"]


@SEVERAL_DEVICES
def test_library_functions_differentiate_inside_a_body_as_jax(runs):
    mine, ref = runs
    assert set(mine["library_ops"]) == set(ref["library_ops"])
    for name, want in ref["library_ops"].items():
        for got, expected in zip(mine["library_ops"][name], want):
            expected = np.asarray(expected, np.float32)
            # the same XLA on both sides; a few ulps of slack for fusion-order differences
            assert_allclose_ulp(np.asarray(got, np.float32), expected, 16,
                                scale=np.abs(expected).max(), err_msg=name)


@SEVERAL_DEVICES
def test_pcast_values_and_errors_match_jax(runs):
    mine, ref = runs
    assert mine["values"] == ref["values"]
    assert mine["values"]["pcast_then_axis_index"] == [0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0]
    assert set(mine["errors"]) == set(ref["errors"])
    for name, want in ref["errors"].items():
        assert mine["errors"][name][0] == want[0], name
        # a scan's carry named by the body's parameter ('input carry c'), as JAX names it
        assert _sorted_sets(mine["errors"][name][1]) == _sorted_sets(want[1]), name


@SEVERAL_DEVICES
def test_partly_manual_bodies_match_jax(runs):
    mine, ref = runs
    got, want = mine["partial"], ref["partial"]
    assert set(got) == set(want)
    for name in want:
        # (small integers and halves: exact in float32)
        text = _sorted_sets(want[name]) if name == "jaxpr" else want[name]
        assert (_sorted_sets(got[name]) if name == "jaxpr" else got[name]) == text, name
    assert "newly_manual_axes=frozenset({'x'})" in got["jaxpr"]
    x = np.arange(32.0).reshape(4, 2, 4)
    assert got["psum"] == [(2 * x.sum(0)).tolist()]
    assert got["axis_index"] == [(x.reshape(8, 4) + np.repeat(np.arange(4), 2)[:, None])
                                 .tolist()]
    assert got["lowered"] == {"x_split_y_open": True, "manual_computations": 2,
                              "manual_x": True, "manual_y": True}


@SEVERAL_DEVICES
def test_nested_shard_map_matches_jax_and_its_gradient_numpy(runs):
    mine, ref = runs
    got, want = mine["nested"], ref["nested"]
    for key in ("value", "grad_inside", "types", "lowered"):
        assert got[key] == want[key], key
    assert got["types"]["inner_in"] == "float32[2,2]{V:(x,y)}"
    assert got["same_axis_again"][0] == want["same_axis_again"][0] == "ValueError"
    # JAX 0.10.2 fails to lower this gradient; the sum it is the gradient of, in NumPy:
    # f = w * (a summed over the x and y blocks) + (0 + 1 + 2 + 3), loss = sum(f ** 2)
    assert want["grad"] == ["ValueError", "Cannot lower jaxpr with verifier errors:"]
    a, w = np.arange(32.0).reshape(8, 4), 1.5
    blocks = a.reshape(4, 2, 2, 2).sum((0, 2))
    f = w * blocks + 6
    assert got["value"] == f.tolist()
    assert got["grad"] == [np.tile(2 * f * w, (4, 2)).tolist(), float((2 * f * blocks).sum())]


@SEVERAL_DEVICES
def test_a_shard_map_traced_in_a_body_is_traced_again_at_the_top_level(runs):
    # JAX 0.10.2 gives the same nested value, then raises at the top level about the mesh (its
    # reused trace holds the body's): the error a first call raises is compared instead
    value, top, raised = runs[0]["nested"]["reused"]
    assert raised is None
    v = np.arange(4.0)
    assert value == np.concatenate([v * (1 + i) for i in range(4)]).tolist()
    assert top[0] == "ValueError" and "out_specs which require replication" in top[1], top


def test_types_with_and_without_varying_axes():
    plain = ShapedArray((2,), np.float32)
    varying = ShapedArray((2,), np.float32, vma=frozenset({"x"}))
    assert plain.vma == frozenset() and plain.mat.varying == frozenset()
    assert varying != plain and hash(varying) != hash(plain)
    assert varying.update(shape=(3,)).vma == {"x"} and varying.strip_weak_type() == varying
    assert plain == ShapedArray((2,), np.float32) and hash(plain) == hash(plain.update())
    assert repr(varying) == "ShapedArray(float32[2]{V:x})" and varying.str_short() == "float32[2]{V:x}"
