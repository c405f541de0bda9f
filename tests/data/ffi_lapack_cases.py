"""`ffi_call("lapack_sgetrf_ffi", ...)` in a fresh process: JAX 0.10.2 has jaxlib's LAPACK
targets registered from the start (it compiles before any linear algebra ran). Shared by
reference/make_ffi_lapack_reference.py (real JAX, each case in a child process) and
tests/export/test_ffi_lapack.py (jxkernel, the same).

`case(jax, name)` returns JSON data. "compiles": lowering and compiling the call (nothing run:
JAX's run of it segfaults, the routines not loaded yet); "values": the call's results, run
after lu (JAX's run then gives them); "values first": the call run first (jxkernel's; JAX's
crashes there, so it is compared with JAX's "values").
"""
import importlib

import numpy as np

A = np.array([[4.0, 3.0], [6.0, 3.0]], np.float32)


def _call(jax):
    jnp = jax.numpy
    return jax.ffi.ffi_call("lapack_sgetrf_ffi", (
        jax.ShapeDtypeStruct((2, 2), jnp.float32), jax.ShapeDtypeStruct((2,), jnp.int32),
        jax.ShapeDtypeStruct((), jnp.int32)))


def case(jax, name: str):
    call = _call(jax)
    if name == "compiles":
        jax.jit(call).lower(A).compile()
        return True
    if name == "values":
        importlib.import_module(f"{jax.__name__}.scipy.linalg").lu_factor(A)
    return [np.asarray(out).tolist() for out in call(A)]
