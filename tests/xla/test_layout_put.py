"""Layouts given to device_put and jit, as JAX 0.10.2 answers them on the CPU
(tests/data/layout_cases.py, recorded by reference/make_layout_reference.py): Layout.AUTO
and a layout of the wrong rank refused by device_put in JAX's words, a Format without a
layout taken as its sharding, a bare Layout refused by jit, jit given the row-major layout
(every array's) and one of the wrong rank. Other layouts (which switch the process's compiled
fast paths off: xla/relayout.py) are tested in a child process, tests/xla/test_layout_jit.py."""
import functools
import json

import numpy as np
import pytest

import jxkernel
import layout_cases as cases
from jxkernel.experimental.layout import Format, Layout
import locations  # tests/support

REFERENCE = locations.jax_answers("layout_reference.json")
# computed on first use, not while pytest collects (every xdist worker collects every file)
_ours = functools.cache(lambda: cases.run(jxkernel))


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_layout_as_jax(name):
    # (the NumPy backend's device prints as NumpyDevice where XLA's CPU prints CpuDevice)
    assert json.loads(json.dumps(_ours()[name]).replace("NumpyDevice", "CpuDevice")) == \
        REFERENCE[name]


def test_jit_takes_a_format_without_a_layout_as_its_sharding():
    one = jxkernel.sharding.SingleDeviceSharding(jxkernel.devices()[0])
    out = jxkernel.jit(lambda v: v * 2, in_shardings=Format(None, one),
                       out_shardings=Format())(np.arange(6.0).reshape(2, 3))
    assert out.sharding == one
    np.testing.assert_array_equal(out, np.arange(6.0).reshape(2, 3) * 2)
