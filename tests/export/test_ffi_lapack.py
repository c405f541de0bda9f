"""jaxlib's LAPACK targets are there from the CPU backend's start, as in JAX 0.10.2: an
ffi_call of `lapack_sgetrf_ffi` in a fresh process compiles and runs before any linear algebra
(tests/data/ffi_lapack_cases.py, recorded by reference/make_ffi_lapack_reference.py), while
importing jxkernel and starting the backend load no SciPy."""

import pytest
from fresh_process import run_json
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("ffi_lapack_reference.json")


def _fresh(name):
    return run_json(f"""
        import json, jxkernel, ffi_lapack_cases
        print(json.dumps(ffi_lapack_cases.case(jxkernel, {name!r})))""")


@pytest.mark.xla_only("XLA compiler")
def test_a_lapack_target_compiles_in_a_fresh_process():
    assert _fresh("compiles") is REFERENCE["compiles"] is True


@pytest.mark.xla_only("XLA compiler")
@pytest.mark.parametrize("name", ["values", "values first"])
def test_a_lapack_target_runs_before_any_linear_algebra(name):
    """JAX's run before any linear algebra segfaults (its routines not loaded): ours loads
    them and gives what JAX gives once they are (exact: 3/4 and -3/2 of small integers)."""
    assert _fresh(name) == REFERENCE["values"]


@pytest.mark.xla_only("XLA compiler")
def test_importing_and_starting_the_backend_loads_no_lapack_routines():
    """(SciPy's Cython LAPACK, 0.2 s, loads on the first lowering of a LAPACK call.)"""
    got = run_json("""
        import json, sys, jxkernel, jxkernel.numpy as jnp
        jnp.ones(3).block_until_ready()
        print(json.dumps("scipy" in sys.modules))""")
    assert got is False
