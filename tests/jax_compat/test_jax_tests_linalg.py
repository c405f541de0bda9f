"""The gaps JAX 0.10.2's own linalg_test.py, lax_scipy_test.py and lax_scipy_sparse_test.py
found in jxkernel (conformance/jax_tests runs them), against JAX's recorded answers
(reference/make_jax_tests_linalg_reference.py, cases in tests/data/jax_tests_linalg_cases.py):
jax._src.lax.linalg._lu_python, reductions with `initial`/`where` under jax_debug_infs,
the batched derivatives of det, qr, svd, cholesky, eigh and lu under rank promotion 'raise',
eigenvalues' gradient where they repeat, slogdet's second derivative of a complex
1x1 or 2x2 matrix, float16 (traced; refused by LAPACK as it is lowered;
triangular_solve by XLA's own op), jtu's dot_general checks, and jax.scipy.linalg's
pascal errors in JAX's words.

Bounds, in ulps at each result's largest |value| (tests/support/recorded_modes.py): LAPACK for
the factorizations and what is built on them (_lu_python is n elimination steps of XLA
elementwise ops, each entry updated up to n times; det, slogdet and eigh are LAPACK's);
REDUCTION for logsumexp and the masked sum and max; float16's triangular_solve is XLA's
expander on both sides, within LAPACK's bound too. Pivots, permutations, dtypes, weak types
and the dot checks' outcomes and words are exact.
"""

import numpy as np
import pytest
from numerics import LAPACK, REDUCTION
from recorded_modes import cases_test

import jxkernel as jax
import locations  # tests/support: the repository's folders
from jxkernel._jax._src import test_util as jtu
from jxkernel._jax._src.lax import linalg as private_linalg
from jax_tests_linalg_cases import (cases, dot_checks, errors, half_precision,  # tests/data
                                    run)

RECORD = locations.jax_answers("jax_tests_linalg_reference.json")


# eigh's eigenvectors, and so their tangents, are accurate to eps * |A| / (the smallest gap
# between eigenvalues), not eps * |A| (Davis-Kahan): the jvp case's second matrix has
# eigenvalues 4.01, 4.27, 7.76, 10.22, a gap of 0.26 against |A| = 10.2, 39 times LAPACK's
# bound. Seen: OpenBLAS's AVX-512 kernels (SkylakeX, on an Intel Sapphire Rapids) gave an
# eigenvector tangent 83 ulps from JAX's recording, its Haswell kernels on the same machine
# (OPENBLAS_CORETYPE=Haswell) within 64.
EIGH_GAP_CONDITION = 40


def ulps(name):
    if name.endswith("debug_infs"):
        return REDUCTION
    return LAPACK * EIGH_GAP_CONDITION if name == "eigh_jvp_batched_rank_raise" else LAPACK


test_every_case_matches_jax = cases_test(cases, (jax, private_linalg),
                                         "jax_tests_linalg_reference.npz", ulps)


def test_the_private_module_is_lax_linalg_itself():
    assert private_linalg is jax.lax.linalg


@pytest.mark.parametrize("name", sorted(dot_checks(jax, jtu)))
def test_dot_checks_answer_as_jaxs(name):
    assert run(jax, jtu)["dot_checks"][name] == RECORD["dot_checks"][name]


@pytest.mark.parametrize("name", sorted(errors(jax)))
def test_errors_are_jaxs(name):
    assert run(jax, jtu)["errors"][name] == RECORD["errors"][name]


# LAPACK's refusal of float16; on a CUDA GPU cuSOLVER's kernel refuses it when the program
# runs (a JaxRuntimeError, "Unsupported dtype"), as JAX's lowering there emits it too
@pytest.mark.cpu_only("CPU backend")
@pytest.mark.parametrize("name", sorted(half_precision(jax)))
def test_float16_traces_and_lapack_refuses_it_as_jax(name):
    assert run(jax, jtu)["half_precision"][name] == RECORD["half_precision"][name]


def test_lu_python_factors_singular_matrices_as_lu():
    # a zero column below the diagonal: no pivot to divide by, the column stays as it is
    a = np.array([[0., 1., 2.], [0., 3., 4.], [0., 5., 7.]], np.float32)
    got, want = private_linalg._lu_python(a), private_linalg.lu(a)
    for g, w in zip(got[1:], want[1:]):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    np.testing.assert_allclose(np.asarray(got[0]), np.asarray(want[0]), rtol=1e-6)


def test_lu_python_of_an_empty_matrix():
    lu, pivots, perm = private_linalg._lu_python(np.zeros((0, 3), np.float32))
    assert lu.shape == (0, 3) and pivots.shape == (0,) and perm.shape == (0,)
