"""Write tests/data/lax_numpy_gaps_reference.json from real JAX 0.10.2 (run by hand, never by
the tests):

    .venv-jax/bin/python reference/make_lax_numpy_gaps_reference.py

For each case of `cases` in tests/data/lax_numpy_gaps_cases.py: what `observe` sees (the value
as JSON and the warnings given, or the exception raised), without jax_enable_x64.

Under NumPy 2.5 or later it writes lax_numpy_gaps_reference_numpy25.json instead, the answers
JAX gives there (NumPy 2.5 no longer reads 'a' as the dtype |S0, so JAX's words for text given
as a number are NumPy's); NumPy 2.5 needs Python 3.12 or later:

    PYTHON=python3.12 sh scripts/jax_venv.sh          # .venv-jax-3.12, which resolves NumPy 2.5
    .venv-jax-3.12/bin/python reference/make_lax_numpy_gaps_reference.py

Both are made on a Python before 3.13: the test adds the words 3.13 puts in Python's own
messages (an attribute set on an object without __dict__)."""
import json
import os
import sys

import jax
import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, DATA)
from lax_numpy_gaps_cases import cases, observe  # noqa: E402

assert not jax.config.jax_enable_x64
assert sys.version_info < (3, 13), "record on Python 3.11 or 3.12 (the test adds 3.13's words)"
NUMPY25 = np.lib.NumpyVersion(np.__version__) >= "2.5.0"
result = {name: observe(thunk) for name, thunk in cases(jax).items()}
name = "lax_numpy_gaps_reference_numpy25.json" if NUMPY25 else "lax_numpy_gaps_reference.json"
with open(os.path.join(DATA, name), "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"wrote tests/data/{name} (NumPy {np.__version__}, Python {sys.version.split()[0]})")
