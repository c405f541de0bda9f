"""Six learner programs around jit's caches (tests/data/cache_cells_cases.py), run cell by
cell in a real jxkernel kernel (`%load_ext jxkernel`) with jax_explain_cache_misses on: every
line JAX 0.10.2 shows of a cell (tests/data/cache_cells_reference.json, recorded by
reference/make_cache_cells_reference.py: its misses, the value displayed, an error) is among
the lines ours shows, in order, read as SAME says. What ours shows besides is the notebook's
own and claims no miss and shows no value JAX does not: a miss's `fix:` and what it compared
("(jit object): ..."), the compile note under a cell that compiled again ("⚙ f compiled
again ..."), the warning for a global changed after the trace ("⚠ times read factor = 2.0
..."), and an error's card (its title, where, why, fix) around JAX's message.

One kernel runs every program, in order, as the recording did; skipped without ipykernel."""
import re

import pytest

pytest.importorskip("ipykernel")
pytest.importorskip("jupyter_client")

from cache_cells_cases import PROGRAMS, SETUP  # noqa: E402
import locations  # noqa: E402  (tests/support)
from real_kernel import TIMEOUT, kernel_cell, running_kernel  # noqa: E402

REFERENCE = locations.recorded("cache_cells_reference.json")["programs"]
FILE = re.compile(r"/tmp/ipykernel_\d+/\d+\.py")
# the notebook names a place in a cell by its prompt, "In[3], line 2, column 11" (1-based),
# where JAX names ipykernel's file of the cell, "/tmp/ipykernel_81/2190.py:2:10" (0-based)
PLACE = re.compile(r"In\[(\d+)\], line (\d+)(?:, column (\d+))?")
# read alike on both sides: jxkernel's Array class is its own module's (Python's own messages
# print it as JAX's, 'jaxlib._jax.ArrayImpl')
SAME = [(re.compile(r"<class '(?:jaxlib\._jax|jxkernel\.xla\.array)\.ArrayImpl'>"),
         "<class 'ArrayImpl'>"),
        # JAX's id of a function never seen ("f id=140..."), which the recording drops: it
        # changes from run to run (tests/views/test_trace_time_misses.py compares ids)
        (re.compile(r" id=\d+(?= defined at |$)"), "")]
# what ours may not show beyond JAX's lines: a miss, or a value
CLAIMS = ("TRACING CACHE MISS", "never seen function", "Array(")


def read_alike(line: str) -> str:
    for pattern, replacement in SAME:
        line = pattern.sub(replacement, line)
    return line


@pytest.fixture(scope="module")
def shown():
    """{program: [the lines a learner sees, per cell]}, files named as the recording names
    them ("<cell N>": the first cell of the same code, counted over every program)."""
    with running_kernel(TIMEOUT) as client:
        setup = kernel_cell(client, "%load_ext jxkernel\n"
                                    "import jxkernel as jax, jxkernel.numpy as jnp\n" + SETUP)
        assert setup.error is None, setup.error
        cells = {}                                    # code -> "<cell N>"
        for _, _, sources in PROGRAMS:
            for code in sources:
                cells.setdefault(code, f"<cell {len(cells) + 1}>")
        ran, out = {}, {}                             # execution count -> "<cell N>"
        for name, _, sources in PROGRAMS:
            out[name] = []
            for code in sources:
                cell = kernel_cell(client, code)
                ran[cell.count] = cells[code]
                out[name].append(cell.shown.splitlines() +
                                 (cell.error.splitlines() if cell.error else []))

        def place(m):
            cell, line, column = ran.get(int(m.group(1)), m.group(0)), m.group(2), m.group(3)
            return f"{cell}:{line}" + (f":{int(column) - 1}" if column else "")
        return {name: [[read_alike(PLACE.sub(place, line)) for line in lines]
                       for lines in cells_shown] for name, cells_shown in out.items()}


@pytest.mark.parametrize("name", [name for name, _, _ in PROGRAMS])
def test_a_learner_sees_what_jax_shows(shown, name):
    for ours, jax_lines in zip(shown[name], REFERENCE[name], strict=True):
        rest, extra = iter(ours), []
        for line in map(read_alike, jax_lines):     # JAX's lines, in order, among ours
            for mine in rest:
                if mine == line:
                    break
                extra.append(mine)
            else:
                raise AssertionError(f"JAX's line {line!r} is not shown (in order): {ours}")
        extra += list(rest)
        assert not [x for x in extra if x.lstrip().startswith(CLAIMS)], (extra, jax_lines)

