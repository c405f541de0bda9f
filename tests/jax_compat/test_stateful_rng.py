"""jax.experimental.random (StatefulPRNG over a Ref counter) as JAX 0.10.2 runs it: the same
cases (tests/data/stateful_rng_cases.py) compared with JAX's recorded answers
(tests/data/stateful_rng_reference.json, reference/make_stateful_rng_reference.py): keys and
integers exactly, uniform draws bit for bit (threefry bits through the same float recipe),
normal draws within 4 ulp (erf_inv's polynomial: eagerly within 2, and 3 where a jit fuses
the draw with the function's own arithmetic into a program other than JAX's)."""
import json

import numpy as np
import pytest
from stateful_rng_cases import run  # tests/data, on pytest's pythonpath

import jxkernel
from jxkernel.random import stateful_rng
import locations  # tests/support

REFERENCE = locations.jax_answers("stateful_rng_reference.json")

RESULTS = {}
NORMAL_ULPS = 4


def results():
    if not RESULTS:
        RESULTS.update(run(jxkernel, stateful_rng))
    return RESULTS


def _ulps(a_bits, b_bits) -> int:
    # distance in representable float32 steps: the bit patterns as signed magnitudes, made
    # monotonic (negative floats count down from zero), both sides finite
    def ordered(bits):
        u = np.array(bits, np.int64)
        return np.where(u >= 2**31, 2**31 - u, u)
    return int(np.max(np.abs(ordered(a_bits) - ordered(b_bits)), initial=0))


def _compare(name, got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), name
        for g, w in zip(got, want):
            _compare(name, g, w)
    elif isinstance(want, dict) and "bits" in want:
        assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), name
        bound = NORMAL_ULPS if name.startswith("normal") or name == "jit_passed" else 0
        assert _ulps(got["bits"], want["bits"]) <= bound, (name, got["bits"], want["bits"])
    else:
        assert got == want, name


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_as_jax(name):
    _compare(name, results()[name], REFERENCE[name])


def test_every_case_recorded():
    assert sorted(results()) == sorted(REFERENCE)


def test_a_draw_under_jit_moves_the_counter_it_closes_over():
    rng = stateful_rng.stateful_rng(0)
    draw = jxkernel.jit(lambda: rng.integers(1000, size=4))
    first, second = draw(), draw()
    assert int(rng._counter[...]) == 2
    assert first.tolist() != second.tolist()


def test_the_generator_is_a_pytree_of_its_key_and_counter():
    rng = stateful_rng.stateful_rng(5)
    leaves, tree = jxkernel.tree_util.tree_flatten(rng)
    assert len(leaves) == 2 and leaves[1] is rng._counter
    again = jxkernel.tree_util.tree_unflatten(tree, leaves)
    assert type(again) is stateful_rng.StatefulPRNG and again._counter is rng._counter


def test_docstring_examples():
    from doc_examples import check_docstring_examples       # tests/support
    check_docstring_examples("jxkernel.random.stateful_rng", {"jax": jxkernel})
