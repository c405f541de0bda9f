"""The recursion room jaxlib's pytree flatten keeps when it raises inside a tree, counted and
given back (jxkernel/tree_util/recursion_room.py); JAX 0.10.2's flatten keeps the same
(tests/data/flatten_room_reference.json, reference/make_flatten_room_reference.py)."""
import json
import os
import sys
import threading

import pytest

import jxkernel as jax
from jxkernel.core.native import native
from jxkernel.tree_util import recursion_room
from jxkernel.tree_util.recursion_room import give_back, room, spare

import flatten_room_cases                   # tests/data
import locations                            # tests/support
from fresh_process import run_python        # tests/support

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


def test_a_script_flattening_a_dict_that_holds_itself_runs_on_where_jaxs_dies():
    """A plain script, no notebook layer: the dict that holds itself flattened three times
    (each error caught), then a recursion 900 deep and a print. jxkernel's tree_leaves gives
    back, in its `except`, what jaxlib's flatten kept (recursion_room.after_error); under JAX
    0.10.2 the same script dies of RecursionError, printing nothing (recorded)."""
    assert locations.jax_answers("flatten_room_reference.json")["script"] == {
        "ran": False, "printed": ""}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([locations.ROOT,
                                                        os.environ.get("PYTHONPATH", "")])}
    assert flatten_room_cases.in_a_script(jax, env) == {"ran": True, "printed": "900 9"}


def test_jxkernels_flatten_gives_back_what_it_kept_past_the_slack_where_it_raised():
    """100 levels kept by jaxlib's flatten called directly stay kept (as JAX's); through
    tree_leaves, tree_map, tree_flatten_with_path and jit they are given back before the error
    goes on, to within the slack of the reference taken at import, and counted for the
    notebook's note (GIVEN)."""
    tree = flatten_room_cases.unsortable_keys(100)
    recursion_room.take_given()
    before = room()
    with pytest.raises(ValueError, match="Comparator raised exception"):
        jax.tree_util.default_registry.flatten(tree)
    assert before - room() == 100
    give_back(100)
    calls = [jax.tree_util.tree_leaves, lambda t: jax.tree.map(lambda x: x, t),
             jax.tree_util.tree_flatten_with_path, jax.jit(lambda t: t)]
    for call in calls:
        with pytest.raises(ValueError, match="Comparator raised exception"):
            call(tree)
        assert before - room() <= recursion_room.SLACK
        assert recursion_room.take_given() >= 100 - recursion_room.SLACK
    give_back(max(before - room(), 0))


def test_a_flatten_that_raised_in_another_thread_leaves_the_main_threads_counter_alone():
    """The loan goes to the main thread's counter (the GIL held, it is not in use) and comes
    straight back; nothing is given back off the main thread."""
    main_before, out = recursion_room.LEVELS.value, []

    def worker():
        try:
            jax.tree_util.tree_leaves(flatten_room_cases.unsortable_keys(50))
        except ValueError as e:
            out.append(e)
    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert len(out) == 1 and recursion_room.LEVELS.value == main_before
    assert recursion_room.take_given() == 0


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.11's spare() asks setrecursionlimit")
def test_spare_on_a_counter_given_back_past_the_depth_leaves_the_limit_alone():
    """Where the counter stands below a depth of 1 (given back more than was lost, as during
    after_error's loan at a shallow stack), `sys.setrecursionlimit(1)` is accepted: spare()
    puts the limit straight back and reads the depth from the counter."""
    limit, at_top = sys.getrecursionlimit(), spare()
    recursion_room.LEVELS.value += 5000
    try:
        shifted = spare()
    finally:
        recursion_room.LEVELS.value -= 5000
    assert sys.getrecursionlimit() == limit
    assert shifted - at_top == 5000 and spare() == at_top


JIT_HIT_THEN_SELF_HOLDING = """
import jxkernel as jax
f = jax.jit(lambda p: p['w'] * 2)
good = {'w': jax.numpy.ones(2), 'self': {'w': jax.numpy.ones(2)}}
for _ in range(3):
    f(good)
d = {'w': jax.numpy.ones(2)}
d['self'] = d
for _ in range(3):
    try:
        f(d)
    except (ValueError, RecursionError):
        pass
def dive(n):
    return 0 if n == 0 else 1 + dive(n - 1)
print(dive(900), len(repr(list(range(3)))))
"""


@pytest.mark.skipif(native is None, reason="jit's compiled fast path is off here")
def test_a_jit_whose_compiled_hit_flattens_a_dict_that_holds_itself_runs_on():
    """jit's compiled fast path (core/_fastpath.c) flattens a container argument itself, in C,
    and on a miss calls the Python path, which a flatten that kept all the room left no level
    to call: it lends itself room and calls after_error there too (set_room_hook)."""
    done = run_python(["-c", JIT_HIT_THEN_SELF_HOLDING], timeout=300)
    assert (done.returncode, done.stdout.strip()) == (0, "900 9"), done.stderr[-2000:]


SMALL_LOSSES_IN_A_SCRIPT = """
import json
import jxkernel as jax
from jxkernel.tree_util import recursion_room
import flatten_room_cases
# how much shallower (in C levels) this script's top stands than the import's reference did
offset = recursion_room._spare_by_levels() - recursion_room.REFERENCE
start, kept = recursion_room.spare(), []
for _ in range(20):
    try:
        jax.tree_util.tree_leaves(flatten_room_cases.unsortable_keys(39))
    except ValueError:
        pass
    kept.append(start - recursion_room.spare())
def dive(n):
    return 0 if n == 0 else 1 + dive(n - 1)
print(json.dumps({"offset": offset, "kept": kept, "dive": dive(900)}))
"""


def test_a_script_keeps_at_most_the_slack_and_the_imports_depth_of_small_losses():
    """What after_error leaves kept, in a plain script (module docstring, "What stays kept"):
    a loss within SLACK of the import's reference stays, so twenty flattens raising 39 levels
    down (780 levels under JAX) keep at most SLACK plus the C levels the import stood deeper
    than the script's top (`offset`; 9 on 3.11), never more, and a giving back leaves that
    offset kept (3.11: 39, 9, 48, 9, 48, ...)."""
    done = run_python(["-c", SMALL_LOSSES_IN_A_SCRIPT], timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    offset, kept = seen["offset"], seen["kept"]
    assert offset >= 0 and seen["dive"] == 900
    assert max(kept) <= recursion_room.SLACK + offset
    assert kept[0] == (39 if 39 - offset <= recursion_room.SLACK else offset)
    assert offset in kept, kept             # given back past the slack: the offset stays kept


def test_a_flatten_that_raised_in_another_thread_keeps_its_room_until_the_thread_ends():
    """Off the main thread nothing is given back (module docstring, "What stays kept"): the
    thread's counter keeps what jaxlib's flatten kept, as under JAX, and a thread started
    after it has its full room."""
    seen = {}

    def worker(name, depth):
        before = room()
        if depth:
            try:
                jax.tree_util.tree_leaves(flatten_room_cases.unsortable_keys(depth))
            except ValueError:
                pass
        seen[name] = before - room()
    for name, depth in (("raised", 50), ("next", 0)):
        thread = threading.Thread(target=worker, args=(name, depth))
        thread.start()
        thread.join()
    assert seen == {"raised": 50, "next": 0}
