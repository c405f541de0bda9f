"""The names JAX 0.10.2 has that jxkernel lacked (lax's eq_to/le_to/lt_to, device_put_p, qdwh,
scaled_dot, create_token/after_all, ragged_all_to_all, psend, precv, jax.ad, and the
config context managers array_garbage_collection_guard and remove_size_one_mesh_axis_from_type)
against what JAX answered for the same cases (tests/data/missing_names_cases.py, recorded by
reference/make_missing_names_reference.py with 4 CPU devices)."""
import functools

import missing_names_cases as cases
import numpy as np
import pytest
from backend_tier import devices_named_here
from fresh_process import as_the_suite_compiles, run_json, run_python
from doc_examples import check_docstring_examples
from numerics import assert_allclose_ulp
from recorded_answers import families_sorted

import jxkernel
import locations  # tests/support: the repository's folders


def _reference() -> dict:
    return locations.jax_answers("missing_names_reference.json")


@functools.cache
def _ours() -> dict:
    return cases.run(jxkernel)


def _compare(ours, theirs, what, ulps):
    """Texts, ints, booleans and errors exactly; '*_values' lists of floats within `ulps` at
    the scale of 1 (each list is of values of magnitude about 1 or less, or exact)."""
    assert sorted(ours) == sorted(theirs), what
    for name, want in theirs.items():
        got = ours[name]
        if isinstance(want, dict):
            _compare(got, want, f"{what}.{name}", ulps)
        elif name.endswith("_values"):
            assert_allclose_ulp(np.float32(got), np.float32(want), ulps, scale=1.0,
                                err_msg=f"{what}.{name}")
        else:
            assert families_sorted(got) == families_sorted(want), \
                f"{what}.{name}:\n{got}\n!=\n{want}"


@pytest.mark.parametrize("section", ["comparisons", "device_put", "qdwh", "scaled_dot", "tokens",
                                     "collectives", "ad", "config"])
def test_matches_jax(section):
    # qdwh: LAPACK's QR and Cholesky steps (64 ulps); scaled_dot: bfloat16 products summed in
    # float32 by XLA's CPU dot on both sides, bit for bit (0); the rest exact
    _compare(_ours()[section], devices_named_here(_reference()["run"][section]), section,
             cases.ULPS.get(section, 0))


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("XLA text")      # ragged_all_to_all's custom call, XLA:CPU's refusals
def test_over_a_mesh_matches_jax():
    # psend/precv and ragged_all_to_all under shard_map over 4 simulated CPU devices: JAX's
    # jaxprs and custom call; running them fails as XLA:CPU fails JAX's (same class and words)
    ours = run_json(as_the_suite_compiles("""
        import json, jxkernel, missing_names_cases as cases
        print(json.dumps(cases.run_mesh(jxkernel)))
    """), {"JXKERNEL_CPU_DEVICES": "4"}, timeout=600)
    _compare(ours, _reference()["run_mesh"], "run_mesh", 0)


@pytest.mark.xla_only("XLA compiler")      # jaxlib's runtime sees an Array's buffer collected
def test_garbage_collected_array_is_logged_as_jax_logs_it():
    done = run_python(["-c", cases.gc_guard_program("jxkernel")], timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    logged = [line for line in done.stderr.splitlines() if "garbage collector" in line][:1]
    assert logged == _reference()["gc_guard_stderr"], done.stderr[-3000:]


def test_qdwh_is_a_polar_decomposition():
    # independent of JAX's numbers: u has orthonormal columns, h is Hermitian, u @ h = x
    x = cases._qdwh_inputs()["complex"][0]
    u, h, _, ok = (np.asarray(v) for v in jxkernel.lax.linalg.qdwh(x))
    assert bool(ok)
    assert_allclose_ulp((u.conj().T @ u).astype(np.complex64), np.eye(3, dtype=np.complex64),
                        64, scale=1.0)
    assert_allclose_ulp(h, h.conj().T, 0)
    assert_allclose_ulp((u @ h).astype(np.complex64), x, 64, scale=np.abs(x).max())


@pytest.mark.parametrize("module", ["jxkernel.lax.transfer", "jxkernel.lax.tokens",
                                    "jxkernel.lax.scaled", "jxkernel.lax.gpu_collectives",
                                    "jxkernel.lax.linalg.polar"])
def test_docstring_examples(module):
    check_docstring_examples(module)
