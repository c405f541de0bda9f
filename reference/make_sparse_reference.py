"""Write tests/data/sparse_reference.npz from real JAX 0.10.2 (run by hand, never by the
tests):

    .venv-jax/bin/python reference/make_sparse_reference.py

For each case of tests/data/sparse_cases.py, its arrays under "<case>/<name>" (a BCOO's
fields as "<name>.data", "<name>.indices", ...), and for each of its error_cases the class
and first message line of JAX's error under "errors/<name>"."""
import os
import sys

import jax
import numpy as np
from jax.experimental import sparse

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from sparse_cases import as_numpy, cases, error_cases, error_of  # noqa: E402

arrays = {f"{case}/{name}": value
          for case, thunk in cases(jax, sparse).items()
          for name, value in as_numpy(thunk()).items()}
arrays.update({f"errors/{name}": error_of(thunk)
               for name, thunk in error_cases(jax, sparse).items()})
np.savez(os.path.join(DATA, "sparse_reference.npz"), **arrays)
print(len(arrays), "arrays")
