"""jax_explain_cache_misses under set_mesh (a mesh of Explicit axes), against JAX 0.10.2's
lines for the same programs (tests/data/recompile_mesh_cases.py, recorded by
reference/make_recompile_mesh_reference.py): a type whose sharding changed (another rank of
a split array, split then replicated, another axis split) is written with its mesh's axes by
type, "f32[4@x]({Explicit: ('x',)})", as JAX writes it; a size alone changed, without them;
a call moved into a set_mesh block is JAX's trace context. The fixes shown apply.
One subprocess of 4 CPU devices runs the cases."""
import pytest
from fresh_process import run_against_reference

pytestmark = [pytest.mark.cpu_only("simulated CPU devices"),
              pytest.mark.xla_only("several devices")]

_RUN = r"""
import json
import jxkernel as jax
import recompile_mesh_cases
out = {"lines": recompile_mesh_cases.run(jax, "jxkernel.compile_log")}
# the fixes, applied: a split as before (its snippet, run), one place for every call
from jxkernel import compile_log
jnp, P = jax.numpy, jax.sharding.PartitionSpec
mesh = jax.make_mesh((2,), ("x",))
with jax.set_mesh(mesh):
    f = jax.jit(lambda x: x * 3)
    f(jax.device_put(jnp.ones((4, 3)), P("x")))
    start = compile_log.last_seq() + 1
    x = jax.device_put(jnp.ones((4, 3)), P())
    f(x)
    (event,) = compile_log.events_since(start)
    out["split"] = [[c.kind, c.old, c.new, c.fix, c.snippet] for c in event.changes]
    exec(event.changes[0].snippet, {"jax": jax, "x": x}, scope := {})
    start = compile_log.last_seq() + 1
    f(scope["x"]); f(x)
    out["split_fixed"] = [e.function for e in compile_log.events_since(start)]
g = jax.jit(lambda x: x - 1)
g(jnp.ones(4))
start = compile_log.last_seq() + 1
with jax.set_mesh(mesh):
    g(jnp.ones(4))
(event,) = compile_log.events_since(start)
out["context"] = [[c.kind, c.path, c.fix, c.snippet] for c in event.changes]
with jax.set_mesh(mesh):
    start = compile_log.last_seq() + 1
    g(jnp.ones(4)); g(jnp.ones(4))
    out["context_fixed"] = [e.function for e in compile_log.events_since(start)]
# reduced, then split: the fix remakes the spec with its reduced set (iterating such a spec is
# refused: the explainer raised, its RuntimeWarning an error here)
import warnings
warnings.simplefilter("error", RuntimeWarning)
with jax.set_mesh(mesh):
    h = jax.jit(lambda x: x * 5)
    h(jax.device_put(jnp.ones(4), P(reduced={"x"})))
    start = compile_log.last_seq() + 1
    x = jax.device_put(jnp.ones(4), P("x"))
    h(x)
    (event,) = compile_log.events_since(start)
    out["reduced"] = [[c.kind, c.snippet] for c in event.changes]
    exec(event.changes[0].snippet, {"jax": jax, "x": x}, scope := {})
    start = compile_log.last_seq() + 1
    h(scope["x"])
    out["reduced_fixed"] = [e.function for e in compile_log.events_since(start)]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def runs():
    return run_against_reference(_RUN, "recompile_mesh_reference.json", devices=4)


def test_a_changed_type_under_a_mesh_is_written_as_jax_writes_it(runs):
    mine, jax = runs
    assert set(mine["lines"]) == set(jax)
    for case, lines in mine["lines"].items():
        assert lines == jax[case], case


def test_an_array_split_another_way_is_told_so_and_its_fix_applies(runs):
    """The same shape split, then replicated: a type of its own (JAX: different input types),
    not a weak type (whose fix, jnp.asarray, cannot make it the earlier type); the fix, run,
    makes the call the earlier one's: no compile."""
    mine, _ = runs
    ((kind, old, new, fix, snippet),) = mine["split"]
    assert (kind, old, new) == ("shape", "f32[4@x,3]", "f32[4,3]")
    assert "split" in fix and "weak" not in fix, fix
    assert snippet.startswith("x = jax.device_put(x, jax.sharding.PartitionSpec('x', None))")
    assert mine["split_fixed"] == [], mine["split_fixed"]


def test_a_call_moved_into_set_mesh_is_told_as_the_context_and_its_fix_applies(runs):
    """Outside set_mesh, then inside: JAX's trace context (abstract_mesh_context_manager), not
    'weak_type False -> False' with a fix for weak types; every call in the block: no compile
    more."""
    mine, _ = runs
    ((kind, path, fix, snippet),) = mine["context"]
    assert (kind, path) == ("config", "abstract_mesh_context_manager")
    assert "ran under a mesh jax.set_mesh set (called, or as a `with` block)" in fix and \
        "weak" not in fix, fix
    assert snippet.startswith("with jax.set_mesh(mesh):")
    assert mine["context_fixed"] == [], mine["context_fixed"]


def test_a_reduced_array_then_a_split_one_is_told_with_the_reduced_set(runs):
    """Reduced over x, then split over x: the fix's PartitionSpec keeps the reduced set (the
    explainer iterated the spec, which a spec with such a set refuses: it warned of a bug and
    logged no reason); the fix, run, makes the call the earlier one's."""
    mine, _ = runs
    ((kind, snippet),) = mine["reduced"]
    assert kind == "shape"
    assert snippet.startswith(
        "x = jax.device_put(x, jax.sharding.PartitionSpec(None, reduced={'x'}))"), snippet
    assert mine["reduced_fixed"] == [], mine["reduced_fixed"]
