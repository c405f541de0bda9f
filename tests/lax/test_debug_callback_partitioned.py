"""jax.debug.callback(..., partitioned=True) in a jit over 2 devices calls its function once per
device with that device's shard, as JAX 0.10.2 (tests/data/debug_callback_partitioned_cases.py,
recorded by reference/make_debug_callback_partitioned_reference.py); without partitioned, in a
jit on one device and eagerly, once with the whole value."""
import pytest
from fresh_process import run_json

import locations  # tests/support: the repository's folders

_ON_DEVICES = r"""
import json
import jxkernel as jax
import debug_callback_partitioned_cases
print(json.dumps(debug_callback_partitioned_cases.run(jax)))
"""


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("several devices")
def test_a_partitioned_debug_callback_is_called_per_shard_as_jax():
    recorded = locations.jax_answers("debug_callback_partitioned_reference.json")["cases"]
    assert run_json(_ON_DEVICES, {"JXKERNEL_CPU_DEVICES": "2"}, timeout=300) == recorded
