"""The notes a learner sees running JAX 0.10.2's own tutorials cell by cell, where one was
wrong or missing (docs/seeing_inside.md, "JAX's tutorials, cell by cell"): the cells verbatim
(tests/data/tutorial_notes_cases.py), the notes' claims held to what JAX computes for calls
made after them (tutorial_notes_reference.json, reference/make_tutorial_notes_reference.py).
One in-process shell for the module."""
import numpy as np
import pytest

pytest.importorskip("IPython")

from IPython.utils.capture import capture_output  # noqa: E402

import locations                                   # noqa: E402  tests/support
from ipython_shell import shell_fixture            # noqa: E402
from tutorial_notes_cases import CASES, CHECKS     # noqa: E402  tests/data

JAX = locations.recorded("tutorial_notes_reference.json")

shell = shell_fixture("import jxkernel as jax\nimport jxkernel.numpy as jnp\n"
                      "from jxkernel import jit", store_history=True)


def _cell(shell, source):
    with capture_output() as cap:
        result = shell.run_cell(source, store_history=True)
    assert result.error_in_exec is None, result.error_in_exec
    return cap


def test_a_global_read_by_an_earlier_trace_is_noted_with_the_value_its_program_keeps(shell):
    """Common Gotchas' impure_uses_globals: traced with g = 0.0 (a scalar), g = 10.0, then
    traced again for an array (reading 10.0). The scalars' program keeps 0.0 ("Second call:
    5.0", JAX's too); no note said so, since only the latest trace's reads were kept."""
    recorded = JAX["cases"]["impure_uses_globals"]
    cap = _cell(shell, CASES["impure_uses_globals"])
    assert cap.stdout.splitlines() == recorded["printed"]
    notes = [o.data["text/plain"] for o in cap.outputs if o.data["text/plain"].startswith("⚠")]
    (note,) = notes
    first = note.splitlines()[0]
    assert first.startswith("⚠ impure_uses_globals read g = 0.0 when traced (at In["), first
    assert first.endswith("; g is 10.0 now, and the program compiled at that trace keeps 0.0")
    # the claim, as JAX computes it: a scalar's call adds 0.0, an array's 10.0
    scalar, array = recorded["checks"]
    assert scalar == 1.0 + 0.0 and array == [1.0 + 10.0]
    assert [np.asarray(shell.ev(call)).tolist() for call in CHECKS["impure_uses_globals"]] == \
        recorded["checks"]
