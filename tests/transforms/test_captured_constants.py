"""jax_captured_constants_warn_bytes: lowering a jitted function that closes over more bytes
of arrays than it says warns as JAX 0.10.2 does (tests/data/captured_constants_cases.py,
recorded by reference/make_captured_constants_reference.py)."""
import warnings

import captured_constants_cases as cases
import locations  # tests/support: the repository's folders
import numpy as np
import pytest

import jxkernel
from doc_examples import check_docstring_examples
from jxkernel._jax._src import config


def test_the_warnings_are_jaxs():
    want = locations.recorded("captured_constants_reference.json")["cases"]
    assert cases.run(jxkernel, config) == want


def test_the_report_names_where_each_constant_is_used():
    y = jxkernel.numpy.ones((64, 64), dtype=np.float32)

    def func(x):
        return x @ y
    with config.captured_constants_warn_bytes(10), \
            config.captured_constants_report_frames(1), \
            pytest.warns(UserWarning) as caught:
        jxkernel.jit(func)(jxkernel.numpy.zeros((64,), np.float32))
    text = str(caught[0].message)
    assert "Largest 1 allocation(s):\n  Constant " in text and "float32[64,64], 16.38KB" in text
    assert f"{__file__}:" in text and "(test_the_report_names_where_each_constant_is_used." in text


def test_a_bad_threshold_is_refused():
    with pytest.raises(TypeError, match="jax_captured_constants_warn_bytes takes an int"):
        jxkernel.config.update("jax_captured_constants_warn_bytes", "big")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jxkernel.jit(lambda x: x + 1)(1.0)      # (the default: nothing near 2 GB)


def test_the_examples():
    check_docstring_examples("jxkernel.transforms.jit.captured_constants")
