"""Symbolic dimensions print as JAX 0.10.2 prints them: a sum's terms largest first and a
term's factors smallest first by JAX's syntactic order (_syntactic_cmp, _size), in
expressions built by arithmetic, parsed, computed by slicing/reshape/conv/pad under
jax.export, and named in error messages (tests/data/symbolic_print_reference.json, recorded
by reference/make_symbolic_print_reference.py from tests/data/symbolic_print_cases.py)."""

import pytest

import jxkernel
import locations  # tests/support: the repository's folders

from symbolic_print_cases import run       # tests/data, on pytest's pythonpath

JAX = locations.jax_answers("symbolic_print_reference.json")

pytestmark = pytest.mark.xla_only("XLA text")    # jax.export: refused on the NumPy backend


@pytest.fixture(scope="module")
def ours():
    return run(jxkernel)


@pytest.mark.parametrize("case", sorted(set(JAX)))
def test_symbolic_dimension_prints_as_jax(ours, case):
    assert ours[case] == JAX[case]


def test_printing_is_cached_and_leaves_equality_alone():
    a, b = jxkernel.export.symbolic_shape("a, b")
    e = 2 * a - b
    assert str(e) is str(e) and str(e) == "- b + 2*a"
    assert e == -b + a * 2 and hash(e) == hash(-b + a * 2)
