"""jxkernel.scipy's fft (DCT), ndimage (map_coordinates), integrate (trapezoid) and cluster (vq)
against JAX's recorded results (tests/data/scipy_extras_cases.py, recorded by
reference/make_scipy_extras_reference.py), against scipy itself, and their derivatives
against finite differences."""
import functools
import subprocess
import sys

import numpy as np
import pytest
from doc_examples import check_docstring_examples
from numerics import REDUCTION, assert_allclose_ulp
from recorded_modes import assert_cases_match, load
from scipy_extras_cases import cases, ulps

import jxkernel as jax
import jxkernel.numpy as jnp
import jxkernel.scipy
from jxkernel.scipy import fft, integrate, ndimage
from jxkernel.scipy.cluster import vq
from jxkernel.test_util import check_grads


@functools.cache
def results(mode: str) -> dict:
    with jax.config.override("jax_enable_x64", mode == "x64"):
        return cases(jax, jxkernel.scipy, mode == "x64")


@pytest.mark.parametrize("mode", ["x32", "x64"])
def test_every_case_matches_jax(mode):
    assert_cases_match(mode, results(mode), load("scipy_extras_reference.npz"), ulps)


def test_dcts_match_scipy_and_invert():
    sfft = pytest.importorskip("scipy.fft")
    x = np.random.RandomState(0).randn(6, 5)
    # float64 against SciPy's own FFT, which sums in another order
    close = lambda got, want, terms: assert_allclose_ulp(      # noqa: E731
        np.asarray(got), want, REDUCTION, scale=np.abs(x).max() * terms)
    with jax.enable_x64():
        for norm in (None, "ortho"):
            for axis in (0, 1):
                ours = jax.jit(lambda v: (fft.dct(v, axis=axis, norm=norm),
                                          fft.idct(v, axis=axis, norm=norm)))(x)
                close(ours[0], sfft.dct(x, axis=axis, norm=norm), 12)
                close(ours[1], sfft.idct(x, axis=axis, norm=norm), 1)
            close(jax.jit(lambda v: fft.idctn(fft.dctn(v, norm=norm), norm=norm))(x), x, 1)
        close(jax.jit(lambda v: fft.dctn(v, s=(8, 3)))(x), sfft.dctn(x, s=(8, 3)), 4 * 8 * 3)


def test_map_coordinates_matches_scipy_where_their_modes_agree():
    nd = pytest.importorskip("scipy.ndimage")
    image = np.arange(20.0).reshape(4, 5) ** 1.5
    coords = [np.array([0.2, 1.5, 2.9, -0.7, 3.4]), np.array([4.6, 0.1, 2.5, 1.0, -1.3])]
    # scipy's 'grid-wrap' is JAX's 'wrap'; scipy's 'constant' also interpolates towards cval
    # half a cell beyond the edge, where JAX reads cval for any corner outside: compared inside
    for mode, theirs in (("nearest", "nearest"), ("wrap", "grid-wrap"), ("mirror", "mirror"),
                         ("reflect", "reflect")):
        for order in (0, 1):
            got = np.asarray(ndimage.map_coordinates(image, coords, order, mode))
            want = nd.map_coordinates(image, np.array(coords), order=order, mode=theirs)
            assert_allclose_ulp(got, want.astype(np.float32), 4, scale=np.abs(want).max(),
                                err_msg=f"{mode} {order}")
    inside = [np.array([0.2, 1.5, 2.9]), np.array([3.6, 0.1, 2.5])]
    got = ndimage.map_coordinates(image, inside, 1, "constant", cval=7.0)
    want = nd.map_coordinates(image, np.array(inside), order=1, cval=7.0)
    assert_allclose_ulp(np.asarray(got), want.astype(np.float32), 4, scale=np.abs(image).max())


def test_derivatives_by_finite_differences():
    with jax.enable_x64():
        x = np.random.RandomState(1).randn(4, 6)
        # the transforms are linear: first order says it all; jitted, so that each check
        # compiles a few programs rather than every operation
        for f in (fft.dct, fft.idct, functools.partial(fft.dctn, norm="ortho"),
                  functools.partial(fft.idctn, axes=(1,))):
            check_grads(jax.jit(f), (x,), order=1, modes=("fwd", "rev"))
        image = np.random.RandomState(2).randn(4, 5)
        # coordinates away from the grid lines, where order 1 is differentiable
        rows, cols = np.array([0.3, 1.6, 2.2, -0.4]), np.array([3.7, 0.2, 4.6, 2.45])
        for mode in ("constant", "mirror"):       # (cval masked; indices folded back)
            check_grads(jax.jit(lambda im, r, c: ndimage.map_coordinates(im, [r, c], 1, mode)),
                        (image, rows, cols), order=1, modes=("fwd", "rev"))
        check_grads(jax.jit(lambda y, at: integrate.trapezoid(y, x=at)),
                    (x, np.cumsum(np.ones(6))), order=2, modes=("fwd", "rev"))
        obs, book = x[:, :3], x[1:3, 3:]
        check_grads(jax.jit(lambda o: vq.vq(o, book)[1]), (obs,), order=1, modes=("fwd", "rev"))


def test_bad_arguments_raise_jaxs_errors():
    x = jnp.ones((3, 4))
    with pytest.raises(NotImplementedError, match="Only DCT type 2 is implemented."):
        fft.dct(x, type=3)
    with pytest.raises(ValueError, match=r"jax.scipy.fft.idct: norm='forward' is not impl"):
        fft.idct(x, norm="forward")
    with pytest.raises(ValueError, match=r"s must have at most x.ndim \(2\) elements, got 3"):
        fft.dctn(x, s=(1, 2, 3))
    with pytest.raises(ValueError, match=r"repeated axis: \(1, 1\)"):
        fft.idctn(x, axes=(1, -1))
    with pytest.raises(ValueError, match="coordinates must be a sequence of length input.ndim, "
                                         "but 1 != 2"):
        ndimage.map_coordinates(x, [jnp.zeros(2)], 1)
    with pytest.raises(NotImplementedError, match="does not yet support mode grid-wrap"):
        ndimage.map_coordinates(x, [jnp.zeros(2)] * 2, 1, "grid-wrap")
    with pytest.raises(NotImplementedError, match="currently requires order<=1"):
        ndimage.map_coordinates(x, [jnp.zeros(2)] * 2, 3)
    with pytest.raises(ValueError, match="Observation and code_book should have the same rank"):
        vq.vq(x, jnp.ones(4))
    with pytest.raises(ValueError, match="ndim different than 1 or 2 are not supported"):
        vq.vq(jnp.ones((2, 2, 2)), jnp.ones((2, 2, 2)))


def test_docstring_examples():
    for module in ("jxkernel.scipy.fft", "jxkernel.scipy.ndimage", "jxkernel.scipy.integrate",
                   "jxkernel.scipy.cluster.vq"):
        check_docstring_examples(module, {"jnp": jnp, "jax": jax})


def test_the_new_submodules_load_on_first_use():
    code = ("import sys, jxkernel.scipy as s\n"
            "names = ('fft', 'ndimage', 'integrate', 'cluster')\n"
            "before = [f'jxkernel.scipy.{n}' in sys.modules for n in names]\n"
            "after = [getattr(s, n).__name__ for n in names]\n"
            "print(before, after, all(n in dir(s) for n in names))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ("[False, False, False, False] ['jxkernel.scipy.fft', "
                                  "'jxkernel.scipy.ndimage', 'jxkernel.scipy.integrate', "
                                  "'jxkernel.scipy.cluster'] True")
