"""A pytree flatten that raises inside a tree, under JAX 0.10.2: the recursion room it keeps,
and what a learner's IPython shell does after a dict that holds itself
(reference/make_flatten_room_reference.py records JAX's answers; tests/notebook/
test_room_keeper.py holds jxkernel to the first and answers the second: its kernel keeps
working). The room is counted by jxkernel/tree_util/recursion_room.py, loaded from its file:
it needs only ctypes, so JAX's virtualenv runs it without jxkernel installed."""
import importlib.util
import os
import subprocess
import sys

ROOM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jxkernel",
                    "tree_util", "recursion_room.py")

SELF_HOLDING = "d = {'b': 1}\nd['self'] = d\njax.tree.leaves(d)"
NEXT_CELL = "total = sum([1, 2])"
# a plain script: the dict that holds itself flattened 3 times, each error caught, then a
# recursion 900 deep and a print (calls a C function; on 3.12 and 3.13 the C counter is the one
# the flattens take from, a plain recursion's frames count apart)
SCRIPT = """
import {module} as jax
d = {{'b': 1}}
d['self'] = d
for _ in range(3):
    try:
        jax.tree_util.tree_leaves(d)
    except (ValueError, RecursionError):
        pass
def dive(n):
    return 0 if n == 0 else 1 + dive(n - 1)
print(dive(900), len(repr(list(range(3)))))
"""


def recursion_room():
    spec = importlib.util.spec_from_file_location("recursion_room", ROOM)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unsortable_keys(depth: int):
    """A dict whose keys cannot be sorted, `depth` lists down: its flatten raises there."""
    tree = {1: 2, "a": 3}
    for _ in range(depth):
        tree = [tree]
    return tree


def kept_by_failing_flattens(jax, depth: int = 10, times: int = 3) -> int:
    """The room `times` flattens that raise `depth` levels down keep, together."""
    room = recursion_room().room
    tree, before = unsortable_keys(depth), room()
    for _ in range(times):
        try:
            jax.tree.leaves(tree)
        except ValueError:
            pass
    return before - room()


def in_a_shell(shell, jax) -> dict:
    """The self-holding dict's cell, then an ordinary one, in `shell`: whether each failed,
    and the room the first kept (0 where the shell gave it back)."""
    spare = recursion_room().spare
    shell.user_ns.update(jax=jax)
    before = spare()
    first = shell.run_cell(SELF_HOLDING)
    kept = before - spare()
    second = shell.run_cell(NEXT_CELL)
    return {"self_holding_failed": not first.success, "kept_more_than_900": kept > 900,
            "next_cell_ran": second.success}


def in_a_script(jax, env=None) -> dict:
    """SCRIPT run by this interpreter with `jax` (its module's name): whether it ran to its end
    and what it printed (900 9 where it did)."""
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(module=jax.__name__)],
                          capture_output=True, text=True, timeout=300, env=env)
    return {"ran": done.returncode == 0, "printed": done.stdout.strip()}


def run(jax) -> dict:
    from IPython.core.interactiveshell import InteractiveShell
    return {"kept_by_3_flattens_10_deep": kept_by_failing_flattens(jax),
            "script": in_a_script(jax),
            "shell": in_a_shell(InteractiveShell.instance(), jax)}
