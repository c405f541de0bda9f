"""Set routines (intersect1d, union1d, setdiff1d, setxor1d, isin, unique) and searchsorted
(every method): JAX 0.10.2's recorded results (tests/data/structure_reference.json: padding,
fill values, indices, NaNs), eagerly and under jit where the shape is static; NumPy on
random data; errors; the structure of the staged programs; docstring examples of the
structure modules."""
import functools

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.core.errors import ConcretizationTypeError

from compiled import jit_together
from doc_examples import check_docstring_examples
from structure_check import VALUES, check_value, names

rng = np.random.default_rng(0)
SETOPS = ("intersect1d", "union1d", "setdiff1d", "setxor1d", "isin", "unique")


def _static_shape(name: str) -> bool:
    return "size" in name or name.startswith(("isin", "searchsorted"))


SET_NAMES = [n for prefix in SETOPS for n in names(prefix, VALUES)]
SEARCHSORTED_NAMES = names("searchsorted", VALUES)
# the jit programs of each test's cases compile together (structure_check._jitted)
JITTED = tuple(n for n in SET_NAMES if _static_shape(n)) + tuple(SEARCHSORTED_NAMES)


@pytest.mark.parametrize("name", SET_NAMES)
def test_set_routines_match_jax(name):
    check_value(name, jit=_static_shape(name), together=JITTED)


@pytest.mark.parametrize("name", SEARCHSORTED_NAMES)
def test_searchsorted_matches_jax(name):
    check_value(name, together=JITTED)


@pytest.mark.parametrize("seed", range(3))
def test_against_numpy(seed):
    r = np.random.default_rng(seed)
    a, b = r.integers(0, 12, 15).astype(np.int32), r.integers(5, 20, 9).astype(np.int32)
    np.testing.assert_array_equal(jnp.intersect1d(a, b), np.intersect1d(a, b))
    for got, want in zip(jnp.intersect1d(a, b, return_indices=True),
                         np.intersect1d(a, b, return_indices=True)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(jnp.union1d(a, b), np.union1d(a, b))
    np.testing.assert_array_equal(jnp.setdiff1d(a, b), np.setdiff1d(a, b))
    np.testing.assert_array_equal(jnp.setxor1d(a, b), np.setxor1d(a, b))
    for method in ("compare_all", "binary_search", "sort"):
        np.testing.assert_array_equal(jnp.isin(a, b, method=method), np.isin(a, b))
    # sized, under jit: the first `size` results, then the fill value (both jits compiled as
    # one program: issue 45)
    jitted = jit_together(jax, {
        "setdiff1d": (lambda a, b: jnp.setdiff1d(a, b, size=20, fill_value=-1), [a, b]),
        "intersect1d": (lambda a, b: jnp.intersect1d(a, b, size=3), [a, b])})
    want = np.setdiff1d(a, b)
    got = jitted["setdiff1d"]
    np.testing.assert_array_equal(got, np.r_[want, [-1] * (20 - len(want))])
    want = np.intersect1d(a, b)
    got = jitted["intersect1d"]
    np.testing.assert_array_equal(got[:min(3, len(want))], want[:3])


SEARCHSORTED_METHODS = ["scan", "scan_unrolled", "compare_all", "sort"]
SIDES = ["left", "right"]


def _searchsorted(side, method):
    return lambda a, v: jnp.searchsorted(a, v, side=side, method=method)


@functools.cache
def _searchsorted_cases():
    """Each case's (a, v), drawn from `rng` in the order the tests run (side, then method: as
    a whole-file run drew them one test at a time), and the jit, vmap and one-element calls of
    all cases compiled as one program (issue 45: 24 programs of ~0.1 s CPU each were compiled
    one by one). The eager call stays in each test; jxkernel's searchsorted is one jitted call
    there, as JAX's."""
    inputs, calls = {}, {}
    for side in SIDES:
        for method in SEARCHSORTED_METHODS:
            a = np.sort(rng.integers(0, 20, 33)).astype(np.float32)
            a[-3:] = np.nan                                         # NaNs sort last
            v = np.r_[rng.integers(-2, 23, 40), [np.nan, np.inf, -np.inf]].astype(np.float32)
            inputs[side, method] = a, v
            fn = _searchsorted(side, method)
            calls[side, method, "jit"] = (fn, [a, v])
            calls[side, method, "vmap"] = (jax.vmap(fn, in_axes=(None, 0)),
                                           [a, v.reshape(43, 1)])
            calls[side, method, "a[:1]"] = (fn, [a[:1], v])
    return inputs, jit_together(jax, calls)


@pytest.mark.parametrize("method", SEARCHSORTED_METHODS)
@pytest.mark.parametrize("side", SIDES)
def test_searchsorted_against_numpy(method, side):
    (a, v), jitted = _searchsorted_cases()[0][side, method], _searchsorted_cases()[1]
    want = np.searchsorted(a, v, side=side)
    fn = _searchsorted(side, method)
    np.testing.assert_array_equal(fn(a, v), want)
    np.testing.assert_array_equal(jitted[side, method, "jit"], want)
    batched = jitted[side, method, "vmap"]
    np.testing.assert_array_equal(batched[:, 0], want)
    np.testing.assert_array_equal(jitted[side, method, "a[:1]"],
                                  np.searchsorted(a[:1], v, side=side))


def test_searchsorted_default_is_a_binary_search_by_scan():
    # as JAX: ceil(log2(n + 1)) halvings in one scan, an unrolled one for scan_unrolled
    closed = jax.make_jaxpr(lambda a, v: jnp.searchsorted(a, v))(np.ones(5, np.float32),
                                                                np.ones(3, np.float32))
    text = str(closed)
    assert "scan[" in text and "length=3" in text and "dot_general" not in text
    closed = jax.make_jaxpr(lambda a, v: jnp.searchsorted(a, v, method="compare_all"))(
        np.ones(5, np.float32), np.ones(3, np.float32))
    assert "scan[" not in str(closed)


def test_sized_routines_are_one_call_eagerly():
    # the sized variants are jitted (as JAX jits them): a second call compiles nothing
    from jxkernel.compile_log import subscribe
    a, b = np.arange(6, dtype=np.int32), np.arange(3, 9, dtype=np.int32)
    jnp.setxor1d(a, b, size=4)
    events = []
    unsubscribe = subscribe(events.append)
    try:
        jnp.setxor1d(a + 1, b, size=4)
    finally:
        unsubscribe()
    assert events == []


@pytest.mark.parametrize("fn,exc,msg", [
    (lambda: jax.jit(jnp.intersect1d)(np.ones(3), np.ones(2)), ConcretizationTypeError,
     "jnp.unique"),
    (lambda: jax.jit(jnp.union1d)(np.ones(3), np.ones(2)), ConcretizationTypeError,
     "union1d"),
    (lambda: jax.jit(jnp.setdiff1d)(np.ones(3), np.ones(2)), ConcretizationTypeError,
     "setdiff1d"),
    (lambda: jnp.isin(np.ones(3), np.ones(2), method="bogus"), ValueError,
     "method='bogus' is not implemented; options are 'compare_all', 'binary_search', "
     "'sort', and 'auto'"),
    (lambda: jnp.searchsorted(np.ones(3), 1.0, side="middle"), ValueError,
     "invalid argument side='middle', expected 'left' or 'right'"),
    (lambda: jnp.searchsorted(np.ones(3), 1.0, method="bogus"), ValueError,
     r"invalid argument method='bogus', expected one of \['compare_all', 'scan', "
     r"'scan_unrolled', 'sort'\]"),
    (lambda: jnp.intersect1d([1, 2], np.ones(2)), TypeError,
     "intersect1d requires ndarray or scalar arguments"),
])
def test_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn()


@pytest.mark.parametrize("module", [
    "jxkernel.numpy.setops", "jxkernel.numpy.sorting", "jxkernel.numpy.products",
    "jxkernel.numpy.manipulation", "jxkernel.numpy.pad", "jxkernel.numpy.indexing",
    "jxkernel.numpy.index_tricks", "jxkernel.numpy.reductions", "jxkernel.lax.shapes",
    "jxkernel.lax.slicing", "jxkernel.lax.slicing.slice_pad", "jxkernel.lax.slicing.dynamic_slices",
    "jxkernel.lax.slicing.gather_scatter", "jxkernel.lax.slicing.dimension_numbers"])
def test_docstring_examples(module):
    check_docstring_examples(module, {"make_jaxpr": jax.make_jaxpr, "grad": jax.grad})
