"""Gaps closed at stop 79 against JAX 0.10.2's recorded answers (tests/data/
multi_device_gaps_cases.py, recorded by reference/make_multi_device_gaps_reference.py on 8
simulated CPU devices): where results land (lax.full_like of a committed array, ...), and what
shard_map and pmap give. Every case is devices, specs, shapes, values or error words, compared
exactly."""
import functools

import pytest
from fresh_process import as_the_suite_compiles, run_json

import locations  # tests/support: the repository's folders


def _reference() -> dict:
    return locations.jax_answers("multi_device_gaps_reference.json")["cases"]


@functools.cache
def _ours() -> dict:
    return run_json(as_the_suite_compiles("""
        import json, jxkernel, multi_device_gaps_cases as cases
        print(json.dumps(cases.run(jxkernel)))
    """), {"JXKERNEL_CPU_DEVICES": "8"}, timeout=600)


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("several devices")
@pytest.mark.parametrize("case", sorted(_reference()))
def test_matches_jax(case):
    assert _ours()[case] == _reference()[case]
