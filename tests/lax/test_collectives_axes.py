"""Collectives over several mesh axes at once (psum, pmean, pmax, pmin, axis_index, axis_size,
all_gather, psum_scatter, ppermute, all_to_all over ('x', 'y') and ('y', 'x')) in shard_map
on 8 devices, meshes 2x4 and 4x2: on XLA's CPU devices and on the NumPy backend's (where
shard_map's body is batched over each mesh axis in turn, lax/parallel/'s rules for several
axes), each against JAX 0.10.2's recorded answers (tests/data/collectives_axes_cases.py,
reference/make_collectives_axes_reference.py). Values are small integers in float32 (a mean
of eight of them a binary fraction): exact on every CPU; gradients through them (sin's) are
compared in ulps."""
import json

import numpy as np
import pytest
from fresh_process import NO_JAXLIB, as_the_suite_compiles, run_json
from numerics import ELEMENTWISE, assert_allclose_ulp
import locations  # tests/support

REFERENCE = locations.jax_answers("collectives_axes_reference.json")

_RUN = """
import json
import jxkernel as jax
import collectives_axes_cases
print(json.dumps(collectives_axes_cases.run(jax)))
"""

BACKENDS = [
    # without jaxlib, as in the browser: eight NumPy devices
    pytest.param("numpy", id="numpy"),
    pytest.param("cpu", id="xla", marks=pytest.mark.xla_only("several devices")),
]


@pytest.fixture(scope="module", params=BACKENDS)
def answers(request):
    code = NO_JAXLIB + _RUN if request.param == "numpy" else as_the_suite_compiles(_RUN)
    return run_json(code, {"JAX_PLATFORMS": request.param, "JXKERNEL_CPU_DEVICES": "8"},
                    timeout=600)


def test_every_case_ran(answers):
    assert sorted(answers) == sorted(REFERENCE)


@pytest.mark.parametrize("case", sorted(k for k in REFERENCE if "/grad_" not in k))
def test_case_as_jax(answers, case):
    assert answers[case] == REFERENCE[case]


@pytest.mark.parametrize("case", sorted(k for k in REFERENCE if "/grad_" in k))
def test_gradient_as_jax(answers, case):
    # sin's cotangents summed over a few members: an elementwise function's bound, at the
    # gradient's scale (a sum can cancel to near zero)
    want = np.float32(REFERENCE[case])
    assert_allclose_ulp(np.float32(answers[case]), want, ELEMENTWISE,
                        scale=np.abs(want).max(), err_msg=case)
