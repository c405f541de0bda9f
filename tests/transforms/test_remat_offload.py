"""Checkpoint policies answering Recompute, Saveable or Offloadable(src, dst) instead of a
bool, against what JAX 0.10.2 answered (tests/data/remat_offload_cases.py, recorded by
reference/make_remat_offload_reference.py). jxkernel saves an Offloadable value where it is
(its jaxprs carry no memory kinds), so the gradients are JAX's."""
import functools
import re

import numpy as np
import pytest

import jxkernel
import remat_offload_cases as cases
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("remat_offload_reference.json")
# computed on first use, not while pytest collects (every xdist worker collects every file)
ours = functools.cache(lambda: cases.run(jxkernel))
# the class's module differs: JAX's is jax._src.interpreters.partial_eval
_CLASS = re.compile(r"<class '[\w.]+\.Offloadable'>")


@pytest.mark.parametrize("name", sorted(k for k in REFERENCE if k.endswith("/grad")))
def test_gradient_as_jax(name):
    # sin, cos and a matrix product in float32: within 8 ulp of JAX's (rtol 1e-6)
    np.testing.assert_allclose(ours()[name], REFERENCE[name], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(k for k in REFERENCE if k.startswith("error/")))
def test_error_as_jax(name):
    assert _CLASS.sub("<class Offloadable>", ours()[name]) == \
        _CLASS.sub("<class Offloadable>", REFERENCE[name])


def test_offloadable_repr():
    assert ours()["offloadable_repr"] == REFERENCE["offloadable_repr"]
