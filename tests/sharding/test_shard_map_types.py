"""The types of values in a shard_map body and the collectives that change them, against
JAX 0.10.2's answers for the same cases (tests/data/shard_map_types_cases.py, recorded by
reference/make_shard_map_types_reference.py on 8 CPU devices): `all_gather(...,
to='invarying')`'s type, values and gradient, ... Every value is exact (small
integer-valued floats, text)."""
import json
import os

import pytest

from fresh_process import cases_code, run_json

import locations  # tests/support: the repository's folders

pytestmark = pytest.mark.cpu_only("simulated CPU devices")

_REFERENCE = os.path.join(locations.DATA, "shard_map_types_reference.json")


@pytest.fixture(scope="module")
def runs():
    with open(_REFERENCE) as f:
        ref = json.load(f)["cases"]
    return run_json(cases_code("shard_map_types_cases"), {"JXKERNEL_CPU_DEVICES": "8"}), ref


@pytest.mark.parametrize("case", sorted(json.load(open(_REFERENCE))["cases"]))
def test_case_matches_jax(runs, case):
    ours, ref = runs
    if isinstance(ref[case], list) and len(ref[case]) == 2 and ref[case][1] == "" \
            and ref[case][0] != "ok":
        # JAX raises this error class with no message; jxkernel's says what to change
        assert ours[case][0] == ref[case][0] and ours[case][1]
    else:
        assert ours[case] == ref[case]


@pytest.mark.parametrize("where", ["in", "out"])
def test_unreduced_specs_of_a_full_manual_shard_map_are_refused_with_a_rewrite(where):
    # a body's values carry no unreduced/reduced sets in jxkernel, and dropping them ran
    # programs JAX refuses (each device's summand given to the body as the value); the
    # rewrites the refusal advises run as JAX runs them ("unreduced spec rewrite: ..." cases)
    import jxkernel as jax
    import jxkernel.numpy as jnp
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    specs = {"in_specs": P(None, unreduced={"x"}), "out_specs": P(None)} if where == "in" \
        else {"in_specs": P(None), "out_specs": P(None, unreduced={"x"})}
    advice = r"jax.reshard\(x, P\(...\)\)" if where == "in" else r"jax.lax.psum\(y, \('x',\)\)"
    with jax.set_mesh(mesh), pytest.raises(NotImplementedError, match=(
            rf"^{where}_specs P\(None, unreduced=\{{'x'\}}\): jxkernel's shard_map does not "
            rf"type a body's values unreduced or reduced yet\. .*{advice}")):
        jax.shard_map(lambda t: t, **specs)(jnp.ones(2))
