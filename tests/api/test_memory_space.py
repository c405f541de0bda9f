"""jax.memory.Space, as JAX 0.10.2's (its members, values and reprs), and a compute_on2
function naming one (tests/data/memory_space_cases.py, recorded by
reference/make_memory_space_reference.py)."""
import functools

import jxkernel
import memory_space_cases as cases
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("memory_space_reference.json")
# computed on first use, not while pytest collects (every xdist worker collects every file)
_ours = functools.cache(lambda: cases.run(jxkernel))


def test_members_as_jax():
    assert _ours()["members"] == REFERENCE["members"]


def test_compute_on2_naming_a_space_computes_as_jax():
    # x * 2 and its gradient: exact in float32
    assert _ours()["compute_on2_jit"] == REFERENCE["compute_on2_jit"]
    assert _ours()["compute_on2_grad"] == REFERENCE["compute_on2_grad"]
