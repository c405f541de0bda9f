"""The programs of a learner's audit of the recompile notes (tests/data/recompile_audit_cases.py)
run as notebook cells, with `%load_ext jxkernel`, against what JAX 0.10.2 logged for each
(tests/data/recompile_audit_reference.json): a recompile JAX explains is never silent under
the cell, the note names the leaves JAX names, no note or %jxcompiles line names jxkernel's
modules, and a program JAX traces once (a fix applied) shows no note.
tests/views/test_recompile_audit.py compares the explanations themselves.
"""
import pytest

pytest.importorskip("IPython")

from recompile_audit_cases import RAISES, SCENARIOS  # noqa: E402  (tests/data)
from ipython_shell import logs_closed, ran_failing, ran_ok, shell_fixture  # noqa: E402, F401
import locations  # noqa: E402  (tests/support)

REFERENCE = locations.jax_answers("recompile_audit_reference.json")["scenarios"]

shell = shell_fixture("import jxkernel as jax\nimport jxkernel.numpy as jnp\nimport numpy as np",
                      store_history=True)


# logs_closed (imported above, a fixture): a log left open redraws its table at every later
# compile of the module's shell
pytestmark = pytest.mark.usefixtures("logs_closed")


def _explained(name) -> list:
    """JAX's misses of scenario `name` that are more than a first trace: a cause named, or
    the hint that the function is being re-defined (a new jit object of the same code)."""
    return [m for m in REFERENCE[name]["misses"]
            if m["kind"] != "never seen function" or m["redefined_hint"]]


# where JAX's hint falls on traces jxkernel's hessian does not make (jacfwd's and jacrev's
# own: tests/views/test_recompile_audit.py, DERIVATIVE_TRACES): its one compile is a first call
FIRST_TRACES_ONLY = {"hessian_of_jit_new_shape_fixed"}


# the options a program sets and sets back as the recording runs it (log_compiles_toggled
# ends with jax_log_compiles on): set back here as they were, for the files after this one
TOGGLED = ("jax_log_compiles", "jax_debug_infs", "jax_enable_x64")


@pytest.mark.parametrize("name", sorted(set(SCENARIOS) - RAISES))
def test_each_program_as_a_cell(shell, name):
    from jxkernel import config
    ran_ok(shell, "%jxcompiles --clear")        # %jxcompiles then lists this cell's alone
    before = {option: getattr(config, option) for option in TOGGLED}
    try:
        ran = ran_ok(shell, SCENARIOS[name][1])
    finally:
        for option, value in before.items():
            config.update(option, value)
    noted = "\n".join(n["text/plain"] for n in ran.notes)
    if _explained(name) and name not in FIRST_TRACES_ONLY:      # (a) never silent
        (note,) = ran.notes
        first = note["text/plain"].splitlines()[0]
        for miss in REFERENCE[name]["misses"]:
            paths = [c["path"] for c in (miss["changes"] if miss["kind"] == "types" else ())]
            # (b) JAX's leaf: in the first line, and where several changed (an Adam state's
            # m and v) the first there ("state['m']: ... (and 1 more)"), each in the lines
            # of what changed
            assert not paths or any(f"{p}: " in first for p in paths), (first, paths)
            for path in paths:
                assert f"{path}: " in first or f"\n  {path}: " in note["text/plain"], \
                    (note["text/plain"], path)
    else:
        assert ran.notes == [], noted
    compiles = ran_ok(shell, "%jxcompiles").stdout
    # (d) no module of ours (%jxcompiles' fold of "jxkernel's own functions" names no module)
    for text in (noted, compiles):
        assert "jxkernel." not in text and "_src." not in text and "<flat index" not in text


def test_an_unhashable_static_set_is_refused_in_jaxs_words(shell):
    ran = ran_failing(shell, SCENARIOS["static_set_unhashable"][1])
    assert str(ran.error) == REFERENCE["static_set_unhashable"]["error_text"]
    assert ran.notes == []
