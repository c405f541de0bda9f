"""The recursion room jaxlib's pytree flatten keeps when it raises inside a tree, counted and
given back (jxkernel/tree_util/recursion_room.py); JAX 0.10.2's flatten keeps the same
(tests/data/flatten_room_reference.json, reference/make_flatten_room_reference.py)."""
import sys

import pytest

import jxkernel as jax
from jxkernel.tree_util import recursion_room
from jxkernel.tree_util.recursion_room import give_back, room, spare

import flatten_room_cases                   # tests/data
import locations                            # tests/support

pytestmark = pytest.mark.skipif(room() is None, reason="no recursion counter on this Python")


def test_room_is_what_a_recursion_of_python_calls_can_use_on_311():
    """On 3.11 Python frames take from the counter jaxlib's flatten takes from: the room is the
    frames a recursion can still push, less two (room()'s own frame, and its ctypes call). 3.12
    and 3.13 count C levels apart, where a plain recursion measures nothing a flatten keeps."""
    if sys.version_info >= (3, 12):
        pytest.skip("3.12 and 3.13 keep Python frames on a counter of their own")
    depth = [0]

    def dive():
        depth[0] += 1
        dive()
    expected = room()
    try:
        dive()
    except RecursionError:
        pass
    assert depth[0] == expected + 2


def test_flattens_keep_what_jaxs_keep_and_giving_back_restores_it_exactly():
    """Three flattens raising 10 levels down keep 30 levels, under JAX as here; giving them back
    leaves the room as it was."""
    before = room()
    kept = flatten_room_cases.kept_by_failing_flattens(jax)
    assert before - room() == kept
    give_back(kept)
    assert room() == before
    jax_kept = locations.jax_answers("flatten_room_reference.json")["kept_by_3_flattens_10_deep"]
    assert kept == jax_kept == 30


def test_spare_room_is_the_same_at_any_python_depth():
    """spare() adds back, on 3.11, the frames on the stack: what a deeper caller asks gives the
    same number, and it falls by exactly what a failed flatten kept."""
    def deeper(n):
        return deeper(n - 1) if n else spare()
    at_top = spare()
    assert deeper(50) == at_top
    kept = flatten_room_cases.kept_by_failing_flattens(jax, depth=7, times=1)
    try:
        assert at_top - deeper(50) == kept == 7
    finally:
        give_back(kept)
    assert spare() == at_top


def test_every_supported_python_has_a_counter_to_read():
    """room() reads the counter through ctypes on CPython 3.11 to 3.13, the versions jxkernel
    supports; only 3.14 (no counter) and PyPy or the browser (no ctypes view) have none."""
    assert recursion_room._CALLS is not None
    assert (3, 11) <= sys.version_info[:2] < (3, 14)
