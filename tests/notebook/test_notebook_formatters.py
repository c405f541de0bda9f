"""notebook/formatters.py: an Array's HTML in IPython, with a one-line summary of a float
array's values."""
import pytest

import jxkernel.numpy as jnp
from jxkernel.notebook.formatters import array_html


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float8_e4m3fn", "float8_e4m3fnuz",
                                   "float4_e2m1fn", "complex64"])
def test_every_float_array_has_its_summary(dtype):
    """bfloat16 and most float8s are NumPy kind 'V': they had no summary line."""
    x = jnp.array([1.0, 3.0, 2.0], getattr(jnp, dtype))
    assert "min 1 · max 3 · mean 2<" in array_html(x), array_html(x)


@pytest.mark.parametrize("dtype", ["int32", "int4", "bool"])
def test_integer_and_bool_arrays_have_none(dtype):
    x = jnp.array([1, 0, 1], getattr(jnp, dtype))
    assert "mean" not in array_html(x)
