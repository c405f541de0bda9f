"""jax._src.blocked_sampler (jxkernel/_jax/_src/blocked_sampler.py): the values and tile keys
JAX 0.10.2 gives (tests/data/blocked_sampler_cases.py, recorded by
reference/make_blocked_sampler_reference.py), bit for bit, whatever the block size."""
import json

import blocked_sampler_cases
import locations

import jxkernel as jax


def test_blocked_sampling_as_jax():
    recorded = locations.jax_answers("blocked_sampler_reference.json")
    got = blocked_sampler_cases.run(jax)
    assert got == recorded
    assert got["uniform, 2x4 blocks"] == got["uniform, 4x8 blocks"]
