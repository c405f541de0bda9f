"""Gaps closed at stop 69 against JAX 0.10.2's recorded answers (tests/data/
partitioned_gaps_cases.py, recorded by reference/make_partitioned_gaps_reference.py): what
jits of one function share (traces and programs per step, on one device and over a mesh, with
inspect_array_sharding's callbacks), vmap's and pmap's axes-mismatch words; on 8 devices a jit
partitioned over a mesh serialized and loaded again, unsafe_am_i_under_a_jit in shard_map
bodies under vmap and grad, custom_partitioning's closed-over constants and callable rules;
inspect_array_sharding on the NumPy backend. At stop 70: tokens under set_mesh of a mesh
with Explicit axes, donation over a mesh, a keep_unused jit's call after its compile,
custom_partitioning's and compile-time callbacks' errors, loaded Compiled's pytree words.
Every case is bits, shapes, counts, texts or error words, compared exactly."""
import functools
import json

import partitioned_gaps_cases as cases
import pytest
from fresh_process import as_the_suite_compiles, run_json

import jxkernel
import locations  # tests/support: the repository's folders


def _reference() -> dict:
    return locations.jax_answers("partitioned_gaps_reference.json")


@functools.cache
def _ours() -> dict:
    return json.loads(json.dumps(cases.run(jxkernel)))


@functools.cache
def _ours_on_a_mesh() -> dict:
    return run_json(as_the_suite_compiles("""
        import json, jxkernel, partitioned_gaps_cases as cases
        print(json.dumps(cases.run_mesh(jxkernel)))
    """), {"JXKERNEL_CPU_DEVICES": "8"}, timeout=600)


def _compare(want: dict, got: dict, group: str) -> None:
    assert sorted(got) == sorted(want)
    for case in want:
        assert got[case] == want[case], f"{group}.{case}:\n{got[case]}\n!=\n{want[case]}"


@pytest.mark.xla_only("XLA compiler")
@pytest.mark.parametrize("group", sorted(_reference()["run"]))
def test_matches_jax(group):
    _compare(_reference()["run"][group], _ours()[group], group)


# compared by tests of their own: JAX 0.10.2 fails inside its own code (token_loops), or
# raises an AssertionError without words (custom_partitioning_errors)
_DELIBERATE = {"token_loops", "custom_partitioning_errors"}


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("several devices")
@pytest.mark.parametrize("group", sorted(set(_reference()["run_mesh"]) - _DELIBERATE))
def test_over_a_mesh_matches_jax(group):
    _compare(_reference()["run_mesh"][group], _ours_on_a_mesh()[group], group)


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("several devices")
def test_a_token_changed_in_a_loop_over_a_mesh_is_a_token_where_jax_fails_inside():
    """JAX 0.10.2's scan, fori_loop and while_loop of a token carry that the body changes
    fail with an AttributeError of JAX's internals, under set_mesh as on one device; jxkernel
    runs them (as it does on one device: tests/jax_compat/test_lax_numpy_gaps.py)."""
    want, got = _reference()["run_mesh"]["token_loops"], _ours_on_a_mesh()["token_loops"]
    assert sorted(got) == sorted(want)
    for case, raised in want.items():
        assert raised[0] == "AttributeError" and "'AbstractToken' object" in raised[1], case
        assert got[case] == "no error", case


def test_inspect_array_sharding_on_the_numpy_backend_as_jax_on_one_device():
    """The NumPy backend's programs tell inspect_array_sharding's callback what XLA's on one
    device do (replicated, once, when lowered), against JAX's recorded answers (its device
    is named CpuDevice there)."""
    ours = run_json("""
        import json, jxkernel, added_names_cases as cases
        print(json.dumps(cases.inspect_sharding_cases(jxkernel)))
    """, {"JAX_PLATFORMS": "numpy"})
    want = locations.jax_answers("added_names_reference.json")["run"]["inspect_sharding"]
    ours = json.loads(json.dumps(ours).replace("NumpyDevice(", "CpuDevice("))
    assert ours == want


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("several devices")
def test_custom_partitioning_errors_are_of_jaxs_classes():
    """custom_partitioning's function closing over an array or a tracer raises JAX's
    AssertionError (JAX's has no words: jxkernel's say what to do); failures inside XLA's
    compile (a per-device function's closed-over tracer, inspect_array_sharding's callback)
    are jaxlib's JaxRuntimeError with its first line, as JAX's; scalars stay closed over."""
    want = _reference()["run_mesh"]["custom_partitioning_errors"]
    got = _ours_on_a_mesh()["custom_partitioning_errors"]
    assert sorted(got) == sorted(want)
    for case in want:
        if want[case] == ["AssertionError", ""]:
            assert got[case][0] == "AssertionError" and "closes over" in got[case][1], case
        else:
            assert got[case] == want[case], case
