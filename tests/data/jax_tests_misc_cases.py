"""What JAX's smaller runtime and tooling test files (linalg_sharding_test.py and the others of
conformance/jax_tests added with it) found, run the same way by real JAX
(reference/make_jax_tests_misc_reference.py writes jax_tests_misc_reference.json) and by
jxkernel (tests/jax_compat/test_jax_tests_misc.py): facts each as plain JSON values.
"""
import re

import numpy as np

# batch-partitioning attributes of linear algebra's LAPACK calls: (name, function, shapes)
LINALG = [
    ("eigh", lambda lax: lax.linalg.eigh, [(8, 6, 6)]),
    ("eigh_unbatched", lambda lax: lax.linalg.eigh, [(6, 6)]),
    ("eigh_two_batch_dims", lambda lax: lax.linalg.eigh, [(2, 3, 6, 6)]),
    ("lu", lambda lax: lax.linalg.lu, [(8, 10, 6)]),
    ("qr", lambda lax: lax.linalg.qr, [(2, 3, 6, 5)]),
    ("triangular_solve", lambda lax: lax.linalg.triangular_solve, [(8, 6, 6), (8, 4, 6)]),
    ("tridiagonal_solve", lambda lax: lax.linalg.tridiagonal_solve,
     [(8, 6), (8, 6), (8, 6), (8, 6, 4)]),
    ("svd", lambda lax: lax.linalg.svd, [(4, 10, 6)]),
]

_ATTRIBUTE = re.compile(r'@(\w+)\(.*?(mhlo\.frontend_attributes = \{[^}]*\}).*?'
                        r'(sdy\.sharding_rule = #sdy\.op_sharding_rule<.*?custom>)')


def linalg_partitioning(jax) -> dict:
    """Per case, each LAPACK call of its lowered text: target, num_batch_dims and Shardy rule."""
    found = {}
    for name, fun, shapes in LINALG:
        args = [np.ones(s, np.float32) for s in shapes]
        text = jax.jit(fun(jax.lax)).lower(*args).as_text()
        found[name] = [list(m.groups()) for line in text.splitlines()
                       if "lapack_" in line and (m := _ATTRIBUTE.search(line))]
    return found


def run(jax) -> dict:
    return {"linalg_partitioning": linalg_partitioning(jax)}
