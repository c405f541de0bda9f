"""Primitives bound as JAX's own test harnesses bind them (test_harnesses.py,
conformance/jax_tests): `conj_p` with no `input_dtype` or with an unknown `_input_dtype`
(JAX's conj rules take any params), `svd_p` with no `algorithm` (JAX's rules default it to
None). Checked under JAX 0.10.2: each bind gives what the public function gives."""
import numpy as np

import jxkernel
from jxkernel import lax

X = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)


def test_conj_binds_without_input_dtype():
    for params in ({}, {"_input_dtype": np.float32}):
        eager = lax.conj_p.bind(X, **params)
        jitted = jxkernel.jit(lambda x, p=params: lax.conj_p.bind(x, **p))(X)
        for out in (eager, jitted):
            assert out.dtype == np.complex64
            np.testing.assert_array_equal(np.asarray(out), X.astype(np.complex64))


def test_svd_binds_without_algorithm():
    s, = lax.linalg.svd_p.bind(X, full_matrices=False, compute_uv=False, subset_by_index=None)
    # the same LAPACK call as the public function's default: the same bits
    np.testing.assert_array_equal(np.asarray(s),
                                  np.asarray(lax.linalg.svd(X, full_matrices=False,
                                                            compute_uv=False)))
