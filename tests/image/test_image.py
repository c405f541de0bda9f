"""jxkernel.image against JAX's recorded results (tests/data/image_cases.py, recorded by
reference/make_image_reference.py: every method up and down, with and without antialiasing,
scale_and_translate, gradients, vmap, x64), plus its errors and its lazy loading."""

import numpy as np
import pytest
from doc_examples import check_docstring_examples
from fresh_process import run_code
from image_cases import cases, operands, ulps
from recorded_modes import cases_test

import jxkernel as jax
import jxkernel.image as image
import jxkernel.numpy as jnp


test_every_case_matches_jax = cases_test(cases, (jax, jnp, image), "image_reference.npz", ulps)


def test_methods_names_and_bad_arguments():
    img = operands()["img"]
    assert image.ResizeMethod.from_string("trilinear") is image.ResizeMethod.LINEAR
    assert image.ResizeMethod.from_string("triangle") is image.ResizeMethod.LINEAR
    assert image.ResizeMethod.from_string("tricubic") is image.ResizeMethod.CUBIC
    assert image.ResizeMethod.from_string("bicubic-pytorch") is image.ResizeMethod.CUBIC_PYTORCH
    assert [m.value for m in image.ResizeMethod] == list(range(7))
    with pytest.raises(ValueError, match='Unknown resize method "bilinearr"'):
        image.resize(img, (3, 3), "bilinearr")
    with pytest.raises(TypeError, match="method must be a string or a jax.image.ResizeMethod"):
        image.resize(img, (3, 3), 1)
    with pytest.raises(ValueError, match=r"^shape must have length equal to the number of "
                       r"dimensions of x;  \(3, 3, 1\) vs \(5, 6\)$"):      # JAX 0.10.2's
        image.resize(img, (3, 3, 1), "linear")
    with pytest.raises(TypeError, match="resize requires ndarray or scalar arguments"):
        image.resize([[1.0, 2.0]], (2, 4), "linear")
    with pytest.raises(ValueError, match="Nearest neighbor resampling is not currently"):
        image.scale_and_translate(img, (3, 3), (0, 1), jnp.ones(2), jnp.zeros(2), "nearest")
    with pytest.raises(ValueError, match=r"spatial_dims=\(0, 1\), scale of shape \(1,\)"):
        image.scale_and_translate(img, (3, 3), (0, 1), jnp.ones(1), jnp.zeros(2), "linear")


def test_resize_hits_the_jit_cache_and_upsamples_exactly():
    """A second call with the same shapes and options compiles nothing (the docstrings'
    examples use these shapes too); linear upsampling by two gives the quarter points
    (exact in binary)."""
    ramp = jnp.array([0., 4.])
    first, shifted, events = image.resize(ramp, (4,), "linear"), ramp - 8, []
    unsubscribe = jax.subscribe_compile_events(events.append)
    try:
        again = image.resize(shifted, (4,), "linear")
    finally:
        unsubscribe()
    assert events == []
    np.testing.assert_array_equal(first, [0., 1., 3., 4.])
    np.testing.assert_array_equal(again, [-8., -7., -5., -4.])


def test_docstring_examples():
    check_docstring_examples("jxkernel.image.scale")
    check_docstring_examples("jxkernel.image")


def test_image_and_gaussian_kde_load_on_first_use():
    """`import jxkernel` loads neither jxkernel.image nor scipy.stats' kde module (one
    subprocess checks both: tests/scipy/test_gaussian_kde.py relies on it); `jxkernel.image` and
    `from jxkernel.scipy.stats import gaussian_kde` load them."""
    code = ("import sys, jxkernel; assert 'jxkernel.image' not in sys.modules; "
            "assert 'jxkernel.scipy.stats.kde' not in sys.modules; "
            "m = jxkernel.image; assert m.__name__ == 'jxkernel.image'; "
            "assert sorted(m.__all__) == ['ResizeMethod', 'resize', 'scale_and_translate']; "
            "from jxkernel.scipy.stats import gaussian_kde; "
            "assert gaussian_kde.__module__ == 'jxkernel.scipy.stats.kde'; "
            "assert 'gaussian_kde' in dir(jxkernel.scipy.stats)")
    run_code(code)
    assert jax.image is image
