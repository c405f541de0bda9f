"""A jitted function exported with symbolic shapes and called: its misses and their lines are
JAX 0.10.2's (tests/data/symbolic_recompile_reference.json), the explainer comparing symbolic
dimensions without deciding an inequality (two exports of f32[a,3] and f32[b,3] raised
InconclusiveDimensionOperation inside it, a RuntimeWarning for the learner, and the compile
was logged without its reason), and each fix true of the two traces it compares."""
import warnings

import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import compile_log, config, export

from logged import logged_messages                      # tests/support
from symbolic_recompile_cases import PROGRAMS           # tests/data
import locations  # tests/support: the repository's folders

JAX = locations.recorded("symbolic_recompile_reference.json")["programs"]

# each program exports with jax.export (StableHLO), which the NumPy backend refuses
pytestmark = pytest.mark.xla_only("XLA text")


def run(name):
    """(the "* at" lines logged for g, its compile events' changes) of program `name`."""
    file = f"<symbolic:{name}>"
    before = config.jax_explain_cache_misses
    config.update("jax_explain_cache_misses", True)
    start = compile_log.last_seq() + 1
    try:
        with warnings.catch_warnings(), logged_messages() as messages:
            warnings.simplefilter("error")         # the explainer's RuntimeWarning fails it
            exec(compile(PROGRAMS[name], file, "exec"),
                 {"jax": jxkernel, "jnp": jnp, "export": export})
    finally:
        config.update("jax_explain_cache_misses", before)
    misses = [m for m in messages if m.startswith("TRACING CACHE MISS") and file in m]
    lines = [line.strip() for m in misses for line in m.splitlines()
             if line.strip().startswith("* at")]
    events = [e for e in compile_log.events_since(start) if file in (e.source or "")]
    return misses, lines, events


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_symbolic_shapes_miss_and_are_told_as_in_jax(name):
    misses, lines, events = run(name)
    assert len(misses) == JAX[name]["traces"] and lines == JAX[name]["lines"], misses
    for change in (c for e in events for c in e.changes):
        assert change.kind == "shape" and "compiles anew" not in change.fix
        old, new = (any(ch.isalpha() for ch in t.split("[")[1]) for t in (change.old, change.new))
        # a symbolic side is never said to be "the concrete shape it is given"
        assert ("concrete shape it is given" in change.fix) == (old and not new), change.fix
        assert ("in two jax.export traces" in change.fix) == (old and new), change.fix


def test_a_closed_over_array_of_symbolic_shape_is_no_number_to_keep():
    """A cond branch closing over an array of a symbolic shape (shape_poly_test's test_cond:
    f called, then exported over (b, h)): what the branch read from outside is told by its
    type, its size asked of no symbol (`b*h` as a number raised InconclusiveDimensionOperation,
    a RuntimeWarning "while explaining a cond branch's retrace")."""
    import numpy as np

    def f(x, y):
        return jxkernel.lax.cond(jnp.sum(x) > 0., lambda _: x + jnp.reshape(y, (1, y.shape[0])),
                                 lambda _: jnp.zeros_like(x), operand=None)
    f(np.ones((2, 3)), np.ones((3,)))
    b, h = export.symbolic_shape("b, h")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exported = export.export(jxkernel.jit(f))(
            jxkernel.ShapeDtypeStruct((b, h), np.float32),
            jxkernel.ShapeDtypeStruct((h,), np.float32))
    assert np.asarray(exported.call(np.ones((2, 3), np.float32), np.ones(3, np.float32))).tolist() \
        == [[2.0] * 3] * 2
