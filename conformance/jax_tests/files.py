"""Which of JAX's test files the harness runs, where it reads them, and why the others are not
run. The files' code is read from the mirror at run time and never committed.

    >>> source_path("lax_numpy_operators_test.py")
    'tests/lax_numpy_operators_test.py'
"""
import os
import subprocess

TAG = "jax-v0.10.2"
MIRROR = os.environ.get("JAX_MIRROR", "/work/.mirror/jax-ml+jax/repo")

# run, in this order (the quickest first): files whose imports jxkernel answers
FILES = [
    "lax_numpy_operators_test.py",
    "lax_numpy_reducers_test.py",
    "lax_numpy_setops_test.py",
    "lax_numpy_einsum_test.py",
    "lax_numpy_vectorize_test.py",
    "lax_numpy_ufuncs_test.py",
    "polynomial_test.py",
    "lax_numpy_indexing_test.py",
    "lax_scipy_special_functions_test.py",
    "lax_autodiff_test.py",
]

# not run: each needs internals of JAX that jxkernel has no counterpart of (the import that
# fails under the alias), or hardware this machine lacks
SKIPPED = {}


def source_path(file: str) -> str:
    return f"tests/{file}"


def extract(file: str, where: str, mirror: str = MIRROR) -> str:
    """Write JAX's `tests/<file>` at TAG from the bare mirror into `where`; its path."""
    text = subprocess.run(["git", "--git-dir", mirror, "show", f"{TAG}:{source_path(file)}"],
                          check=True, capture_output=True).stdout
    path = os.path.join(where, file)
    with open(path, "wb") as f:
        f.write(text)
    return path
