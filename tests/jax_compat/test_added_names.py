"""JAX 0.10.2's public names added at stop 68 (jax.experimental.serialize_executable,
jax.debug.inspect_array_sharding, jax.experimental.layout.with_layout_constraint,
jax.extend.core's tracing names) against what JAX answered for the same cases
(tests/data/added_names_cases.py, recorded by reference/make_added_names_reference.py): every
case is bits, shapes, dtypes, trees or text, compared exactly."""
import functools
import json

import added_names_cases as cases
import pytest
from doc_examples import check_docstring_examples
from fresh_process import as_the_suite_compiles, run_json

import jxkernel
from jxkernel.core.dtypes import MISSING_NARROW_NAMES  # (int1: ml_dtypes 0.6 on)
import locations  # tests/support: the repository's folders


def _reference() -> dict:
    return locations.jax_answers("added_names_reference.json")


@functools.cache
def _ours() -> dict:
    return json.loads(json.dumps(cases.run(jxkernel)))


@pytest.mark.xla_only("XLA compiler")
@pytest.mark.parametrize("group", sorted(_reference()["run"]))
def test_matches_jax(group):
    if group == "extend_core" and MISSING_NARROW_NAMES:
        pytest.skip("ml_dtypes before 0.6 has no int1, uint1 (JAX's array_types name them)")
    want, got = _reference()["run"][group], _ours()[group]
    assert sorted(got) == sorted(want)
    for case in want:
        assert got[case] == want[case], f"{group}.{case}:\n{got[case]}\n!=\n{want[case]}"


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("several devices")
def test_over_a_mesh_matches_jax():
    ours = run_json(as_the_suite_compiles("""
        import json, jxkernel, added_names_cases as cases
        print(json.dumps(cases.run_mesh(jxkernel)))
    """), {"JXKERNEL_CPU_DEVICES": "8"}, timeout=600)
    want = _reference()["run_mesh"]
    assert sorted(ours) == sorted(want)
    for group in want:
        for case in want[group]:
            assert ours[group][case] == want[group][case], f"{group}.{case}"


@pytest.mark.xla_only("XLA compiler")
@pytest.mark.parametrize("module", ["jxkernel.transforms.jit.serialize_executable",
                                    "jxkernel.xla.serialized", "jxkernel.lax.inspect_sharding",
                                    "jxkernel.lax.layout_constraint",
                                    "jxkernel._jax.experimental.layout", "jxkernel.xla.layout",
                                    "jxkernel.transforms.call_primitive",
                                    "jxkernel._jax.extend.core", "jxkernel.core.axis_env",
                                    "jxkernel.api.custom_partitioning_sharding_rule",
                                    "jxkernel.api.custom_partitioning"])
def test_docstring_examples(module):
    check_docstring_examples(module)
