"""Array.format, as JAX 0.10.2's on the CPU (tests/data/array_format_cases.py, recorded by
reference/make_array_format_reference.py): the layout read from the array's buffer, with its
sharding; on the NumPy backend the row-major layout XLA's CPU gives; make_array_from_callback
given a Format."""
import functools
import json

import pytest

import jxkernel
import array_format_cases as cases
import locations  # tests/support

REFERENCE = locations.jax_answers("array_format_reference.json")
# computed on first use, not while pytest collects (every xdist worker collects every file)
_ours = functools.cache(lambda: cases.run(jxkernel))


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_format_as_jax(name):
    # (the NumPy backend's device prints as NumpyDevice where XLA's CPU prints CpuDevice)
    ours = _ours()[name].replace("NumpyDevice", "CpuDevice") if isinstance(_ours()[name], str) \
        else _ours()[name]
    assert ours == REFERENCE[name]


def test_a_key_array_has_no_format_as_jax():
    # JAX 0.10.2: AttributeError: 'PRNGKeyArray' object has no attribute 'format'
    with pytest.raises(AttributeError, match="format"):
        jxkernel.random.key(0).format
