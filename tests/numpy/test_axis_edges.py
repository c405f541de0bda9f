"""split's axes, repeat of a 0-d array and compress's size at their edges, against JAX 0.10.2's
recorded answers (tests/data/axis_edges_cases.py; reference/make_axis_edges_reference.py).

Compared: each case's class, and its result's shapes and values or its message. Where JAX's
message is IndexError's bare "tuple index out of range" (it indexed the shape), jxkernel says
which axis of which rank, and only the class is compared.
"""
import locations  # tests/support: the repository's folders
from axis_edges_cases import run

import jxkernel

JAX = locations.jax_answers("axis_edges_reference.json")
# JAX's words from its indexing the shape: ours name the axis and the rank instead
JAX_BARE = "tuple index out of range"


def _differences(prefixes):
    ours = run(jxkernel)
    wrong = {}
    for name, want in JAX.items():
        if name == "jax_version" or not name.startswith(prefixes):
            continue
        got = ours[name]
        same = got[0] == want[0] if want[1] == JAX_BARE else got == want
        if not same:
            wrong[name] = (got, want)
    return wrong


def test_split_out_of_bounds_is_jaxs_index_error():
    # split and array_split raised ValueError, dsplit of fewer than 3 dimensions too
    assert not _differences(("split_", "array_split_", "hsplit_", "vsplit_", "dsplit_"))


def test_repeat_of_a_0d_array_fills_along_any_axis_as_jax():
    # the axis was checked against one dimension: axis=1 raised, vmap's too
    assert not _differences(("repeat_",))


def test_compress_refuses_a_size_past_the_axis_as_jax():
    # a size past the axis padded with fill_value where JAX raises
    assert not _differences(("extract_", "compress_"))


def test_compress_without_size_under_jit_raises_as_jax():
    # a constant condition under jit was compressed by its value where JAX's traced test of
    # the entries past the axis cannot be a bool (with size it runs; under vmap alone too)
    assert not _differences(("jit_compress_", "jit_extract_", "vmap_compress_"))


def test_sort_complex_of_a_0d_array_has_no_axis_to_sort_as_jax():
    # a 0-d array was returned as complex
    assert not _differences(("sort_complex_",))


def test_grad_of_lax_cumulative_reductions_takes_a_negative_axis_as_jax():
    # the prefix scan of their jvp took axis=-1 as it was and raised in a concatenate; out of
    # bounds it raised IndexError where JAX's associative_scan raises ValueError
    assert not _differences(("grad_",))


def test_a_cumulative_reductions_axis_is_checked_before_its_dtype_as_jax():
    # a bool operand along an axis out of bounds was told its dtype, JAX tells the axis
    assert not _differences(("bool_",))


def test_eyes_offset_must_be_a_scalar_integer_as_jax():
    # k=1.5 raised operator.index's TypeError
    assert not _differences(("eye_",))


def test_every_case_was_recorded():
    assert set(run(jxkernel)) == set(JAX) - {"jax_version"}
